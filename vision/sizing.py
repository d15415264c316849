"""The calibration photos as the reader will read them: at the size it reads dice at, with the empty
tray's brightness and how much darker this tray makes the dice look."""

from __future__ import annotations

from typing import NamedTuple

import cv2
import numpy as np

from .detect import DARKER, SMALL, Detection, brightest, detect
from .reader import smaller, working


class Sized(NamedTuple):
    shots: dict  # face -> [(file, picture as read)]
    background: np.ndarray
    dark: float  # see darkness
    found: dict  # file -> its detection, each photo's own die size
    side: float  # the dice's side, the median over the photos
    shrink: float  # how much smaller than reader.working's size the pictures are read (Model.shrink)
    blank: tuple | None  # (face, file) of a photo in which no die is found at any size tried


def at_die_size(originals: dict) -> Sized:
    """originals: "empty" and each face -> [(file, picture)]. Dice that measure large are measured again
    from smaller copies (reader.smaller); dice too large to be found at all (over clusters.MAX_SIDE)
    are looked for at half the size before a photo is said to show none."""
    shrink, blank = 1.0, None
    for attempt in range(4):
        shots = {face: [(f, working(img, shrink)[0]) for f, img in items] for face, items in originals.items()}
        empties = [img for _, img in shots.pop("empty")]
        background = background_of(empties)
        taken = [(face, f, img) for face, items in shots.items() for f, img in items]
        dark, found = darkness([img for _, _, img in taken], empties, background)
        missing = next(((face, f) for (face, f, _), det in zip(taken, found) if not det.dice), None)
        if missing:
            blank = blank or missing  # the photo that showed none at the size first tried is named
            sides = [det.side for det in found if det.dice]
            if shrink < 0.3 or (sides and smaller(float(np.median(sides))) == 1.0):
                break  # the other photos' dice are of a size the reader reads: this photo shows none
            shrink *= 0.5
            continue
        side = float(np.median([det.side for det in found]))
        blank = None
        if smaller(side) == 1.0 or attempt == 3:
            break
        shrink *= smaller(side)
    by_file = {f: det for (_, f, _), det in zip(taken, found)}
    return Sized(shots, background, dark, by_file, side if not blank else 0.0, shrink, blank)


def background_of(frames: list[np.ndarray]) -> np.ndarray:
    """Median brightness of the empty tray photos, small: the light's fall-off is smooth."""
    stack = [cv2.resize(brightest(img), SMALL, interpolation=cv2.INTER_AREA) for img in frames]
    return np.median(np.stack(stack), axis=0).astype(np.uint8)


def darkness(faces: list[np.ndarray], empties: list[np.ndarray], background: np.ndarray) -> tuple[float, list[Detection]]:
    """How much darker this tray makes the dice look than a light tray does: the least of
    detect.DARKER under which every face photo shows a die and no empty photo does (1.0 on a white
    card; more on felt or wood), and each face photo's detection at it. When none does, 1.0, and
    the caller names the photo without a die."""
    for dark in DARKER:
        found = []
        for img in faces:
            found.append(detect(img, background=background, dark=dark))
            if not found[-1].dice:
                break
        else:
            if not any(detect(img, background=background, dark=dark).dice for img in empties):
                return dark, found
    return DARKER[0], [detect(img, background=background, dark=DARKER[0]) for img in faces]
