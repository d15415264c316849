"""Finding the dice in a frame: dark dice on a lighter tray.

A die is where the brightest colour channel falls far below the tray's own
brightness at that spot (the calibrated empty tray, or the frame's own local
tray level), so uneven light is harmless and a red or yellow die is no dark
die. Dice calibrated as coloured (navy, purple: one channel far darker than
the others, sizing.die_channel) are looked for in that channel instead, the
tray's colour divided out. Three levels: black faces (below 0.34 of the tray), the faces of lighter
dark dice (smoky, navy, purple: below 0.45), and the lighter rounded rim round
a face (below 0.62, taken only next to a face, so a shadow is not). Dark
regions are then counted and cut apart in units of the die's side (see
clusters.py, counting.py); the number of dice thrown, when known, settles the ambiguous ones.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .clusters import (DARK_SHARE, DEFAULT_SIDE, Blob, Region, agreed_side, cut_necks, find_regions, lone_die,
                       measure_side, merge_slivers, on_grid, side_for_count, smaller_die, square_sides)
from .counting import choose
from .parallax import strip as side_strip

CORE_RATIO = 0.45  # a die's face: black ~0.15-0.3 of the tray's brightness, smoky, navy, purple up to ~0.45
BLACK_RATIO = 0.34  # a black die's face; a lamp's shadow on the tray rarely gets this dark
EDGE_RATIO = 0.62  # a die's rounded edges are lighter than its face yet stay below this; soft shadows above
DARKER = (1.0, 1.2, 1.45, 1.7, 2.0)  # how much darker than the ratios above a tray may make our dice look
PIP = 0.2  # of a die's side: a lone dark speck narrower than this is a pip, not a piece of a face
GLARE_RATIO = 1.1  # a lamp's reflection on a glossy die: brighter than the tray's usual colour
SMALL = (160, 120)  # working size for tray level and hand search: cheap and blurs away the dice
MOVED = 1.07  # dice measured this much smaller or larger than the calibrated side: has the camera moved?
MOVED_MOST = 1.6  # dice all this much smaller or larger: not a moved camera (a 2x2 block measures 2)
# A die with a large light symbol (a bee, a ZomBee) shows less dark face than clusters.DARK_SHARE once
# the masks are grown for a calibrated side larger than it: the demo table's dice, taught with the camera
# a quarter lower, measured no size at all, and told the count they read no die. A lone die's squareness
# says die. Only lone dice, and only when nothing else tells: over all regions, light dice's shaded
# parts joined the vote, and the real photos shrunk to 0.625, told, read 75.9 % of dice right, not 89.7 %
MOVED_DARK = 0.45
ROW3 = np.ones((1, 3), np.uint8)  # a pixel's three channels, side by side in a row (brightest)


@dataclass
class Detection:
    dice: list[Blob]
    hand: bool
    side: float
    tray: np.ndarray  # BGR of the tray's light, for white balance
    check: str | None = None  # why the dice seen cannot be the number thrown, when a count was given
    moved: float = 0.0  # side given (calibrated): the side the frame's dice measure when another (moved_side)
    left_out: int = 0  # side given: square dark regions left out as another set's smaller dice (clusters.smaller_die)
    # side given: as moved, measured on lone dice only. A row of touching dice lying a little askew measures
    # wider than a die: on the demo table, taught there, 44 of 150 trays of five measured 1.08-1.22 sides
    # by their rows. Told the count, a reading at that size is kept only when it reads clearly better
    # (moved_camera), and on the real photos shrunk to 0.625 rows and dice beside light dice were what
    # was measured (27 of 29 dice found told against 19 by lone dice); what is said uses this
    lone_moved: float = 0.0
    # side given: (x, y, long side) of each whole dark die left out as smaller than ours (clusters.smaller_die),
    # square or not: untold, the reader reads them at their own size (reader.DiceReader.smaller_too)
    smaller: tuple = ()


def tray_level(frame: np.ndarray, small: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(brightness of the tray at every pixel, tray colour) estimated from the frame itself (or its
    SMALL copy, when the caller has one)."""
    if small is None:
        small = cv2.resize(frame, SMALL, interpolation=cv2.INTER_AREA)
    v = brightest(small)
    # a max filter wider than a die replaces each die by the tray around it; smoothed first, or it
    # would pick the brightest grain of a noisy or textured tray and set the tray too bright
    level = cv2.dilate(cv2.blur(v, (3, 3)), cv2.getStructuringElement(cv2.MORPH_RECT, (19, 19)))
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
    """Each pixel's brightest channel. Taken as a three-wide maximum along the rows of the frame seen
    as one channel: the same values as splitting it, in half the time of the split and two maxima."""
    h, w = frame.shape[:2]
    rows = np.ascontiguousarray(frame).reshape(h, w * 3)
    return np.ascontiguousarray(cv2.dilate(rows, ROW3)[:, 1::3])


def reflections(frame: np.ndarray, tray: np.ndarray) -> np.ndarray:
    """Where a lamp's reflection may hide part of a die: white (every channel high, unlike a yellow
    symbol) above the tray's usual colour. Not the local tray level: that rises over a reflection."""
    b, g, r = cv2.split(frame)
    return cv2.compare(cv2.min(cv2.min(b, g), r), min(GLARE_RATIO * float(tray.max()), 245.0), cv2.CMP_GT)


def _ringed_light(speck: np.ndarray, edge: np.ndarray) -> bool:
    """Whether most of a thin ring round the speck is lighter than a die's rim."""
    x, y, w, h = cv2.boundingRect(speck)
    x0, y0 = max(x - 3, 0), max(y - 3, 0)
    own = np.zeros((min(y + h + 3, edge.shape[0]) - y0, min(x + w + 3, edge.shape[1]) - x0), np.uint8)
    cv2.drawContours(own, [speck - (x0, y0)], -1, 255, -1)
    ring = cv2.subtract(cv2.dilate(own, np.ones((5, 5), np.uint8)), own)
    dark = cv2.countNonZero(cv2.bitwise_and(ring, edge[y0:y0 + own.shape[0], x0:x0 + own.shape[1]]))
    return dark < 0.5 * cv2.countNonZero(ring)


def in_channel(frame: np.ndarray, tray: np.ndarray, channel: int) -> np.ndarray:
    """One colour channel of the frame with the tray's colour divided out: the tray shows there as
    bright as in its brightest channel, and a die dark in that channel (a purple die in green) dark."""
    gain = float(np.max(tray)) / max(float(tray[channel]), 1.0)
    return cv2.convertScaleAbs(np.ascontiguousarray(frame[..., channel]), alpha=gain)


def brightness_ratio(frame: np.ndarray, level_small: np.ndarray, background: np.ndarray | None = None,
                     tray: np.ndarray | None = None, channel: int = -1) -> np.ndarray:
    """Every pixel's brightness in percent of the tray's under it (uint8): its brightest channel, or
    with channel 0-2 and the tray's colour that one channel (in_channel)."""
    v = brightest(frame) if channel < 0 or tray is None else in_channel(frame, tray, channel)
    h, w = v.shape
    level = level_small.astype(np.float32)
    if background is not None:
        # the empty tray knows the rim, marks and light fall-off; scale it to tonight's brightness
        ref = cv2.resize(background, SMALL, interpolation=cv2.INTER_AREA).astype(np.float32)
        gain = float(np.median(level / np.maximum(ref, 1)))
        level = ref * gain
    # the tray level is smooth: enlarged from the small copy, then one division gives every pixel's
    # brightness in percent of the tray under it
    return cv2.divide(v, cv2.resize(np.clip(level, 1, 255).astype(np.uint8), (w, h),
                                    interpolation=cv2.INTER_LINEAR), scale=100)


def die_masks(frame: np.ndarray, level_small: np.ndarray, background: np.ndarray | None = None,
              side: float | None = None, dark: float = 1.0, tray: np.ndarray | None = None,
              channel: int = -1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(core, face, die): the dark faces of dice; the same with the gaps their symbols and glare
    cut closed; and that grown over each die's lighter rounded rim.

    dark: the ratios above are for a light tray (white card, a pale sheet). On a darker tray (green
    felt, wood) the same dice are a larger share of the tray's brightness; calibration measures by
    how much (one of DARKER) and the ratios are raised by it. tray, channel: see brightness_ratio."""
    core_ratio, black_ratio = min(CORE_RATIO * dark, 0.85), min(BLACK_RATIO * dark, 0.75)
    edge_ratio = min(EDGE_RATIO * dark, 0.92)
    ratio = brightness_ratio(frame, level_small, background, tray, channel)
    s = side or DEFAULT_SIDE
    core = cv2.morphologyEx(cv2.compare(ratio, core_ratio * 100, cv2.CMP_LT), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    edge = cv2.morphologyEx(cv2.compare(ratio, edge_ratio * 100, cv2.CMP_LT), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    # A lamp's hard shadow can be as dark as a smoky die. A black die is far darker than both, so
    # where a dark patch holds black, only the black counts (its rim is added below); a patch with
    # (almost) no black is a die of a lighter dark colour and counts whole.
    black = cv2.compare(ratio, black_ratio * 100, cv2.CMP_LT)
    seeds = cv2.bitwise_and(black, core)
    contours, _ = cv2.findContours(core, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    for c in contours:
        if cv2.contourArea(c) < (0.3 * s) ** 2:
            continue  # too small to be a die whatever its colour
        x, y, cw, ch = cv2.boundingRect(c)
        patch = np.zeros((ch, cw), np.uint8)
        cv2.drawContours(patch, [c - (x, y)], -1, 255, -1)
        patch = cv2.bitwise_and(patch, core[y:y + ch, x:x + cw])
        if cv2.countNonZero(cv2.bitwise_and(patch, black[y:y + ch, x:x + cw])) < 0.3 * cv2.countNonZero(patch):
            seeds[y:y + ch, x:x + cw] |= patch
    # a light die's pips are dark specks ringed by its light face: the closing below would join them
    # onto a dark die beside it. A black bit of our face between a symbol and the rim stays: the rim
    # around it is darker (below EDGE_RATIO).
    cv2.drawContours(seeds, [c for c in contours if cv2.contourArea(c) < (PIP * s) ** 2 and _ringed_light(c, edge)],
                     -1, 0, -1)
    # close the gaps a bright symbol or glare cuts into a face (a "Zzz" can cut a die in two),
    # without bridging dice that merely lie near each other
    k = int(max(5, s * 0.35)) | 1
    face = cv2.morphologyEx(seeds, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    # the rounded edges are lighter than the face: take them only close to a face, so a shadow or
    # a neighbouring coloured die is not swallowed
    r = int(max(2, s * 0.12))
    near = cv2.dilate(face, np.ones((2 * r + 1, 2 * r + 1), np.uint8))
    die = cv2.bitwise_or(face, cv2.bitwise_and(edge, near))
    return core, face, cv2.morphologyEx(die, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))


def moved_side(regions: list[Region], side: float) -> tuple[float, float]:
    """(the side most dice in the frame measure, the same on lone dice alone), each when it is not the
    calibrated side: the camera may have been lowered or raised since calibration (0.0 when they
    measure the calibrated side, or no side a moved camera could show)."""
    lone = _agreed([g for g in regions if lone_die(g)], MOVED_DARK)
    seen = _agreed(regions, DARK_SHARE) or lone  # lone dice with large light symbols, when nothing else tells

    def off(s: float) -> float:
        return s if s and MOVED <= size_off(s, side) <= MOVED_MOST else 0.0
    return off(seen), off(lone)


def raised(smaller: tuple, side: float) -> float:
    """The side our dice would measure under a raised camera, from the dice left out as smaller
    (Detection.smaller: x, y, long side): the median of the largest that a moved camera could show
    (MOVED_MOST) and those at least 0.85 of it; 0.0 when none could be ours."""
    sides = sorted((s for _, _, s in smaller if size_off(s, side) <= MOVED_MOST), reverse=True)
    return float(np.median([s for s in sides if s >= 0.85 * sides[0]])) if sides else 0.0


def _agreed(regions: list[Region], dark_share: float) -> float:
    shorts = square_sides(regions, dark_share)
    return agreed_side(shorts) if shorts else 0.0


def size_off(a: float, b: float) -> float:
    """How many times the larger of two die sides is the smaller (1.0 when they are alike)."""
    return max(a / b, b / a)


def detect(frame: np.ndarray, side: float | None = None, background: np.ndarray | None = None,
           expected=None, dark: float = 1.0, judge=None, channel: int = -1, sides: float = 0.0) -> Detection:
    """Every die on the tray, touching dice split, hands flagged and dice under them dropped.

    side: the die's side in pixels (calibrated), else measured from the frame. expected: how many
    dice were thrown (an int or a collection of acceptable counts); it only chooses between plausible
    ways to split a cluster, and `check` says so when no plausible way gives that many dice. dark: see
    die_masks (calibrated for the tray; 1.0 for a light one). judge(ways, side, tray): how surely
    each way's dice cut from this frame read as faces (0-1 each), to choose between ways of cutting
    touching dice (counting.Judge). channel: the colour channel coloured dice are looked for in
    (brightness_ratio; -1: the brightest). sides: how much of their sides the camera shows of dice away
    from the picture's middle (Model.sides, find/parallax.strip), counted as part of each die there
    when touching dice are cut apart; with a side given."""
    small = cv2.resize(frame, SMALL, interpolation=cv2.INTER_AREA)
    level, tray = tray_level(frame, small)
    hand, hand_mask = find_hand(small, tray)
    core, face, die = die_masks(frame, level, background, side, dark, tray, channel)
    found = find_regions(die, core, face)
    known = side is not None
    # pieces of one die cut apart by a highlight only tell the size once joined: the frame's own
    # measure of it, which a calibrated size is checked against (a camera moved since, moved_side)
    joined = merge_slivers(found, measure_side(found))
    if known:
        regions, (moved, lone_moved) = found, moved_side(joined, side)
    else:
        regions, moved, lone_moved, side = joined, 0.0, 0.0, measure_side(joined)
    big = None
    if hand:
        big = cv2.resize(cv2.dilate(hand_mask, np.ones((5, 5), np.uint8)), (frame.shape[1], frame.shape[0]),
                         interpolation=cv2.INTER_NEAREST)
    glare = reflections(frame, tray) if known else None

    left_out, dropped = 0, []

    def regions_at(regions: list, side: float) -> list:
        nonlocal left_out, dropped
        regions = cut_necks(merge_slivers(regions, side), side, core, face)
        if glare is not None:
            # a calibrated die size tells our dice from another set's smaller ones; a size measured from
            # the frame is only what most regions agree on, and cannot tell them apart
            smaller = [smaller_die(g, side, frame.shape, glare) for g in regions]
            # counted as dice only when square-cornered (square_sides at MOVED_DARK), not a light die's shade
            left_out = len(square_sides([g for g, out in zip(regions, smaller) if out], MOVED_DARK))
            dropped = [(g.x, g.y, g.long) for g, out in zip(regions, smaller) if out]
            regions = [g for g, out in zip(regions, smaller) if not out]
        if big is not None:
            regions = [g for g in regions if not big[min(int(g.y), big.shape[0] - 1),
                                                     min(int(g.x), big.shape[1] - 1)]]
        return regions

    pick = None if judge is None else (lambda ways, s: judge(ways, s, tray))
    strip = (lambda x, y: side_strip(x, y, frame.shape, sides)) if known and sides else None
    dice, check = choose(regions_at(regions, side), side, expected, pick, known, strip)
    if check and not known:
        # With every die touching another (a 2x2 block, an L) the frame shows no lone die, and a
        # block passes for one big die. The number thrown and the dark area they cover give the side,
        # if the blocks then measure whole dice both ways.
        for other in side_for_count(found, expected):
            if abs(other - side) > 0.1 * side:
                cut = regions_at(found, other)
                alt, alt_check = choose(cut, other, expected, pick)
                if alt_check is None and on_grid(cut, other):
                    dice, check, side = alt, None, other
                    break
    dice.sort(key=lambda b: (b.y, b.x))
    return Detection(dice, hand, side, tray, check, moved, left_out, lone_moved, tuple(dropped))
