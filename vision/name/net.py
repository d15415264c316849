"""A small two-layer network in NumPy: how the shipped default model tells ZomBee faces apart.

Rendered trays give thousands of examples; a network learns from them which
parts of a symbol map, which symbol statistics (symbol.py) and, when trained
with them, which edge directions (the HOG part of features.views) tell the faces
apart, where a nearest-prototype rule weighs every number alike. It sees each
die in all eight quarter turns and mirrors and averages its answers, so turning
a die changes nothing. Training is full-batch Adam from a seeded start: the same
data gives the same weights.
"""

from __future__ import annotations

import numpy as np

from ..cut.features import HOG_DIM, dihedral

KEYS = ("mean", "std", "w1", "b1", "w2", "b2")  # and "hog", in networks that read edge directions


def edges_read(net: dict) -> int:
    """How many numbers of each view's edge directions the network reads (0: maps and statistics only)."""
    return int(net.get("hog", 0))


def _inputs(maps: np.ndarray, extra: np.ndarray, views: np.ndarray | None, hog: int) -> np.ndarray:
    """(n, 8, inputs): the turn-blind statistics beside each of the eight turns of the map and, for a
    network that reads them, of the edge directions (views are in dihedral's order too)."""
    parts = [np.repeat(np.asarray(extra, np.float32)[:, None], 8, axis=1), dihedral(np.asarray(maps, np.float32))]
    if hog:
        if views is None:
            raise ValueError("this network also reads the views of each die (features.die_views)")
        parts.append(np.asarray(views, np.float32)[:, :, :hog])
    return np.concatenate(parts, axis=2)


def _forward(net: dict, x: np.ndarray) -> np.ndarray:
    z = np.tanh(((x - net["mean"]) / net["std"]) @ net["w1"] + net["b1"])
    logits = z @ net["w2"] + net["b2"]
    logits -= logits.max(axis=1, keepdims=True)
    e = np.exp(logits)
    return e / e.sum(axis=1, keepdims=True)


def net_proba(net: dict, maps: np.ndarray, extra: np.ndarray, views: np.ndarray | None = None) -> np.ndarray:
    """(n, classes) probabilities, averaged over the eight turns and mirrors of each die."""
    v = _inputs(maps, extra, views, edges_read(net))
    return _forward(net, v.reshape(len(v) * 8, -1)).reshape(len(v), 8, -1).mean(axis=1)


def fit_net(maps: np.ndarray, extra: np.ndarray, y: np.ndarray, classes: int, *, views: np.ndarray | None = None,
            seed: int = 0, hidden: int = 64, epochs: int = 400, turns: int = 3, prior=None, l2: float = 1e-4) -> dict:
    """A network for maps and statistics, and edge directions too when views are given.

    Every class weighs the same in training, so the answers assume each is equally common. prior:
    how common each class is where the network will read (shares summing to 1); the output layer's
    bias is moved by log(prior x classes), which is Bayes' rule with those shares instead. l2: how
    hard the weights are pulled towards zero (weight decay)."""
    rng = np.random.default_rng(seed)
    hog = HOG_DIM if views is not None else 0
    all8 = _inputs(maps, extra, views, hog)
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
    lr = 0.01
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
        adam(params, grads, m1, m2, t, lr)
    if prior is not None:
        params[3] = with_prior(params[3], prior)
    net = dict(zip(KEYS, [mean.astype(np.float32), std.astype(np.float32)] + [p.astype(np.float32) for p in params]))
    if hog:
        net["hog"] = np.array(hog, np.int32)
    return net


def with_prior(bias: np.ndarray, prior) -> np.ndarray:
    """An output layer's bias learned with every class weighing the same, moved by log(prior x classes):
    Bayes' rule with prior's shares of each class instead (fit_net's and train_crop.fit_crop's prior)."""
    return bias + np.log(np.asarray(prior, np.float32) * len(bias))


def adam(params: list, grads: list, m1: list, m2: list, t: int, lr: float) -> None:
    """One step of Adam (step t, from 1) on params, in place."""
    for i, gr in enumerate(grads):
        m1[i] = 0.9 * m1[i] + 0.1 * gr
        m2[i] = 0.999 * m2[i] + 0.001 * gr * gr
        params[i] = params[i] - lr * (m1[i] / (1 - 0.9 ** t)) / (np.sqrt(m2[i] / (1 - 0.999 ** t)) + 1e-8)


def hidden(net: dict, maps: np.ndarray, extra: np.ndarray, views: np.ndarray | None = None) -> np.ndarray:
    """(n, 8, hidden): what the network's hidden layer makes of each die in each turn."""
    v = _inputs(maps, extra, views, edges_read(net))
    return np.tanh(((v - net["mean"]) / net["std"]) @ net["w1"] + net["b1"])


def fit_head(net: dict, z: np.ndarray, y: np.ndarray, faces: int, *, hold: float, steps: int = 200) -> dict:
    """The network with its output layer's face columns refitted to one table's dice (z: hidden, (n, 8,
    hidden); y: their faces), held near the stock weights by hold; the unknown column is kept."""
    # dice along the last axis: the softmax's max and sum then run down a few rows of faces, where
    # along each die's short row of faces NumPy took most of a calibration's time (a reduction over
    # a short axis is slow), and more so the more photos a table was taught from
    xt = np.ascontiguousarray(z.reshape(-1, z.shape[-1]).T, dtype=np.float32)
    y = np.repeat(np.asarray(y), z.shape[1])
    onehot = np.eye(faces, dtype=np.float32)[:, y]
    start = (net["w2"][:, :faces].copy(), net["b2"][:faces].copy())
    params = fit_softmax(xt, onehot, 1.0 / xt.shape[1], start, hold, steps, hold_bias=True)
    out = dict(net)
    out["w2"], out["b2"] = net["w2"].copy(), net["b2"].copy()
    out["w2"][:, :faces], out["b2"][:faces] = params
    return out


def fit_softmax(xt: np.ndarray, onehot: np.ndarray, share, start: tuple, pull: float, steps: int, *,
                lr: float = 0.02, hold_bias: bool = False) -> list[np.ndarray]:
    """[weights (features, classes), bias (classes,)] of a softmax layer fitted by full-batch Adam to
    dice xt (features, n: dice along the last axis, see fit_head) whose classes are onehot (classes,
    n), each die's gradient weighing share (a number, or one per die), pulled by pull towards start
    (the weights; the bias too with hold_bias). fit_head refits the network's face columns with it,
    facelayer.fit_layer a table's own face layer."""
    w0, b0 = start
    params = [w0.copy(), b0.copy()]
    m1 = [np.zeros_like(p) for p in params]
    m2 = [np.zeros_like(p) for p in params]
    for t in range(1, steps + 1):
        logits = params[0].T @ xt + params[1][:, None]
        logits -= logits.max(0)
        p = np.exp(logits)
        p /= p.sum(0)
        g = (p - onehot) * share
        grads = [xt @ g.T + 2 * pull * (params[0] - w0), g.sum(1) + (2 * pull * (params[1] - b0) if hold_bias else 0)]
        adam(params, grads, m1, m2, t, lr)
    return params
