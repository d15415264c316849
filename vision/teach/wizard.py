"""Teaching the dice from the phone: a calibration wizard, a worker that builds the model, and
swapping the model in use (and back) without a restart.

Every step is a method that answers at once: captures are checked on the spot (no die, a die
showing another face, dice on the empty tray: refused with the reason, nothing kept); building
runs in its own low-priority thread, off the engine's and the camera's. One wizard at a time: a
second start is refused while one is under way, and every phone sees the one under way.
"""

from __future__ import annotations

import os
import threading
import time
from collections import Counter
from typing import Any, Callable

from companion.commands import DICE_FACES
from companion.errors import CompanionError, ImageError

from .captures import DEFAULT, STEPS, DiceStore
from ..camera.latest import LatestFrame
from ..name.model import Model

SUGGESTED = {**{f: 5 for f in DICE_FACES}, "empty": 3}
SURE = 0.9  # a die read this surely as another face is not the step's face


class TeachError(CompanionError, ValueError):
    """A request the wizard cannot take now (the message says why and what would work)."""


class TeachBusy(TeachError):
    """Another calibration is under way."""


def _step_text(step: str) -> str:
    if step == "empty":
        return "Take every die out of the tray and tap Capture."
    return f"Put all five dice in the tray, {step} up, and tap Capture. Move them around between captures."


class Teacher:
    """store: the DiceStore; latest: the camera's newest frame; reader(): the DiceReader in use;
    use(model): puts a model in use (the tray watcher's reader); teaching(bool): the tray watcher
    stops taking the tray for rolls while a wizard runs."""

    def __init__(self, store: DiceStore, latest: LatestFrame, reader: Callable[[], Any],
                 use: Callable[[Model], None], *, teaching: Callable[[bool], None] = lambda on: None,
                 suggested: dict | None = None, calibrate_options: dict | None = None,
                 stale_s: float = 5.0, clock: Callable[[], float] = time.time):
        self.store, self.latest, self.reader, self._use, self._teaching = store, latest, reader, use, teaching
        self.suggested = {**SUGGESTED, **(suggested or {})}
        self.calibrate_options = calibrate_options or {}
        self.stale_s, self.clock = stale_s, clock
        self._lock = threading.RLock()
        self._worker: threading.Thread | None = None
        self._built = threading.Event()
        self._built.set()
        self._last: dict | None = None  # the last capture's answer, for every phone to see
        self._reports: dict = {}  # (model, file time) -> its report: phones ask every few seconds
        self.learned: Callable[[], dict | None] = lambda: None  # the last learning from corrections (relearn.py)
        self._teaching((self.store.meta() or {}).get("kind") == "wizard")  # a wizard left under way before a restart

    # --- what every phone sees ---------------------------------------------------------------------

    def status(self) -> dict:
        with self._lock:
            meta = self.store.meta()
            index = self.store.index()
            out = {"model": self._describe(self.store.current()),
                   "previous": self._describe(index["previous"]) if index.get("previous") else None,
                   "corrections": self.store.pending_dice(), "learned": self.learned(), "wizard": None}
            if meta is not None:
                counts = self.store.counts()
                out["wizard"] = {
                    "kind": meta.get("kind", "wizard"), "started": meta.get("started"),
                    "steps": [{"step": s, "captures": counts[s], "suggested": self.suggested[s], "text": _step_text(s)}
                              for s in STEPS],
                    "building": not self._built.is_set(), "report": meta.get("report"), "error": meta.get("error"),
                    "last": self._last}
            return out

    def _describe(self, which) -> dict:
        if which in (None, DEFAULT):
            return {"name": DEFAULT, "text": "the shipped model (not taught on this table)"}
        path = self.store.model_path(which)
        stamp = path.stat().st_mtime if path.exists() else None
        if (which, stamp) not in self._reports:
            try:
                self._reports[(which, stamp)] = self.store.load(which).report or {}
            except CompanionError:
                self._reports[(which, stamp)] = {}
        report = self._reports[(which, stamp)]
        when = time.strftime("%d %b %H:%M", time.localtime(stamp)) if stamp is not None else "?"
        accuracy = report.get("accuracy")
        return {"name": which, "text": f"taught on this table ({when})" +
                (f", {100 * accuracy:.0f}% of its photos read right" if accuracy is not None else ""),
                "when": when, "accuracy": accuracy, "report": report or None}

    # --- the wizard -------------------------------------------------------------------------------------

    def start(self) -> dict:
        with self._lock:
            self._refuse_if_running("start another")
            self._refuse_while_building()
            self.store.start_draft({"kind": "wizard", "started": self.clock()})
            self._last = None
            self._teaching(True)
            return self.status()

    def _refuse_if_running(self, doing: str) -> None:
        meta = self.store.meta()
        if meta is not None:
            since = time.strftime("%H:%M", time.localtime(meta.get("started") or self.clock()))
            raise TeachBusy(f"cannot {doing}: a calibration is already under way (started {since}, maybe on "
                            "another phone); go on with it here, or cancel it first")

    def _refuse_while_building(self) -> None:
        if not self._built.is_set():
            raise TeachBusy("a cancelled calibration is still being built; try again in a moment")

    def _draft(self) -> dict:
        meta = self.store.meta()
        if meta is None:
            raise TeachError("no calibration is under way: tap Teach the dice (POST /api/calibration/start) first")
        return meta

    def capture(self, step: str) -> dict:
        if step not in STEPS:
            raise TeachError(f"unknown step {step!r}; steps are {', '.join(STEPS)}")
        with self._lock:
            meta = self._draft()
            if not self._built.is_set() or meta.get("report"):
                raise TeachError("the model is built already: use it, or cancel and start again")
            shot = self.latest.get()
            if shot is None or time.monotonic() - shot.wall > self.stale_s:
                raise TeachError("the camera is offline: no picture to capture")
            reader = self.reader()
            reading = reader.read(shot.frame) if step == "empty" else reader.read_any_tray(shot.frame)
            n = len(reading.dice)
            refusal = self._refusal(step, reading)
            if refusal is None:
                self.store.add_capture(step, shot.frame)
            counts = self.store.counts()
            self._last = {"step": step, "accepted": refusal is None, "dice": n, "reason": refusal[0] if refusal else "",
                          "captures": counts[step], "faces": reading.faces}
            if refusal:  # for the page to say it in the phone's language
                self._last.update(code=refusal[1], args=refusal[2])
            return dict(self._last)

    @staticmethod
    def _refusal(step: str, reading) -> tuple[str, str, dict] | None:
        """(reason, code, args) when the capture cannot teach the step, else None."""
        n = len(reading.dice)
        if reading.hand:
            return "a hand is over the tray: take it away and capture again", "hand", {}
        if step == "empty":
            return (f"{n} {'die is' if n == 1 else 'dice are'} in the tray: the empty-tray step needs the tray "
                    "empty", "not_empty", {"n": n}) if n else None
        if not n:
            return f"no die found: put the dice in the tray, {step} up", "no_die", {"face": step}
        others = Counter(d.face for d in reading.dice if d.face in DICE_FACES and d.face != step
                         and d.confidence >= SURE)
        if others:
            seen = ", ".join(f"{k} {f}" for f, k in others.most_common())
            return (f"mixed faces: {seen} among them; every die must show {step} up", "mixed",
                    {"face": step, "others": [{"face": f, "n": k} for f, k in others.most_common()]})
        return None

    def finish(self, wait_s: float = 120.0) -> dict:
        """Build the model from the draft in a worker thread; answers its report (or, after wait_s,
        the status with building true)."""
        with self._lock:
            meta = self._draft()
            if meta.get("report"):
                return meta["report"]
            counts = self.store.counts()
            missing = [s for s in STEPS if not counts[s]]
            if missing:
                raise TeachError("no captures yet of " + ", ".join("the empty tray" if s == "empty" else s
                                                                  for s in missing) + ": capture them first")
            if self._built.is_set():
                meta.pop("error", None)
                self.store.write_meta(meta)
                self._built.clear()
                self._worker = threading.Thread(target=self._build, name="calibrate", daemon=True)
                self._worker.start()
        self._built.wait(wait_s)
        status = self.status()["wizard"] or {}
        if status.get("error"):
            raise TeachError(status["error"])
        return status.get("report") or {"building": True}

    def _build(self) -> None:
        from .calibrate import calibrate  # heavy: only when a model is built

        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)  # this thread only (Linux)
        except (AttributeError, OSError):
            pass
        started = (self.store.meta() or {}).get("started")  # which wizard this build is for
        result: dict = {}
        model = None
        try:
            model = calibrate(self.store.draft, **self.calibrate_options)
            result["report"] = model.report
        except (ImageError, CompanionError, OSError) as exc:
            result["error"] = f"the model could not be built: {exc}"
        except Exception as exc:  # a bug must not leave the wizard building forever
            result["error"] = f"the model could not be built (internal error: {exc!r})"
        with self._lock:
            meta = self.store.meta()
            if meta is not None and meta.get("started") == started:  # else cancelled meanwhile: thrown away
                if model is not None:
                    self.store.save_draft_model(model)
                meta.update(result)
                self.store.write_meta(meta)
            self._built.set()

    def use(self) -> dict:
        with self._lock:
            meta = self._draft()
            if not meta.get("report") or not self.store.draft_model.exists():
                raise TeachError("the model is not built yet: finish the calibration first")
            used = meta.get("corrections") or []
            n = self.store.adopt_draft()
            self.store.drop_corrections(used)
            self._use(self.store.load(n))
            self._last = None
            self._teaching(False)
            return self.status()

    def revert(self) -> dict:
        with self._lock:
            try:
                which = self.store.revert()
            except LookupError as exc:
                raise TeachError(str(exc)) from None
            self._use(self.store.load(which))
            return self.status()

    def cancel(self) -> dict:
        with self._lock:
            self._draft()
            self.store.drop_draft()  # a build under way finds no draft and throws its model away
            self._last = None
            self._teaching(False)
            return self.status()

    def forget(self) -> dict:
        """Drop the corrected dice waiting (one wrongly entered roll must not block learning for good)."""
        with self._lock:
            if (self.store.meta() or {}).get("kind") == "corrections":
                raise TeachError("the corrected dice are being learned: use or discard that model first")
            self.store.drop_corrections([ident for ident, _ in self.store.pending()])
            return self.status()

    def learn(self, wait_s: float = 120.0) -> dict:
        """Recalibrate from the photos of the model in use plus the corrected dice waiting."""
        with self._lock:
            self._refuse_if_running("learn from corrections")
            self._refuse_while_building()
            if not self.store.pending_dice():
                raise TeachError("no corrected dice are waiting")
            current = self.store.current()
            if current == DEFAULT:
                raise TeachError("corrections are added to a calibration of this table: teach the dice first "
                                 "(the corrected dice keep waiting)")
            self.store.start_draft({"kind": "corrections", "started": self.clock()}, self.store.photos_dir(current))
            used = self.store.compose_corrections(self.store.draft)
            if not used:
                self.store.drop_draft()
                raise TeachError("the corrected dice were taken with another camera set-up; teach the dice again")
            meta = self.store.meta()
            meta["corrections"] = used
            self.store.write_meta(meta)
        return self.finish(wait_s)
