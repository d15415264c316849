"""Pip dice taught as the four faces: the pip reader's beliefs joined to the table's own prototypes.

A table may play ZomBee with plain pip dice, one count of pips standing for each face (1 bee, 2
honey, 3 zzz, 4 ZomBee, say). Six photos a face teach the prototypes this table's dice; the Zoo's
pip reader (vision/pips) learned pips from thousands of dice of every colour, under lamps and
cameras those six photos never showed. The prototypes' usual miss, a honey whose lamp highlight sits
where a zzz has its middle pip, is not the pip reader's, and a 5 or a 6, which no face shows, it
names as such rather than as "far from everything taught".

Calibration learns which count each face shows (pip_values) and how far to trust the pip reader
(pip_weight), and keeps them only when the dice of the photos left out are read better joined than
by the prototypes alone (calibrate.py). The reader then
joins the two for every die (joined): a weighted geometric mean, so a face either reading rules out
stays down, and a count no face shows carries its belief to unknown.

The table's finder looks for dice darker than their tray, as ZomBee's are; a pip die of a lighter or
borderline body (gold, maroon) can slip it. The pip reader's own finder, which learned dice of every
colour, finds those (found_by_pips).
"""

from __future__ import annotations

import math

import numpy as np

from companion.commands import DICE_FACES

from ..find.detect import MOVED_MOST
from ..pips import beliefs as pip_beliefs, find, networks
from ..reading import Die
from .confidence import log_likelihood

# The pip reader's share of the joined reading, chosen per table (pip_weight) from these by how likely the
# calibration dice left out read joined. Where the prototypes know the table's dice well a lower share
# keeps their word; where six photos a face taught them little (a honey's highlight read as a zzz), the
# pip reader, which learned pips from thousands of dice, gets more. Fixed at 0.5: the real photos' smaller
# dark and borderline dice (bench/vision.py --only other) 58 of 64 and their fives and sixes unknown 36
# of 38; chosen from these, 60 and 38, and the real photos with the camera 1.3x lower 43 -> 44 of 44
# (bench/vision.py --only table); rendered pip tables 97.45 % of dice either way, with one leaning die
# more read surely as a face (2 of 340), bench/cameras.py 3144 of 3150. 1.0 (the pip reader alone) added nothing
PIP_WEIGHTS = (0.5, 0.7, 0.85)
PIP_WEIGHT = PIP_WEIGHTS[0]  # a table the choice cannot be made for
AGREE = 0.5  # of a face's calibration dice the pip reader must read as one count for it to be that face's
VALUES = 6  # the pip reader's first classes are the counts 1-6; the rest (unknown, no die) are no face
UNKNOWN = len(DICE_FACES)  # the classes of a ZomBee model: the four faces, then unknown
# A die only the pip reader's finder found is added when read this surely, and when its box is at least
# FOUND_SIZE of the median box of every die found in the frame by either finder: a tray's hole on dark
# felt is found as a small one (11-19 px among dice of 33-42), read a one at 0.93-0.98 (bench/cameras.py
# felt_0.55 and wood_0.6). The frame's own dice, not the table's calibrated side: a camera raised since
# calibration shows its dice smaller, and the table's finder, cutting at the taught side, misses some.
# Nor smaller than the table's dice under a camera raised as far as a moved camera goes (MOVED_MOST): on
# an empty tray, or beside a lone die, the holes are all the frame's own dice to measure
FOUND_SURE = 0.9
FOUND_SIZE = 0.7


def places(blobs) -> list[tuple[float, float, float]]:
    """(x, y, box) of each found die (find/clusters.Blob) as the pip reader cuts it: box is the side of
    the upright square that holds the die turned by its angle, as the pip reader learned its crops."""
    return [(b.x, b.y, b.side * (abs(math.cos(b.angle)) + abs(math.sin(b.angle)))) for b in blobs]


def face_beliefs(beliefs: np.ndarray, values: tuple[int, ...]) -> np.ndarray:
    """(n, faces + unknown) from the pip reader's (n, its classes): each face the belief in its count,
    unknown all the rest (a count no face shows, unreadable, no die)."""
    q = np.zeros((len(beliefs), UNKNOWN + 1), np.float64)
    q[:, :UNKNOWN] = beliefs[:, [v - 1 for v in values]]
    q[:, UNKNOWN] = np.clip(1 - q[:, :UNKNOWN].sum(axis=1), 0, 1)
    return q


def joined(p: np.ndarray, beliefs: np.ndarray, values: tuple[int, ...], weight: float = PIP_WEIGHT) -> np.ndarray:
    """Class probabilities p (n, faces + unknown) joined with the pip reader's beliefs about the same
    dice, read as the faces whose counts are values: their weighted geometric mean, weight for the pip
    reader's, scaled to sum to one."""
    q = face_beliefs(np.asarray(beliefs), values)
    out = np.maximum(p, 1e-9) ** (1 - weight) * np.maximum(q, 1e-9) ** weight
    return out / out.sum(axis=1, keepdims=True)


def pip_weight(p: np.ndarray, beliefs: np.ndarray, values: tuple[int, ...], truth: np.ndarray) -> float:
    """The share of PIP_WEIGHTS under which the calibration dice left out (p, the prototypes' reading of
    them; beliefs, the pip reader's; truth, their faces) are likeliest read as their faces when joined."""
    return max(PIP_WEIGHTS, key=lambda w: log_likelihood(joined(p, beliefs, values, w), truth))


def pip_values(beliefs: np.ndarray, truth: np.ndarray) -> tuple[int, ...]:
    """The count of pips each face shows, read by the pip reader from the calibration dice (beliefs,
    with truth their faces), or () when they are no pip dice: some face's dice not read as one count
    at least AGREE of the time, or two faces read as the same count."""
    values = []
    for face in range(UNKNOWN):
        mine = beliefs[truth == face]
        if not len(mine):
            return ()
        read = np.bincount(mine.argmax(axis=1), minlength=beliefs.shape[1])
        best = int(read.argmax())
        if best >= VALUES or read[best] < AGREE * len(mine):
            return ()
        values.append(best + 1)
    return tuple(values) if len(set(values)) == len(values) else ()


def checked(values, weight) -> tuple[tuple[int, ...], float] | None:
    """(values, weight) as a model file holds them, or None when they cannot be a table's pip counts."""
    values = tuple(int(v) for v in np.asarray(values).ravel())
    if not values:
        return (), 0.0
    if len(values) != UNKNOWN or len(set(values)) != UNKNOWN or not all(1 <= v <= VALUES for v in values):
        return None
    weight = float(weight)
    return (values, weight) if 0.0 < weight <= 1.0 else None


def found_by_pips(frame: np.ndarray, dice, side: float, values: tuple[int, ...]) -> list[Die]:
    """The dice the pip reader's finder finds in frame where none of dice (those the table's finder found,
    side pixels across) lies, read surely (FOUND_SURE, FOUND_SIZE), each as the face its count is, or
    unknown for a count no face shows. On the real photos' smaller dark and borderline dice taught as
    faces (bench/vision.py --only other) a gold and a maroon die the table's finder missed: 60 -> 62
    of 64; the real photos untold with the camera 0.7x higher (--only table) 39 -> 44 of 45."""
    finder, reader = networks()
    todo = [(x, y, box) for x, y, box, _ in find(frame, finder)
            if not any((d.x - x) ** 2 + (d.y - y) ** 2 <= (box / 2) ** 2 for d in dice)]
    if not todo:
        return []
    proba = pip_beliefs(frame, todo, reader)
    best = proba.argmax(axis=1)
    sure = [i for i in range(len(todo)) if best[i] < VALUES and proba[i, best[i]] >= FOUND_SURE]
    # the size of the frame's dice: those read here (not the marks and holes read as no die) and the table's
    floor = max(FOUND_SIZE * float(np.median([todo[i][2] for i in sure] + [d.box[2] for d in dice] or [0.0])),
                side / MOVED_MOST)
    out: list[Die] = []
    for i in sure:
        (x, y, box), value, conf = todo[i], int(best[i]) + 1, float(proba[i, best[i]])
        if box < floor:
            continue  # a hole's rim found as a one
        face = DICE_FACES[values.index(value)] if value in values else "unknown"
        out.append(Die(face, int(round(x)), int(round(y)), conf,
                       (int(x - box / 2), int(y - box / 2), int(round(box)), int(round(box))),
                       ((face, conf),) if face != "unknown" else ()))
    return out
