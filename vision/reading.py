"""What the dice reader says of one frame: a Reading of Dice, each die's face, place and sureness.

The settler, the tray watcher, the phones' camera view and the pip reader's adapter pass Readings
on; they need this module, not the reader and its networks (reader.py makes Readings).
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Die", "Reading"]


@dataclass(frozen=True)
class Die:
    face: str  # one of DICE_FACES or "unknown"
    x: int
    y: int
    confidence: float
    box: tuple[int, int, int, int]  # x, y, width, height
    # The two likeliest faces ("unknown" never one of them) with their probabilities, likelier first, also
    # for a die read `unknown`: one between honey (0.48) and zzz (0.41) can be asked about (vision/doubt.py).
    # Not compared: the same die read is the same die whatever its runner-up.
    likeliest: tuple[tuple[str, float], ...] = field(default=(), compare=False)

    @property
    def second(self) -> str | None:
        """The runner-up face (None when the reader gave none)."""
        return self.likeliest[1][0] if len(self.likeliest) > 1 else None

    @property
    def second_confidence(self) -> float:
        return self.likeliest[1][1] if len(self.likeliest) > 1 else 0.0

    def to_dict(self) -> dict:
        return {"face": self.face, "x": self.x, "y": self.y, "confidence": round(self.confidence, 3)}


@dataclass
class Reading:
    dice: list[Die] = field(default_factory=list)
    hand: bool = False
    timestamp: float | None = None
    check: str | None = None  # e.g. "the tray shows 4 dice where 5 were thrown": the table should look
    moved: float = 0.0  # the dice looked this many times their calibrated size and were read at it (the camera moved?)
    # the dice measured this many times their calibrated size, whether read at it or not (0.0: they measure
    # it, or the model measures each frame). Untold, dice that look smaller are read at their own size
    # (smaller_too): smaller is said only when they outnumber the dice of the taught size, or none was
    measured: float = 0.0

    @property
    def faces(self) -> list[str]:
        return [d.face for d in self.dice]

    def to_dict(self) -> dict:
        out = {"dice": [d.to_dict() for d in self.dice]}
        if self.hand:
            out["hand"] = True
        if self.timestamp is not None:
            out["timestamp"] = self.timestamp
        if self.check is not None:
            out["check"] = self.check
        return out
