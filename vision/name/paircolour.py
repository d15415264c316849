"""A bee and a ZomBee are one symbol in two colours: which of the two a die shows, its symbol's colour says.

The reader's networks and prototypes see the symbol's shape well and its colour less: under a lamp's
glare or on dice 25 pixels across they read a green ZomBee as a bee, or a yellow bee as a ZomBee,
where a look at the colour settles it. Calibration measures the colour of the symbol of every bee and
ZomBee it is taught (symbol_colours: the hue of the pixels that differ most from the die's body, the
body taken out, so a purple or a black die gives the same kind of number), and keeps the two faces'
mean colours when every taught bee and ZomBee, its photo left out, is nearer its own face's colour
and the left-out dice read likelier with it (fit). The reader then splits what it believes of the
pair by that colour as well (split): how likely the pair is, the reader says; which of the two, the
reader and the colour together.
"""

from __future__ import annotations

import numpy as np

from ..cut.symbol import dice_patches
from .model import COLOUR_ONLY

MIDDLE = 0.7  # of a crop's side, around its centre: the die's face without its rim or the tray
INK = 0.8  # the pixels above this quantile of distance from the body's colour are the symbol's
# Tried at calibration: how strongly the colour's lean counts. Up to 16, and kept without every taught
# die on its own face's side, our renders' calibrated held-out art (bench/vision.py) read 99.46 % of
# dice instead of 99.77 % (a colour the lamp shifts from roll to roll). Held to these, our renders
# read as they did without it and the second renderer's seeds 1-5 (bench/other_renderer.py) 2897 of
# 2960 dice instead of 2893 (seed 4: 587 -> 590, small black dice on paper)
SHARPNESS = (2.0, 4.0)


def symbol_colours(crops: np.ndarray, trays: np.ndarray) -> np.ndarray:
    """(n, 3) unit vectors: the colour of each die's symbol, its body's colour taken out, grey removed.
    crops: (n, h, w, 3) BGR crops centred on the dice; trays: (n, 3) or (3,) the tray's light."""
    crops = np.asarray(crops, np.float32)
    n, h, w = crops.shape[:3]
    a0, b0 = int(round(h * (1 - MIDDLE) / 2)), int(round(w * (1 - MIDDLE) / 2))
    light = np.maximum(np.asarray(trays, np.float32), 1.0).reshape(-1, 1, 3)  # the tray's colour divided out
    p = crops[:, a0:h - a0, b0:w - b0].reshape(n, -1, 3) / light
    away = p - np.median(p, axis=1, keepdims=True)
    far = np.sqrt((away * away).sum(axis=2))
    ink = far >= np.quantile(far, INK, axis=1, keepdims=True)
    v = (away * ink[..., None]).sum(axis=1) / np.maximum(ink.sum(axis=1, keepdims=True), 1)
    v -= v.mean(axis=1, keepdims=True)
    return v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-6)


def die_colour(frame: np.ndarray, blob, det) -> np.ndarray:
    """symbol_colours of one found die, cut as the reader cuts it (symbol.dice_patches)."""
    return symbol_colours(dice_patches(frame, [blob], det.side), det.tray)[0]


def lean(colours: np.ndarray, fitted: np.ndarray) -> np.ndarray:
    """(n,) how much nearer each colour is to the ZomBees' than to the bees' (negative: the bees')."""
    bee, zombee = fitted[0:3], fitted[3:6]
    return colours @ (zombee - bee) - (zombee @ zombee - bee @ bee) / 2


def split(proba: np.ndarray, colours: np.ndarray, fitted: np.ndarray) -> np.ndarray:
    """proba (n, classes) with the pair's share split anew: the reader's odds of ZomBee over bee times
    the colour's (a logistic of its lean, fitted[6] its sharpness)."""
    return _split_by_lean(proba, lean(colours, fitted), float(fitted[6]))


def fit(colours: np.ndarray, truth: np.ndarray, photos: np.ndarray, left: np.ndarray,
        likelihood) -> tuple[np.ndarray, np.ndarray] | None:
    """The bees' and ZomBees' mean colours and a sharpness (7 numbers) with the dice's left-out
    reading so split, or None when the colour does not make the taught dice likelier. left: the
    dice's left-out class probabilities without it; each photo's dice are judged by means made
    without that photo (a fair test); likelihood(proba, truth) scores a reading. None too when a face
    of the pair has dice in fewer than two photos."""
    bee, zombee = (truth == COLOUR_ONLY[0]), (truth == COLOUR_ONLY[1])
    if len(set(photos[bee])) < 2 or len(set(photos[zombee])) < 2:
        return None
    leaned = np.zeros(len(truth))
    for photo in set(photos[bee | zombee]):
        other = photos != photo
        means = np.concatenate([_mean(colours[bee & other]), _mean(colours[zombee & other])])
        mine = photos == photo
        leaned[mine] = lean(colours[mine], means)
    if (leaned[bee] >= 0).any() or (leaned[zombee] <= 0).any():
        return None  # a taught die's colour nearer the other face's, left out: the colour does not tell them
    best, chosen = likelihood(left, truth), None
    for sharp in SHARPNESS:
        tried = _split_by_lean(left, leaned, sharp)
        score = likelihood(tried, truth)
        if score > best:
            best, chosen = score, (sharp, tried)
    if chosen is None:
        return None
    return np.concatenate([_mean(colours[bee]), _mean(colours[zombee]), [chosen[0]]]).astype(np.float32), chosen[1]


def _mean(colours: np.ndarray) -> np.ndarray:
    m = colours.mean(axis=0)
    return m / max(float(np.linalg.norm(m)), 1e-6)


def _split_by_lean(proba: np.ndarray, leaned: np.ndarray, sharp: float) -> np.ndarray:
    out = proba.copy()
    pair = list(COLOUR_ONLY)
    both = out[:, pair].sum(axis=1)
    odds = np.maximum(out[:, pair[1]], 1e-9) / np.maximum(out[:, pair[0]], 1e-9)
    odds *= np.exp(np.clip(sharp * leaned, -30, 30))
    out[:, pair[1]] = both * odds / (1 + odds)
    out[:, pair[0]] = both - out[:, pair[1]]
    return out
