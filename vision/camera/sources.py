"""Frame sources behind one small interface: `read() -> (timestamp, BGR frame)`, `close()`, `with`.

A camera that cannot be opened, fails or disappears raises `CameraError`; a
replayed folder or video that has run out raises its subclass `EndOfStream`.
"""

from __future__ import annotations

import time
from pathlib import Path

import cv2
import numpy as np

from companion.errors import CameraError, ImageError

from .frames import EndOfStream, FrameSource
from ..images import IMAGE_SUFFIXES, photo_files, read_image
from ..demo.synthetic import SyntheticCamera

__all__ = ["EndOfStream", "FrameSource", "Picamera2Source", "WebcamSource", "FolderSource", "VideoFileSource",
           "SyntheticCamera", "UnknownSource", "SPECS", "open_source"]

SPECS = "picamera2, a webcam index like 0, synthetic, a folder of images or a video file"  # what open_source takes


class UnknownSource(CameraError, ValueError):
    """A camera spec that names no source at all: a typo to fix, not a camera to wait for."""


class Picamera2Source(FrameSource):
    """A Raspberry Pi camera through picamera2, with exposure and colour gains fixed so colours hold still.

    `camera` is a Picamera2 instance or a stand-in with the same methods; None opens the first camera.
    stream "main" asks for RGB888, which picamera2 delivers in OpenCV's B,G,R order; "lores" uses the
    small YUV420 stream (the only lores format on a Pi 4) and converts it.
    """

    def __init__(self, camera=None, *, size=(640, 480), stream: str = "main", exposure_us: int = 12000,
                 analogue_gain: float = 2.0, colour_gains=(1.9, 1.6), clock=time.monotonic):
        if stream not in ("main", "lores"):
            raise CameraError(f"picamera2 stream must be 'main' or 'lores', got {stream!r}")
        self.clock, self.stream, self.size = clock, stream, tuple(size)
        if camera is None:
            try:
                from picamera2 import Picamera2  # optional `pi` extra: only Raspberry Pi OS ships libcamera
            except ImportError:
                raise CameraError("picamera2 is not installed; on Raspberry Pi OS run "
                                  "`sudo apt install python3-picamera2` (the `pi` extra)") from None
            try:
                camera = Picamera2()
            except Exception as exc:  # libcamera reports a missing camera in several ways
                raise CameraError(f"no Raspberry Pi camera found: {exc}") from None
        self.camera = camera
        try:
            if stream == "main":
                config = camera.create_video_configuration(main={"size": self.size, "format": "RGB888"})
            else:
                config = camera.create_video_configuration(main={"size": (self.size[0] * 2, self.size[1] * 2)},
                                                           lores={"size": self.size, "format": "YUV420"})
            camera.configure(config)
            # fixed exposure and white balance: auto modes drift and shift the dice's colours
            camera.set_controls({"AeEnable": False, "AwbEnable": False, "ExposureTime": int(exposure_us),
                                 "AnalogueGain": float(analogue_gain), "ColourGains": tuple(colour_gains)})
            camera.start()
        except Exception as exc:
            self.close()
            raise CameraError(f"the Raspberry Pi camera would not start: {exc}") from None

    def read(self) -> tuple[float, np.ndarray]:
        try:
            arr = self.camera.capture_array(self.stream)
        except Exception as exc:
            raise CameraError(f"the Raspberry Pi camera stopped delivering frames: {exc}") from None
        if not isinstance(arr, np.ndarray) or arr.ndim not in (2, 3):
            raise CameraError(f"the Raspberry Pi camera returned no image ({type(arr).__name__})")
        if self.stream == "lores":
            arr = cv2.cvtColor(arr, cv2.COLOR_YUV2BGR_I420)
        elif arr.ndim == 3 and arr.shape[2] == 4:
            arr = np.ascontiguousarray(arr[..., :3])  # XRGB8888 arrives as B,G,R,X
        return self.clock(), arr

    def close(self) -> None:
        camera, self.camera = getattr(self, "camera", None), None
        if camera is None:
            return
        for step in (camera.stop, camera.close):
            try:
                step()
            except Exception:  # closing a camera that already vanished must not hide the first error
                pass


def _quiet_capture(index: int):
    """Open a VideoCapture without OpenCV's own warnings: our CameraError says it better, on one line."""
    log = getattr(getattr(cv2, "utils", None), "logging", None)
    previous = log.getLogLevel() if log else None
    if log:
        log.setLogLevel(log.LOG_LEVEL_ERROR)
    try:
        return cv2.VideoCapture(index)
    finally:
        if log:
            log.setLogLevel(previous)


class WebcamSource(FrameSource):
    """A USB webcam by index through OpenCV."""

    def __init__(self, index: int = 0, *, size=(640, 480), clock=time.monotonic, capture=None):
        self.index, self.clock = index, clock
        self.cap = capture if capture is not None else _quiet_capture(index)
        if not self.cap.isOpened():
            self.cap.release()
            raise CameraError(f"webcam {index} cannot be opened (is it plugged in? try another index)")
        self.cap.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
        self.cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])

    def read(self) -> tuple[float, np.ndarray]:
        ok, frame = self.cap.read() if self.cap is not None else (False, None)
        if not ok or frame is None:
            raise CameraError(f"webcam {self.index} stopped delivering frames (unplugged?)")
        return self.clock(), frame

    def close(self) -> None:
        if self.cap is not None:
            self.cap.release()
            self.cap = None


FOLDER_FPS = 10  # a folder's images are replayed as frames this many a second


class FolderSource(FrameSource):
    """The images of a folder, in name order, as a stream with timestamps fps apart."""

    def __init__(self, folder, *, fps: float = FOLDER_FPS, start: float = 0.0):
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise CameraError(f"{str(folder)!r} is not a folder of images")
        self.files = photo_files(self.folder)
        if not self.files:
            raise CameraError(f"{str(folder)!r} holds no images (.jpg, .png)")
        self.interval, self.t, self.i = 1.0 / fps, start, 0

    def read(self) -> tuple[float, np.ndarray]:
        if self.i >= len(self.files):
            raise EndOfStream(f"{str(self.folder)!r}: no more images")
        try:
            frame = read_image(self.files[self.i])
        except ImageError as exc:  # to whoever watches the stream, a broken frame is a failing camera
            raise CameraError(f"replay stopped: {exc}") from None
        t = self.t + self.i * self.interval
        self.i += 1
        return t, frame


class VideoFileSource(FrameSource):
    """A recorded video replayed; timestamps are the video's own."""

    def __init__(self, path):
        self.path = str(path)
        self.cap = cv2.VideoCapture(self.path)
        if not self.cap.isOpened():
            raise CameraError(f"{self.path!r} cannot be opened as a video")
        self.fps = self.cap.get(cv2.CAP_PROP_FPS) or 30.0
        self.n = 0

    def read(self) -> tuple[float, np.ndarray]:
        ok, frame = self.cap.read() if self.cap is not None else (False, None)
        if not ok and not self.n:  # opened, yet not one frame: not a video after all (a text file named .mp4)
            raise CameraError(f"{self.path!r}: no frame could be read: not a video, or a damaged one")
        if not ok:
            raise EndOfStream(f"{self.path!r}: end of video")
        t = self.n / self.fps
        self.n += 1
        return t, frame

    def close(self) -> None:
        if self.cap is not None:
            self.cap.release()
            self.cap = None


def open_source(spec: str, **kwargs) -> FrameSource:
    """"picamera2", a webcam index ("0"), "synthetic" (or "synthetic:SEED"), a folder or a video file."""
    spec = str(spec).strip()
    if spec == "picamera2":
        return Picamera2Source(**kwargs)
    if spec.isdigit():
        return WebcamSource(int(spec), **kwargs)
    if spec == "synthetic" or spec.startswith("synthetic:"):
        seed = spec.partition(":")[2]
        if seed and not seed.isdigit():
            raise UnknownSource(f"synthetic source seed must be a whole number, got {spec!r}")
        return SyntheticCamera(seed=int(seed) if seed else None, **kwargs)
    path = Path(spec)
    if path.is_dir():
        return FolderSource(path, **kwargs)
    if path.is_file() and path.suffix.lower() in IMAGE_SUFFIXES:  # OpenCV would play it as a one-frame video
        raise UnknownSource(f"camera source {spec!r} is a photo: read it with `companion vision read`, "
                            "or watch the folder it is in")
    if path.is_file():
        return VideoFileSource(path)
    if "/" in spec or "\\" in spec or path.suffix:  # meant as a folder or a video: say it is not there
        raise UnknownSource(f"camera source {spec!r}: no such folder or video file")
    raise UnknownSource(f"unknown camera source {spec!r}: use {SPECS}")
