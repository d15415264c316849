"""Where the pip dice lie, however near or far the camera: the finder asked at the scale it learned.

The finder (vision/pips/net.py) learned dice some 7-45 pixels across its input, LEARNED in the middle,
and first sees the photo with its long side at the finder's own side (twice that for a photo four
times as large: `first_side`). A camera farther off, or a wide one, shows the whole table with its
dice a fiftieth of the photo across: found smaller than SMALL there (a third of the finds will do,
or none found), they are looked for again closer (`find`). A camera close over the tray shows a die
larger than it learned, which it can find as its pips: then it also looks FARTHER times farther off
(`farther`), and a die found whole there, read surely, takes the place of the finds on it
(`instead`).
"""

from __future__ import annotations

import numpy as np

from .net import PipNet, finder_input, peaks

FOUND = 0.3  # the finder's heat at a die's centre: below it, no die
NEAR = 0.55  # two finds closer than this share of their box are one die
# dice found smaller than SMALL (a SHARE of the finds), or none found, are looked for again with the photo
# scaled to show them LEARNED across (none found: CLOSER times closer), until they are NEAR_LEARNED, up to
# the photo's own size or LONGEST pixels a side. The held-out half in a frame twice as large 90.9 -> 97.6 %,
# a 16:9 one 25.0 -> 97.2 %, a 4K one 0.0 -> 96.4 %, the 16:9 one tilted 35 degrees 96.4 %; close up as
# before (bench/pips.py, rows "wider", "wide, tilted 35"). Closer at any small find rather than a third:
# tilted one die more, but the cloths' texture found closer up and three dice surely wrong on them
LEARNED, NEAR_LEARNED, SMALL, CLOSER, LONGEST, SHARE = 20.0, 16.0, 12.0, 2.0, 1600, 1 / 3
# a find as large as LARGE sends the finder FARTHER times farther off; a die it finds there takes the place
# of the finds on it unless they are one find of at least WHOLE of its size (the die, found whole: it
# was cut at full size). The held-out half three times closer (its dice a seventh to a quarter of the
# photo across): dice right 117 -> 118 of 121, sure and wrong 1 -> 0 (bench/pips.py, row "closer 3x");
# four times closer 59 -> 60 of 61, sure and wrong 3 -> 0. Found none at all, or none the reader calls a die
# (read_d6), it looks farther off too: a drawn die half the photo across, found no other way, reads its
# value at every face, and a one 200-260 pixels across, found as its pip alone, reads one
LARGE, FARTHER, WHOLE = 36.0, 2, 0.7
BIG = 4  # a photo this many times the finder's side is first looked at twice as large (first_side)


def look(frame: np.ndarray, finder: PipNet, side: int) -> list:
    """The finder's finds, (x, y, box, heat) in the photo's pixels, with the photo's long side at side."""
    blob, f = finder_input(frame, side)
    return peaks(finder.forward(blob), finder.stride, f, FOUND)


def apart(found: list) -> list:
    """The strongest of finds that lie on one die."""
    kept = []
    for x, y, box, heat in sorted(found, key=lambda f: -f[3]):
        if all(np.hypot(x - k[0], y - k[1]) > NEAR * max(box, k[2]) for k in kept):
            kept.append((x, y, box, heat))
    return kept


def find(frame: np.ndarray, finder: PipNet) -> list:
    """Where the dice lie, (x, y, box, heat) each: the finder looks at the whole photo (first_side);
    when a SHARE of its finds are smaller than SMALL there, it looks again closer, as often as it takes
    to see them about LEARNED across or to reach the photo's own pixels. Found none: it looks once
    CLOSER, no more (an empty tray)."""
    longest = max(frame.shape[:2])
    most = min(max(longest, finder.side), LONGEST)
    side, kept = first_side(frame, finder), []
    first = side
    found = look(frame, finder, side)
    while True:
        seen = [box * side / longest for _, _, box, _ in found]
        if side == first:
            # a third of the finds smaller than SMALL will do: a die or two seen whole, or a bar or a shadow
            # found large, must not hide many small ones (a median of three finds is no measure of the dice)
            aim = [s for s in seen if s < SMALL]
            if seen and len(aim) < SHARE * len(seen):
                break
            kept = [d for d, s in zip(found, seen) if s >= SMALL]  # dice as large as learned: found already
        elif not seen or np.median(seen) >= NEAR_LEARNED:
            break
        else:
            aim = seen
        # below SMALL the finder's sizes are too large (it learned none smaller): one look rarely does
        closer = min(int(side * (LEARNED / np.median(aim) if aim else CLOSER)), most)
        if closer < side * 1.25:
            break
        side = closer
        found = [d for d in look(frame, finder, side) if d[2] * side / longest <= 2 * LEARNED]
    return apart(kept + found)


def first_side(frame: np.ndarray, finder: PipNet) -> int:
    """The photo's long side at the finder's first look: its own side, twice that for a photo BIG times
    as large (a 1080p or 4K camera showing the whole table shows its dice too small to be found there
    at all, and what it finds there, a few dice seen as one, hides them)."""
    return finder.side * (2 if max(frame.shape[:2]) >= BIG * finder.side else 1)


def farther(frame: np.ndarray, finder: PipNet, found: list) -> list:
    """The dice found FARTHER times farther off than the first look, large there, when a find is LARGE
    at the first look or there are none (a die half the photo across is found no other way)."""
    longest, first = max(frame.shape[:2]), first_side(frame, finder)
    if found and max(box for _, _, box, _ in found) * first / longest < LARGE:
        return []
    side = first // FARTHER
    return apart([d for d in look(frame, finder, side) if d[2] * side / longest >= 0.8 * LEARNED])


def instead(found: list, far: list, sure: list) -> list[int]:
    """Which of found + far to keep, as indices: each far die read surely (sure) in place of the finds
    on it, unless they are one find at least WHOLE of its size."""
    dropped, taken = set(), []
    for j, (big, ok) in enumerate(zip(far, sure)):
        on = [i for i, d in enumerate(found) if i not in dropped and np.hypot(d[0] - big[0], d[1] - big[1]) <= big[2] / 2]
        if not ok or (len(on) == 1 and found[on[0]][2] >= WHOLE * big[2]):
            continue
        dropped.update(on)
        taken.append(len(found) + j)
    return [i for i in range(len(found)) if i not in dropped] + taken
