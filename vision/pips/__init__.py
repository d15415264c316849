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

from .net import (FINDER_CLASSES, FINDER_ONNX, READER_CLASSES, READER_ONNX, SECOND_ONNX, PipNet, crop,
                  finder_input, peaks)

__all__ = ["PipDie", "UNKNOWN", "beliefs", "read_d6"]

UNKNOWN = "unknown"
FOUND = 0.3  # the finder's heat at a die's centre: below it, no die
SURE = 0.6  # the reader's belief in a value: below it, the die is unknown
NONE = READER_CLASSES.index("none")
NEAR = 0.55  # two finds closer than this share of their box are one die
# The finder learned dice some 7-45 pixels across its input, LEARNED in the middle: dice found smaller than
# SMALL, or none found, it looks for again with the photo scaled to show them LEARNED across (none found:
# CLOSER times closer), until they are NEAR_LEARNED, up to the photo's own size or LONGEST pixels a side.
# Held-out half in a frame twice as large 90.9 -> 97.2 %, in a 16:9 one 25.0 -> 98.0 %, close up as before
# (bench/pips.py, rows "wider")
LEARNED, NEAR_LEARNED, SMALL, CLOSER, LONGEST = 20.0, 16.0, 12.0, 2.0, 1600
TURNS = 4  # a crop is read in its four quarter turns, the beliefs averaged (tuning half: 94.0 % of dice, 92.2 % once)
# A die read below SURE is read again cut a tenth smaller and a tenth larger, the three beliefs averaged:
# a box a little off its die (a rim lost, a neighbour's pip in) is what most such dice were. Tuning half
# 98.6 -> 99.6 % of dice, held-out half 95.6 -> 96.4 % (bench/pips.py); the dice read surely are as before
SIZES = (0.9, 1.1)
# Such a die is also read by two readers of other training runs (SECOND_ONNX: one learned pens lying on the
# tray, one pips told from the body by hue alone), each at the three sizes, and all nine readings averaged:
# differently trained readers doubt differently. Held-out half the same (97.6 %), its changed and re-clothed
# photos 3798 -> 3815 of 4029 dice, no sure die changed (bench/pips.py); the ZomBee reader's pip dice under
# other cameras 3141 -> 3143 of 3150 (bench/cameras.py --seeds 2). Two runs of the first reader's own recipe
# asked instead lost two held-out dice: what pays is readers that learned differently


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


def _apart(found):
    """The strongest of finds that lie on one die."""
    kept = []
    for x, y, box, heat in sorted(found, key=lambda f: -f[3]):
        if all(np.hypot(x - k[0], y - k[1]) > NEAR * max(box, k[2]) for k in kept):
            kept.append((x, y, box, heat))
    return kept


def beliefs(frame: np.ndarray, places, reader: PipNet | None = None, others=None) -> np.ndarray:
    """(n, len(READER_CLASSES)) the reader's beliefs about the dice at places, (x, y, box) each in the
    frame's pixels (box: the side of the square that holds the die as it lies), its crops read in
    their four quarter turns and averaged; a doubtful die's also cut a little smaller and larger
    (SIZES) and read by the others too (by default the shipped second readers; () for none), every
    reading averaged. A calibrated ZomBee model of pip dice asks this too (vision/name/pipfaces.py)."""
    reader = reader or networks()[1]
    if not len(places):
        return np.zeros((0, len(READER_CLASSES)), np.float32)
    proba = _turned(frame, places, reader)
    doubt = np.flatnonzero(proba.max(axis=1) < SURE)
    if len(doubt):
        doubtful = [places[i] for i in doubt]
        again = [proba[doubt]] + [_turned(frame, [(x, y, box * k) for x, y, box in doubtful], reader) for k in SIZES]
        again += [_turned(frame, [(x, y, box * k) for x, y, box in doubtful], other)
                  for other in (second_readers() if others is None else others) for k in (1.0, *SIZES)]
        proba[doubt] = np.mean(again, axis=0)
    return proba


def _turned(frame: np.ndarray, places, reader: PipNet) -> np.ndarray:
    """The reader's beliefs about the dice at places, each crop read in its quarter turns and averaged."""
    crops = np.stack([crop(frame, x, y, box, reader.side, reader.crop) for x, y, box in places])
    seen = np.concatenate([np.rot90(crops, k, (1, 2)) for k in range(TURNS)])
    proba = reader.forward(seen.transpose(0, 3, 1, 2).astype(np.float32))
    return proba.reshape(TURNS, len(places), -1).mean(axis=0)


def _look(frame: np.ndarray, finder: PipNet, side: int) -> list:
    """The finder's finds, (x, y, box, heat) in the photo's pixels, with the photo's long side at side."""
    blob, f = finder_input(frame, side)
    return peaks(finder.forward(blob), finder.stride, f, FOUND)


def find(frame: np.ndarray, finder: PipNet) -> list:
    """Where the dice lie, (x, y, box, heat) each. The finder looks at the whole photo at its own side;
    dice it finds smaller than SMALL there it looks for again closer, as often as it takes to see them
    about LEARNED across or to reach the photo's own pixels, so a camera that shows the whole table,
    its dice a fiftieth of the photo across, is read as one close over the tray. Found none: it looks
    once CLOSER, no more (an empty tray)."""
    longest = max(frame.shape[:2])
    most = min(max(longest, finder.side), LONGEST)
    side, kept = finder.side, []
    found = _look(frame, finder, side)
    while True:
        seen = [box * side / longest for _, _, box, _ in found]
        if side == finder.side:
            if seen and np.median(seen) >= SMALL:
                break
            kept = [d for d, s in zip(found, seen) if s >= SMALL]  # dice as large as learned: found already
        elif not seen or np.median(seen) >= NEAR_LEARNED:
            break
        # below SMALL the finder's sizes are too large (it learned none smaller): one look rarely does
        closer = min(int(side * (LEARNED / np.median(seen) if seen else CLOSER)), most)
        if closer < side * 1.25:
            break
        side = closer
        found = [d for d in _look(frame, finder, side) if d[2] * side / longest <= 2 * LEARNED]
    return _apart(kept + found)


def read_d6(frame, nets: tuple[PipNet, PipNet] | None = None) -> list[PipDie]:
    """Every pip die in a BGR photo, top to bottom then left to right."""
    frame = check_frame(frame)
    finder, reader = nets or networks()
    found = find(frame, finder)
    if not found:
        return []
    proba = beliefs(frame, [(x, y, box) for x, y, box, _ in found], reader)
    out = []
    for (x, y, box, _), p in zip(found, proba):
        best = int(np.argmax(p))
        if best == NONE:
            continue  # a mark, a hole, a shadow: no die
        value = int(READER_CLASSES[best]) if READER_CLASSES[best].isdigit() else UNKNOWN
        conf = float(p[best])
        if value != UNKNOWN and conf < SURE:
            value = UNKNOWN
        half = box / 2
        out.append(PipDie(x, y, value, conf, (x - half, y - half, x + half, y + half)))
    return sorted(out, key=lambda d: (round(d.y), d.x))
