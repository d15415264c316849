"""The crop network as the reader runs it: an ONNX file read by OpenCV's cv2.dnn.

The network itself (three 3x3 convolutions and two dense layers, see cnn.py for what it is for)
is trained by tools/train_crop.py and written as ONNX by tools/export_onnx.py; here it is a
file plus a runtime, as the field runs networks: anyone can open the file in an ONNX viewer, and a
newer network drops in without a line of code changing. The crop's side and the class names are
read from the file's own metadata, so a file made for other crops or other faces is refused by
name instead of read wrongly.
"""

from __future__ import annotations

import threading
from pathlib import Path

import cv2
import numpy as np

from companion.errors import CompanionError

DEFAULT_ONNX = Path(__file__).parent.parent / "models" / "crop.onnx"
SIDE_KEY = "input_side"  # metadata: the crop's side in pixels
CLASSES_KEY = "classes"  # metadata: the class names, comma separated, in the network's output order


class CropNetError(CompanionError, ValueError):
    """A crop network file that cannot be read, or that was made for other crops or faces."""


def _varint(buf: bytes, i: int) -> tuple[int, int]:
    shift = value = 0
    while True:
        if i >= len(buf):
            raise ValueError("truncated")
        b = buf[i]
        i += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return value, i


def _fields(buf: bytes):
    """(field number, bytes or int) of a protobuf message, top level only."""
    i = 0
    while i < len(buf):
        key, i = _varint(buf, i)
        number, kind = key >> 3, key & 7
        if kind == 0:
            value, i = _varint(buf, i)
        elif kind == 2:
            size, i = _varint(buf, i)
            value, i = buf[i:i + size], i + size
            if i > len(buf):
                raise ValueError("truncated")
        elif kind in (1, 5):
            size = 8 if kind == 1 else 4
            value, i = buf[i:i + size], i + size
        else:
            raise ValueError(f"wire type {kind}")
        yield number, value


def metadata(data: bytes) -> dict[str, str]:
    """The metadata_props of an ONNX file (ModelProto field 14: key 1, value 2). OpenCV does not read
    them, and the onnx package is a developer's tool, not the Pi's: a few lines of protobuf instead."""
    out = {}
    for number, value in _fields(data):
        if number == 14 and isinstance(value, bytes):
            entry = dict(_fields(value))
            out[bytes(entry.get(1, b"")).decode()] = bytes(entry.get(2, b"")).decode()
    return out


class CropNet:
    """One ONNX crop network, ready to read crops. Safe to share between threads (a lock round the
    forward pass: one cv2.dnn.Net holds its input between setInput and forward)."""

    def __init__(self, data: bytes, source: str, classes: tuple[str, ...]):
        self.data, self.source = bytes(data), source
        try:
            meta = metadata(self.data)
            self.side = int(meta[SIDE_KEY])
            self.classes = tuple(meta[CLASSES_KEY].split(","))
            self._net = cv2.dnn.readNetFromONNX(np.frombuffer(self.data, np.uint8))
        except (ValueError, KeyError, UnicodeDecodeError, cv2.error) as exc:
            raise CropNetError(f"crop network {source!r} cannot be read ({type(exc).__name__}): damaged or not ONNX") \
                from None
        if self.classes != tuple(classes):
            raise CropNetError(f"crop network {source!r} names the faces {', '.join(self.classes)}; "
                               f"this reader needs {', '.join(classes)}")
        self._net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
        self._lock = threading.Lock()

    @classmethod
    def load(cls, path, classes) -> "CropNet":
        path = Path(path)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise CropNetError(f"crop network {str(path)!r} cannot be read: {exc.strerror or exc}") from None
        return cls(data, str(path), classes)

    def proba(self, seen: np.ndarray) -> np.ndarray:
        """(n, classes) probabilities of n crops seen as (n, side, side, 3) (cnn.looks)."""
        x = np.asarray(seen, np.float32)
        if x.ndim != 4 or x.shape[1:] != (self.side, self.side, 3):
            raise ValueError(f"the crop network reads crops of {self.side}x{self.side} colour pixels, got shape {x.shape}")
        if not len(x):
            return np.zeros((0, len(self.classes)), np.float32)
        blob = np.ascontiguousarray(x.transpose(0, 3, 1, 2))
        with self._lock:
            self._net.setInput(blob)
            return np.array(self._net.forward(), np.float64)
