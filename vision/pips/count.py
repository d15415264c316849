"""A die's value from its pips: blobs that differ from the die's own body, of a pip's size relative to the
die, whose count and layout agree with one of the six faces. What does not agree is "unknown"."""

from __future__ import annotations

import math

import cv2
import numpy as np

from .find import Spot

UNKNOWN = "unknown"
PATCH = 40  # a die is looked at as a PATCH x PATCH square, whatever its size in the photo

# the faces' pip layouts in units of the corner pips' offset from the centre, in one orientation (2, 3
# and 6 look alike only after half a turn, so the fit tries turns up to 180 degrees)
_LAYOUTS = {
    1: [(0, 0)],
    2: [(1, 1), (-1, -1)],
    3: [(1, 1), (0, 0), (-1, -1)],
    4: [(1, 1), (1, -1), (-1, 1), (-1, -1)],
    5: [(1, 1), (1, -1), (-1, 1), (-1, -1), (0, 0)],
    6: [(1, 1), (1, -1), (-1, 1), (-1, -1), (1, 0), (-1, 0)],
}
_TURNS = np.radians(np.arange(0.0, 180.0, 3.0))


def patch(frame: np.ndarray, spot: Spot) -> np.ndarray | None:
    """The die as a PATCH-sized square turned upright, or None when it is cut by the photo's edge."""
    h, w = frame.shape[:2]
    half = spot.side / 2 * math.sqrt(2)
    if spot.x - half < 0 or spot.y - half < 0 or spot.x + half > w or spot.y + half > h:
        if not (0 <= spot.x - spot.side / 2 and spot.x + spot.side / 2 <= w
                and 0 <= spot.y - spot.side / 2 and spot.y + spot.side / 2 <= h):
            return None
    m = cv2.getRotationMatrix2D((spot.x, spot.y), spot.angle, PATCH / spot.side)
    m[0, 2] += PATCH / 2 - spot.x
    m[1, 2] += PATCH / 2 - spot.y
    return cv2.warpAffine(frame, m, (PATCH, PATCH), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


_yy, _xx = np.mgrid[0:PATCH, 0:PATCH]
# the face without its rim and corners: a die's edges are rounded and shaded, a neighbour or the tray may
# show past them when the die's square is found a little turned, and every pip lies within this circle
_INNER = np.hypot(_xx - (PATCH - 1) / 2, _yy - (PATCH - 1) / 2) < 0.45 * PATCH


def pips(square: np.ndarray) -> tuple[list[tuple[float, float, float]], float]:
    """The pip-like blobs of a die's square: (x, y, area) each, and how clearly they stand out of the body
    (their mean contrast over the body's own spread; 0 when nothing does)."""
    lab = cv2.cvtColor(square, cv2.COLOR_BGR2LAB).astype(np.float32)
    body = np.median(lab[_INNER], axis=0)
    contrast = np.sqrt(((lab - body) ** 2).sum(axis=2))
    inner = contrast[_INNER]
    spread = float(np.median(np.abs(inner - np.median(inner)))) + 1.0
    c8 = np.clip(contrast, 0, 255).astype(np.uint8)
    level, _ = cv2.threshold(c8[_INNER], 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    level = max(level, np.median(inner) + 2 * spread)
    mask = ((contrast > level) & _INNER).astype(np.uint8)
    n, labels, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=4)
    found = []
    for i in range(1, n):
        x0, y0, w, h, area = stats[i]
        # a pip: 0.08 to 0.3 of the die's side across, round (fills its box, not long)
        if not (0.005 * PATCH ** 2 <= area <= 0.08 * PATCH ** 2):
            continue
        if max(w, h) > 2.0 * min(w, h) or area < 0.45 * w * h:
            continue
        found.append((float(cents[i][0]), float(cents[i][1]), float(area)))
    if not found:
        return [], 0.0
    on = mask.astype(bool) & _INNER
    clear = float(contrast[on].mean() - np.median(inner)) / spread if on.any() else 0.0
    return found, clear


def _fit(points: np.ndarray, value: int) -> float:
    """How far the pips lie from the face's layout at its best turn and size, in units of the corner
    offset (0 = exactly; above about 0.3 the layout is not this face's)."""
    centre = points.mean(axis=0)
    rel = points - centre
    if value == 1:
        return float(np.hypot(*rel[0]))
    layout = np.array(_LAYOUTS[value], dtype=np.float32)
    best = math.inf
    for t in _TURNS:
        c, s = math.cos(t), math.sin(t)
        turned = rel @ np.array([[c, -s], [s, c]], dtype=np.float32)
        # the corner offset that fits best: the mean extent of the pips along the die's axes
        g = float(np.abs(turned).max(axis=1).mean() if value not in (1,) else 1.0)
        if value in (3, 5):
            g = float(np.abs(turned).max(axis=1).sum() / (value - 1))
        if g <= 0:
            continue
        d = np.sqrt(((turned[:, None, :] / g - layout[None, :, :]) ** 2).sum(axis=2))
        # each pip to its own place: the worst of the nearest distances, and no place left empty
        worst = max(float(d.min(axis=1).max()), float(d.min(axis=0).max()))
        best = min(best, worst)
    return best


def read_square(square: np.ndarray) -> tuple[int | str, float]:
    """The value (1-6) of a die's square and a confidence (0-1), or ("unknown", confidence it is not a face)."""
    found, clear = pips(square)
    n = len(found)
    if not 1 <= n <= 6:
        return UNKNOWN, 0.0
    pts = np.array([(x, y) for x, y, _ in found], dtype=np.float32)
    areas = np.array([a for _, _, a in found])
    off = float(np.hypot(*(pts.mean(axis=0) - (PATCH - 1) / 2)))
    if n == 1:
        # a lone pip (or a maker's mark in its place) sits at the centre
        err = off / (0.15 * PATCH)
    else:
        err = _fit(pts, n) / 0.3
        extent = float(np.abs(pts - pts.mean(axis=0)).max()) / PATCH
        # the corner pips sit about a quarter of the side from the centre: far less is not a face
        if not 0.15 <= extent <= 0.42 or off > 0.2 * PATCH:
            err = max(err, 2.0)
    sizes = float(areas.max() / areas.min()) if n > 1 else 1.0
    if err >= 1.0 or sizes > 3.0:
        return UNKNOWN, 0.0
    conf = (1.0 - err ** 2) * min(1.0, clear / 8.0) * (1.0 if sizes < 2.0 else 0.7)
    return n, round(float(max(0.0, min(1.0, conf))), 3)
