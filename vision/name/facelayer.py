"""A face layer fitted to one table: the crop network's eyes, this table's names for what they see.

The crop network (cnn.py) learned from thousands of drawn dice how to see a symbol: its three
convolutions turn a die's 32x32 crop into 1024 numbers (its `flat` output), and its dense layers
say which of our art's faces those numbers are. Another maker's art fools the dense layers (on the
second renderer's trays, bench/other_renderer.py, they name half the dice right) while the
convolutions still see the difference. Six photos a face are too few to train a network, but enough
to fit one linear layer on those 1024 numbers: the convolutions stay as they are, a softmax over
the four faces is learned from this table's dice, each cut a few times as the next roll may show it
(teach/adapt.py) and in all eight quarter turns and mirrors (a die on a tray has no up).

Like the refitted first network (model.gated), the layer only says which face; whether the die is
a face at all stays with the prototypes, the layer's sureness lifting part of their doubt.
Calibration keeps the layer only when it makes the photos it was not fitted on likelier.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .net import fit_softmax

FEATURES = "flat"  # the crop network's output its dense layers read (tools/export_onnx.py names it)
FEATURE_COUNT = 1024  # ... and how many numbers it holds (64 maps of 4x4 after three halvings of 32 px)
# How hard the weights are pulled towards zero. 1024 numbers from some 60 dice: unheld, the layer
# learns each photo's noise; on the second renderer's tables 0.01 and 0.001 read the dice of the
# rolls alike
L2 = 0.01
STEPS = 60  # full-batch Adam steps: on the second renderer's tables 150 read the rolls no better
KEYS = ("mean", "scale", "weights", "bias")  # in a model file, each as "face_layer_" + key


@dataclass(frozen=True, eq=False)
class FaceLayer:
    """Which face a die is, from the crop network's features of its crop."""

    mean: np.ndarray  # (features,) the taught dice's mean, subtracted first
    scale: np.ndarray  # (features,) and their spread, divided by
    weights: np.ndarray  # (features, faces)
    bias: np.ndarray  # (faces,)

    def proba(self, features: np.ndarray) -> np.ndarray:
        """(n, faces + 1) probabilities of dice whose crops' features are given (n, features); the
        last column, unknown, is 0: the layer only tells faces apart."""
        if not len(features):
            return np.zeros((0, len(self.bias) + 1), np.float32)
        z = ((np.asarray(features, np.float32) - self.mean) / self.scale) @ self.weights + self.bias
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return np.concatenate([e / e.sum(axis=1, keepdims=True), np.zeros((len(z), 1), np.float32)], axis=1)

    def to_arrays(self) -> dict:
        return {"face_layer_" + k: np.asarray(getattr(self, k), np.float32) for k in KEYS}

    @classmethod
    def from_arrays(cls, data: dict, features: int, faces: int) -> FaceLayer | None:
        """The layer a model file holds (None: it has none); ValueError when its numbers are damaged."""
        if not any("face_layer_" + k in data for k in KEYS):
            return None
        try:
            got = {k: np.asarray(data["face_layer_" + k], np.float32) for k in KEYS}
        except KeyError as exc:
            raise ValueError(f"its face layer lacks {exc.args[0]}") from None
        shapes = {"mean": (features,), "scale": (features,), "weights": (features, faces), "bias": (faces,)}
        if any(got[k].shape != shapes[k] for k in KEYS) or not all(np.all(np.isfinite(v)) for v in got.values()) \
                or got["scale"].min() <= 0:
            raise ValueError("its face layer is damaged")
        return cls(**got)


def fit_layer(features: np.ndarray, faces: np.ndarray, count: int, *, l2: float = L2, steps: int = STEPS) -> FaceLayer:
    """A face layer for dice whose crops' features are given (n, features), each showing faces[i]
    (an index below count). Every face weighs the same, however many dice showed it."""
    x = np.asarray(features, np.float32)
    mean = x.mean(axis=0)
    scale = x.std(axis=0) + 0.1 * (x.std() + 1e-6)  # a number that barely varies is not blown up
    xt = np.ascontiguousarray(((x - mean) / scale).T)  # dice along the last axis (net.fit_head says why)
    faces = np.asarray(faces)
    present = np.bincount(faces, minlength=count).astype(np.float32)
    share = (1.0 / np.maximum(present, 1))[faces] / (present > 0).sum()  # each face's dice weigh 1/faces
    onehot = np.eye(count, dtype=np.float32)[:, faces]
    start = (np.zeros((len(mean), count), np.float32), np.zeros(count, np.float32))
    params = fit_softmax(xt, onehot, share, start, l2, steps)  # weights pulled to 0, the bias free
    return FaceLayer(mean, scale, params[0], params[1])
