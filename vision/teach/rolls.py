"""Whole rolls with their dice named: corrected rolls as calibration photos.

    DIR/rolls/labels.json   {"roll-1.jpg": [{"x": 212, "y": 140, "face": "honey"}, ...], ...}
    DIR/rolls/roll-1.jpg    a photo of a whole roll, from the camera the empty/ photos came from

A roll a player corrected is the best example there is of this table's dice under this table's
light. Calibration finds the roll's dice as the reader will (at the size and darkness the face
photos taught), pairs each labelled die with the die found under it, and learns that die as an
example of its labelled face. The roll does not teach the tray, the die size or how dark the dice
look: the empty tray and the face photos do, so a roll full of other things cannot move them.
A labelled die the reader does not find (touching another, covered) teaches nothing.

Positions are the photo's own pixels (x, y of the die's centre). A label is checked before anything
is learned: the file must be there, the face a ZomBee face, and the position on a die, which is
where the roll differs from the empty tray. A bad label stops calibration with the file and the
entry named, and no model is written (CalibrationError, exit 2 from the CLI).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from companion.commands import DICE_FACES

from ..images import read_image
from .photo_checks import CalibrationError

FOLDER = "rolls"
LABELS = "labels.json"
CHANGED = 40  # grey levels by which a die's pixels differ from the empty tray's (exposure matched first)
ON_DIE = 0.25  # of a die's side: how far from changed pixels a label may sit and still be on a die
REACH = 0.6  # of a die's side: how far a found die's centre may be from a label to be that die


@dataclass(frozen=True)
class LabelledDie:
    x: float
    y: float
    face: str


@dataclass(frozen=True)
class Roll:
    path: Path
    dice: tuple[LabelledDie, ...]


def read_labels(folder: Path) -> list[Roll]:
    """The labelled rolls of folder/rolls (none without that folder), every entry checked but its position."""
    where = Path(folder) / FOLDER
    if not where.is_dir():
        return []
    labels = where / LABELS
    if not labels.is_file() and not any(p.is_file() for p in where.iterdir()):
        return []  # an empty rolls/ folder: none corrected yet
    if not labels.is_file():
        raise CalibrationError(f"{str(labels)!r} is missing: {FOLDER}/ holds photos of whole rolls and {LABELS} "
                               f"naming their dice ({{\"photo.jpg\": [{{\"x\": .., \"y\": .., \"face\": ..}}]}})")
    try:
        data = json.loads(labels.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise CalibrationError(f"{str(labels)!r} is not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise CalibrationError(f"{str(labels)!r} must map each photo's file name to its dice, not hold a "
                               f"{type(data).__name__}")
    rolls = []
    for name, dice in data.items():
        path = where / name
        if Path(name).name != name or not path.is_file():
            raise CalibrationError(f"{str(labels)!r}: entry {name!r} names no photo in {str(where)!r}")
        if not isinstance(dice, list) or not dice:
            raise CalibrationError(f"{str(labels)!r}: entry {name!r} must be a list of its dice, "
                                   f"[{{\"x\": .., \"y\": .., \"face\": ..}}]")
        out = []
        for k, die in enumerate(dice, 1):
            what = f"{str(labels)!r}: entry {name!r}, die {k}"
            if not isinstance(die, dict) or not all(isinstance(die.get(c), (int, float)) and not
                                                    isinstance(die.get(c), bool) for c in ("x", "y")):
                raise CalibrationError(f"{what}: needs numbers x and y (the die's centre in pixels), got {die!r}")
            if die.get("face") not in DICE_FACES:
                raise CalibrationError(f"{what}: {die.get('face')!r} is not a ZomBee face ({', '.join(DICE_FACES)})")
            out.append(LabelledDie(float(die["x"]), float(die["y"]), die["face"]))
        rolls.append(Roll(path, tuple(out)))
    return rolls


def _changed(roll: np.ndarray, plate: np.ndarray) -> np.ndarray:
    """Where the roll differs from the empty tray (uint8 mask), the plate's exposure matched to the roll's."""
    gain = np.median(roll.reshape(-1, 3), axis=0) / np.maximum(np.median(plate.reshape(-1, 3), axis=0), 1)
    diff = np.abs(roll.astype(np.float32) - plate.astype(np.float32) * gain).max(axis=2)
    mask = cv2.morphologyEx((diff > CHANGED).astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    # a die's white pips on a white tray do not differ from it: holes in the die, filled, or a lone die
    # showing one pip in the middle, labelled at its centre, was refused as "on no die"
    outlines, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    return cv2.drawContours(mask, outlines, -1, 1, thickness=cv2.FILLED)


def _side(mask: np.ndarray, dice: tuple[LabelledDie, ...]) -> float:
    """The die's side in pixels: the median size of the changed blobs that hold exactly one label."""
    n, blobs, stats, _ = cv2.connectedComponentsWithStats(mask)
    h, w = mask.shape
    holds = {}
    for d in dice:
        b = blobs[min(int(d.y), h - 1), min(int(d.x), w - 1)]
        if b:
            holds[b] = holds.get(b, 0) + 1
    sizes = [max(stats[b, cv2.CC_STAT_WIDTH], stats[b, cv2.CC_STAT_HEIGHT]) for b, k in holds.items() if k == 1]
    if sizes:
        return float(np.median(sizes))
    # every die touches another: the nearest labels apart
    pts = np.array([(d.x, d.y) for d in dice])
    if len(pts) < 2:
        return 0.0
    gaps = np.linalg.norm(pts[:, None] - pts[None], axis=2) + np.eye(len(pts)) * 1e9
    return float(gaps.min())


def check_rolls(rolls: list[Roll], plate: np.ndarray) -> None:
    """Each roll from the empty tray's camera (plate) and each label on a die: where the roll differs
    from the empty tray. Raises CalibrationError naming the file and entry."""
    for roll in rolls:
        img = read_image(roll.path)
        if img.shape != plate.shape:
            raise CalibrationError(f"{str(roll.path)!r} is {img.shape[1]}x{img.shape[0]} but the empty tray's photo "
                                   f"is {plate.shape[1]}x{plate.shape[0]}: rolls must come from the same camera")
        mask = _changed(img, plate)
        side = _side(mask, roll.dice)
        h, w = mask.shape
        near = cv2.dilate(mask, np.ones((3, 3), np.uint8), iterations=max(1, int(ON_DIE * side)))
        for k, d in enumerate(roll.dice, 1):
            if not (0 <= d.x < w and 0 <= d.y < h) or not near[int(d.y), int(d.x)]:
                raise CalibrationError(f"{str(roll.path.parent / LABELS)!r}: entry {roll.path.name!r}, die {k} at "
                                       f"({d.x:.0f}, {d.y:.0f}) is on no die (the photo shows the empty tray there)")


def paired(found: list, roll: Roll, scale: float, side: float) -> list[tuple[object, str]]:
    """(die found, labelled face) for each labelled die of roll with a found die under it: the nearest
    within REACH of a side, each found die taken once. scale: from the photo's pixels to found's."""
    out, taken = [], set()
    for d in roll.dice:
        x, y = d.x * scale, d.y * scale
        near = [(float((b.x - x) ** 2 + (b.y - y) ** 2), i) for i, b in enumerate(found) if i not in taken]
        if near:
            dist, i = min(near)
            if dist <= (REACH * side) ** 2:
                taken.add(i)
                out.append((found[i], d.face))
    return out
