"""Whole rolls with their dice named: corrected rolls as calibration photos.

    DIR/rolls/labels.json   {"roll-1.jpg": [{"x": 212, "y": 140, "face": "honey"}, ...], ...}
    DIR/rolls/roll-1.jpg    a photo of a whole roll, from the camera the empty/ photos came from

A roll a player corrected is the best example there is of this table's dice under this table's
light, but it shows several faces at once, and calibration learns each face from photos of that
face alone. So each labelled die is cut out of its roll (with a margin for its rounded edge) and
laid where it lay onto the empty tray: one photo per face per roll, as the phone's corrections are
(captures.DiceStore.compose_corrections). A die is the patch where the roll differs from the empty
tray under its label; a patch under two labels is dice touching and is left out, because its cut
would teach part of the neighbour as well.

Positions are the photo's own pixels (x, y of the die's centre). A label is checked before anything
is learned: the file must be there, the face a ZomBee face, and the position on a die, which is
where the roll differs from the empty tray. A bad label stops calibration with the file and the
entry named, and no model is written (CalibrationError, exit 2 from the CLI).
"""

from __future__ import annotations

import json
import os
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from companion.commands import DICE_FACES

from ..images import read_image
from .photo_checks import CalibrationError, photos

FOLDER = "rolls"
LABELS = "labels.json"
MARGIN = 0.1  # of a die's side grown round its patch: its rounded edge and shadow, not a neighbour
CHANGED = 40  # grey levels by which a die's pixels differ from the empty tray's (exposure matched first)
ON_DIE = 0.25  # of a die's side: how far from changed pixels a label may sit and still be on a die


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
    mask = (diff > CHANGED).astype(np.uint8)
    return cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))


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


def _blob_near(blobs: np.ndarray, d: LabelledDie, reach: int) -> int:
    """The changed patch most of the pixels round a label belong to (a pip may match the tray)."""
    x, y = int(d.x), int(d.y)
    window = blobs[max(y - reach, 0):y + reach + 1, max(x - reach, 0):x + reach + 1]
    ids, counts = np.unique(window[window > 0], return_counts=True)
    return int(ids[counts.argmax()]) if len(ids) else 0


def composed(roll: Roll, plate: np.ndarray) -> dict[str, np.ndarray]:
    """One picture per face of roll: its lone dice of that face laid onto the empty tray plate."""
    img = read_image(roll.path)
    if img.shape != plate.shape:
        raise CalibrationError(f"{str(roll.path)!r} is {img.shape[1]}x{img.shape[0]} but the empty tray's photo is "
                               f"{plate.shape[1]}x{plate.shape[0]}: rolls must come from the same camera")
    mask = _changed(img, plate)
    side = _side(mask, roll.dice)
    h, w = mask.shape
    near = cv2.dilate(mask, np.ones((3, 3), np.uint8), iterations=max(1, int(ON_DIE * side)))
    for k, d in enumerate(roll.dice, 1):
        if not (0 <= d.x < w and 0 <= d.y < h) or not near[int(d.y), int(d.x)]:
            raise CalibrationError(f"{str(roll.path.parent / LABELS)!r}: entry {roll.path.name!r}, die {k} at "
                                   f"({d.x:.0f}, {d.y:.0f}) is on no die (the photo shows the empty tray there)")
    # each die is the changed patch under its label, grown by a margin for its rounded edge; a patch
    # under two labels is dice touching, left out
    _, blobs, _, _ = cv2.connectedComponentsWithStats(mask)
    under = [_blob_near(blobs, d, max(1, int(ON_DIE * side))) for d in roll.dice]
    grow = np.ones((3, 3), np.uint8)
    out: dict[str, np.ndarray] = {}
    for d, blob in zip(roll.dice, under):
        if under.count(blob) > 1:
            continue
        region = cv2.dilate((blobs == blob).astype(np.uint8), grow, iterations=max(1, int(MARGIN * side))) > 0
        canvas = out.setdefault(d.face, plate.copy())
        canvas[region] = img[region]
    return out


@contextmanager
def with_rolls(folder):
    """folder itself when it holds no rolls/, else a temporary folder that holds its photos (linked, not
    copied) and each labelled roll as one photo per face (composed). Checked first: a bad label raises
    before anything is learned."""
    folder = Path(folder)
    rolls = read_labels(folder)
    if not rolls:
        yield folder
        return
    empties = photos(folder / "empty")
    if not empties:
        raise CalibrationError(f"{str(folder / 'empty')!r} holds no photo: the rolls' dice are laid onto the "
                               f"empty tray, so take one first")
    plate = read_image(empties[0])
    pictures = [(roll, composed(roll, plate)) for roll in rolls]  # every label checked before a file is written
    with tempfile.TemporaryDirectory(prefix="calibrate-") as tmp:
        tmp = Path(tmp)
        for sub in ("empty",) + DICE_FACES:
            (tmp / sub).mkdir()
            for p in photos(folder / sub) if (folder / sub).is_dir() else []:
                os.symlink(p.resolve(), tmp / sub / p.name)
        for roll, by_face in pictures:
            for face, canvas in by_face.items():
                name = tmp / face / f"{FOLDER}-{roll.path.stem}.png"
                if not cv2.imwrite(str(name), canvas):
                    raise CalibrationError(f"could not write {str(name)!r} while reading {str(roll.path)!r}")
        yield tmp
