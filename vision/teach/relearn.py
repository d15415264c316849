"""Corrections teach: after a corrected roll, the next model is learned in the background, and used only
when it reads the corrected rolls at least as well as the model in use.

Every roll a player corrects is a labelled example of this table's dice under this table's light
(captures.DiceStore.keep_correction keeps its dice). Learning from them is the normal path, not a
button: once a correction is kept, a worker thread builds a model from the photos of the model in
use plus the corrected dice (the wizard's own "learn from corrections", wizard.Teacher.learn), then
reads every kept corrected roll with both models. The new one is switched in only when it reads
them at least as well; otherwise the model in use stays, and the corrections keep waiting for the
next try. Every phone sees what happened ("learned from 12 corrected rolls: 97 % -> 99.6 %").

One job at a time, at a low priority (the build's thread lowers its own), and never while a
teaching wizard is open on some phone: a correction made meanwhile is learned with the next one.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Callable

from companion.commands import DICE_FACES
from companion.errors import CompanionError

from ..images import read_image
from ..name.model import Model
from ..name.modelfile import load_model
from ..reader import DiceReader
from .captures import DEFAULT

logger = logging.getLogger(__name__)

CORRECTED = "corrected-*.png"  # the corrected rolls' photos, as compose_corrections names them


def kept_rolls(folder: Path) -> list[tuple[Path, str]]:
    """(photo, face) of every corrected roll kept in a model's photos folder: one photo per face per roll."""
    return [(p, face) for face in DICE_FACES for p in sorted((Path(folder) / face).glob(CORRECTED))]


def read_as_well(models: list[Model], rolls: list[tuple[Path, str]]) -> tuple[list[float], int]:
    """Each model's share of the kept rolls' dice read as their face, and how many dice that is. A photo
    holds as many dice as the model that finds most finds there: a model that misses a die loses it."""
    readers = [DiceReader(m) for m in models]
    right, total = [0] * len(models), 0
    for path, face in rolls:
        try:
            frame = read_image(path)
        except CompanionError:
            continue  # a photo lost to a full card is not the model's fault
        faces = [r.read(frame).faces for r in readers]
        total += max(len(f) for f in faces)
        for k, f in enumerate(faces):
            right[k] += f.count(face)
    return [r / total if total else 0.0 for r in right], total


class Relearner:
    """teacher: the wizard.Teacher whose learn/use/cancel build and switch models. clock: when a job ran."""

    def __init__(self, teacher, clock: Callable[[], float] = time.time):
        self.teacher, self.clock = teacher, clock
        self._lock = threading.Lock()
        self._wanted = threading.Event()  # a correction arrived since the last job started
        self._thread: threading.Thread | None = None
        self.last: dict | None = None  # what every phone sees of the last job (Teacher.status()["learned"])
        teacher.learned = lambda: self.last

    def kept(self) -> None:
        """A corrected roll was kept: learn from it soon (now, or after the job under way)."""
        self._wanted.set()
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="relearn", daemon=True)
                self._thread.start()

    def wait(self, timeout: float | None = None) -> bool:
        """Until the job under way (if any) ends; True when none runs then (for tests and shutdown)."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
            return not thread.is_alive()
        return True

    def _run(self) -> None:
        while self._wanted.is_set():
            self._wanted.clear()
            try:
                self.last = self.once() or self.last
            except Exception as exc:  # a bug must never stop the game; the phones are told
                logger.exception("learning from corrected rolls failed")
                self.last = {"at": self.clock(), "error": f"learning from corrected rolls failed: {exc}"}

    def once(self) -> dict | None:
        """Learn from the corrections waiting and switch only if no worse. None: nothing to do now."""
        store = self.teacher.store
        if not store.pending_dice() or store.meta() is not None or store.current() == DEFAULT:
            # nothing waits, a wizard is open (the next correction tries again), or nothing was taught on
            # this table yet: corrections are added to a calibration's photos (the page says so)
            return None
        rolls = len(store.pending())
        self.last = {"at": self.clock(), "learning": True, "rolls": rolls}
        try:
            self.teacher.learn(wait_s=None)
        except CompanionError as exc:  # refused, no room on the card, or the build failed: said, nothing kept open
            if (store.meta() or {}).get("kind") == "corrections":
                self.teacher.cancel()  # the corrected dice keep waiting for the next try
            return {"at": self.clock(), "rolls": rolls, "error": str(exc)}
        current, candidate = store.load(store.current()), load_model(store.draft_model)
        (before, after), dice = read_as_well([current, candidate], kept_rolls(store.draft))
        if after >= before:
            self.teacher.use()
            adopted = True
        else:
            self.teacher.cancel()  # the corrected dice keep waiting for the next try
            adopted = False
        return {"at": self.clock(), "rolls": rolls, "dice": dice, "before": round(before, 4),
                "after": round(after, 4), "adopted": adopted}


def learned_words(last: dict | None) -> str | None:
    """What the phones say of the last learning, in English (the page translates its own copy)."""
    if not last:
        return None
    if last.get("learning"):
        return f"learning from {last['rolls']} corrected rolls…"
    if last.get("error"):
        return last["error"]
    a, b = 100 * last["before"], 100 * last["after"]
    if last["adopted"]:
        return f"learned from {last['rolls']} corrected rolls: {a:.1f} % -> {b:.1f} %"
    return (f"kept the model in use: it reads the {last['rolls']} corrected rolls {a:.1f} % right, "
            f"the model learned from them {b:.1f} %")
