"""What the classifier sees of one die: a small map of its symbol, square to the die.

A die is cut out square to its own edges, then cut again around the dark body
found inside that first cut: the second cut fixes a centre or a die size the
detector got a little wrong (touching dice, rounded light edges). The map holds
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
DARK = 0.5  # a die body is darker than this share of the tray's light; a soft shadow is not
WINDOW = 1.5  # first cut, in die sides: room for a size or centre error
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


def _axis(lo: int, hi: int, n: int, fallback: float) -> tuple[float | None, float]:
    """(extent or None when a neighbour or the window edge cuts it, centre) along one axis."""
    free_lo, free_hi = lo > 0, hi < n - 1
    if free_lo and free_hi:
        return float(hi - lo + 1), (lo + hi) / 2
    return None, fallback


def refine(frame: np.ndarray, x: float, y: float, side: float, angle: float, tray: np.ndarray):
    """(x, y, side) of the die's dark body near (x, y); the detector's guess where it cannot tell."""
    n = 48
    p = crop(frame, x, y, side, angle, WINDOW, n)
    v = (p.astype(np.float32) / tray.reshape(1, 1, 3)).max(axis=2)
    dark = (v < DARK).astype(np.uint8)
    k = max(3, int(n / WINDOW * 0.35)) | 1  # fill the symbol's holes
    dark = cv2.morphologyEx(dark, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    count, labels = cv2.connectedComponents(dark)
    c = (n - 1) / 2
    centre = labels[int(c) - 2:int(c) + 3, int(c) - 2:int(c) + 3].ravel()
    centre = centre[centre > 0]
    if count < 2 or not centre.size:
        return x, y, side
    ys, xs = np.nonzero(labels == np.bincount(centre).argmax())
    wx, cx = _axis(int(xs.min()), int(xs.max()), n, c)
    wy, cy = _axis(int(ys.min()), int(ys.max()), n, c)
    unit = side * WINDOW / n  # frame pixels per crop pixel
    known = [w for w in (wx, wy) if w is not None and 0.7 * n / WINDOW < w < 1.35 * n / WINDOW]
    if not known:
        return x, y, side
    found = float(np.mean(known))
    if wx is None:  # a neighbour on one side: keep the free edge, the other side comes from the size
        cx = (xs.max() - found / 2) if xs.min() == 0 and xs.max() < n - 1 else \
            (xs.min() + found / 2) if xs.max() == n - 1 and xs.min() > 0 else c
    if wy is None:
        cy = (ys.max() - found / 2) if ys.min() == 0 and ys.max() < n - 1 else \
            (ys.min() + found / 2) if ys.max() == n - 1 and ys.min() > 0 else c
    dx, dy = (cx - c) * unit, (cy - c) * unit
    ca, sa = math.cos(angle), math.sin(angle)
    return x + ca * dx - sa * dy, y + sa * dx + ca * dy, found * unit


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
    x, y, side = refine(frame, x, y, side, angle, tray)
    return crop(frame, x, y, side, angle, 1.0)


def die_features(frame: np.ndarray, blob, side: float, tray: np.ndarray) -> np.ndarray:
    return face_map(die_patch(frame, blob.x, blob.y, side, blob.angle, tray), tray)
