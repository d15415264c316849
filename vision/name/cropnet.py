"""The crop network as the reader runs it: an ONNX file read by OpenCV's cv2.dnn.

The network itself (three 3x3 convolutions and two dense layers, see cnn.py for what it is for)
is trained by tools/train_crop.py and written as ONNX by tools/export_onnx.py; vision/onnx.py runs
it and reads the crop's side and the class names from the file's own metadata.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..onnx import NetError, OnnxNet
from .facelayer import FEATURES

DEFAULT_ONNX = Path(__file__).parent.parent / "models" / "crop.onnx"


class CropNetError(NetError):
    """A crop network file that cannot be read, or that was made for other crops or faces."""


class CropNet(OnnxNet):
    """The ZomBee crop network: which face each die's crop shows."""

    WHAT = "crop network"
    ERROR = CropNetError

    def proba(self, seen: np.ndarray) -> np.ndarray:
        """(n, classes) probabilities of n crops seen as (n, side, side, 3) (cnn.looks)."""
        return self._run(seen, None, len(self.classes))

    def features(self, seen: np.ndarray) -> np.ndarray:
        """(n, FEATURES) what the convolutions see in n crops (cnn.looks): what a table's own face layer
        reads (facelayer.py)."""
        out = self._run(seen, FEATURES, None)
        return out.reshape(len(out), -1 if len(out) else 0).astype(np.float32)

    def _run(self, seen: np.ndarray, output: str | None, width: int | None) -> np.ndarray:
        x = np.asarray(seen, np.float32)
        if x.ndim != 4 or x.shape[1:] != (self.side, self.side, 3):
            raise ValueError(f"the crop network reads crops of {self.side}x{self.side} colour pixels, got shape {x.shape}")
        if not len(x):
            return np.zeros((0, width or 0), np.float32)
        return np.array(self.forward(x.transpose(0, 3, 1, 2), output), np.float64)
