"""Corrections teach: when a phone corrects a roll the camera read, the dice of that frame are kept
with the corrected faces, and learned in the background (vision/teach/relearn.py): the new model is
used only when it reads the corrected rolls at least as well, and every phone is told either way.

A correction is a roll entered on a phone (a) after the camera asked to check the dice, or (b) after
an undo of the camera's own roll. The frame is the one the camera read; its dice are matched to the
corrected faces only when that is unambiguous (vision.teach.captures.match_corrections).
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from companion.notices import DiceStatus, NoticeKind

logger = logging.getLogger(__name__)


class CorrectionWatcher:
    def __init__(self, table: Any, watcher: Any, store: Any, on_kept=lambda: None):
        self.table, self.watcher, self.store, self.on_kept = table, watcher, store, on_kept
        self.kept = 0  # dice kept since start
        self._doubted = None  # (frame, reading) the table was asked to check, or whose roll was undone
        self._camera_roll = None  # (frame, reading) of the last roll the camera sent
        self._sub = None
        self._thread: threading.Thread | None = None

    def start(self) -> "CorrectionWatcher":
        self._sub = self.table.subscribe()
        self._thread = threading.Thread(target=self._run, name="corrections", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._sub is not None:
            self._sub.end()
        if self._thread is not None:
            self._thread.join(5)

    def _run(self) -> None:
        while True:
            message = self._sub.get()
            if message is None:
                return
            try:
                self.on_message(message)
            except Exception:  # keeping a correction must never break anything else
                logger.exception("keeping a corrected roll failed")

    def _last_read(self, faces) -> tuple | None:
        last = self.watcher.last_read
        if last is not None and list(last[1].faces) == list(faces or []):
            return last
        return None

    def on_message(self, message: dict) -> None:
        kind = message.get("type")
        if kind == "notice" and message.get("kind") == NoticeKind.DICE and message.get("status") == DiceStatus.CHECK:
            self._doubted = self._last_read(message.get("seen"))
            return
        if kind != "state" or message.get("initial"):
            return
        command = message.get("command") or {}
        source = message.get("source")
        cmd = command.get("cmd")
        if cmd == "roll" and source == "camera":
            last = self._last_read(command.get("faces"))
            self._camera_roll = last
            self._doubted = None
            return
        if cmd == "undo":
            if self._camera_roll:  # the camera's roll taken back at once: the next roll corrects it
                self._doubted = self._camera_roll
            self._camera_roll = None
            return
        if cmd == "roll" and source in ("web", "cli") and self._doubted is not None:
            frame, reading = self._doubted
            self._doubted = None
            self.keep(frame, reading, list(command.get("faces") or []))
            return
        self._doubted = self._camera_roll = None  # the game went on: nothing left to correct

    def keep(self, frame, reading, faces: list[str]) -> int:
        from vision.teach.captures import match_corrections

        matched = match_corrections(reading.faces, faces)
        if matched is None:
            return 0
        n = self.store.keep_correction(frame, reading.dice, matched)
        self.kept += n
        if n:
            self.on_kept()  # learned in the background, switched in only if no worse (vision/teach/relearn.py)
        return n
