"""What calibration learns from: examples of each face, and of faces no die shows, made from photos.

Each die photographed for calibration is cut out again with the small errors the
detector makes and the glare, blur and light the next roll will bring (augment).
Pairs of dice of two different faces laid over each other, or one die's symbol
moved along an edge over another's, stand for faces the set does not have
(mixtures): a 5 is a 1 over a 4, a 6 a 4 over a 4 moved a quarter of a side,
another game's symbol is not any one of ours; the reader learns to call such
dice `unknown` instead of naming the nearest face.

A model compares dice in one of two ways (model.Model.descriptor): "map", the
symbol map of features.face_map, or "views", features.view. `prototype` turns a
crop into what a model stores, `query` into what Model.distances takes.
"""

from __future__ import annotations

import cv2
import numpy as np

from ..cut.features import CROP, PATCH, VIEW_PATCH, crop, face_map, view, views

AUGMENT = 24  # crops made from each calibration die
MIXTURES = 400  # at most this many pairs are laid over each other: enough to outline "not a face"
# ... and this many more with the second die's symbol shifted by a quarter to a third of a side. No
# two of 1-4 pips laid over each other turned make a 6 (its middle pips sit where no 1-4 has one), but
# a 4 over a shifted 4 does. On rendered pip dice calibrated on 1-4 (seeds bench/vision.py does not
# use) 5s and 6s read unknown 126 of 190 times instead of 87, sure and wrong 47 -> 17 dice; over the
# real photos under thirteen changed cameras 894 dice right instead of 893, sure and wrong 6 -> 1.
# 800 read no more 5s and 6s unknown and 4 fewer real dice right
SHIFTED = 400
SHIFT = (0.2, 0.35)  # of a side
INNER = 0.1  # of a crop cut off each edge of the shifted die: its rim and the tray must not come along


def glare(p: np.ndarray, rng, centre=None, side: float | None = None) -> None:
    """A lamp's reflection on a glossy face, in place: a soft spot, or a thin arc along a rounded edge.
    centre and side: where the die lies in p and how big it is (by default p is the die's own crop)."""
    h, w = p.shape[:2]
    size = float(side if side is not None else h)
    middle = np.array(centre if centre is not None else (size / 2, size / 2), np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if rng.random() < 0.5:
        gx, gy = middle + (rng.uniform(0.25, 0.75, 2) - 0.5) * size
        sig = size * rng.uniform(0.06, 0.16)
        p += (rng.uniform(40, 140) * np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * sig * sig)))[..., None]
        return
    arc = np.zeros((h, w), np.float32)
    c = middle + rng.uniform(-3, 3, 2)
    r = size * rng.uniform(0.3, 0.45)
    start = rng.uniform(0, 360)
    cv2.ellipse(arc, (int(c[0]), int(c[1])), (int(r), int(r * rng.uniform(0.8, 1.2))), 0, start,
                start + rng.uniform(40, 160), 1.0, 1, cv2.LINE_AA)
    p += (cv2.GaussianBlur(arc, (0, 0), 0.6) * rng.uniform(60, 160))[..., None]


def augment(frame, x, y, side, angle, rng, n: int = AUGMENT, size: int = VIEW_PATCH) -> list[np.ndarray]:
    """size x size crops of one die (cut as features.crop cuts it) as the next roll may show it: as
    photographed, then cut a little off centre and off size, brighter or darker, blurred, noisy, with
    glare. A map is made from a PATCH crop and a view from a VIEW_PATCH crop, as the reader makes them."""
    out = [crop(frame, x, y, side, angle, CROP, size)]
    for _ in range(n - 1):
        reach = 0.08 * side
        p = crop(frame, x + rng.uniform(-reach, reach), y + rng.uniform(-reach, reach),
                 side * rng.uniform(0.9, 1.1), angle + rng.uniform(-0.12, 0.12), CROP, size).astype(np.float32)
        p = p * rng.uniform(0.8, 1.2) + rng.normal(0, rng.uniform(1, 6), p.shape)
        if rng.random() < 0.5:
            glare(p, rng)
        if rng.random() < 0.3:
            p = cv2.GaussianBlur(p, (0, 0), rng.uniform(0.4, 1.0))
        out.append(np.clip(p, 0, 255).astype(np.uint8))
    return out


def _map(patch: np.ndarray, tray: np.ndarray) -> np.ndarray:
    if patch.shape[0] != PATCH:
        patch = cv2.resize(patch, (PATCH, PATCH), interpolation=cv2.INTER_AREA)
    return face_map(patch, tray)


def prototype(descriptor: str, crop: np.ndarray, tray: np.ndarray, light: np.ndarray | None = None,
              soften: float = 0.0, signed: bool = False) -> np.ndarray:
    """What a model of this descriptor keeps of one crop (light, soften, signed: see features.views_of)."""
    return view(crop, tray, light, soften, signed) if descriptor == "views" else _map(crop, tray)


def query(descriptor: str, crop: np.ndarray, tray: np.ndarray, light: np.ndarray | None = None,
          soften: float = 0.0, signed: bool = False) -> np.ndarray:
    """What Model.distances takes for one crop (stack them for several): every turn of a view, or the map."""
    return views(crop, tray, light, soften, signed) if descriptor == "views" else _map(crop, tray)


def mixtures(descriptor: str, dice: list, rng, limit: int = MIXTURES,
             shifted: int | None = None, soften: float = 0.0, signed: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Queries of faces no die shows, and for each the two photos it came from. dice: (crop, tray,
    face, photo, light) of each die as photographed (light, soften, signed: see features.views_of). Each mixture is
    two dice of different faces laid over each other: the brighter of the two crops, pixel by pixel,
    the second turned 0 or 90 degrees (a dark die's symbol is its bright part). At most `limit`
    pairs, drawn at random; then `shifted` more (default SHIFTED) of any two dice (one die twice
    included), the second's symbol moved along an edge."""
    shifted = SHIFTED if shifted is None else shifted
    pairs = [(i, j) for i in range(len(dice)) for j in range(i + 1, len(dice)) if dice[i][2] != dice[j][2]]
    if len(pairs) > limit:
        pairs = [pairs[k] for k in sorted(rng.choice(len(pairs), limit, replace=False))]
    out, photos = [], []
    for i, j in pairs:
        a, tray, _, photo_a, light = dice[i]
        b, _, _, photo_b, _ = dice[j]
        for k in (0, 1):
            laid = np.maximum(a, np.ascontiguousarray(np.rot90(b, k)))
            out.append(query(descriptor, laid, tray, light, soften, signed))
            photos.append((photo_a, photo_b))
    for _ in range(shifted if dice else 0):
        i, j = (int(v) for v in rng.integers(len(dice), size=2))
        a, tray, _, photo_a, light = dice[i]
        b, _, _, photo_b, _ = dice[j]
        out.append(query(descriptor, np.maximum(a, _shifted_symbol(b, rng)), tray, light, soften, signed))
        photos.append((photo_a, photo_b))
    return np.array(out, np.float32), np.array(photos, int).reshape(-1, 2)


def _shifted_symbol(crop: np.ndarray, rng) -> np.ndarray:
    """The crop's middle (its face without rim or tray) moved along one edge by SHIFT of its side,
    black where nothing came: laid over another die by the brighter pixel, black adds nothing."""
    size = crop.shape[0]
    m = int(round(size * INNER))
    face = np.zeros_like(crop)
    face[m:size - m, m:size - m] = crop[m:size - m, m:size - m]
    step = float(rng.uniform(*SHIFT)) * size * (1 if rng.random() < 0.5 else -1)
    move = np.float32([[1, 0, step], [0, 1, 0]]) if rng.random() < 0.5 else np.float32([[1, 0, 0], [0, 1, step]])
    return cv2.warpAffine(face, move, (size, size), borderMode=cv2.BORDER_CONSTANT, borderValue=0)


def first_view(q: np.ndarray) -> np.ndarray:
    """The prototype of a query: a view's own turn (the first), or the map itself."""
    return q[:, 0] if q.ndim == 3 else q
