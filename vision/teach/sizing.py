"""The calibration photos as the reader will read them: at the size it reads dice at, with the empty
tray's brightness and how much darker this tray makes the dice look."""

from __future__ import annotations

from typing import NamedTuple

import cv2
import numpy as np

from ..cut.features import dice_views
from ..find.detect import BLACK_RATIO, DARKER, SMALL, Detection, brightest, brightness_ratio, detect, tray_level
from ..find.parallax import FOCAL, PARALLAXES, tops
from ..name.model import MAX_LARGER, MAX_PARALLAX
from ..reader import larger, smaller, working


class Sized(NamedTuple):
    shots: dict  # face -> [(file, picture as read)]
    background: np.ndarray
    tray: np.ndarray  # the empty tray's colour (BGR), the median over the empty photos (model.white)
    dark: float  # see darkness
    found: dict  # file -> its detection, each photo's own die size
    side: float  # the dice's side, the median over the photos
    shrink: float  # below 1 the pictures are read smaller than reader.working's size, above 1 larger (Model.shrink)
    blank: tuple | None  # (face, file) of a photo in which no die is found at any size tried
    tiny: tuple | None  # (face, file, side) of the photo with the smallest dice found whole, when too small to read
    channel: int = -1  # coloured dice: the colour channel they are looked for in (die_channel); -1 the brightest


# where the middle of a die found in the calibration photos should sit, in parts of a black die's
# ratio (detect.BLACK_RATIO): the real black dice on their white sheet measure about 0.6 of it
BODY = 0.8
GROWN = 1.03  # dice this much larger at a darker level have taken in rims and shadows (see darkness)
PART = 0.8  # of the photos' median die side: a photo's dice measured smaller were found only in part
SMALLEST = 12.0  # pixels across (as the reader first works on a frame): smaller dice are refused, not enlarged
# Of the face photos' dice, how many more a move onto their tops (parallax_of) must bring nearest a die of
# their own face than no move does. The count moves by a few dice either way on a camera that shows no
# sides (our renderer's tables: -7 to +4 of 54-66 dice, at most 6.2 %; the real photos +1 of 25), and a
# move taken there cost a few dice in a thousand; where the sides show (the second renderer's tables,
# bench/other_renderer.py) it brought 6 to 22 of 52-73 more (9.7-30 %; one table of 16 +5 %)
CLEAR_MOVE = 0.08
MIN_LONE, FAR_OUT = 8, 0.2  # lone dice sides_of needs, and how far out (FOCAL widths) one must lie
# A die is coloured (navy, purple) when its body's darkest colour channel is at most this share of its
# brightest, both in itself and with the tray's colour divided out (the same channel both ways: a black die
# on green felt is darkest against the felt in green, and under a warm lamp darkest in blue in itself). Against
# the tray the second renderer's navy and purple dice measure 0.34-0.57, its black ones 0.75-0.96, the real
# black dice 0.77. Looked for in that channel, a navy die sits at 0.11-0.16 of the tray where its brightest
# channel is at 0.3-0.4, near the ratio a die must fall below (detect.CORE_RATIO): lamp-lit ones were found
# in part or not at all
COLOURED = 0.65
BODY_SHARE = 40  # percent of a die's middle taken as its body (the darkest), for its colour (die_channel)
# Of the dice found, how many must be coloured alike (die_channel): the second renderer's navy and purple
# tables 82-100 %, its black ones 0-6 %. The real photos' smaller dice, purple among smoky and teal (64 %
# purple; bench/other_dice.py), looked for in green read two fives and sixes fewer `unknown`, one surely a four
ALIKE = 0.8


def at_die_size(originals: dict) -> Sized:
    """originals: "empty" and each face -> [(file, picture)]. Dice that measure large are measured again
    from smaller copies (reader.smaller), dice that measure small from enlarged ones (reader.larger);
    dice too large to be found at all (over clusters.MAX_SIDE) are looked for at half the size, and
    then dice too small (under clusters.MIN_SIDE) at twice it, before a photo is said to show none."""
    shrink, blank, tried = 1.0, None, set()
    for attempt in range(6):
        tried.add(shrink)
        shots = {face: [(f, working(img, shrink)[0]) for f, img in items] for face, items in originals.items()}
        empties = [img for _, img in shots.pop("empty")]
        background = background_of(empties)
        taken = [(face, f, img) for face, items in shots.items() for f, img in items]
        faces = [img for _, _, img in taken]
        if attempt == 0:  # the dice's colour, judged once: at another size their pieces may say otherwise
            dark, found = darkness(faces, empties, background)
            channel = die_channel(faces, found, background)
        if attempt or channel >= 0:
            dark, found = darkness(faces, empties, background, channel)
        missing = next(((face, f) for (face, f, _), det in zip(taken, found) if not det.dice), None)
        if missing:
            blank = blank or missing  # the photo that showed none at the size first tried is named
            shrink = _look_again(shrink, [det.side for det in found if det.dice], tried)
            if shrink is None:
                break
            continue
        side = _side(found)
        blank = None
        factor = _to_size(side)
        if factor == 1.0 or attempt == 5 or shrink * factor in tried or shrink * factor > MAX_LARGER:
            break
        shrink *= factor
    by_file = {f: det for (_, f, _), det in zip(taken, found)}
    tiny = None
    if not blank:
        # enlarged, dice of a few pixels are found, but their faces are too few pixels to tell apart.
        # One camera shows one size of dice: a photo whose dice measure far below the others' (PART)
        # had them found only in part (a black die on felt, a glare across it) and does not count.
        # Counted, green felt seen by a 384 px camera was refused (dice of about 17 px measured 12
        # in one photo of 24)
        sizes = [(face, f, det.side / shrink) for (face, f, _), det in zip(taken, found)]
        face, f, least = min((t for t in sizes if t[2] >= PART * side / shrink), key=lambda t: t[2])
        tiny = (face, f, least) if least < SMALLEST else None
    tray = np.median([tray_level(img)[1] for img in empties], axis=0).astype(np.float32)
    return Sized(shots, background, tray, dark, by_file, side if not blank else 0.0, shrink, blank, tiny, channel)


def _to_size(side: float) -> float:
    """The factor that shows dice measured side pixels across at the size the reader was made for:
    smaller for large dice, larger for small ones, 1.0 when they are that size."""
    return smaller(side) if smaller(side) != 1.0 else larger(side)


def _look_again(shrink: float, sides: list[float], tried: set) -> float | None:
    """The next size to look at when a photo shows no die at this one (sides: what the other photos'
    dice measure there), or None when the photo shows none at any size worth trying."""
    if sides:
        side = float(np.median(sides))
        factor = _to_size(side)
        if factor == 1.0:
            return None  # the other photos' dice are of a size the reader reads: this photo shows none
        nxt = shrink * (0.5 if factor < 1.0 else factor)  # large dice: this one may be too large to be found
    else:  # no photo shows a die: they may all be too large to be found, else all too small
        nxt = shrink * 0.5 if 0.3 <= shrink <= 1.0 else 2.0
    return None if nxt in tried or not 0.25 <= nxt <= MAX_LARGER else nxt


def background_of(frames: list[np.ndarray]) -> np.ndarray:
    """Median brightness of the empty tray photos, small: the light's fall-off is smooth."""
    stack = [cv2.resize(brightest(img), SMALL, interpolation=cv2.INTER_AREA) for img in frames]
    return np.median(np.stack(stack), axis=0).astype(np.uint8)


def darkness(faces: list[np.ndarray], empties: list[np.ndarray], background: np.ndarray,
             channel: int = -1) -> tuple[float, list[Detection]]:
    """How much darker this tray makes the dice look than a light tray does, and each face photo's
    detection at it: the least of detect.DARKER under which every face photo shows a die and no empty
    photo does (1.0 on a white card; more on felt or wood), raised further while the dice found are
    lighter than a black die's face should be (face_level) and keep their size. When none does, 1.0,
    and the caller names the photo without a die. channel: see die_channel."""
    for i, dark in enumerate(DARKER):
        found = _every_face_found(faces, empties, background, dark, channel)
        if found is None:
            continue
        # Finding a die is not finding all of it: on green felt or dark wood a black die's face sits
        # near BLACK_RATIO, and where a patch holds some black only its black counts (detect.die_masks),
        # so the rest of the die passes for tray. The ratios are raised towards where the dice's middles
        # sit at BODY of the black ratio, but only while the dice measure the same size: once they
        # measure larger, the raised ratios take in rims and shadows, not more of the dice. On the real
        # photos repainted as felt or wood a raise that made dice whole grew them by 2 %; on rendered
        # ZomBee tables (whose symbols make the middles look light) and under a washed-out camera's
        # tone curve (whose lifted darks do too), by 4-18 %
        wanted = min(DARKER, key=lambda d: abs(d - face_level(faces, found, background, channel) / (BODY * BLACK_RATIO)))
        for deeper in DARKER[i + 1:]:
            more = _every_face_found(faces, empties, background, deeper, channel) if deeper <= wanted else None
            if more is None or _side(more) > GROWN * _side(found):
                break
            dark, found = deeper, more
        return dark, found
    return DARKER[0], [detect(img, background=background, dark=DARKER[0], channel=channel) for img in faces]


def _every_face_found(faces: list[np.ndarray], empties: list[np.ndarray], background: np.ndarray,
                      dark: float, channel: int = -1) -> list[Detection] | None:
    """Each face photo's detection at dark, or None when a face photo shows no die or an empty one does."""
    found = []
    for img in faces:
        found.append(detect(img, background=background, dark=dark, channel=channel))
        if not found[-1].dice:
            return None
    if any(detect(img, background=background, dark=dark, channel=channel).dice for img in empties):
        return None
    return found


def _side(found: list[Detection]) -> float:
    """The dice's side over these photos: the median of each one's own."""
    return float(np.median([det.side for det in found]))


def face_level(faces: list[np.ndarray], found: list[Detection], background: np.ndarray, channel: int = -1) -> float:
    """How dark the dice found look: the median over them of the brightness in the middle of each (a
    disc of 0.7 of its side, its symbol and a glare included), in parts of the tray's brightness."""
    levels = []
    for img, det in zip(faces, found):
        level, tray = tray_level(img)
        ratio = brightness_ratio(img, level, background, tray, channel)
        for b in det.dice:
            levels.append(float(np.median(ratio[_middle(ratio.shape, b, det.side)])))
    return float(np.median(levels)) / 100


def _middle(shape: tuple, b, side: float) -> np.ndarray:
    """The middle of the die b as a boolean mask of a picture of shape: a disc of 0.7 of its side."""
    disc = np.zeros(shape, np.uint8)
    cv2.circle(disc, (int(round(b.x)), int(round(b.y))), max(int(0.35 * side), 1), 255, -1)
    return disc > 0


def die_channel(faces: list[np.ndarray], found: list[Detection], background: np.ndarray) -> int:
    """The colour channel (0-2, BGR) in which the dice found look darkest against the tray, its colour
    divided out, when at least ALIKE of them are coloured there (see COLOURED: navy or purple dice);
    else -1, black dice or a set of many colours."""
    darkest = []
    for img, det in zip(faces, found):
        level, tray = tray_level(img)
        ratios = [brightness_ratio(img, level, background, tray, k) for k in range(3)]
        brightness = brightness_ratio(img, level, background)
        for b in det.dice:
            inside = _middle(img.shape[:2], b, det.side)
            # the body, not its symbol or pips: the darker part of the middle (a yellow drop covers much of it)
            body = inside & (brightness <= np.percentile(brightness[inside], BODY_SHARE))
            # coloured both in itself and against the tray: a black die on green felt is darkest against
            # the felt in green, and under a warm lamp darkest in blue in itself
            own = np.array([float(np.median(img[..., k][body])) for k in range(3)])
            seen = np.array([float(np.median(r[body])) for r in ratios])
            darkest.append(int(seen.argmin()) if own.argmin() == seen.argmin() and own.min() <= COLOURED * own.max()
                           and seen.min() <= COLOURED * seen.max() else -1)
    coloured = [k for k in darkest if k >= 0]
    if not coloured:
        return -1
    channel = max(set(coloured), key=coloured.count)
    return channel if coloured.count(channel) >= ALIKE * len(darkest) else -1


def sides_of(taken: list) -> float:
    """How much more of the tray a lone die covers away from the picture's middle (Model.sides): the
    slope of the face photos' lone dice's areas, in tops, against their distance from the middle (in
    find/parallax.FOCAL widths), over the area in the middle. It is measured, not taken from
    parallax_of, which chooses where to cut by how the dice read: on the real photos changed as a
    contrasty webcam that chose the whole strip (1.0) where the dice cover 0.38 more, and touching
    dice counted with the whole strip were cut as one. 0 when too few lone dice lie far enough out to
    tell. taken: (face, picture, detection) of each face photo."""
    far, size = [], []
    for _, img, det in taken:
        h, w = img.shape[:2]
        for b in det.dice:
            if b.group == 1:
                far.append(np.hypot(b.x - w / 2, b.y - h / 2) / (FOCAL * w))
                size.append(b.area / det.side ** 2)
    if len(far) < MIN_LONE or max(far, default=0.0) < FAR_OUT:
        return 0.0
    middle, slope = np.polyfit(np.array(far), np.array(size), 1)[::-1]
    return float(np.clip(slope / middle, 0.0, MAX_PARALLAX)) if middle > 0.5 else 0.0


def parallax_of(taken: list) -> float:
    """How far the camera sees the dice's sides (find/parallax.py): of PARALLAXES, the one under which
    the most face photos' dice, each cut at its top so moved, look most like a die of their own face in
    another photo (their views, the nearest of the other photos' dice), and by at least CLEAR_MOVE of
    them more than under none. taken: (face, picture, detection) of each face photo."""
    best, most, none = 0.0, -1, None
    for parallax in PARALLAXES:
        views, faces, photos = [], [], []
        for i, (face, img, det) in enumerate(taken):
            dice = tops(det.dice, img.shape, det.side, parallax)
            if dice:
                views.append(dice_views(img, dice, det.side, det.tray))
                faces += [face] * len(dice)
                photos += [i] * len(dice)
        if not views:
            return 0.0
        v = np.concatenate(views)  # (n, 8, d): each die in its eight quarter turns and mirrors
        one, every = v[:, 0], v.reshape(-1, v.shape[-1])
        d2 = ((one * one).sum(1)[:, None] + (every * every).sum(1)[None] - 2 * one @ every.T)
        d2 = d2.reshape(len(v), len(v), 8).min(axis=2)
        photos = np.array(photos)
        d2[photos[:, None] == photos[None]] = np.inf  # a die is judged by the other photos' dice
        nearest = d2.argmin(axis=1)
        right = int(sum(faces[j] == faces[i] for i, j in enumerate(nearest)))
        none = right if none is None else none
        if right > most and (not parallax or right >= none + CLEAR_MOVE * len(v)):
            best, most = parallax, right
    return best
