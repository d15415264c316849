"""The face classifier and its file: a small two-layer network in NumPy, saved as a versioned .npz.

A model also carries what calibration learned about the table: the die's side
in pixels and the empty tray's brightness. The shipped default knows neither
and measures the die size from each frame instead.
"""

from __future__ import annotations

import functools
import zipfile
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from companion.commands import DICE_FACES
from companion.errors import ConfigError

FORMAT_VERSION = 1
CLASSES = DICE_FACES + ("unknown",)
DEFAULT_PATH = Path(__file__).with_name("models") / "default.npz"


class ModelError(ConfigError):
    """A model file that is missing, corrupt, or written by another format version."""


@dataclass
class Model:
    mean: np.ndarray
    std: np.ndarray
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    kind: str = "default"
    side: float = 0.0  # die side in pixels; 0 = measure it in each frame
    background: np.ndarray | None = None  # empty tray brightness (small), from calibration
    threshold: float = 0.5  # below this confidence (no majority) a face is reported as unknown
    train_x: np.ndarray | None = field(default=None, repr=False)  # synthetic examples calibration mixes in
    train_y: np.ndarray | None = field(default=None, repr=False)

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        z = np.tanh(((x - self.mean) / self.std) @ self.w1 + self.b1)
        logits = z @ self.w2 + self.b2
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        return e / e.sum(axis=1, keepdims=True)


def fit(x: np.ndarray, y: np.ndarray, *, seed: int = 0, hidden: int = 48, epochs: int = 700,
        sample_weight: np.ndarray | None = None, **extra) -> Model:
    """Train the network with full-batch Adam from a seeded start: the same data gives the same model."""
    rng = np.random.default_rng(seed)
    x = x.astype(np.float64)
    mean, std = x.mean(0), x.std(0) + 1e-6
    xs = ((x - mean) / std).astype(np.float32)  # float32 halves the time; plenty for a small network
    n, d = xs.shape
    k = len(CLASSES)
    onehot = np.eye(k, dtype=np.float32)[y]
    sw = np.ones(n) if sample_weight is None else sample_weight.astype(np.float64)
    # each class weighs the same in total, so a rare class (cocked dice) is not ignored
    for c in range(k):
        sel = y == c
        if sel.any():
            sw[sel] *= n / (k * sw[sel].sum())
    sw = (sw / sw.sum())[:, None].astype(np.float32)
    params = [rng.normal(0, 1 / np.sqrt(d), (d, hidden)), np.zeros(hidden),
              rng.normal(0, 1 / np.sqrt(hidden), (hidden, k)), np.zeros(k)]
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
        gw2 = z.T @ g + l2 * w2
        gz = (g @ w2.T) * (1 - z * z)
        grads = [xs.T @ gz + l2 * w1, gz.sum(0), gw2, g.sum(0)]
        for i, gr in enumerate(grads):
            m1[i] = 0.9 * m1[i] + 0.1 * gr
            m2[i] = 0.999 * m2[i] + 0.001 * gr * gr
            params[i] = params[i] - lr * (m1[i] / (1 - 0.9 ** t)) / (np.sqrt(m2[i] / (1 - 0.999 ** t)) + 1e-8)
    w1, b1, w2, b2 = (p.astype(np.float32) for p in params)
    return Model(mean.astype(np.float32), std.astype(np.float32), w1, b1, w2, b2, **extra)


def save_model(model: Model, path) -> None:
    arrays = dict(
        format_version=np.array(FORMAT_VERSION), classes=np.array(CLASSES), kind=np.array(model.kind),
        mean=model.mean, std=model.std, w1=model.w1, b1=model.b1, w2=model.w2, b2=model.b2,
        side=np.array(model.side, np.float32), threshold=np.array(model.threshold, np.float32),
    )
    if model.background is not None:
        arrays["background"] = model.background
    if model.train_x is not None:
        arrays["train_x"] = model.train_x.astype(np.float16)
        arrays["train_y"] = model.train_y.astype(np.int8)
    path = Path(path)
    with open(path, "wb") as fh:  # an open file keeps numpy from appending .npz to the name
        np.savez_compressed(fh, **arrays)


def load_model(path=None) -> Model:
    """Load a model file; None means the default shipped in the package. Raises ModelError naming the file."""
    if path is None or Path(path) == DEFAULT_PATH:
        return replace(_load_default())  # a copy: callers may tune side or threshold
    return _load(Path(path))


@functools.lru_cache(maxsize=1)
def _load_default() -> Model:
    """The shipped model is read once per process: every DiceReader() shares it."""
    return _load(DEFAULT_PATH)


def _load(path: Path) -> Model:
    try:
        with open(path, "rb") as fh:
            if fh.read(2) != b"PK":  # every .npz is a zip archive
                raise ModelError(f"model file {str(path)!r} is not a dice model (.npz)")
        with np.load(path, allow_pickle=False) as z:
            data = {k: z[k] for k in z.files}
    except FileNotFoundError:
        raise ModelError(f"model file {str(path)!r} does not exist") from None
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise ModelError(f"model file {str(path)!r} is not a dice model (.npz) or is damaged: {exc}") from None
    if "format_version" not in data:
        raise ModelError(f"model file {str(path)!r} has no format_version: not a dice model")
    version = int(data["format_version"])
    if version != FORMAT_VERSION:
        raise ModelError(f"model file {str(path)!r} is format version {version}; this reader needs "
                         f"version {FORMAT_VERSION}: recalibrate or run python -m vision.train")
    missing = [k for k in ("mean", "std", "w1", "b1", "w2", "b2", "classes") if k not in data]
    if missing:
        raise ModelError(f"model file {str(path)!r} lacks {', '.join(missing)}: damaged")
    if tuple(str(c) for c in data["classes"]) != CLASSES:
        raise ModelError(f"model file {str(path)!r} knows classes {list(data['classes'])}, expected {list(CLASSES)}")
    w1 = data["w1"]
    if w1.shape[0] != data["mean"].shape[0] or w1.shape[1] != data["w2"].shape[0]:
        raise ModelError(f"model file {str(path)!r} has mismatched layer shapes: damaged")
    model = Model(data["mean"], data["std"], w1, data["b1"], data["w2"], data["b2"],
                  kind=str(data.get("kind", "default")), side=float(data.get("side", 0.0)),
                  background=data.get("background"), threshold=float(data.get("threshold", 0.5)),
                  train_x=data.get("train_x"), train_y=data.get("train_y"))
    return model
