"""The pip reader's two small networks as the table runs them: ONNX files read by OpenCV's cv2.dnn.

The finder (pips.onnx) looks at the whole photo, scaled so its long side is `input_side`, and answers
for every 4x4 pixel cell how likely a die's centre lies there, how far the centre is from the cell
and how large the die is (a CenterNet-style heatmap). The reader (pips_read.onnx) looks at each
found die's square crop, cut from the photo at full resolution where the pips are sharpest, and
answers 1-6, unknown (cocked, covered, cut by the edge) or none (no die: a mark, a hole, a shadow).
Both are trained by tools/train_pips.py on the tuning photos and rendered trays; their input sizes
and class names are in each file's metadata, so a file made for something else is refused by name.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from ..onnx import NetError, OnnxNet

MODELS = Path(__file__).parent.parent / "models"
FINDER_ONNX, READER_ONNX = MODELS / "pips.onnx", MODELS / "pips_read.onnx"
# Two readers of other training runs, asked about the dice the first one doubts (vision/pips/__init__.py)
SECOND_ONNX = (MODELS / "pips_read_2.onnx", MODELS / "pips_read_3.onnx")
FINDER_CLASSES = ("heat", "dx", "dy", "size")
READER_CLASSES = ("1", "2", "3", "4", "5", "6", "unknown", "none")
LOG_SIZE = 5.0  # the finder's size output times this is the log of the box in cells (up to 148 cells)
CROP = 1.5  # a die's crop is this many times its box: the whole die and a rim of what is round it
CROP_KEY = "crop"  # the reader file's metadata: its crop factor, when not CROP


class PipNetError(NetError):
    """A pip network file that cannot be read, or that was made for another job."""


class PipNet(OnnxNet):
    """The pip finder or the pip reader."""

    WHAT = "pip network"
    ERROR = PipNetError

    def __init__(self, data: bytes, source: str, classes: tuple[str, ...]):
        super().__init__(data, source, classes)
        try:
            self.crop = float(self.meta.get(CROP_KEY, CROP))
        except ValueError:
            raise PipNetError(f"{self.WHAT} {source!r} has a crop factor that is not a number") from None
        if not 1.0 <= self.crop <= 3.0:
            raise PipNetError(f"{self.WHAT} {source!r} crops {self.crop} times a die's box; 1 to 3 makes sense")


def crop(frame: np.ndarray, x: float, y: float, box: float, side: int, factor: float = CROP) -> np.ndarray:
    """The side x side crop round a die at (x, y) whose box is `box` pixels, `factor` times the box,
    shrunk by area (the pips stay whole); what lies beyond the photo's edge is black."""
    half = max(2, int(round(factor * box / 2)))
    cx, cy = int(round(x)), int(round(y))
    h, w = frame.shape[:2]
    x0, y0, x1, y1 = cx - half, cy - half, cx + half, cy + half
    part = frame[max(y0, 0):min(y1, h), max(x0, 0):min(x1, w)]
    if part.size == 0:
        return np.zeros((side, side, 3), np.uint8)
    if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
        part = cv2.copyMakeBorder(part, max(-y0, 0), max(y1 - h, 0), max(-x0, 0), max(x1 - w, 0),
                                  cv2.BORDER_CONSTANT, value=(0, 0, 0))
    return cv2.resize(part, (side, side), interpolation=cv2.INTER_AREA if 2 * half > side else cv2.INTER_LINEAR)


def finder_input(frame: np.ndarray, side: int) -> tuple[np.ndarray, float]:
    """The photo scaled so its long side is `side`, padded to a multiple of 16: (1, 3, h, w) and the scale."""
    h, w = frame.shape[:2]
    f = side / max(h, w)
    nh, nw = max(16, int(round(h * f))), max(16, int(round(w * f)))
    small = cv2.resize(frame, (nw, nh), interpolation=cv2.INTER_AREA if f < 1 else cv2.INTER_LINEAR)
    ph, pw = -nh % 16, -nw % 16
    if ph or pw:
        small = cv2.copyMakeBorder(small, 0, ph, 0, pw, cv2.BORDER_CONSTANT, value=(0, 0, 0))
    return small.transpose(2, 0, 1)[None].astype(np.float32), f


def peaks(out: np.ndarray, stride: int, f: float, threshold: float) -> list[tuple[float, float, float, float]]:
    """(x, y, box, peak) in photo pixels of every local maximum of the heatmap above threshold. The
    finder's four outputs are all 0-1: the heat, where the centre lies in the cell across and down,
    and the box's log in cells over LOG_SIZE."""
    heat = out[0, 0]
    local = cv2.dilate(heat, np.ones((3, 3), np.uint8))
    ys, xs = np.nonzero((heat >= local) & (heat >= threshold))
    found = []
    for y, x in zip(ys, xs):
        cx = (x + out[0, 1, y, x]) * stride / f
        cy = (y + out[0, 2, y, x]) * stride / f
        found.append((float(cx), float(cy), float(np.exp(LOG_SIZE * out[0, 3, y, x]) * stride / f), float(heat[y, x])))
    return found
