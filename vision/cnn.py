"""A small convolutional network in NumPy: the default model's second opinion on which face a die shows.

The network of net.py reads numbers made from the symbol (maps, statistics,
edge directions); this one reads the symbol's crop itself, pixel by pixel: three
3x3 convolutions, each halving the crop, then two dense layers. Its mistakes are
not the other network's: on die art it never saw (a honeycomb cell drawn for a
honey drop, a round bee) it goes by the symbol's shape where the other takes
the cell's hollow and a lamp's glow round it for a bee's stripes and wings (see
docs/dice-reader.md, "A second network that reads the crop"). The model asks
both which face a die shows (joined); whether it shows one of the faces at
all, only the first network and the prototypes, as before, so a face no set
has (a 5 on a pip die) still reads unknown.

Trained by vision/train_crop.py (PyTorch, the optional `train` extra); here it
only runs, in NumPy, as the Pi runs it. It reads one cut of each die, not its
eight turns: it learned every turn and mirror, and reading the eight changed no
held-out die while costing eight times the time.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

SIDE = 32  # pixels of the crop it reads (symbol.PATCH)
LAYERS = 3  # convolutions, each followed by a 2x2 max-pool
KEYS = ("c1w", "c1b", "c2w", "c2b", "c3w", "c3b", "d1w", "d1b", "d2w", "d2b")


def looks(patches: np.ndarray, tray: np.ndarray) -> np.ndarray:
    """What the network reads of n crops (n, SIDE, SIDE, 3) BGR: each colour divided by the tray's,
    as the symbol statistics divide it (the tray is the white card that cancels the lamp's tint)."""
    return np.asarray(patches, np.float32) / np.asarray(tray, np.float32).reshape(1, 1, 1, 3)


def conv_pool(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A 3x3 convolution of x (n, h, w, c) with weights w (out, c, 3, 3) padded to keep its size, then
    ReLU and a 2x2 max-pool: (n, h/2, w/2, out). As one matrix product over every pixel's 3x3 window."""
    n, h, wd, c = x.shape
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    windows = sliding_window_view(padded, (3, 3), axis=(1, 2))  # (n, h, w, c, 3, 3)
    y = windows.reshape(n * h * wd, c * 9) @ w.reshape(len(w), -1).T + b
    return np.maximum(y, 0).reshape(n, h // 2, 2, wd // 2, 2, -1).max(axis=(2, 4))


def crop_proba(cnn: dict, seen: np.ndarray) -> np.ndarray:
    """(n, classes) probabilities of dice whose crops the network sees as seen (looks)."""
    x = np.asarray(seen, np.float32)
    if x.ndim != 4 or x.shape[1:] != (SIDE, SIDE, 3):
        raise ValueError(f"the crop network reads crops of {SIDE}x{SIDE} colour pixels, got shape {x.shape}")
    for i in range(1, LAYERS + 1):
        x = conv_pool(x, cnn[f"c{i}w"], cnn[f"c{i}b"])
    x = x.transpose(0, 3, 1, 2).reshape(len(x), -1)  # channels first, as it was trained
    x = np.maximum(x @ cnn["d1w"].T + cnn["d1b"], 0)
    logits = x @ cnn["d2w"].T + cnn["d2b"]
    logits -= logits.max(axis=1, keepdims=True)
    e = np.exp(logits)
    return e / e.sum(axis=1, keepdims=True)


def joined(q: np.ndarray, c: np.ndarray, colour_only: tuple[int, int] | None = None) -> np.ndarray:
    """The first network's class probabilities q and the crop network's c (n, classes, unknown last)
    as one. Which face: the two networks' geometric mean, so a face both find likely stays likely and
    a face either rules out stays down. Whether a face at all: the first network's alone, as before.
    The crop network is sure of some face on nearly anything, even a real pip die: joined into the
    whole answer, it left the default reading 82 % of the real photos' dice unknown, against 92 %
    without it; held to the faces, 91 %. colour_only: two classes that differ only in colour (a bee and a
    ZomBee): how likely the pair is, both say, but which of the two, q alone, as the first network
    weighs the symbol's colour apart from its shape."""
    faces = np.sqrt(np.maximum(q[:, :-1], 1e-12) * np.maximum(c[:, :-1], 1e-12))
    if colour_only is not None:
        pair = list(colour_only)
        split = q[:, pair] / np.maximum(q[:, pair].sum(axis=1, keepdims=True), 1e-12)
        faces[:, pair] = faces[:, pair].sum(axis=1, keepdims=True) * split
    faces *= ((1 - q[:, -1]) / faces.sum(axis=1))[:, None]
    return np.concatenate([faces, q[:, -1:]], axis=1)


def damaged(cnn: dict, classes: int) -> bool:
    """True when a model file's crop network is missing a part or its parts do not fit together."""
    if any(cnn.get(k) is None for k in KEYS):
        return True
    shapes = {k: np.shape(cnn[k]) for k in KEYS}
    width = 3
    for i in range(1, LAYERS + 1):
        w = shapes[f"c{i}w"]
        if len(w) != 4 or w[1:] != (width, 3, 3) or shapes[f"c{i}b"] != (w[0],):
            return True
        width = w[0]
    d1, d2 = shapes["d1w"], shapes["d2w"]
    left = SIDE >> LAYERS
    return (len(d1) != 2 or d1[1] != width * left * left or shapes["d1b"] != (d1[0],) or d2 != (classes, d1[0])
            or shapes["d2b"] != (classes,) or not all(np.all(np.isfinite(cnn[k])) for k in KEYS))
