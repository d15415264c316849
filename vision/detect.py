"""Finding the dice in a frame: dark square blobs on a light tray.

Dice are black and the tray is light, so a die is where the brightest colour
channel falls far below the tray's own brightness at that spot. Comparing with
the local tray level (or with the calibrated empty-tray photo) rather than a
fixed grey level is what makes uneven light and soft shadows harmless. Dice
lying edge to edge merge into one blob; such a blob is split into as many dice
as its area holds, using the die size learned at calibration or measured from
the frame itself.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

DARK_RATIO = 0.34  # die body is ~0.15-0.3 of the tray's brightness; a shadow rarely below 0.45
DEFAULT_SIDE = 32.0  # pixels, a 16 mm die seen from about 35 cm on a 640 px frame
MIN_SIDE, MAX_SIDE = 14.0, 90.0
SMALL = (160, 120)  # working size for tray level and hand search: cheap and blurs away the dice


@dataclass(frozen=True)
class Blob:
    x: float
    y: float
    side: float  # estimated side in pixels
    angle: float  # radians, modulo 90 degrees
    area: float  # pixels of this die's own mask
    fill: float  # area / minimal rectangle area: ~0.9 flat, lower when cocked
    aspect: float  # long / short side of the minimal rectangle
    group: int  # how many dice its original blob held

    @property
    def box(self) -> tuple[int, int, int, int]:
        h = self.side / 2 * 1.2
        return int(self.x - h), int(self.y - h), int(2 * h), int(2 * h)


@dataclass
class Detection:
    dice: list[Blob]
    hand: bool
    side: float
    tray: np.ndarray  # BGR of the tray's light, for white balance


def tray_level(frame: np.ndarray, small: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(brightness of the tray at every pixel, tray colour) estimated from the frame itself (or its
    SMALL copy, when the caller has one)."""
    if small is None:
        small = cv2.resize(frame, SMALL, interpolation=cv2.INTER_AREA)
    v = small.max(axis=2)
    # a max filter wider than a die replaces each die by the tray around it
    level = cv2.dilate(v, cv2.getStructuringElement(cv2.MORPH_RECT, (19, 19)))
    level = cv2.blur(level, (9, 9))
    # the tray fills most of the frame's middle: away from the rim, even a hand leaves it the majority
    h, w = v.shape
    middle = small[h // 6: h - h // 6: 2, w // 6: w - w // 6: 2].reshape(-1, 3)  # every other pixel is plenty
    tray = np.median(middle, axis=0)
    return level, np.maximum(tray.astype(np.float32), 1)


def find_hand(frame_small: np.ndarray, tray: np.ndarray, min_fraction: float = 0.04) -> tuple[bool, np.ndarray]:
    """A large skin-toned region: the light's tint is divided out first so a warm lamp is not skin."""
    bal = np.clip(frame_small.astype(np.float32) * (200.0 / tray), 0, 255).astype(np.uint8)
    hsv = cv2.cvtColor(bal, cv2.COLOR_BGR2HSV)
    skin = cv2.inRange(hsv, (0, 45, 60), (26, 210, 255)) | cv2.inRange(hsv, (170, 45, 60), (180, 210, 255))
    skin = cv2.morphologyEx(skin, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(skin)
    limit = min_fraction * skin.size
    height, width = skin.shape

    def edges(i: int) -> int:
        x, y, w, h = stats[i, :4]
        return int(x == 0) + int(y == 0) + int(x + w == width) + int(y + h == height)

    # A hand reaches in from one side (two at a corner, or across the tray); a region that rings
    # the frame on three or four sides is the table around the tray, however skin-coloured.
    big = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= limit and edges(i) <= 2]
    if big:
        # a palm is thick; a wooden rim of the same colour is a thin band along the edge
        depth = cv2.distanceTransform(np.isin(labels, big).astype(np.uint8), cv2.DIST_L2, 3)
        big = [i for i in big if depth[labels == i].max() >= 9]
    mask = np.isin(labels, big).astype(np.uint8) * 255 if big else np.zeros_like(skin)
    return bool(big), mask


def brightest(frame: np.ndarray) -> np.ndarray:
    b, g, r = cv2.split(frame)
    return cv2.max(cv2.max(b, g), r)


def dark_mask(frame: np.ndarray, level_small: np.ndarray, background: np.ndarray | None = None,
              side: float | None = None) -> np.ndarray:
    v = brightest(frame)
    h, w = v.shape
    level = level_small.astype(np.float32)
    if background is not None:
        # the empty tray knows the rim, marks and light fall-off; scale it to tonight's brightness
        ref = cv2.resize(background, SMALL, interpolation=cv2.INTER_AREA).astype(np.float32)
        gain = float(np.median(level / np.maximum(ref, 1)))
        level = ref * gain
    # threshold computed small then enlarged: the tray level is smooth, and this keeps it fast
    limit = cv2.resize(np.clip(level * DARK_RATIO, 0, 255).astype(np.uint8), (w, h), interpolation=cv2.INTER_LINEAR)
    mask = cv2.compare(v, limit, cv2.CMP_LT)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    # close the holes the bright symbol and glare leave (a "Zzz" can cut a die in two), without
    # bridging dice that merely lie near: those are at least half a die apart
    k = int(max(7, (side or DEFAULT_SIDE) * 0.4)) | 1
    return cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))


def _rect_stats(points: np.ndarray, area: float):
    (cx, cy), (rw, rh), ang = cv2.minAreaRect(points.astype(np.float32))
    short, long_ = max(min(rw, rh), 1.0), max(rw, rh, 1.0)
    return cx, cy, short, long_, math.radians(ang) % (math.pi / 2), min(area / (short * long_), 1.0)


def _kmeans(pts: np.ndarray, k: int) -> np.ndarray:
    """Deterministic k-means of pixel coordinates, seeded evenly along the blob's long axis."""
    mean = pts.mean(0)
    _, _, vt = np.linalg.svd(pts - mean, full_matrices=False)
    proj = (pts - mean) @ vt[0]
    order = np.argsort(proj)
    centres = np.array([pts[order[int((i + 0.5) * len(pts) / k)]] for i in range(k)], np.float64)
    labels = np.zeros(len(pts), int)
    for _ in range(12):
        d = ((pts[:, None, :] - centres[None]) ** 2).sum(2)
        labels = d.argmin(1)
        new = np.array([pts[labels == i].mean(0) if np.any(labels == i) else centres[i] for i in range(k)])
        if np.allclose(new, centres, atol=0.05):
            break
        centres = new
    return labels


def detect(frame: np.ndarray, side: float | None = None, background: np.ndarray | None = None) -> Detection:
    """Every die-sized dark blob, split where dice touch; hands flagged and dice under them dropped."""
    small = cv2.resize(frame, SMALL, interpolation=cv2.INTER_AREA)
    level, tray = tray_level(frame, small)
    hand, hand_mask = find_hand(small, tray)
    mask = dark_mask(frame, level, background, side)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    fills = []
    for c in contours:
        area = cv2.contourArea(c)
        if area < MIN_SIDE * MIN_SIDE * 0.5:
            continue
        hull = cv2.convexHull(c)
        hull_area = cv2.contourArea(hull)
        # judge shape on the hull: a symbol or glare at a die's edge bites notches into the dark mask
        stats = _rect_stats(hull.reshape(-1, 2), hull_area)
        fills.append((c, max(area, 0.95 * hull_area) if area > 0.8 * hull_area else area, cv2.boundingRect(c), stats))
    if side is None:
        # short side of compact blobs: a row of touching dice is still one die wide
        # (rectangles only: a die leaning on a row makes the row wider and less square-cornered)
        shorts = [st[2] for _, a, _, st in fills if st[5] > 0.86 and MIN_SIDE <= st[2] <= MAX_SIDE]
        if not shorts:
            shorts = [st[2] / (1.5 if st[5] < 0.86 else 1.0) for _, a, _, st in fills
                      if st[5] > 0.75 and MIN_SIDE <= st[2] <= MAX_SIDE * 1.5]
        side = float(np.median(shorts)) if shorts else DEFAULT_SIDE
    unit = side * side
    hand_big = None
    if hand:
        hand_big = cv2.resize(cv2.dilate(hand_mask, np.ones((5, 5), np.uint8)), (frame.shape[1], frame.shape[0]),
                              interpolation=cv2.INTER_NEAREST)
    dice: list[Blob] = []
    for c, area, (x, y, w, h), st in fills:
        if area < 0.4 * unit or st[2] < 0.45 * side:
            continue  # specks, a thin rim edge, the dark line of a wall
        cx, cy, short, long_, ang, fill = st
        row = False
        if 1.3 * side < short < 1.8 * side:
            # wider than a die, narrower than two: a die leaning on the others in a row shows its side
            # across the row, so the row's length still counts the dice (the leaning one a bit longer)
            n = max(1, int(round(long_ / side - 0.3)))
        elif fill > 0.8 and short > 0.7 * side:
            # a straight row of touching dice: its length counts them, whatever the light did to the area
            n, row = max(1, int(round(long_ / side - 0.15))), True
        else:
            n = max(1, int(round(area / unit - 0.1)))
        if n > 9:
            continue  # a dark rim or a shadowed corner, not dice
        if hand_big is not None and hand_big[int(st[1]), int(st[0])]:
            continue
        if n == 1:
            dice.append(Blob(cx, cy, side, ang, area, fill, long_ / short, 1))
            continue
        if row:
            # a straight row: cut it into n equal squares along its long side
            (rcx, rcy), (rw, rh), deg = cv2.minAreaRect(cv2.convexHull(c).reshape(-1, 2).astype(np.float32))
            ax = math.radians(deg) if rw >= rh else math.radians(deg) + math.pi / 2
            step = max(rw, rh) / n
            for i in range(n):
                off = (i - (n - 1) / 2) * step
                dice.append(Blob(rcx + off * math.cos(ax), rcy + off * math.sin(ax), side, ang, area / n, fill,
                                 max(step, short) / min(step, short), n))
            continue
        solid = np.zeros((h, w), np.uint8)
        cv2.drawContours(solid, [c - (x, y)], -1, 255, -1)
        ys, xs = np.nonzero(solid)
        pts = np.stack([xs, ys], 1).astype(np.float64)
        labels = _kmeans(pts[::2], n)
        for i in range(n):
            part = pts[::2][labels == i]
            if len(part) < 5:
                continue
            cx, cy, short, long_, ang, fill = _rect_stats(part, len(part) * 2.0)
            dice.append(Blob(cx + x, cy + y, side, ang, len(part) * 2.0, fill, long_ / short, n))
    dice.sort(key=lambda b: (b.y, b.x))
    return Detection(dice, hand, side, tray)
