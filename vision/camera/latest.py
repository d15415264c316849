"""The camera thread's newest frame, kept for whoever wants to look at it.

The tray watcher puts every frame it reads here (one assignment under a lock, so
the camera's read loop never waits for a viewer); the camera view and a
calibration capture take the newest one in their own threads.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np


@dataclass(frozen=True)
class Shot:
    seq: int  # counts frames put, so a viewer can tell a new frame from one it has seen
    stamp: float  # the source's timestamp
    frame: np.ndarray
    wall: float  # when it arrived (monotonic), to tell a frozen camera


class LatestFrame:
    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self.clock = clock
        self._cond = threading.Condition()
        self._shot: Shot | None = None

    def put(self, stamp: float, frame: np.ndarray) -> None:
        with self._cond:
            seq = self._shot.seq + 1 if self._shot else 1
            self._shot = Shot(seq, stamp, frame, self.clock())
            self._cond.notify_all()

    def get(self) -> Shot | None:
        return self._shot

    def wait_for(self, ok: Callable[[Shot], bool], timeout: float) -> Shot | None:
        """The first frame (newest first) that `ok` accepts, waiting up to timeout seconds; else None."""
        with self._cond:
            found = self._cond.wait_for(lambda: self._shot is not None and ok(self._shot), timeout)
            return self._shot if found else None
