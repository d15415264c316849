"""The pip reader as the tray watcher asks it: one frame in, a Reading of the dice out.

The settler (vision/settle.py) reads a settled frame with `reader.read(frame, timestamp, expected)`
and the tray watcher (vision/tray.py) takes each die's `value` in a Zombie Zoo game; this adapter
gives read_d6's dice those manners, so the Zoo's die goes through the same settling as ZomBee's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .reading import Reading
from .pips import UNKNOWN, read_d6


@dataclass(frozen=True)
class PipRead:
    """One pip die as the table sees it: where it lies, its value (1-6 or "unknown") and how sure."""
    x: int
    y: int
    value: int | str
    confidence: float
    box: tuple[int, int, int, int]  # x, y, width, height, as vision.reading.Die's

    @property
    def face(self) -> str:
        """The value as the words of a roll ("4", or "unknown"): what a phone shows of a pip die."""
        return UNKNOWN if self.value == UNKNOWN else str(self.value)

    def to_dict(self) -> dict:
        return {"x": self.x, "y": self.y, "value": self.value, "confidence": round(self.confidence, 3)}


class PipReader:
    """read(frame, timestamp, expected) -> Reading of pip dice (expected is not needed: each die is found
    on its own)."""

    def read(self, frame: np.ndarray, timestamp: float | None = None, expected=None) -> Reading:
        dice = [PipRead(int(round(d.x)), int(round(d.y)), d.value, d.confidence,
                        (int(d.box[0]), int(d.box[1]), int(d.box[2] - d.box[0]), int(d.box[3] - d.box[1])))
                for d in read_d6(frame)]
        return Reading(dice, timestamp=timestamp)
