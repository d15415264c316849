"""A plain pip die drawn onto a tray photo, for the demo camera and the tests: a rounded square body with
shaded rim, round pips as a real die lays them out, a soft shadow, at any place, size and angle."""

from __future__ import annotations

import cv2
import numpy as np

_PX = 128  # drawn this large, then shrunk: small dice keep smooth edges
# pip places in units of the corner pips' offset from the centre (as count._LAYOUTS, drawn upright)
_PLACES = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
           4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
           6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}
WHITE, BLACK = (236, 238, 240), (30, 30, 32)


def tray(width: int = 640, height: int = 480, colour=(200, 204, 206), seed: int = 0) -> np.ndarray:
    """An empty tray: an even colour with a lamp's gentle fall-off and a little sensor noise (BGR)."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    light = 1.0 - 0.12 * (((xx - width * 0.4) / width) ** 2 + ((yy - height * 0.35) / height) ** 2)
    img = np.array(colour, np.float32)[None, None, :] * light[..., None]
    img += rng.normal(0, 2.0, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def _face(value: int, body, pip) -> tuple[np.ndarray, np.ndarray]:
    """The die seen from above, _PX square: colour and coverage (0-1)."""
    alpha = np.zeros((_PX, _PX), np.float32)
    r = int(_PX * 0.14)  # the rounded corners
    cv2.rectangle(alpha, (r, 0), (_PX - 1 - r, _PX - 1), 1.0, -1)
    cv2.rectangle(alpha, (0, r), (_PX - 1, _PX - 1 - r), 1.0, -1)
    for cx in (r, _PX - 1 - r):
        for cy in (r, _PX - 1 - r):
            cv2.circle(alpha, (cx, cy), r, 1.0, -1, cv2.LINE_AA)
    # the rim falls away from the top face: darker towards the outline
    dist = cv2.distanceTransform((alpha > 0.5).astype(np.uint8), cv2.DIST_L2, 5)
    shade = 0.72 + 0.28 * np.clip(dist / (_PX * 0.08), 0, 1)
    img = np.array(body, np.float32)[None, None, :] * shade[..., None]
    c, g, rad = _PX / 2, _PX * 0.27, int(_PX * (0.1 if value == 1 else 0.085))
    for dx, dy in _PLACES[value]:
        cv2.circle(img, (int(c + dx * g), int(c + dy * g)), rad, tuple(float(v) for v in pip), -1, cv2.LINE_AA)
    return img, alpha


def draw_die(img: np.ndarray, x: float, y: float, value: int, side: float = 40.0, angle: float = 0.0,
             body=WHITE, pip=BLACK) -> np.ndarray:
    """img with a die showing `value` (1-6) centred at (x, y), `side` pixels across, turned `angle`
    degrees; body and pip colours are BGR. Returns a new image; img is left as it was."""
    if value not in _PLACES:
        raise ValueError(f"a six-sided die shows 1 to 6 pips, got {value!r}")
    if side < 8:
        raise ValueError(f"a die {side} pixels across is too small to draw (8 or more)")
    face, alpha = _face(value, body, pip)
    h, w = img.shape[:2]
    m = cv2.getRotationMatrix2D((_PX / 2, _PX / 2), angle, side / _PX)
    m[0, 2] += x - _PX / 2
    m[1, 2] += y - _PX / 2
    out = img.astype(np.float32)
    # the shadow: the die's outline, blurred and shifted away from the lamp
    sm = m.copy()
    sm[:, 2] += side * 0.06
    shadow = cv2.GaussianBlur(cv2.warpAffine(alpha, sm, (w, h)), (0, 0), max(1.0, side * 0.08))
    out *= (1.0 - 0.35 * shadow)[..., None]
    a = cv2.warpAffine(alpha, m, (w, h), flags=cv2.INTER_AREA)[..., None]
    top = cv2.warpAffine(face, m, (w, h), flags=cv2.INTER_AREA)
    out = out * (1 - a) + top * a
    return np.clip(out, 0, 255).astype(np.uint8)
