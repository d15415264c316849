"""A small two-layer network in NumPy: how the shipped default model tells ZomBee faces apart.

Rendered trays give thousands of examples; a network learns from them which
parts of a symbol map, and which symbol statistics (symbol.py), tell the faces
apart, where a nearest-prototype rule weighs every pixel alike. It sees each map
in all eight quarter turns and mirrors and averages its answers, so turning a
die changes nothing. Training is full-batch Adam from a seeded start: the same
data gives the same weights.
"""

from __future__ import annotations

import numpy as np

from .features import dihedral

KEYS = ("mean", "std", "w1", "b1", "w2", "b2")


def _views(maps: np.ndarray, extra: np.ndarray) -> np.ndarray:
    """(n, 8, extra + map) inputs: the turn-blind statistics beside each of the eight views of the map."""
    d = dihedral(np.asarray(maps, np.float32))
    return np.concatenate([np.repeat(np.asarray(extra, np.float32)[:, None], 8, axis=1), d], axis=2)


def _forward(net: dict, x: np.ndarray) -> np.ndarray:
    z = np.tanh(((x - net["mean"]) / net["std"]) @ net["w1"] + net["b1"])
    logits = z @ net["w2"] + net["b2"]
    logits -= logits.max(axis=1, keepdims=True)
    e = np.exp(logits)
    return e / e.sum(axis=1, keepdims=True)


def net_proba(net: dict, maps: np.ndarray, extra: np.ndarray) -> np.ndarray:
    """(n, classes) probabilities, averaged over the eight turns and mirrors of each map."""
    v = _views(maps, extra)
    return _forward(net, v.reshape(len(v) * 8, -1)).reshape(len(v), 8, -1).mean(axis=1)


def fit_net(maps: np.ndarray, extra: np.ndarray, y: np.ndarray, classes: int, *, seed: int = 0, hidden: int = 64,
            epochs: int = 400, turns: int = 3) -> dict:
    rng = np.random.default_rng(seed)
    all8 = _views(maps, extra)
    pick = np.stack([rng.permutation(8)[:turns] for _ in range(len(y))])
    xs = np.concatenate([all8[np.arange(len(y)), pick[:, i]] for i in range(turns)])
    y = np.tile(y, turns)
    mean, std = xs.mean(0), xs.std(0) + 1e-3
    xs = (xs - mean) / std
    n, d = xs.shape
    onehot = np.eye(classes, dtype=np.float32)[y]
    sw = np.ones(n)
    for c in range(classes):  # each class weighs the same in total, so a rare one is not ignored
        sel = y == c
        if sel.any():
            sw[sel] *= n / (classes * sel.sum())
    sw = (sw / sw.sum())[:, None].astype(np.float32)
    params = [rng.normal(0, 1 / np.sqrt(d), (d, hidden)), np.zeros(hidden),
              rng.normal(0, 1 / np.sqrt(hidden), (hidden, classes)), np.zeros(classes)]
    params = [p.astype(np.float32) for p in params]
    m1 = [np.zeros_like(p) for p in params]
    m2 = [np.zeros_like(p) for p in params]
    lr, l2 = 0.01, 1e-4
    for t in range(1, epochs + 1):
        w1, b1, w2, b2 = params
        z = np.tanh(xs @ w1 + b1)
        logits = z @ w2 + b2
        logits -= logits.max(1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(1, keepdims=True)
        g = (p - onehot) * sw
        gz = (g @ w2.T) * (1 - z * z)
        grads = [xs.T @ gz + l2 * w1, gz.sum(0), z.T @ g + l2 * w2, g.sum(0)]
        for i, gr in enumerate(grads):
            m1[i] = 0.9 * m1[i] + 0.1 * gr
            m2[i] = 0.999 * m2[i] + 0.001 * gr * gr
            params[i] = params[i] - lr * (m1[i] / (1 - 0.9 ** t)) / (np.sqrt(m2[i] / (1 - 0.999 ** t)) + 1e-8)
    return dict(zip(KEYS, [mean.astype(np.float32), std.astype(np.float32)] + [p.astype(np.float32) for p in params]))
