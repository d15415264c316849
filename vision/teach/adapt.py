"""Teaching the stock ZomBee network one table's dice: its last layer refitted to the calibration photos.

The network's hidden layer learned from thousands of rendered dice what tells
symbols apart; which face each pattern stands for is its last layer. A table's
own art (a Zzz as yellow as the bee, a small honey drop) can fool that last
layer while the hidden layer still sees the difference. So calibration refits
the face columns of the last layer to this table's dice (net.fit_head), each
die cut a few more times a little off centre and off size, brighter or darker,
noisy, blurred or glaring, as examples.augment cuts the prototypes. The fit is
held near the stock weights, so a handful of photos nudges the network instead
of replacing it. The unknown column is kept: calibration photos show no cocked
die to learn it from.
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from ..cut.features import die_features, die_views
from ..cut.symbol import dice_patches, symbol_features
from ..name.cnn import looks
from ..name.facelayer import FaceLayer, fit_layer
from ..name.net import fit_head, hidden, net_proba
from .examples import glare

JITTER = 6  # cuts of each calibration die besides the one as photographed
# How hard the refitted layer is held to the stock one. On rendered tables (seeds bench/vision.py does
# not use) 0.01 moved too little to help; 0.0001 did no better than 0.001 on the bench's own tables
HOLD = 0.001
# At most this many refits to measure how the refitted network reads dice it was not taught: one per
# photo up to 24 photos (six a face), then each leaves out every FOLDS-th photo. One refit per photo
# made calibration grow with the square of the photos (20 photos a face of five dice each: 50 s here,
# some 200 s on a Pi), and corrections learned at the table add photos every time.
FOLDS = 24
# A face layer (facelayer.py) learns each calibration die as photographed in all eight turns and
# mirrors, and each of its other cuts in TURNS of them: every cut in every turn made calibration
# seconds slower for no die more. It is measured leaving out one of LAYER_FOLDS shares of the photos
# at a time (each share a fit of the 1024 numbers; one a photo took 10 s)
TURNS = 2
LAYER_FOLDS = 6


def inputs(img: np.ndarray, blob, side: float, tray: np.ndarray, with_views: bool,
           light: np.ndarray | None = None) -> tuple:
    """What the network reads of one die: its symbol map, symbol statistics and (when it reads edge
    directions) its views (light: see features.views_of); and its crop as the crop network sees it
    (cnn.looks), for a face layer (facelayer.py)."""
    return (die_features(img, blob, side, tray), symbol_features(img, blob, side, tray),
            die_views(img, blob, side, tray, light) if with_views else None,
            looks(dice_patches(img, [blob], side), tray)[0])


def cuts(img: np.ndarray, blob, side: float, tray: np.ndarray, rng, with_views: bool, n: int = JITTER,
         light: np.ndarray | None = None) -> list:
    """inputs() of the die as photographed, then of n cuts as the next roll may show it."""
    out = [inputs(img, blob, side, tray, with_views, light)]
    reach = int(2 * side)  # a window around the die: changing its light is cheaper than the frame's
    x0, y0 = max(int(blob.x) - reach, 0), max(int(blob.y) - reach, 0)
    window = img[y0:int(blob.y) + reach, x0:int(blob.x) + reach].astype(np.float32)
    for _ in range(n):
        off = 0.08 * side
        moved = replace(blob, x=blob.x - x0 + rng.uniform(-off, off), y=blob.y - y0 + rng.uniform(-off, off),
                        angle=blob.angle + rng.uniform(-0.12, 0.12))
        w = window * rng.uniform(0.8, 1.2) + rng.normal(0, rng.uniform(1, 6), window.shape)
        if rng.random() < 0.5:
            glare(w, rng, (moved.x, moved.y), side)
        if rng.random() < 0.3:
            w = cv2.GaussianBlur(w, (0, 0), rng.uniform(0.4, 1.0))
        out.append(inputs(np.clip(w, 0, 255).astype(np.uint8), moved, side * rng.uniform(0.9, 1.1), tray,
                          with_views, light))
    return out


def layer_features(cnn, dice: list, rng) -> tuple[list[np.ndarray], np.ndarray]:
    """What a face layer learns from, per die of dice (each its cuts' inputs): the crop network's
    features of the die as photographed in its eight quarter turns and mirrors and of every other cut
    in TURNS of them at random; and of each die as photographed, as the reader will see it."""
    crops, owner = [], []
    for k, rows in enumerate(dice):
        mine = [dihedral_crops(rows[0][3])] + [dihedral_crops(r[3])[rng.choice(8, TURNS, replace=False)]
                                               for r in rows[1:]]
        crops.extend(mine)
        owner.extend([k] * sum(len(m) for m in mine))
    features = cnn.features(np.concatenate(crops))
    owner = np.array(owner)
    return [features[owner == k] for k in range(len(dice))], features[np.searchsorted(owner, np.arange(len(dice)))]


def dihedral_crops(crop: np.ndarray) -> np.ndarray:
    """(8, side, side, 3): a square crop in its four quarter turns, then mirrored in theirs."""
    return np.stack([np.rot90(c, k) for c in (crop, crop[:, ::-1]) for k in range(4)])


def layer_left_out(taught_features: list[np.ndarray], plain: np.ndarray, faces: np.ndarray, photo: np.ndarray,
                   classes: int) -> np.ndarray:
    """(dice, classes + 1) each die as photographed read by a face layer fitted without its share of
    the photos (LAYER_FOLDS shares): how the layer reads a die it was not taught."""
    out = np.zeros((len(plain), classes + 1), np.float32)
    photos = np.unique(photo)
    fold = np.searchsorted(photos, photo) % LAYER_FOLDS
    for g in np.unique(fold):
        rest = np.flatnonzero(fold != g)
        if not len(rest):
            continue
        layer = face_layer([taught_features[i] for i in rest], faces[rest], classes)
        out[fold == g] = layer.proba(plain[fold == g])
    return out


def face_layer(taught_features: list[np.ndarray], faces: np.ndarray, classes: int) -> FaceLayer:
    """A face layer fitted to dice whose cuts' features are given (layer_features)."""
    return fit_layer(np.concatenate(taught_features), np.repeat(faces, [len(f) for f in taught_features]), classes)


def stacked(rows: list) -> tuple:
    """(maps, statistics, views or None) of several dice, as net.net_proba takes them."""
    return tuple(None if rows[0][k] is None else np.stack([r[k] for r in rows]) for k in range(3))


def taught(net: dict, dice: list) -> list[np.ndarray]:
    """The hidden layer's (cuts, 8, hidden) for each die's cuts."""
    return [hidden(net, *stacked(rows)) for rows in dice]


def adapted(net: dict, seen: list[np.ndarray], faces: np.ndarray, classes: int) -> dict:
    """The network with its face columns refitted to dice whose hidden layers are seen (see taught)."""
    z = np.concatenate(seen)
    y = np.concatenate([[f] * len(h) for f, h in zip(faces, seen)])
    return fit_head(net, z, y, classes, hold=HOLD)


def left_out(net: dict, dice: list, seen: list[np.ndarray], faces: np.ndarray, photo: np.ndarray,
             classes: int) -> np.ndarray:
    """(dice, classes + 1) probabilities of each die as photographed, read by a network refitted
    without its photo (or, past FOLDS photos, without its share of them): how the refitted network
    reads a die it was not taught."""
    plain = stacked([rows[0] for rows in dice])
    out = np.zeros((len(dice), classes + 1), np.float32)
    photos = np.unique(photo)
    fold = (np.searchsorted(photos, photo) % FOLDS) if len(photos) > FOLDS else photo
    for g in np.unique(fold):
        rest = np.flatnonzero(fold != g)
        mine = np.flatnonzero(fold == g)
        refit = adapted(net, [seen[i] for i in rest], faces[rest], classes) if len(rest) else net
        out[mine] = net_proba(refit, *(None if a is None else a[mine] for a in plain))
    return out
