"""Reading standard six-sided pip dice of any colour: where each die lies and the value it shows.

`read_d6(frame)` needs no calibration: a die is found by its outline, its body and its square shape,
and read by its pips' count and layout. A die it cannot read (cocked, covered, blurred, cut by the
photo's edge) is "unknown" at its place, never a guessed value.
"""

from __future__ import annotations

from dataclasses import dataclass

from vision.images import check_frame

from .count import UNKNOWN, patch, pips, read_square
from .find import spots

__all__ = ["PipDie", "UNKNOWN", "read_d6"]


@dataclass(frozen=True)
class PipDie:
    x: float
    y: float
    value: int | str  # 1-6, or UNKNOWN
    confidence: float
    box: tuple[float, float, float, float]  # x0, y0, x1, y1 in the photo's pixels

    def to_dict(self) -> dict:
        return {"x": round(self.x, 1), "y": round(self.y, 1), "value": self.value,
                "confidence": round(self.confidence, 3), "box": [round(v, 1) for v in self.box]}


def read_d6(frame) -> list[PipDie]:
    """Every pip die in a BGR photo, top to bottom then left to right."""
    frame = check_frame(frame)
    out = []
    for spot in spots(frame):
        square = patch(frame, spot)
        value, conf = (UNKNOWN, 0.0) if square is None else read_square(square)
        if value == UNKNOWN and not spot.square and square is not None and not pips(square)[0]:
            continue  # neither a die's shape nor a pip: a tray's mark, a hole, a shadow
        half = spot.side / 2
        out.append(PipDie(spot.x, spot.y, value, conf, (spot.x - half, spot.y - half, spot.x + half, spot.y + half)))
    return sorted(out, key=lambda d: (round(d.y), d.x))
