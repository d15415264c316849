"""Where the dice lie: regions of a photo that stand out from the tray, cut into die-sized squares.

A die is found by what makes a die, not by its colour: its outline is a closed ring of edges (a white die
on a light tray has one too), its body differs from the tray around it in colour or brightness, and it is
square. Every threshold is taken relative to the photo itself (the tray's own noise and gradients), so
a darker lamp, another cloth or another camera needs no setting.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

# the tray is estimated on a grid this many cells across, smoothed over this many cells: a window about
# a fifth of the photo, wider than any die and narrower than the lamp's fall-off
_GRID = 80
_WINDOW = 15
# dice are looked for in the photo shrunk to this many pixels on its shorter side (a die is still 10 or
# more pixels across there) and read at full size
_FIND_SIDE = 320
# a die's rounded square fills more of its bounding square than a disc (pi / 4) ever can
_SQUARE = 0.83


@dataclass(frozen=True)
class Spot:
    """One die-sized square where a die may lie: centre, side and angle (degrees) in the photo's pixels."""

    x: float
    y: float
    side: float
    angle: float
    square: bool  # the region was a die's shape on its own, not cut from touching dice


def _tray(lab: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
    """The tray's colour under every pixel: an average of the pixels around it that are not in mask."""
    h, w = lab.shape[:2]
    f = max(1, min(h, w) // _GRID)
    size = (max(1, w // f), max(1, h // f))
    small = cv2.resize(lab, size, interpolation=cv2.INTER_AREA)
    med = cv2.medianBlur(small, 9).astype(np.float32)
    if mask is not None:
        keep = (cv2.resize(mask, size, interpolation=cv2.INTER_AREA) < 64).astype(np.float32)
        num = cv2.blur(small.astype(np.float32) * keep[..., None], (_WINDOW, _WINDOW))
        den = cv2.blur(keep, (_WINDOW, _WINDOW))[..., None]
        med = np.where(den > 0.05, num / np.maximum(den, 1e-3), med)
    return cv2.resize(med, (w, h), interpolation=cv2.INTER_LINEAR)


def _fill_holes(m: np.ndarray) -> np.ndarray:
    h, w = m.shape
    flood = np.pad(m, 1)
    cv2.floodFill(flood, np.zeros((h + 4, w + 4), np.uint8), (0, 0), 255)
    return m | cv2.bitwise_not(flood[1:-1, 1:-1])


def foreground(frame: np.ndarray) -> np.ndarray:
    """255 where something lies on the tray (a die's body, pips and outline), else 0."""
    lab = cv2.cvtColor(frame, cv2.COLOR_BGR2LAB)
    labf = lab.astype(np.float32)
    tray = _tray(lab, None)
    diff = np.abs(labf - tray).sum(axis=2)
    rough = (diff > 8 * (np.median(diff) + 1)).astype(np.uint8) * 255
    tray = _tray(lab, cv2.dilate(rough, np.ones((9, 9), np.uint8)))
    light = labf[..., 0] - tray[..., 0]
    colour = np.abs(labf[..., 1] - tray[..., 1]) + np.abs(labf[..., 2] - tray[..., 2])
    noise_c = np.median(colour) + 1.0
    level = float(np.median(tray[..., 0])) + 1.0
    # a body far from the tray in colour or much darker; a light die shows by its outline alone, since a
    # lamp's glare or a tray's sheen are as bright
    body = ((colour > 20 * noise_c) | (light < -0.3 * level)).astype(np.uint8) * 255
    # a die's outline: edges well above the tray's own texture, in brightness or in colour
    edges = np.zeros_like(body)
    for ch in cv2.split(cv2.GaussianBlur(lab, (3, 3), 0)):
        grad = cv2.magnitude(cv2.Sobel(ch, cv2.CV_32F, 1, 0), cv2.Sobel(ch, cv2.CV_32F, 0, 1))
        low = max(12.0, 6.0 * float(np.median(grad)))
        edges |= cv2.Canny(ch, low, 2.5 * low)
    m = cv2.morphologyEx(edges | body, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    m = _fill_holes(m)
    return cv2.morphologyEx(m, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))


def _shape(pts: np.ndarray):
    (cx, cy), (w, h), angle = cv2.minAreaRect(pts)
    return cx, cy, w, h, angle


def spots(frame: np.ndarray) -> list[Spot]:
    """The die-sized squares of a photo: lone square regions as they are, larger regions cut into as many
    squares as their area holds (touching dice), by the side of the photo's lone dice."""
    f = min(1.0, _FIND_SIDE / min(frame.shape[:2]))
    small = frame if f == 1.0 else cv2.resize(frame, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    return [refine(frame, Spot(s.x / f, s.y / f, s.side / f, s.angle, s.square)) for s in _spots(small)]


def refine(frame: np.ndarray, spot: Spot) -> Spot:
    """The spot fitted to its die's own outline: a found region takes in the die's shadow and the tray's
    glow around it, so the die is cut from its surroundings again by a threshold between the two (the
    ring around the spot is tray), then squared by its outline. Kept as it was when that finds no die."""
    r = int(0.75 * spot.side) + 2
    x0, y0 = max(0, int(spot.x) - r), max(0, int(spot.y) - r)
    crop = frame[y0:int(spot.y) + r + 1, x0:int(spot.x) + r + 1]
    if min(crop.shape[:2]) < 8:
        return spot
    lab = cv2.cvtColor(crop, cv2.COLOR_BGR2LAB).astype(np.float32)
    ring = np.concatenate([lab[0], lab[-1], lab[:, 0], lab[:, -1]])
    diff = np.abs(lab - np.median(ring, axis=0)).sum(axis=2)
    d8 = np.clip(diff, 0, 255).astype(np.uint8)
    _, m = cv2.threshold(d8, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    m = _fill_holes(cv2.morphologyEx(m, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8)))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(m, connectivity=8)
    cx, cy = spot.x - x0, spot.y - y0
    best = labels[int(min(cy, m.shape[0] - 1)), int(min(cx, m.shape[1] - 1))]
    if best == 0:
        return spot
    ys, xs = np.nonzero(labels == best)
    (rx, ry), (w, h), angle = cv2.minAreaRect(np.stack([xs, ys], 1).astype(np.float32))
    side = (w + h) / 2
    fill = len(xs) / max(w * h, 1.0)
    if not (0.5 * spot.side <= side <= 1.05 * spot.side) or fill < _SQUARE or max(w, h) > 1.3 * min(w, h):
        return spot
    return Spot(rx + x0, ry + y0, side, angle, spot.square)


def _spots(frame: np.ndarray) -> list[Spot]:
    mask = foreground(frame)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    least = (min(frame.shape[:2]) / 100.0) ** 2 * 4  # a die under 2 % of the photo's side is noise
    regions = []
    for i in range(1, n):
        x0, y0, w, h, area = stats[i]
        if area < least:
            continue
        ys, xs = np.nonzero(labels[y0:y0 + h, x0:x0 + w] == i)
        pts = np.stack([xs + x0, ys + y0], 1).astype(np.float32)
        cx, cy, rw, rh, angle = _shape(pts)
        fill = area / max(rw * rh, 1.0)
        lone = fill > _SQUARE and max(rw, rh) < 1.25 * min(rw, rh)
        regions.append((pts, area, lone, (cx, cy, rw, rh, angle)))
    sides = [np.sqrt(a) for _, a, lone, _ in regions if lone]
    side = float(np.median(sides)) if sides else None
    out = []
    for pts, area, lone, (cx, cy, rw, rh, angle) in regions:
        if lone:
            out.append(Spot(cx, cy, (rw + rh) / 2, angle, True))
            continue
        if side is None:
            side = float(min(rw, rh))
        k = int(round(area / side ** 2))
        if k < 1:
            continue
        if k == 1:
            out.append(Spot(cx, cy, float(np.sqrt(area)), angle, False))
            continue
        out.extend(_cut(pts, k))
    return out


def _cut(pts: np.ndarray, k: int) -> list[Spot]:
    """Touching dice cut apart: the region's pixels grouped around k centres (dice are compact and alike in
    size, so the groups fall on the dice), each group's own outline then gives its die's angle."""
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
    step = max(1, len(pts) // 4000)
    sample = pts[::step]
    _, lab, centres = cv2.kmeans(sample, k, None, crit, 2, cv2.KMEANS_PP_CENTERS)
    out = []
    for j in range(k):
        part = sample[lab.ravel() == j]
        if len(part) < 5:
            continue
        cx, cy, w, h, angle = _shape(part)
        side = float(np.sqrt(len(part) * step))
        out.append(Spot(float(centres[j][0]), float(centres[j][1]), side, angle, False))
    return out
