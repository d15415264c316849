"""DiceReader: one frame in, the faces of every die on the tray out."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from .cut.features import dice_maps, dice_views
from .cut.symbol import dice_patches, dice_symbols
from .find.clusters import DEFAULT_SIDE
from .find.counting import count_check
from .find.detect import DARKER, Detection, detect, raised, size_off
from .find.parallax import tops
from .images import check_frame, resized
from .name import paircolour
from .name.cnn import looks
from .name.model import CLASSES, MAX_LARGER, UNKNOWN, Model, both_ways, surer_face
from .name.modelfile import load_model
from .name.net import edges_read
from .name.pipfaces import found_by_pips, joined as pips_joined, places
from .pips import beliefs
from .reading import Die, Reading


WORK_SIDE = 800  # longest side, in pixels, of the picture the reader works on
BIG_SIDE = 52.0  # a die measured larger than this (in the picture worked on) is read from a smaller copy
SMALL_SIDE = 20.0  # calibrated on dice measured smaller than this, the reader works on an enlarged copy
BLOCK_LOOK = 1.45  # of the usual side: dice first measured this large may be touching dice measured whole
CLEARLY_BETTER = 0.1  # mean face confidence by which dice cut at half the size must beat the whole ones
SURE = 0.9  # a die read less surely than this by a model that nudges (Model.nudge) is read again from its cuts
# ... and once more with a lamp's streaks taken down (features.deglared), which names its face only when
# that reading is at least this sure of a face, and surer than the cuts were; never surely, though
# (model.surer_face caps it below SURE): taken down, a 6's small pips can go with the glare. Over the
# real photos under 25 changed cameras (bench/cameras.py) 1534 of 1575 dice read right instead of 1522,
# fives and sixes `unknown` 261 of 275 instead of 262; combined changes 463 of 504 instead of 460, 80
# of 88 as before. Taken at any sureness, the second set of other real dice (bench/other_dice.py) read
# 56 of 64 instead of 52 but its fives and sixes `unknown` 21 of 38 instead of 33 (0.75: 52, 30; this
# 52, 32); uncapped, rendered pip dice read 3 of 273 sure dice wrong (capped 2 of 260)
GLARE_SURE = 0.8
# A die told as no face but not surely none (below the model's threshold, and unknown below SURE) is
# read again cut this much smaller and larger, the three readings averaged: its region often holds a
# strip of its sides or a neighbour's rim, or misses some of its rim, and the cut taken from it is a
# little off the top's size. On the second renderer's trays (bench/other_renderer.py, seeds 4 and 5
# chosen on, 1-3 not) 583 / 554 -> 587 / 557 of 600 / 593 dice and 574 / 562 / 597 -> 576 / 565 / 597,
# no sure die wrong. A die surely no face (a five among pip dice taught 1-4) is not read again: the
# same dice read, and a frame of pip dice took 22 ms instead of 18 when they were
SIZES = (0.85, 1.15)
CLEARLY_MOVED = 1.15  # dice measured this much off their calibrated size, some unknown, may be read at it


def working(frame: np.ndarray, shrink: float = 1.0) -> tuple[np.ndarray, float]:
    """The frame at the size the reader works in, and the factor back to the frame's own pixels.

    Everything after this was made for dice some 25-50 pixels across, as a 640x480 camera shows them.
    A 12-megapixel phone photo or a 1080p webcam shows the same die three to six times larger, and a
    crop shrunk that much in one step aliases: averaging the picture down first keeps a bigger
    camera from reading worse than a small one. A camera close over the tray shows large dice in a
    small frame too: shrink (from the die size, see smaller) takes the picture further down. A shrink
    above 1 enlarges it instead: a camera far from the tray, whose dice are too small to be found
    (calibration learns that, see larger)."""
    longest = max(frame.shape[:2])
    f = min(1.0, WORK_SIDE / longest) * shrink
    if f == 1.0:
        return frame, 1.0
    return resized(frame, f), 1 / f


def smaller(side: float) -> float:
    """The further shrink that shows a die measured side pixels across at the size the reader was made
    for (1.0 when it already is)."""
    return DEFAULT_SIDE / side if side > BIG_SIDE else 1.0


def larger(side: float) -> float:
    """The enlargement that shows a die measured side pixels across at the size the reader was made for,
    when it is too small to be read well (1.0 when it is not). Only calibration asks: its photos are
    known to show dice; in play a speck enlarged could pass for one."""
    return min(DEFAULT_SIDE / side, MAX_LARGER) if 0 < side < SMALL_SIDE else 1.0


class DiceReader:
    """Detects and classifies the dice in a frame with a model (None = the shipped default)."""

    def __init__(self, model: Model | str | Path | None = None):
        self.model = model if isinstance(model, Model) else load_model(model)

    def detect(self, frame: np.ndarray, expected=None, side: float | None = None,
               seen: dict | None = None) -> Detection:
        """The dice in frame at the model's side (or side, or measured). Uncalibrated, touching dice
        are cut the way whose pieces read most surely as faces; the dice read to judge that are kept
        in seen (by blob), so that classify need not read them again."""
        seen = {} if seen is None else seen

        def judge(ways, side, tray):  # every way's dice read in one pass (counting.Judge)
            dice = self.classify(frame, Detection([b for way in ways for b in way], False, side, tray), seen)
            ends = np.cumsum([0] + [len(way) for way in ways])
            return [faces_read(dice[a:b]) for a, b in zip(ends[:-1], ends[1:])]

        # A calibrated side cuts touching dice well by their outline: there the judge cut more wrong
        # (held-out trays, calibrated: 0.28 % of frames miscounted without it, 0.97 % with it)
        det = detect(frame, side=side or self.model.side or None, background=self.model.background,
                     expected=expected, dark=self.model.dark, judge=None if self.model.side else judge,
                     channel=self.model.channel, sides=self.model.sides)
        det.dice = tops(det.dice, frame.shape, det.side, self.model.parallax)
        return det

    def read(self, frame: np.ndarray, timestamp: float | None = None, expected=None) -> Reading:
        """expected: how many dice were thrown (an int, or a collection of acceptable counts), when the
        game knows. It only chooses between plausible ways to cut touching dice apart; when no way gives
        that many, the Reading's `check` says so. It never adds a face: an unreadable die is `unknown`."""
        return self.inspect(frame, timestamp, expected)[0]

    def inspect(self, frame: np.ndarray, timestamp: float | None = None, expected=None) -> tuple[Reading, float]:
        """The reading, and the die's side in the frame's own pixels (how big the camera shows a die)."""
        frame = check_frame(frame)
        reading, side = self._inspect(frame, timestamp, expected)
        if expected is not None and not self.model.side and reading.check is None and "unknown" in reading.faces:
            # Uncalibrated, the number thrown may set the size dice are cut at (detect: no lone die to
            # measure), and a 2x2 block told "five" came out as five, one a piece of no face made up
            # to reach it. When the frame read untold gives fewer dice, every one a face, those stand.
            # (Not more: read untold, a cocked die, rightly unknown when told, can come out as two faces.)
            untold, untold_side = self._inspect(frame, timestamp, None)
            if untold.dice and len(untold.dice) < len(reading.dice) and "unknown" not in untold.faces:
                reading, side = replace(untold, check=count_check(len(untold.dice), expected)), untold_side
        if self.model.pips and (expected is None or reading.check is not None):
            # pip dice: a die lighter than the table's finder sees, or one a raised camera shows smaller
            more = found_by_pips(frame, reading.dice, side, self.model.pips)
            if more:
                check = None if expected is None else count_check(len(reading.dice) + len(more), expected)
                reading = replace(reading, dice=reading.dice + more, check=check)
        return reading, side

    def _inspect(self, frame: np.ndarray, timestamp: float | None, expected) -> tuple[Reading, float]:
        shrink = self.model.shrink
        work, back = working(frame, shrink)
        seen = {}
        det = self.detect(work, expected, seen=seen)
        work0, back0, side0, seen0 = work, back, det.side, seen  # the frame as first measured
        # Uncalibrated, the die size is measured in each frame: dice that measure large are measured
        # again from a smaller copy (a large die's pips and symbol are holes wide enough to cut its face
        # into pieces, so the first measure can fall short of the true size: twice at most).
        for _ in range(2):
            if self.model.side or smaller(det.side) == 1.0:
                break
            shrink *= smaller(det.side)
            work, back = working(frame, shrink)
            seen = {}
            det = self.detect(work, expected, seen=seen)
        dice = self.classify(work, det, seen)
        # the side the lone dice measure, when another (askew rows measure wide: Detection.lone_moved); smaller
        # dice left out beside more dice of the taught size are another set's, and ours measure as taught
        lone = det.lone_moved
        if lone and not (lone > self.model.side or det.left_out > len(det.dice) or not det.dice):
            lone = 0.0
        moved, measured = 0.0, lone / self.model.side if lone else 0.0
        if det.moved:
            again = self.moved_camera(frame, shrink, det, dice, expected)
            if again is not None:
                moved = measured = det.moved / self.model.side
                work, back, det, dice = again
                lone = 0.0  # read at the size they measure: det.side is it
            elif expected is None and det.smaller and det.moved < self.model.side:
                more = self.smaller_too(frame, shrink, back, det, dice)
                if more is not None:
                    if len(more) >= 2 * len(dice):  # most read smaller: a camera raised since, more likely
                        moved = det.moved / self.model.side  # than another set (what is said, moved_words)
                    dice = more
            elif expected is None and det.moved > self.model.side:
                dice = self.unknown_larger(frame, shrink, back, det, dice) or dice
        elif expected is None and not dice and self.model.side and (size := raised(det.smaller, self.model.side)):
            # Untold, and every die smaller than taught, too unlike in size to agree on one (their own set and
            # another's, both shrunk): a camera raised since calibration shows ours as the largest of them
            more = self.smaller_too(frame, shrink, back, replace(det, moved=size), dice)
            if more is not None:
                moved, dice = size / self.model.side, more
        if not self.model.side and dice and side0 >= BLOCK_LOOK * DEFAULT_SIDE:
            halves = self.cut_in_half(work0, side0, dice, expected, seen0)
            if halves is not None:
                work, back, (det, dice) = work0, back0, halves
        if back != 1.0:
            dice = [scaled(d, back) for d in dice]
        # the side in the frame's own pixels: what the camera shows, not what was taught
        return Reading(dice, det.hand, timestamp, det.check, moved, measured), (lone or det.side) * back

    def moved_camera(self, frame: np.ndarray, shrink: float, det: Detection, dice: list[Die],
                     expected=None) -> tuple | None:
        """(working frame, its factor back, detection, dice) read from a frame at the size that shows
        the dice as calibration saw them, or None to keep det's dice: the frame's dice measure another
        size (Detection.moved), as when the camera was lowered or raised since calibration.

        Only the number thrown decides: when the dice read at the calibrated size miss it (or read
        unknown, the dice CLEARLY_MOVED off their size: a frame measures a few percent off now and
        then, and a face never taught is rightly unknown), and those read at the measured size make it
        and read clearly better. Untold, nothing is read again larger: a leaning die, rightly unknown,
        makes a frame measure larger and reads as a face at a smaller size (dice left out as smaller:
        smaller_too)."""
        if expected is None:
            return None
        if det.check is None and ("unknown" not in [d.face for d in dice] or
                                  size_off(det.moved, self.model.side) < CLEARLY_MOVED):
            return None
        work, back = working(frame, shrink * self.model.side / det.moved)
        seen = {}
        moved = self.detect(work, expected, seen=seen)
        again = self.classify(work, moved, seen)
        if moved.check is None and (det.check is not None or faces_read(again) > faces_read(dice) + CLEARLY_BETTER):
            return work, back, moved, again
        return None

    def _read_at(self, frame: np.ndarray, shrink: float, back: float, side: float) -> tuple[list[Die], float]:
        """The dice read, untold, in a copy of the frame that shows dice measuring side (in the working frame
        whose factor back to the frame is back) at the size calibration saw them, and the factor from that
        copy's pixels to the working frame's."""
        work, moved_back = working(frame, shrink * self.model.side / side)
        seen = {}
        return self.classify(work, self.detect(work, None, seen=seen), seen), moved_back / back

    def unknown_larger(self, frame: np.ndarray, shrink: float, back: float, det: Detection,
                       dice: list[Die]) -> list[Die] | None:
        """dice, each read unknown replaced by the face read at its place in a copy of the frame that shows
        the dice at the size calibration saw them, when most measure larger (det.moved: a camera lowered
        since); None when that reads none of them as a face. Untold, only a die's own second look: the
        whole frame read again smaller finds other dice in light dice's shades, and a count may change."""
        found, k = self._read_at(frame, shrink, back, det.moved)
        found = [scaled(d, k) for d in found]
        near = 0.4 * det.moved  # of a die's side, in the pixels of dice
        out = [next((f for f in found if f.face != "unknown" and abs(f.x - d.x) <= near and abs(f.y - d.y) <= near), d)
               if d.face == "unknown" else d for d in dice]
        return out if out != dice else None

    def smaller_too(self, frame: np.ndarray, shrink: float, back: float, det: Detection,
                    dice: list[Die]) -> list[Die] | None:
        """dice (read in the working frame whose factor back to the frame is back), and the dice det left
        out as smaller than taught (Detection.smaller) read at the side most dice measure (det.moved);
        None when that reads none of them.

        Untold how many were thrown, a photo alone cannot say whether they are another set's dice or
        ours under a camera raised since calibration. Left out, the real test/ photos shrunk to 0.8 of
        the size they were taught at showed 6 of their 29 dice; read at their size, 28. Only where a die
        was left out: elsewhere the larger copy found dice in light dice's pips and shades. Told,
        moved_camera decides by the number thrown."""
        found, k = self._read_at(frame, shrink, back, det.moved)

        def where_left_out(d: Die) -> bool:
            return any((d.x * k - x) ** 2 + (d.y * k - y) ** 2 <= (0.6 * size) ** 2 for x, y, size in det.smaller)
        more = [scaled(d, k) for d in found if where_left_out(d)]
        return dice + more if more else None

    def cut_in_half(self, work: np.ndarray, side: float, dice: list[Die], expected=None, seen: dict | None = None):
        """(detection, dice) at half the side measured, when they read clearly better than the dice
        read whole; else None. With every die touching another (a 2x2 block, an L) the frame shows
        no lone die to measure, and a block passes for one big die. Only the faces can tell: a block
        cut at half the size reads as faces, a big die cut in four as pieces of one symbol, which
        match no face."""
        # Not told the number thrown: at a side it only guesses, that number would cut a block of four
        # into five to make it up; the faces alone decide, and the count is checked after
        det = self.detect(work, None, side / 2, seen)
        if len(det.dice) <= len(dice):
            return None
        if expected is not None and count_check(len(dice), expected) is None \
                and count_check(len(det.dice), expected) is not None:
            return None  # told, and whole they are as many as were thrown: a lone leaning die is one die
        halves = self.classify(work, det, seen)
        if faces_read(halves) <= faces_read(dice) + CLEARLY_BETTER:
            return None
        return replace(det, check=None if expected is None else count_check(len(det.dice), expected)), halves

    def read_any_tray(self, frame: np.ndarray) -> Reading:
        """The reading, and when it finds no die, the first that does with the tray taken as darker
        and darker (detect.DARKER): a tray the model in use was not calibrated on, such as green felt
        met by the teaching wizard before its first model is built."""
        reading = self.read(frame)
        for dark in DARKER:
            if reading.dice:
                break
            if dark > self.model.dark:
                reading = DiceReader(replace(self.model, dark=dark)).read(frame)
        return reading

    def _nudged(self, frame: np.ndarray, det: Detection, todo: list, probs: np.ndarray, read: tuple,
                pips: np.ndarray | None = None) -> None:
        """probs of the dice in todo that read less surely than SURE, read again from five cuts each, the
        one read and four nudged off centre (model.Model.nudge), then once with a lamp's streaks taken
        down (GLARE_SURE), in place. read: the maps, symbol statistics, views and network views of todo
        (None where the model takes none), their class distances (model.Model.near) and their crops as the
        crop network sees them (None without one). pips: the pip reader's beliefs about them, for pip
        dice taught as the faces."""
        doubt = (probs.argmax(axis=1) == UNKNOWN) | (probs.max(axis=1) < SURE)
        if pips is not None:
            joined = pips_joined(probs, pips, self.model.pips, self.model.pip_weight)
            # A die whose pips are surely a count no face shows (a five) is not read again: it cannot become a
            # face, and a third of a pip table's dice are. (Skipping a die surely a face too took the frame
            # from 15.8 to 11.7 ms, bench/vision.py --only speed, but read one leaning four surely as a face)
            doubt &= joined[:, UNKNOWN] < SURE
        again = np.flatnonzero(doubt)
        if not len(again):
            return
        x, extra, views, net_views, near, seen_as = (None if a is None else a[again] for a in read)
        cuts = dice_views(frame, [todo[i] for i in again], det.side, det.tray, self.model.white(det.tray),
                          self.model.soften, self.model.signed, self.model.nudge, deglare=True)
        # each class as near as the nearest of the five cuts; the one read is not compared again
        five = self.model.predict_proba(x, extra, views, net_views,
                                        np.minimum(near, self.model.distances(cuts[:, :-8])), seen_as)
        # the last cut's 8 turns: deglared
        clean = self.model.predict_proba(x, extra, cuts[:, -8:], net_views, looks=seen_as)
        probs[again] = surer_face(five, clean, GLARE_SURE, SURE - 0.01)

    @staticmethod
    def _features(model: Model, frame: np.ndarray, det: Detection, todo: list, have: dict) -> tuple:
        """(maps, symbol statistics, views, network views) of the dice todo as model reads them (None
        where it takes none). have: those already worked out for these dice, by kind, and added to."""
        x = extra = views = net_views = None
        if not model.needs_views or model.net is not None:  # the maps: compared, or the network's
            x = _once(have, "maps", lambda: dice_maps(frame, todo, det.side, det.tray))
        if model.needs_symbols:
            extra = _once(have, "symbols", lambda: dice_symbols(frame, todo, det.side, det.tray,
                                                                _patches(frame, det, todo, have)))
        if model.needs_views:
            light = model.white(det.tray)
            views = _once(have, ("views", model.balanced, model.soften, model.signed), lambda: dice_views(
                frame, todo, det.side, det.tray, light, model.soften, model.signed))
            if (model.soften or model.signed or model.nudge) and model.net is not None and edges_read(model.net):
                # the network learned unblurred, unsigned edges of one cut
                net_views = _once(have, ("views", model.balanced, 0.0, False),
                                  lambda: dice_views(frame, todo, det.side, det.tray, light))
        return x, extra, views, net_views

    @staticmethod
    def _looks(model: Model, frame: np.ndarray, det: Detection, todo: list, have: dict) -> np.ndarray | None:
        """Each die of todo as model's crop network sees it (cnn.looks), or None when it has none."""
        if not model.needs_looks:
            return None
        return _once(have, "looks", lambda: looks(_patches(frame, det, todo, have), det.tray))

    def classify(self, frame: np.ndarray, det: Detection, seen: dict | None = None) -> list[Die]:
        """The face of each die det found in frame. seen: dice of this frame already read, by blob
        (read again otherwise); the ones read here are added to it."""
        seen = {} if seen is None else seen
        todo = [b for b in dict.fromkeys(det.dice) if b not in seen]
        if todo:
            # pip dice taught as the faces: the pip reader reads them too (name/pipfaces.py), where they lie
            pips = beliefs(frame, places(todo)) if self.model.pips else None
            probs = self._probs(frame, det, todo, pips)
            doubt = np.flatnonzero((probs[:, :UNKNOWN].max(axis=1) < self.model.threshold) & (probs[:, UNKNOWN] < SURE))
            if len(doubt):
                again = [probs[doubt]] + [self._probs(frame, replace(det, side=det.side * k), [todo[i] for i in doubt],
                                                      None if pips is None else pips[doubt]) for k in SIZES]
                probs[doubt] = np.mean(again, axis=0)
            for b, p in zip(todo, probs):
                k = int(p.argmax())
                face, conf = CLASSES[k], float(p[k])
                if face != "unknown" and conf < self.model.threshold:
                    face = "unknown"  # not sure enough to tell the game a face
                top = np.argsort(-p[:UNKNOWN], kind="stable")[:2]
                seen[b] = Die(face, int(round(b.x)), int(round(b.y)), conf, b.box,
                              tuple((CLASSES[i], float(p[i])) for i in top))
        return [seen[b] for b in det.dice]

    def _probs(self, frame: np.ndarray, det: Detection, todo: list, pips: np.ndarray | None) -> np.ndarray:
        """(len(todo), classes) how likely each die of todo shows each face, cut at det.side. pips: the pip
        reader's beliefs about them, for pip dice taught as the faces (None for other dice)."""
        have = {}
        x, extra, views, net_views = read = self._features(self.model, frame, det, todo, have)
        seen_as = self._looks(self.model, frame, det, todo, have)
        near = self.model.near(x, views)
        probs = self.model.predict_proba(*read, near, seen_as)
        if self.model.nudge and self.model.descriptor == "views":
            self._nudged(frame, det, todo, probs, (x, extra, views, net_views, near, seen_as), pips)
        if self.model.second is not None:
            probs = both_ways(probs, self.model.second.predict_proba(
                *self._features(self.model.second, frame, det, todo, have),
                looks=self._looks(self.model.second, frame, det, todo, have)), self.model.second_weight)
        if pips is not None:
            probs = pips_joined(probs, pips, self.model.pips, self.model.pip_weight)
        if self.model.pair_colour is not None:  # which of a bee and a ZomBee: the symbol's colour too
            probs = paircolour.split(probs, paircolour.symbol_colours(_patches(frame, det, todo, have), det.tray),
                                     self.model.pair_colour)
        return probs


def _once(have: dict, key, make):
    """have[key], made first when it is not there: what one frame's dice need is worked out once."""
    if key not in have:
        have[key] = make()
    return have[key]


def _patches(frame: np.ndarray, det: Detection, todo: list, have: dict) -> np.ndarray:
    """The symbol crops of the dice todo (symbol.dice_patches), cut once for the statistics and the crop network."""
    return _once(have, "patches", lambda: dice_patches(frame, todo, det.side))


def scaled(d: Die, k: float) -> Die:
    """The die with its position and box in pixels k times as large (another copy of the frame)."""
    return replace(d, x=int(round(d.x * k)), y=int(round(d.y * k)), box=tuple(int(round(v * k)) for v in d.box))


def faces_read(dice: list[Die]) -> float:
    """How surely the dice read as faces: their mean confidence, an unknown die counting 0."""
    return sum(0.0 if d.face == "unknown" else d.confidence for d in dice) / max(len(dice), 1)
