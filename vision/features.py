"""What the classifier sees of one die: a small map of its symbol, square to the die.

A die is cut out square to its own edges, a little inside them (the detector
measures the whole die, rounded rim included). Centre and size errors of the
detector are not undone here: calibration and training show the reader dice
cut a little off centre and off size instead (calibrate.augment). The map holds
how far each spot of the face is from the die's own colour ("ink", whatever
the symbol's colour: yellow, green, white or red) and the direction of that
colour, on a G x G grid. The corners are left out (rounded corners show the
tray). A quarter turn or a mirror of the crop is handled where maps are
compared (`dihedral`), not here.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

PATCH = 32  # pixels of the final square crop
G = 8  # side of the symbol map
CHANNELS = 4  # ink, then three colour-direction channels weighted by ink
DIM = G * G * CHANNELS
INK_SCALE = 0.5  # colour distance (in tray units) that counts as full ink
COLOUR_WEIGHT = 0.3  # how much the symbol's colour counts beside its shape
MARGIN = 0.08  # share of the crop cut off each side: the die's bevel
CROP = 0.95  # share of the detector's die side that is cut out
_s = PATCH - 2 * int(round(PATCH * MARGIN))
_yy, _xx = np.mgrid[0:_s, 0:_s].astype(np.float32) - (_s - 1) / 2
_R = (np.abs(_xx) ** 4 + np.abs(_yy) ** 4) ** 0.25 / (_s / 2)  # a rounded square
FACE_W = np.clip((0.8 - _R) / 0.1, 0, 1).astype(np.float32)
CENTRE = _R < 0.7


def crop(frame: np.ndarray, x: float, y: float, side: float, angle: float, scale: float = 1.05,
         size: int = PATCH) -> np.ndarray:
    """The die cut out square to its edges, size x size pixels."""
    s = size / (side * scale)
    ca, sa = math.cos(angle) * s, math.sin(angle) * s
    c = (size - 1) / 2
    m = np.array([[ca, sa, c - ca * x - sa * y], [-sa, ca, c + sa * x - ca * y]], np.float32)
    return cv2.warpAffine(frame, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def face_map(patch: np.ndarray, tray: np.ndarray) -> np.ndarray:
    """The symbol map of a PATCH x PATCH crop, as a unit vector of DIM numbers."""
    p = patch.astype(np.float32) / tray.reshape(1, 1, 3)
    m = int(round(PATCH * MARGIN))
    p = p[m:PATCH - m, m:PATCH - m]
    body = np.median(p[CENTRE], axis=0)  # the symbol covers less than half of the face's middle
    a = p - body
    ink = np.minimum(np.sqrt((a * a).sum(axis=2)) / INK_SCALE, 1.0) * FACE_W
    chroma = a - a.mean(axis=2, keepdims=True)
    chroma *= (ink * COLOUR_WEIGHT / (np.sqrt((chroma * chroma).sum(axis=2)) + 0.05))[..., None]
    maps = np.concatenate([ink[..., None], chroma], axis=2)
    d = cv2.resize(maps, (G, G), interpolation=cv2.INTER_AREA).ravel()
    return (d / max(float(np.linalg.norm(d)), 0.05)).astype(np.float32)


def dihedral(x: np.ndarray) -> np.ndarray:
    """The 8 quarter turns and mirrors of maps (n, DIM) -> (n, 8, DIM): a die's symbol may point
    along any edge, and a die seen from above is only known up to these."""
    g = x.reshape(-1, G, G, CHANNELS)
    out = []
    for k in range(4):
        r = np.rot90(g, k, axes=(1, 2))
        out += [r, r[:, ::-1]]
    return np.stack(out, axis=1).reshape(len(x), 8, DIM)


def die_patch(frame: np.ndarray, x: float, y: float, side: float, angle: float, tray: np.ndarray) -> np.ndarray:
    return crop(frame, x, y, side, angle, CROP)


def die_features(frame: np.ndarray, blob, side: float, tray: np.ndarray) -> np.ndarray:
    return face_map(die_patch(frame, blob.x, blob.y, side, blob.angle, tray), tray)
