"""Settling: from a stream of frames, one reading per roll, taken once the dice lie still.

Motion is a change between consecutive small, blurred grey frames; a hand is a
large skin-coloured region. Any motion or hand arms the settler (a new roll may
be under way); once the frames have stayed still for `still_seconds` of frame
time, the dice are read once and the settler disarms until the next motion. So
a re-roll landing on the same faces still gives a new reading, and dice lying
untouched never give a second one. Time comes only from the frame timestamps.
"""

from __future__ import annotations

import cv2
import numpy as np

from .find.detect import SMALL, find_hand, tray_level
from .images import check_frame
from .reader import DiceReader
from .reading import Reading

STATES = ("empty", "moving", "still")


class Settler:
    def __init__(self, still_seconds: float = 0.3, reader: DiceReader | None = None, *,
                 pixel_change: int = 18, moving_fraction: float = 0.0015):
        self.still_seconds = still_seconds
        self.reader = reader or DiceReader()
        self.pixel_change = pixel_change  # grey levels: camera noise stays below once blurred
        self.moving_fraction = moving_fraction  # of the small frame: a sliding die changes far more
        self.state = "empty"
        self.hand = False
        self.last_reading: Reading | None = None
        self._prev: np.ndarray | None = None
        self._since: float | None = None  # frame time of the last motion
        self._armed = True  # dice already lying there when we start deserve one reading

    def reset(self) -> None:
        self._prev, self._since, self._armed = None, None, True
        self.state, self.hand = "empty", False

    def _grey(self, frame: np.ndarray) -> np.ndarray:
        small = cv2.resize(frame, SMALL, interpolation=cv2.INTER_AREA)
        return cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (5, 5), 0), small

    def moving(self, grey: np.ndarray) -> bool:
        if self._prev is None or self._prev.shape != grey.shape:
            return False
        changed = cv2.absdiff(grey, self._prev) > self.pixel_change
        return bool(changed.mean() > self.moving_fraction)

    def feed(self, timestamp: float, frame: np.ndarray, expected=None) -> Reading | None:
        """Take one frame; returns a Reading exactly once per settled roll, else None. expected: how
        many dice were thrown, when the game knows (see DiceReader.read)."""
        frame = check_frame(frame)
        grey, small = self._grey(frame)
        _, tray = tray_level(frame, small)
        self.hand, _ = find_hand(small, tray)
        moved = self.moving(grey)
        self._prev = grey
        if self._since is None:
            self._since = timestamp
        if moved or self.hand:
            self._since, self._armed = timestamp, True
            self.state = "moving"
            return None
        # a hair's margin: 30 fps timestamps summed in floating point miss 0.3 s by 1e-16
        if timestamp - self._since + 1e-6 < self.still_seconds:
            return None
        if not self._armed:
            return None
        self._armed = False
        reading = self.reader.read(frame, timestamp, expected)
        if reading.hand:
            self._armed = True
            return None
        self.state = "still" if reading.dice else "empty"
        if not reading.dice:
            return None
        self.last_reading = reading
        return reading
