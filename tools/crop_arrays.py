"""The crop network as arrays: its layer names, a NumPy forward pass and a shape check.

Training (train_crop.py) gives the weights as arrays; export_onnx.py writes them as the ONNX file the
reader runs. The forward pass here is the reference the exported file is checked against
(tests/test_vision_cnn.py): the same numbers, one layer at a time, in plain NumPy.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from vision.name.cnn import SIDE

LAYERS = 3  # convolutions, each followed by a 2x2 max-pool
KEYS = ("c1w", "c1b", "c2w", "c2b", "c3w", "c3b", "d1w", "d1b", "d2w", "d2b")


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
