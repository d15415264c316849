"""Dark regions on the tray, and how many dice each one holds.

A region is one connected patch of the die mask: usually one die, sometimes
dice lying edge to edge (a row, a 2x2 block, an L), sometimes a sliver of a
glossy die whose face a highlight cut in two. Everything is measured in units
of the die's side, so the rules hold for any camera distance. Where a region
could be one die or two (a die leaning on another shows more than one face),
the faces decide, and the number of dice thrown (counting.py says how many
dice each region holds and cuts it into them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

DEFAULT_SIDE = 32.0  # pixels, a 16 mm die seen from about 35 cm on a 640 px frame
MIN_SIDE, MAX_SIDE = 14.0, 90.0
SLIVER = 0.75  # of a die's area: a region this small may be part of a die cut by a highlight
DARK_SHARE = 0.55  # of a region short of a die that is dark face: a light die's shaded half or pips have less
NECK = 0.3  # of a die's side: a region whose waist is narrower than twice this is dice touching at a corner
GRID_SLACK = 0.2  # of a die's side: how far a block's length may be from whole dice (rims, shadow)
SMALLER = 0.85  # of a die's side: a whole die this much smaller (its hull below 0.85 squared) is another set's


@dataclass(frozen=True)
class Blob:
    x: float
    y: float
    side: float  # estimated side in pixels
    angle: float  # radians, modulo 90 degrees
    area: float  # pixels of this die's own mask
    fill: float  # area / minimal rectangle area: ~0.9 flat, lower when cocked
    aspect: float  # long / short side of the minimal rectangle
    group: int  # how many dice its original region held

    @property
    def box(self) -> tuple[int, int, int, int]:
        h = self.side / 2 * 1.1
        return int(self.x - h), int(self.y - h), int(2 * h), int(2 * h)


@dataclass
class Region:
    contours: list  # outer outlines (more than one once slivers are joined)
    area: float  # pixels inside the outlines, holes filled
    x: float  # centre of the minimal rectangle round the hull
    y: float
    short: float
    long: float
    angle: float
    fill: float  # area / that rectangle's area
    dark: float  # share of the region that is the dark face itself, not only lighter edge
    inner: np.ndarray | None = None  # hull of the dark face (symbol gaps closed), without the rim


def rect_stats(points: np.ndarray, area: float):
    (cx, cy), (rw, rh), ang = cv2.minAreaRect(points.astype(np.float32))
    short, long_ = max(min(rw, rh), 1.0), max(rw, rh, 1.0)
    return cx, cy, short, long_, math.radians(ang) % (math.pi / 2), min(area / (short * long_), 1.0)


def solid(contours) -> tuple[np.ndarray, int, int]:
    """The filled outlines as a small mask, with its offset in the frame."""
    x, y, w, h = cv2.boundingRect(np.concatenate(contours))
    mask = np.zeros((h, w), np.uint8)
    cv2.drawContours(mask, [c - (x, y) for c in contours], -1, 255, -1)
    return mask, x, y


def _shape(outer: np.ndarray, inner: np.ndarray | None, area: float):
    """Centre, sides, angle and fill of a region from its outline and the hull of its dark face.

    A die's lighter rounded rim lies on every side of its face; a lamp's shadow on one side only.
    So the face is widened by the rim seen on both of two opposite sides, never by the shadow."""
    if inner is None or len(inner) < 3:
        return rect_stats(outer, area)
    (cx, cy), (w, h), deg = cv2.minAreaRect(inner.astype(np.float32))
    a = math.radians(deg)
    d = outer.astype(np.float64) - (cx, cy)
    pu, pv = d @ (math.cos(a), math.sin(a)), d @ (-math.sin(a), math.cos(a))
    w += 2 * max(0.0, min(-w / 2 - pu.min(), pu.max() - w / 2))
    h += 2 * max(0.0, min(-h / 2 - pv.min(), pv.max() - h / 2))
    short, long_ = max(min(w, h), 1.0), max(w, h, 1.0)
    return cx, cy, short, long_, a % (math.pi / 2), min(area / (short * long_), 1.0)


def region(contours, core: np.ndarray, face: np.ndarray) -> Region:
    mask, x, y = solid(contours)
    h, w = mask.shape
    area = float(cv2.countNonZero(mask))
    dark = cv2.countNonZero(cv2.bitwise_and(mask, core[y:y + h, x:x + w])) / max(area, 1.0)
    pts = cv2.findNonZero(cv2.bitwise_and(mask, face[y:y + h, x:x + w]))
    inner = None if pts is None else cv2.convexHull(pts).reshape(-1, 2) + (x, y)
    outer = cv2.convexHull(np.concatenate(contours)).reshape(-1, 2)
    return Region(list(contours), area, *_shape(outer, inner, area), dark, inner)


def find_regions(die: np.ndarray, core: np.ndarray, face: np.ndarray) -> list[Region]:
    """The connected patches of the die mask; core: the dark face pixels, face: the faces with the
    gaps their symbols cut closed (the die mask before its lighter rim was added)."""
    contours, _ = cv2.findContours(die, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    floor = (MIN_SIDE * 0.5) ** 2
    return [region([c], core, face) for c in contours if cv2.contourArea(c) >= floor]


def lone_die(g: Region) -> bool:
    """Whether a region is about as long as it is wide: one die, not a row of touching dice."""
    return g.long < 1.12 * g.short


def square_sides(regions: list[Region], dark_share: float = DARK_SHARE) -> list[float]:
    """The side each square-cornered region says a die has: a lone die, or a row of touching dice,
    which is still one die wide (a cocked die is longer, not wider). dark_share: the least share of
    a region that is dark face."""
    return [(g.short + g.long) / 2 if lone_die(g) else g.short for g in regions
            if g.dark >= dark_share and MIN_SIDE <= g.short <= MAX_SIDE
            and (g.fill > 0.86 or (g.fill > 0.7 and lone_die(g)))]  # a symbol may notch a face


def measure_side(regions: list[Region]) -> float:
    """The die's side from the frame itself (square_sides; DEFAULT_SIDE when no region tells)."""
    shorts = square_sides(regions)
    if not shorts:
        # a die leaning on a row makes the row wider and less square-cornered
        shorts = [g.short / 1.5 for g in regions if g.fill > 0.75 and MIN_SIDE <= g.short / 1.5 <= MAX_SIDE]
    return agreed_side(shorts) if shorts else DEFAULT_SIDE


def agreed_side(shorts: list[float]) -> float:
    """The size most of these sides agree on, the smaller on a tie: a 2x2 block is square-cornered
    too, at twice the size."""
    sizes = np.sort(np.array(shorts))
    agree = [np.flatnonzero((sizes >= 0.8 * c) & (sizes <= 1.25 * c)) for c in sizes]
    best = max(range(len(sizes)), key=lambda i: (len(agree[i]), -i))
    return float(np.median(sizes[agree[best]]))


def thrown_counts(expected) -> list[int]:
    """The acceptable numbers of dice thrown, smallest first: expected is an int or a collection."""
    return [int(expected)] if isinstance(expected, (int, np.integer)) else sorted({int(e) for e in expected})


def side_for_count(regions: list[Region], expected) -> list[float]:
    """Die sides that would make the regions' dark area hold the number thrown (each count of
    expected, see thrown_counts): a die's mask covers about its side squared."""
    out = []
    for n in thrown_counts(expected):
        if n < 1:
            continue
        side = math.sqrt(sum(g.area for g in regions) / n)
        # specks and slivers far smaller than a die are not part of any die's area
        side = math.sqrt(sum(g.area for g in regions if g.area >= 0.3 * side * side) / n)
        if MIN_SIDE <= side <= MAX_SIDE:
            out.append(side)
    return out


def on_grid(regions: list[Region], side: float, slack: float = GRID_SLACK) -> bool:
    """Whether every region of touching dice (a row, a block, an L) measures whole dice both ways at
    this side: the test a die size guessed from the number thrown must pass before it is used, so
    that a 2x2 block is never cut into five or six to make up the number."""
    for g in regions:
        if g.area < 1.5 * side * side:
            continue  # one die, or less: no grid to fit
        for length in (g.short, g.long):
            k = length / side
            if k < 0.5 or abs(k - round(k)) > slack:
                return False
    return True


def merge_slivers(regions: list[Region], side: float) -> list[Region]:
    """Join pieces of one die cut apart by a highlight: small regions that together fit in one die."""
    unit = side * side
    regions = list(regions)
    while True:
        small = [i for i, g in enumerate(regions) if g.area < SLIVER * unit]
        pairs = sorted((math.hypot(regions[i].x - regions[j].x, regions[i].y - regions[j].y), i, j)
                       for a, i in enumerate(small) for j in small[a + 1:])
        joined = None
        for dist, i, j in pairs:
            if dist > side:
                break
            pts = np.concatenate(regions[i].contours + regions[j].contours).reshape(-1, 2)
            _, _, short, long_, _, _ = rect_stats(cv2.convexHull(pts).reshape(-1, 2), 1.0)
            if long_ <= 1.2 * side:
                joined = _join(regions[i], regions[j])
                regions = [g for k, g in enumerate(regions) if k not in (i, j)] + [joined]
                break
        if joined is None:
            return regions


def _join(a: Region, b: Region) -> Region:
    contours = a.contours + b.contours
    outer = cv2.convexHull(np.concatenate(contours)).reshape(-1, 2)
    faces = [f for f in (a.inner, b.inner) if f is not None]
    inner = cv2.convexHull(np.concatenate(faces)).reshape(-1, 2) if faces else None
    area = a.area + b.area
    return Region(contours, area, *_shape(outer, inner, area), (a.dark * a.area + b.dark * b.area) / area, inner)


def cut_necks(regions: list[Region], side: float, core: np.ndarray, face: np.ndarray) -> list[Region]:
    """Cut regions at a narrow waist into whole dice: dice touching only at a corner are two regions,
    each then counted and sized on its own. A region that fits in one die is left whole (a die whose
    mask a highlight or a symbol pinched)."""
    out = []
    for g in regions:
        pieces = None
        if len(g.contours) == 1 and g.long > 1.2 * side:
            # the narrowest waist first: erode a little more each time until the region falls apart
            widest = max(3, int(round(side * NECK)))
            mask, x0, y0 = solid(g.contours)  # bordered once for the widest erosion (a border: see _cut_at)
            mask = cv2.copyMakeBorder(mask, widest, widest, widest, widest, cv2.BORDER_CONSTANT, value=0)
            for r in range(2, widest + 1):
                pieces = _cut_at(mask, x0 - widest, y0 - widest, r, side, core, face)
                if pieces is not None:
                    break
        out.extend(pieces or [g])
    return out


def _cut_at(mask: np.ndarray, x0: int, y0: int, r: int, side: float, core: np.ndarray,
            face: np.ndarray) -> list[Region] | None:
    """The region (its filled mask at x0, y0 in the frame, with a border of at least r: the erosion
    must not meet the mask's edge) cut where an erosion of radius r parts it, when every piece is one
    whole die."""
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    # plain labels and their areas counted: the boxes and centres WithStats adds are not asked for,
    # and an erosion that leaves one piece (most of them) is done with before any counting
    n, labels = cv2.connectedComponents(cv2.erode(mask, disc))
    if n < 3:
        return None
    sizes = np.bincount(labels.ravel(), minlength=n)
    hearts = [i for i in range(1, n) if sizes[i] >= (0.2 * side) ** 2]
    if len(hearts) < 2:
        return None
    # every pixel of the region goes to the nearest heart
    owner = np.stack([cv2.distanceTransform((labels != i).astype(np.uint8), cv2.DIST_L2, 3) for i in hearts]).argmin(0)
    pieces = []
    for k in range(len(hearts)):
        part = ((owner == k) & (mask > 0)).astype(np.uint8) * 255
        cs, _ = cv2.findContours(part, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        biggest = max(cs, key=cv2.contourArea)
        pieces.append(region([biggest + (x0, y0)], core, face))
    # a row's joints can pinch as narrow as a corner does; but cut at a corner, every piece is one
    # whole die (ours or a smaller one), while a row cut at a joint leaves pieces a die and a half
    # long, or one die and a bitten one (a big symbol notches the mask and shrinks its heart)
    areas = [p.area for p in pieces]
    if min(areas) >= max(0.4 * side * side, 0.7 * max(areas)) and all(
            p.long <= 1.25 * side and p.long <= 1.35 * p.short for p in pieces):
        return pieces
    return None


def smaller_die(g: Region, side: float, frame_shape, glare: np.ndarray | None = None) -> bool:
    """A whole dark die clearly smaller than ours: another set's, not to be read.

    Only what is seen whole can be judged: a die cut by the frame's edge, or with a highlight beside
    its dark part (a lamp's reflection may hide the rest of our die), is never called smaller. A
    cocked die of ours shows more than its top face, never less."""
    # the hull, not the mask: a big symbol or a glare spot on a lighter dark die bites into the mask
    outer = cv2.convexHull(np.concatenate(g.contours)).reshape(-1, 2)
    if cv2.contourArea(outer) >= (SMALLER ** 2) * side * side:
        return False
    # the hull says "smaller"; the width only keeps a die of ours with a bite out of its face (it
    # keeps its full width), and may come out larger than a small die's own (its shadow, or a corner
    # of the die it touched), so it is only asked to be short of a whole side
    short = rect_stats(outer, g.area)[2]
    if short >= 0.95 * side:
        return False
    x, y, w, h = cv2.boundingRect(outer)
    height, width = frame_shape[:2]
    if x <= 1 or y <= 1 or x + w >= width - 1 or y + h >= height - 1:
        return False
    if glare is not None:
        # a reflection right beside the dark part (not the die's own white symbols, inside it)
        r = int(side * 0.35)
        x0, y0, x1, y1 = max(x - r, 0), max(y - r, 0), min(x + w + r, width), min(y + h + r, height)
        own = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.drawContours(own, [c - (x0, y0) for c in g.contours], -1, 255, -1)
        ring = cv2.subtract(cv2.dilate(own, np.ones((2 * r + 1, 2 * r + 1), np.uint8)), own)
        if cv2.countNonZero(cv2.bitwise_and(ring, glare[y0:y1, x0:x1])) >= 0.05 * side * side:
            return False
    return True
