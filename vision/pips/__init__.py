"""Reading standard six-sided pip dice of any colour: where each die lies and the value it shows.

`read_d6(frame)` needs no calibration: two small learned networks (vision/pips/net.py) find every die
in the photo and read each one's crop. A die the reader cannot read surely (cocked, covered, blurred,
cut by the photo's edge) is "unknown" at its place, never a guessed value.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from vision.images import check_frame

from .finding import farther, find, instead
from .net import FINDER_CLASSES, FINDER_ONNX, READER_CLASSES, READER_ONNX, SECOND_ONNX, PipNet, crop

__all__ = ["PipDie", "UNKNOWN", "beliefs", "find", "read_d6"]

UNKNOWN = "unknown"
SURE = 0.6  # the reader's belief in a value: below it, the die is unknown
NONE = READER_CLASSES.index("none")
TURNS = 4  # a crop is read in its four quarter turns, the beliefs averaged (tuning half: 94.0 % of dice, 92.2 % once)
# A die read below SURE is read again cut a tenth smaller and a tenth larger, the three beliefs joined:
# a box a little off its die (a rim lost, a neighbour's pip in) is what most such dice were. Tuning half
# 98.6 -> 99.6 % of dice, held-out half 95.6 -> 96.4 % (bench/pips.py); the dice read surely are as before
SIZES = (0.9, 1.1)
# Such a die is also read by two readers of other training runs (SECOND_ONNX: one learned pens lying on the
# tray, one pips told from the body by hue alone), each at the three sizes, and all nine readings joined:
# differently trained readers doubt differently. Held-out half the same (97.6 %), its changed and re-clothed
# photos 3798 -> 3815 of 4029 dice, no sure die changed (bench/pips.py); the ZomBee reader's pip dice under
# other cameras 3141 -> 3143 of 3150 (bench/cameras.py --seeds 2). Two runs of the first reader's own recipe
# asked instead lost two held-out dice: what pays is readers that learned differently.
# The nine readings, each crop's four quarter turns apart (36 in all), are joined by their geometric mean
# (agreed), not their average: a value each reading gives some belief outweighs others that each
# reading's doubt scatters over. Tuning half 278 -> 281 of 281, held-out half the same (246 of 252), its
# changed and re-clothed photos 43 dice up over the rows (JPEG 30 six, oak five, green felt five), no row
# down, no sure die more (bench/pips.py); the nine turn-averaged readings so joined: 25 of the 43. A die
# read surely at first keeps its averaged turns: joined so, a die was read surely and wrongly in 11 rows.
# No reading's belief counts as less than FLOOR: one near zero would veto a value (1e-6 read the same when
# the nine turn-averaged readings were joined; 0.01 about half the gain)
FLOOR = 1e-3


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


@functools.lru_cache(maxsize=None)
def networks() -> tuple[PipNet, PipNet]:
    """The shipped finder and reader, loaded once."""
    return PipNet.load(FINDER_ONNX, FINDER_CLASSES), PipNet.load(READER_ONNX, READER_CLASSES)


@functools.lru_cache(maxsize=None)
def second_readers() -> tuple[PipNet, ...]:
    """The shipped readers asked about doubtful dice, loaded once."""
    return tuple(PipNet.load(path, READER_CLASSES) for path in SECOND_ONNX)


def beliefs(frame: np.ndarray, places, reader: PipNet | None = None, others=None) -> np.ndarray:
    """(n, len(READER_CLASSES)) the reader's beliefs about the dice at places, (x, y, box) each in the
    frame's pixels (box: the side of the square that holds the die as it lies), its crops read in
    their four quarter turns and averaged; a doubtful die's also cut a little smaller and larger
    (SIZES) and read by the others too (by default the shipped second readers; () for none), every
    reading joined (agreed). A calibrated ZomBee model of pip dice asks this too (vision/name/pipfaces.py)."""
    reader = reader or networks()[1]
    if not len(places):
        return np.zeros((0, len(READER_CLASSES)), np.float32)
    turns = _turns(frame, places, reader)
    proba = turns.mean(axis=0)
    doubt = np.flatnonzero(proba.max(axis=1) < SURE)
    if len(doubt):
        doubtful = [places[i] for i in doubt]
        again = [turns[:, doubt]] + [_turns(frame, [(x, y, box * k) for x, y, box in doubtful], reader) for k in SIZES]
        again += [_turns(frame, [(x, y, box * k) for x, y, box in doubtful], other)
                  for other in (second_readers() if others is None else others) for k in (1.0, *SIZES)]
        proba[doubt] = agreed(np.concatenate(again))
    return proba


def agreed(readings) -> np.ndarray:
    """(n, classes) what several readings of the same dice agree on: their normalised geometric mean."""
    joint = np.exp(np.log(np.maximum(np.asarray(readings), FLOOR)).mean(axis=0))
    return joint / joint.sum(axis=1, keepdims=True)


def _turns(frame: np.ndarray, places, reader: PipNet) -> np.ndarray:
    """(TURNS, n, classes) the reader's beliefs about the dice at places, each crop read in its quarter turns."""
    crops = np.stack([crop(frame, x, y, box, reader.side, reader.crop) for x, y, box in places])
    seen = np.concatenate([np.rot90(crops, k, (1, 2)) for k in range(TURNS)])
    return reader.forward(seen.transpose(0, 3, 1, 2).astype(np.float32)).reshape(TURNS, len(places), -1)


def read_d6(frame, nets: tuple[PipNet, PipNet] | None = None) -> list[PipDie]:
    """Every pip die in a BGR photo, top to bottom then left to right."""
    frame = check_frame(frame)
    finder, reader = nets or networks()
    found = find(frame, finder)
    far = farther(frame, finder, found)
    both = found + far
    if not both:
        return []
    proba = beliefs(frame, [(x, y, box) for x, y, box, _ in both], reader)
    if not far and (proba.argmax(axis=1) == NONE).all():
        # nothing found is a die: a die too large for the usual look can be found as a pip or a shadow
        # there, and is found whole farther off, as when nothing at all is found
        far = farther(frame, finder, [])
        both = found + far
        proba = np.concatenate([proba, beliefs(frame, [(x, y, box) for x, y, box, _ in far], reader)])
    read = instead(found, far, [_value(p) != UNKNOWN for p in proba[len(found):]])
    out = []
    for (x, y, box, _), p in ((both[i], proba[i]) for i in read):
        if int(np.argmax(p)) == NONE:
            continue  # a mark, a hole, a shadow: no die
        value, conf = _value(p), float(p.max())
        half = box / 2
        out.append(PipDie(x, y, value, conf, (x - half, y - half, x + half, y + half)))
    return sorted(out, key=lambda d: (round(d.y), d.x))


def _value(p: np.ndarray) -> int | str:
    """The value the reader's beliefs p say a die shows: 1-6, or UNKNOWN (or no die) below SURE."""
    best = int(np.argmax(p))
    return int(READER_CLASSES[best]) if READER_CLASSES[best].isdigit() and p[best] >= SURE else UNKNOWN
