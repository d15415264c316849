"""A small ONNX network as the table runs it: the file read by OpenCV's cv2.dnn, its metadata read here.

The reader's networks (the ZomBee crop network, name/cropnet.py; the Zoo's pip finder and reader,
pips/net.py) are each a file plus a runtime, as the field runs networks: anyone can open the file in
an ONNX viewer, and a newer network drops in without a line of code changing. Each file carries its
input side, its stride and its class names in its own metadata, so a file made for other inputs or
other answers is refused by name instead of read wrongly.
"""

from __future__ import annotations

import threading
from pathlib import Path

import cv2
import numpy as np

from companion.errors import CompanionError

SIDE_KEY = "input_side"  # metadata: the input's side in pixels
CLASSES_KEY = "classes"  # metadata: the outputs' names, comma separated, in the network's order
STRIDE_KEY = "stride"  # metadata: pixels of the input per cell of the output (1 when it answers per input)


class NetError(CompanionError, ValueError):
    """A network file that cannot be read, or that was made for another job."""


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


class OnnxNet:
    """One ONNX network with its metadata, ready to run. Safe to share between threads (a lock round the
    forward pass: one cv2.dnn.Net holds its input between setInput and forward). WHAT names it in
    messages; ERROR is what it raises."""

    WHAT = "network"
    ERROR = NetError

    def __init__(self, data: bytes, source: str, classes: tuple[str, ...]):
        self.data, self.source = bytes(data), source
        try:
            self.meta = meta = metadata(self.data)  # all of it, for what a kind of network adds (pips/net.py)
            self.side = int(meta[SIDE_KEY])
            self.stride = int(meta.get(STRIDE_KEY, "1"))
            self.classes = tuple(meta[CLASSES_KEY].split(","))
            self._net = cv2.dnn.readNetFromONNX(np.frombuffer(self.data, np.uint8))
        except (ValueError, KeyError, UnicodeDecodeError, cv2.error) as exc:
            raise self.ERROR(f"{self.WHAT} {source!r} cannot be read ({type(exc).__name__}): damaged or not ONNX") \
                from None
        if self.classes != tuple(classes):
            raise self.ERROR(f"{self.WHAT} {source!r} answers {', '.join(self.classes)}; "
                             f"this reader needs {', '.join(classes)}")
        self._net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
        self._lock = threading.Lock()
        self._layers: dict[str, str] = {}  # an inner output's layer name, found once (_layer)

    @classmethod
    def load(cls, path, classes):
        path = Path(path)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise cls.ERROR(f"{cls.WHAT} {str(path)!r} cannot be read: {exc.strerror or exc}") from None
        return cls(data, str(path), classes)

    def forward(self, blob: np.ndarray, output: str | None = None) -> np.ndarray:
        """The network's answer for blob, or the values of its node named output (an inner layer's)."""
        with self._lock:
            self._net.setInput(np.ascontiguousarray(blob, np.float32))
            return self._net.forward(self._layer(output)) if output else self._net.forward()

    def _layer(self, output: str) -> str:
        """cv2.dnn's name for the layer that writes the ONNX node output named output: OpenCV 4.x
        names a layer by its node's output, newer releases prefix it ("onnx_node_output_0!flat"). Looked
        up once: a face layer reads every frame's dice through it."""
        if output not in self._layers:
            named = [name for name in self._net.getLayerNames() if name == output or name.endswith("!" + output)]
            if not named:
                raise self.ERROR(f"{self.WHAT} {self.source!r} has no output {output!r}")
            self._layers[output] = named[0]
        return self._layers[output]
