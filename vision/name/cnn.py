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

Trained by tools/train_crop.py (PyTorch, the optional `train` extra) and shipped
as an ONNX file that OpenCV's cv2.dnn runs (cropnet.py); this module says what the
network reads (looks) and how its answer joins the first network's (joined). It reads one cut of each die, not its
eight turns: it learned every turn and mirror, and reading the eight changed no
held-out die while costing eight times the time.
"""

from __future__ import annotations

import numpy as np

SIDE = 32  # pixels of the crop it reads (symbol.PATCH)


def looks(patches: np.ndarray, tray: np.ndarray) -> np.ndarray:
    """What the network reads of n crops (n, SIDE, SIDE, 3) BGR: each colour divided by the tray's,
    as the symbol statistics divide it (the tray is the white card that cancels the lamp's tint)."""
    return np.asarray(patches, np.float32) / np.asarray(tray, np.float32).reshape(1, 1, 1, 3)


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
