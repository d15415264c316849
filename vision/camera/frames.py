"""The one interface every frame source offers (see vision.sources for the sources themselves)."""

from __future__ import annotations

import numpy as np

from companion.errors import CameraError


class EndOfStream(CameraError):
    """A replayed folder or video has no more frames."""


class FrameSource:
    """Base of every source: subclasses implement read() and close()."""

    def read(self) -> tuple[float, np.ndarray]:
        raise NotImplementedError

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __iter__(self):
        while True:
            try:
                yield self.read()
            except EndOfStream:
                return
