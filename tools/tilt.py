"""A photo as a camera tilted away from straight above would have taken it.

The tray is a plane, so a camera turned by some degrees about an axis through the tray's centre sees
it through one homography: near the camera the dice grow, far from it they shrink and flatten.
bench/pips.py reads the held-out photos tilted so (the pip reader did not gain from learning on
tilted tuning photos: docs/pip-reader.md). A drawing, not a photo: a real tilted camera also sees
each die's sides.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

FOV = 60.0  # a phone or Pi camera's field of view across the photo's long side, degrees


def homography(w: int, h: int, deg: float, axis: float = 0.0) -> np.ndarray:
    """3x3: a straight-above photo's pixels to those of the camera tilted deg degrees about the tray's
    line at axis degrees (0: the photo's rows) through its centre, aimed at the same centre."""
    f = max(w, h) / 2 / math.tan(math.radians(FOV) / 2)
    k = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1.0]])
    a, t = math.radians(axis), math.radians(deg)
    rot = cv2.Rodrigues(np.array([math.cos(a), math.sin(a), 0.0]) * t)[0]
    tray = np.column_stack([rot[:, 0], rot[:, 1], [0, 0, 1.0]])  # the tray's plane, one unit from the lens
    return k @ tray @ np.linalg.inv(k)


def tilted(img: np.ndarray, points, deg: float, axis: float = 0.0):
    """(img as the tilted camera sees it, each (x, y) of points where that camera sees it)."""
    h, w = img.shape[:2]
    m = homography(w, h, deg, axis)
    out = cv2.warpPerspective(img, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    if not len(points):
        return out, []
    moved = cv2.perspectiveTransform(np.float32(points).reshape(-1, 1, 2), m).reshape(-1, 2)
    return out, [(float(x), float(y)) for x, y in moved]
