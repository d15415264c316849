"""Statistics of a ZomBee symbol for the shipped default model: a short vector blind to turning.

The default model knows ZomBee's art (a yellow or green symbol on a dark die)
without calibration; these numbers say what a rendered-tray network needs for
that: how much yellow, green and white, the symbol's rings, spread, pieces,
moments and edge directions, and small colour maps turned to the symbol's long
axis. The crop is cut square to the die's own edges, so the only turn left is
a quarter turn of the symbol; every feature below is made blind to that.
Colours are divided by the tray's colour first: the tray is the white card
that cancels the lamp's tint. A calibrated model does not use them (see
features.py: maps of any symbol, in any colour).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from .features import channel_max, channel_min, crop, stacked

PATCH = 32
MAP = 8  # side of the colour maps handed to the network as pixels
_yy, _xx = np.mgrid[0:PATCH, 0:PATCH].astype(np.float32) - (PATCH - 1) / 2
_R = np.sqrt(_xx ** 2 + _yy ** 2) / (PATCH / 2)
INNER = _R < 0.78  # the face inside its bevel
RINGS = [(_R >= a) & (_R < b) for a, b in ((0, 0.25), (0.25, 0.45), (0.45, 0.62), (0.62, 0.78))]


# ring and face averages as one sum of products: far cheaper than many masked means
_RING_W = np.stack([r.ravel() / r.sum() for r in RINGS] + [INNER.ravel() / INNER.sum()]).astype(np.float32)


def _rings(masks: np.ndarray) -> np.ndarray:
    """Covered fraction of each ring, then of the whole face, of each of n masks (n, PATCH, PATCH) ->
    (n, 5). (einsum, not a matrix product: a product rounds differently with the number of dice, and
    a die must be described the same alone as among others.)"""
    return np.einsum("nk,rk->nr", masks.reshape(len(masks), -1).astype(np.float32), _RING_W)


def _shape(mask: np.ndarray) -> list[float]:
    """Area, ring profile, spread, elongation, pieces, solidity, outline length and Hu moments of the symbol."""
    rings = _rings(mask[None])[0]
    out = [float(rings[4])] + [float(v) for v in rings[:4]]
    m8 = mask.astype(np.uint8)
    m = cv2.moments(m8, True)
    area = m["m00"]
    if area < 4:
        return out + [0.0] * 11
    cx, cy = m["m10"] / area - (PATCH - 1) / 2, m["m01"] / area - (PATCH - 1) / 2
    a, c, b = m["mu20"] / area, m["mu02"] / area, m["mu11"] / area
    root = math.sqrt(max((a - c) ** 2 + 4 * b * b, 0.0))
    l1, l2 = (a + c + root) / 2, max((a + c - root) / 2, 1e-3)
    contours, _ = cv2.findContours(m8, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    hull_area = max(cv2.contourArea(cv2.convexHull(np.concatenate(contours))), 1.0)
    perim = sum(cv2.arcLength(k, True) for k in contours)
    big = max(cv2.contourArea(k) for k in contours) / area
    hu = cv2.HuMoments(m)[:4, 0]
    hu = -np.sign(hu) * np.log10(np.abs(hu) + 1e-12) / 10
    out += [math.hypot(cx, cy) / PATCH, math.sqrt(l1 + l2) / PATCH, l2 / l1, min(len(contours), 6) / 6, big,
            min(area / hull_area, 1.0), perim * perim / (area * 4 * math.pi) / 10]
    return out + [float(h) for h in hu]


def _canonical(maps: np.ndarray) -> np.ndarray:
    """Small colour maps turned so the symbol's long axis lies along x and its heavy end points right:
    the one quarter turn the crop leaves open is taken out before the pixels reach the network."""
    sym = np.ascontiguousarray(maps[..., 0] + maps[..., 1])
    m = cv2.moments(sym)
    if m["mu02"] > m["mu20"]:
        maps = cv2.rotate(maps, cv2.ROTATE_90_COUNTERCLOCKWISE)  # np.rot90, without its cost per call
        m = cv2.moments(cv2.rotate(sym, cv2.ROTATE_90_COUNTERCLOCKWISE))
    if m["mu30"] < 0:
        maps = cv2.rotate(maps, cv2.ROTATE_180)
    small = cv2.resize(np.ascontiguousarray(maps), (MAP, MAP), interpolation=cv2.INTER_AREA)
    return small.transpose(2, 0, 1).ravel().astype(np.float32)


def _sobel(v: np.ndarray, dx: int, dy: int) -> np.ndarray:
    """cv2.Sobel of each of n crops (n, PATCH, PATCH), in one call (features.stacked)."""
    return cv2.Sobel(stacked(v), cv2.CV_32F, dx, dy, ksize=3).reshape(len(v), PATCH + 2, PATCH + 2)[:, 1:-1, 1:-1]


def _gradients(v: np.ndarray) -> np.ndarray:
    """How strong the edges of each of n crops (n, PATCH, PATCH) run in each of 8 directions,
    strongest first; the edges' ring profile; their strength per pixel: (n, 13)."""
    gx, gy = _sobel(v, 1, 0), _sobel(v, 0, 1)
    mag = np.sqrt(gx * gx + gy * gy) * INNER
    ang = (np.arctan2(gy, gx) % math.pi) / math.pi * 8
    n = len(v)
    bins = np.minimum(ang.astype(int), 7) + 8 * np.arange(n)[:, None, None]  # each die's 8 bins apart
    hist = np.bincount(bins.ravel(), mag.ravel(), 8 * n).reshape(n, 8)
    total = hist.sum(axis=1) + 1e-6
    turn = (np.arange(8) + hist.argmax(axis=1)[:, None]) % 8  # strongest direction first: turning is forgotten
    hist = np.take_along_axis(hist, turn, axis=1) / total[:, None]
    rings = _rings(mag)[:, :4]
    return np.concatenate([hist, rings / (rings.sum(axis=1, keepdims=True) + 1e-6), (total / INNER.sum())[:, None]], axis=1)


def features(patch: np.ndarray, tray: np.ndarray, blob_shape: tuple[float, float, float]) -> np.ndarray:
    """The feature vector of one die crop; blob_shape is (fill, aspect, area / side^2) of its dark mask."""
    return features_of(patch[None], tray, [blob_shape])[0]


def features_of(patches: np.ndarray, tray: np.ndarray, blob_shapes) -> np.ndarray:
    """features of n crops (n, PATCH, PATCH, 3): what is worked out for every pixel is worked out for
    all of them at once (numpy's cost on crops this small is in each call), the rest die by die."""
    n = len(patches)
    p = patches.astype(np.float32) / tray.reshape(1, 1, 1, 3)
    b, g, r = p[..., 0], p[..., 1], p[..., 2]
    v = channel_max(p)
    lo = channel_min(p)
    rim = v[:, ~INNER]
    body = np.partition(rim, rim.shape[1] // 2, axis=1)[:, rim.shape[1] // 2]  # the die's own black, lifted by glare or blur
    # (worked out in double and compared in single, as a Python number against the crop would be)
    bright = v > np.maximum(0.42, body.astype(np.float64) + 0.2).astype(np.float32)[:, None, None]
    yellow = bright & (np.minimum(r, g) - b > 0.18) & (np.abs(r - g) < 0.35)
    green = bright & (g - np.maximum(r, b) > 0.08)
    white = bright & (lo > 0.55) & ~yellow & ~green
    symbol = (yellow | green) & INNER
    # the symbol's colour: the mean over its pixels of green less red, of green and red over blue, of brightness
    count = symbol.sum(axis=(1, 2))
    each = np.stack([g - r, (g + r - 2 * b) / 2, v], axis=1).reshape(n, 3, -1)
    mean = (each * symbol.reshape(n, 1, -1)).sum(axis=2) / np.maximum(count, 1)[:, None]
    hue = np.where(count > 0, np.arctan2(mean[:, 0], mean[:, 1]), 0.0)  # (no symbol: atan2 of signed zeros is not 0)
    colour = np.column_stack([_rings(yellow)[:, 4], _rings(green)[:, 4], _rings(white)[:, 4], body, hue, mean[:, 2],
                              mean[:, 0]])
    vs = v / np.maximum(v.max(axis=(1, 2)), np.float32(1e-3))[:, None, None]
    maps = np.stack([np.clip(np.minimum(r, g) - b, 0, 1.5), np.clip(g - np.maximum(r, b), 0, 1),
                     np.clip(lo - body[:, None, None], 0, 1.5)], axis=3) * INNER[..., None]
    shapes = np.array([_shape(one) for one in symbol], np.float32)
    rest = np.column_stack([shapes, _rings(bright), _gradients(vs), np.array(blob_shapes, np.float32)])
    return np.stack([np.concatenate([c, f, _canonical(m)]) for c, f, m in zip(colour.astype(np.float32), rest, maps)])


def symbol_features(frame: np.ndarray, blob, side: float, tray: np.ndarray) -> np.ndarray:
    return dice_symbols(frame, [blob], side, tray)[0]


def dice_patches(frame: np.ndarray, blobs, side: float) -> np.ndarray:
    """The crop of each blob's die that its statistics are made from, square to its edges: (n, PATCH, PATCH, 3).
    The crop network (cnn.py) reads the same crops."""
    return np.stack([crop(frame, b.x, b.y, side, b.angle, 1.05, PATCH) for b in blobs])


def dice_symbols(frame: np.ndarray, blobs, side: float, tray: np.ndarray,
                 patches: np.ndarray | None = None) -> np.ndarray:
    """symbol_features of each blob's die in frame, (n, features). patches: their dice_patches, when cut already."""
    patches = dice_patches(frame, blobs, side) if patches is None else patches
    return features_of(patches, tray, [(b.fill, b.aspect, b.area / (side * side)) for b in blobs])
