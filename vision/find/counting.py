"""How many dice each dark region of the tray holds (clusters.py finds the regions), and where to cut it.

A region's area, and the length of a straight row, say how many dice it holds
in units of the die's side. Where it could be one number or the next (a die
leaning on another shows more than one face), the faces decide: a judge says
how surely each way's dice read as faces, and a die cut in two reads as pieces
of a symbol. The number of dice thrown, when known, settles what is still
ambiguous; neither ever adds a die that no region could hold.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from itertools import product

import cv2
import numpy as np

from .clusters import DARK_SHARE, Blob, Region, rect_stats, solid, thrown_counts

MAX_GROUP = 9  # more dice than this in one dark region: a rim or a shadowed corner, not dice
PLAUSIBLE = 0.75  # how far (in dice) a count may stray from a region's own estimate to meet the hint
# how much less of its area may be dark where it spans a calibrated die: on the real photos repainted
# as green felt and shaken by the camera, fives and sixes read unknown 18 of 22 times instead of 8
SQUARE_RELIEF = 0.2


def _along(g: Region, strip: tuple[float, float]) -> float:
    """How much of the strip (find/parallax.strip) lies along the region's long axis."""
    _, (w, h), deg = cv2.minAreaRect(np.concatenate(g.contours).reshape(-1, 2).astype(np.float32))
    a = math.radians(deg if w >= h else deg + 90)
    return abs(strip[0] * math.cos(a) + strip[1] * math.sin(a))


def estimate(g: Region, side: float, known: bool = False, strip: tuple[float, float] = (0.0, 0.0)) -> float | None:
    """How many dice the region holds, as a real number; None when it is no die at all. known: the
    side was given, not measured from this frame (calibrated; or the half size the reader tries on a
    block that may be four dice, DiceReader.cut_in_half). strip: how far, in sides across and down,
    the dice's sides show beside their tops there (find/parallax.strip): each die covers that much more."""
    unit = side * side
    # A die-sized square, or slivers that join into a die's span, in good part lighter than a die's
    # face: a shaken camera smears a 5's or a 6's white pips over it, a reflection across a glossy die
    # of a lighter colour cuts it in two. Only a calibrated side says it is a die of ours: measured from
    # the frame, a square fits a light die with dark pips as well. One ragged piece is no such die (a
    # gold die with black pips on the real photos gave one that spans a die).
    spans = known and g.short > 0.9 * side and g.long < 1.2 * side and (g.fill > 0.75 or len(g.contours) > 1)
    share = DARK_SHARE - (SQUARE_RELIEF if spans else 0.1 if g.area > 0.8 * unit else 0)
    if g.area < 0.4 * unit or g.short < 0.45 * side or g.dark < share:
        return None  # specks, pips or the shaded half of a light die, a thin rim edge, a wall's dark line
    if 1.3 * side < g.short < 1.8 * side and g.fill > 0.75:
        # wider than a die, narrower than two: a die leaning on the others in a row shows its side
        # across the row, so the row's length still counts the dice (the leaning one a bit longer)
        return g.long / side - 0.3
    if g.fill > 0.8 and g.short > 0.7 * side and g.short < 1.3 * side:
        # a straight row of touching dice: its length counts them, whatever the light did to the area
        return g.long / side - 0.15 - (_along(g, strip) if any(strip) else 0.0)
    # far from the picture's middle a die's sides show beside its top: on the second renderer's trays
    # two touching dice there covered 2.6 tops and were cut in three
    return g.area / (unit * (1 + math.hypot(*strip))) - 0.1


SHAPE_WEIGHT = 0.5  # how much the cut pieces looking like dice counts against the area's own estimate
# How much the pieces reading as faces counts (a judge's 0-1 answer): on held-out rendered trays read
# by the default model it took the frames with a wrong count from 1.67 % to 0.33 % (weight 0.5: 0.33 %
# but fewer dice right on held-out art, 1.5: 1.33 %; bench/vision.py)
JUDGE_WEIGHT = 1.0
# (ways, side) -> how surely each way's dice read as faces, 0-1: the reader's cost is mostly in each
# time it is asked (each pass of its own over the dice it is given), not in each die, so it is asked
# once for the whole frame
Judge = Callable[[list[list[Blob]], float], list[float]]


def _misfit(blobs: list[Blob], side: float, strip: float = 0.0) -> float:
    """How far the pieces are from the size of a die with its sides' strip (0 for perfect dice)."""
    out = 0.0
    for b in blobs:
        short = math.sqrt(b.area / max(b.fill * b.aspect, 1e-3))
        out += abs(short / side - 1) + abs(short * b.aspect / (side * (1 + strip)) - 1)
    return out / max(len(blobs), 1)


def plans(g: Region, side: float, known: bool = False,
          strip: tuple[float, float] = (0.0, 0.0)) -> dict[int, tuple[float, list[Blob]]]:
    """The plausible ways to read the region: dice count -> (cost, dice). Empty when it is no die.
    strip: see estimate."""
    x = estimate(g, side, known, strip)
    if x is None:
        return {}
    best = max(1, int(round(x)))
    if best > MAX_GROUP:
        return {}
    counts = [n for n in (best - 1, best, best + 1) if n >= 1 and (n == best or abs(x - n) < PLAUSIBLE)]
    if len(counts) == 1:
        return {best: (0.0, split(g, best, side))}
    out = {}
    for n in counts:
        blobs = split(g, n, side)
        out[n] = (abs(x - n) + SHAPE_WEIGHT * _misfit(blobs, side, math.hypot(*strip)), blobs)
    return out


def _close(ways: dict) -> list[int]:
    """The counts whose cost is still within the judge's reach of the cheapest."""
    best_cost = min(cost for cost, _ in ways.values())
    return [n for n, (cost, _) in ways.items() if cost < best_cost + JUDGE_WEIGHT]


def judged(options: list[dict], side: float, judge: Judge) -> list[dict]:
    """options (plans of each region) with the judge's say added: a way still close to the cheapest
    costs JUDGE_WEIGHT x (1 - how surely its dice read as faces) more, any other way JUDGE_WEIGHT.
    Regions the judge cannot change are handed over with it (their one close way), in the one
    question: the reader reads those dice anyway, and keeps what it read."""
    close = [_close(p) for p in options]
    if not any(len(c) > 1 for c in close):
        return options  # the judge reads dice, which takes time: not when it could change nothing
    asked = [(i, n) for i, c in enumerate(close) for n in c]
    verdict = dict(zip(asked, judge([options[i][n][1] for i, n in asked], side)))
    return [p if len(c) == 1 else
            {n: (cost + JUDGE_WEIGHT * (1 - verdict[i, n] if n in c else 1), blobs) for n, (cost, blobs) in p.items()}
            for i, (p, c) in enumerate(zip(options, close))]


def choose(regions: list[Region], side: float, expected=None, judge: Judge | None = None, known: bool = False,
           strip: Callable[[float, float], tuple[float, float]] | None = None) -> tuple[list[Blob], str | None]:
    """The dice of all regions, and a sentence when they cannot be the number thrown (judge: when
    a region could hold more than one number of dice, how surely each way's dice read as faces;
    known: the side was given, see estimate; strip(x, y): how far the dice's sides show there)."""
    options = [p for p in (plans(g, side, known, strip(g.x, g.y) if strip else (0.0, 0.0)) for g in regions) if p]
    if judge is not None:
        options = judged(options, side, judge)
    picks = [min(p, key=lambda n: p[n][0]) for p in options]
    check = None
    if expected is not None:
        wanted = set(thrown_counts(expected))
        if sum(picks) not in wanted:
            ambiguous = [i for i, p in enumerate(options) if len(p) > 1][:8]
            best = None
            # few regions are ever ambiguous at once; trying every combination of theirs is cheap
            for combo in product(*[sorted(options[i]) for i in ambiguous]):
                trial = list(picks)
                for i, n in zip(ambiguous, combo):
                    trial[i] = n
                cost = sum(options[i][n][0] for i, n in enumerate(trial))
                if sum(trial) in wanted and (best is None or cost < best[0]):
                    best = (cost, trial)
            if best is not None:
                picks = best[1]
            else:
                check = count_check(sum(picks), expected)
    return [b for p, n in zip(options, picks) for b in p[n][1]], check


def count_check(seen: int, expected) -> str | None:
    """The sentence for seen dice where the number thrown (see thrown_counts) is another; None if it is one."""
    wanted = set(thrown_counts(expected))
    if seen in wanted:
        return None
    thrown = " or ".join(str(n) for n in sorted(wanted))
    dice, were = "die" if seen == 1 else "dice", "was" if wanted == {1} else "were"
    return f"the tray shows {seen} {dice} where {thrown} {were} thrown"


def _seeded_kmeans(pts: np.ndarray, k: int) -> np.ndarray:
    """Deterministic k-means of pixel coordinates, seeded at points far apart (a 2x2 block's
    corners, an L's ends and elbow), so every die gets its own seed whatever the arrangement."""
    centre = pts.mean(0)
    seeds = [pts[((pts - centre) ** 2).sum(1).argmax()]]
    d = ((pts - seeds[0]) ** 2).sum(1)
    while len(seeds) < k:
        seeds.append(pts[d.argmax()])
        d = np.minimum(d, ((pts - seeds[-1]) ** 2).sum(1))
    first = ((pts[:, None, :] - np.array(seeds)[None]) ** 2).sum(2).argmin(1).astype(np.int32).reshape(-1, 1)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 15, 0.05)
    _, labels, _ = cv2.kmeans(pts.astype(np.float32), k, first, criteria, 1, cv2.KMEANS_USE_INITIAL_LABELS)
    return labels.ravel()


def split(g: Region, n: int, side: float) -> list[Blob]:
    """The region cut into n dice (none when n is 0)."""
    if n <= 0:
        return []
    if n == 1:
        return [Blob(g.x, g.y, side, g.angle, g.area, g.fill, g.long / g.short, 1)]
    mask, x0, y0 = solid(g.contours)
    ys, xs = np.nonzero(mask[::2, ::2])  # every other pixel is plenty to place the cuts
    pts = np.stack([xs, ys], 1).astype(np.float64) * 2
    labels = _seeded_kmeans(pts, n)
    out = []
    for i in range(n):
        part = pts[labels == i]
        if len(part) < 5:
            continue
        cx, cy, short, long_, ang, fill = rect_stats(part, len(part) * 4.0)
        out.append(Blob(cx + x0, cy + y0, side, ang, len(part) * 4.0, fill, long_ / short, n))
    return out
