import sys

import cv2
import numpy as np
import pytest

from companion.errors import CameraError
from vision.reader import DiceReader
from vision.camera.sources import (EndOfStream, FolderSource, FrameSource, Picamera2Source, SyntheticCamera, WebcamSource,
                            open_source)


class FakePicamera2:
    """Stand-in with picamera2's interface; capture fails after `fail_after` frames."""

    def __init__(self, fail_after=None):
        self.calls, self.controls, self.config = [], {}, None
        self.fail_after, self.frames = fail_after, 0

    def create_preview_configuration(self, **kw):
        return {"preview": kw}

    def create_video_configuration(self, **kw):
        return {"video": kw}

    def configure(self, config):
        self.config = config

    def set_controls(self, controls):
        self.controls.update(controls)

    def start(self):
        self.calls.append("start")

    def capture_array(self, name="main"):
        self.frames += 1
        if self.fail_after is not None and self.frames > self.fail_after:
            raise RuntimeError("camera timed out")
        return np.full((480, 640, 3), (10, 20, 30), np.uint8)

    def stop(self):
        self.calls.append("stop")

    def close(self):
        self.calls.append("close")


def test_picamera2_is_configured_for_steady_bgr_frames():
    fake = FakePicamera2()
    ticks = iter([1.0, 1.5])
    with Picamera2Source(fake, clock=lambda: next(ticks)) as cam:
        assert fake.config["video"]["main"] == {"size": (640, 480), "format": "RGB888"}
        assert fake.controls["AeEnable"] is False and "ColourGains" in fake.controls
        assert "ExposureTime" in fake.controls and "AnalogueGain" in fake.controls
        ts, frame = cam.read()
        assert ts == 1.0 and frame.shape == (480, 640, 3)
        assert tuple(frame[0, 0]) == (10, 20, 30)  # RGB888 already is OpenCV's B,G,R: no swap
        assert isinstance(cam, FrameSource)
    assert fake.calls == ["start", "stop", "close"]


def test_picamera2_dying_mid_stream_is_a_camera_error():
    cam = Picamera2Source(FakePicamera2(fail_after=2))
    cam.read()
    cam.read()
    with pytest.raises(CameraError, match="stopped"):
        cam.read()
    cam.close()


def test_picamera2_lores_yuv_stream_is_converted_to_bgr():
    class Lores(FakePicamera2):
        def capture_array(self, name="main"):
            assert name == "lores"
            yuv = np.zeros((720, 640), np.uint8)
            yuv[:480] = 120  # grey: Y=120 with neutral chroma
            yuv[480:] = 128
            return yuv

    fake = Lores()
    with Picamera2Source(fake, stream="lores") as cam:
        assert fake.config["video"]["lores"] == {"size": (640, 480), "format": "YUV420"}
        _, frame = cam.read()
    assert frame.shape == (480, 640, 3) and abs(int(frame[0, 0, 0]) - int(frame[0, 0, 2])) <= 2


def test_missing_picamera2_is_a_camera_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)
    with pytest.raises(CameraError, match="picamera2"):
        open_source("picamera2")


class FakeCapture:
    def __init__(self, opened=True, frames=1):
        self.opened, self.frames, self.released = opened, frames, False

    def isOpened(self):
        return self.opened

    def set(self, *a):
        return True

    def read(self):
        if self.frames <= 0:
            return False, None
        self.frames -= 1
        return True, np.zeros((480, 640, 3), np.uint8)

    def release(self):
        self.released = True


def test_webcam_missing_or_unplugged_is_a_camera_error():
    with pytest.raises(CameraError, match="webcam 3"):
        WebcamSource(3, capture=FakeCapture(opened=False))
    cap = FakeCapture(frames=1)
    with WebcamSource(0, capture=cap, clock=lambda: 2.0) as cam:
        assert cam.read()[0] == 2.0
        with pytest.raises(CameraError, match="stopped"):
            cam.read()
    assert cap.released


def test_folder_replays_in_order_then_ends(tmp_path):
    for i, v in enumerate((50, 100, 150)):
        cv2.imwrite(str(tmp_path / f"f{i}.png"), np.full((48, 64, 3), v, np.uint8))
    with open_source(str(tmp_path)) as src:
        assert isinstance(src, FolderSource)
        frames = list(src)
    assert [int(f[0, 0, 0]) for _, f in frames] == [50, 100, 150]
    assert frames[1][0] - frames[0][0] == pytest.approx(0.1)
    with pytest.raises(EndOfStream):
        src.read()
    (tmp_path / "f9.png").write_bytes(b"broken")
    with FolderSource(tmp_path) as src, pytest.raises(CameraError, match="f9.png"):
        list(src)


def test_open_source_maps_specs():
    assert isinstance(open_source("synthetic"), SyntheticCamera)
    assert isinstance(open_source("synthetic:4"), SyntheticCamera)
    with pytest.raises(CameraError, match="'/no/such/thing': no such folder or video file"):
        open_source("/no/such/thing")
    with pytest.raises(CameraError, match="unknown camera source 'webcam'"):
        open_source("webcam")
    with pytest.raises(CameraError, match="webcam 57 cannot be opened"):
        open_source("57")  # no such device on a test machine


def test_a_photo_or_a_file_that_is_no_video_is_not_a_camera(tmp_path):
    # A photo played as a one-frame video, and a text file named .jpg, ended the watch at once with exit 0
    # and nothing said but FFmpeg's own lines.
    photo = tmp_path / "roll.jpg"
    cv2.imwrite(str(photo), np.full((48, 64, 3), 200, np.uint8))
    with pytest.raises(CameraError, match="'.*roll.jpg' is a photo: read it with `companion vision read`"):
        open_source(str(photo))
    fake = tmp_path / "roll.mp4"
    fake.write_text("not a video")
    with pytest.raises(CameraError, match="roll.mp4"):
        with open_source(str(fake)) as src:
            src.read()


def test_synthetic_camera_steps_time_and_shows_the_tray():
    cam = SyntheticCamera(seed=5, clock=lambda: 10.0, fps=20)
    cam.set_tray(["bee", "zzz", "honey"])
    t0, frame = cam.read()
    t1, _ = cam.read()
    assert t0 == 10.0 and t1 == pytest.approx(10.05)
    assert sorted(DiceReader().read(frame).faces) == ["bee", "honey", "zzz"]
    faces = cam.roll(count=4)
    assert len(faces) == 4 and cam.busy
    cam.clear()
    assert DiceReader().read(cam.read()[1]).dice == []
    cam.close()
    with pytest.raises(CameraError):
        cam.read()
    with pytest.raises(ValueError, match="not a die face"):
        cam.set_tray(["dragon"])


def test_synthetic_roll_from_another_thread_during_a_read_is_not_lost():
    # The demo rolls from the panel's thread while the reader's thread renders a frame: the
    # roll must never be replaced by the tray as it was before.
    import threading

    from vision.reader import DiceReader
    from vision.demo.synthetic import SyntheticCamera

    camera = SyntheticCamera(seed=2, hand_seconds=0.1, bounce_seconds=0.1)
    rendering = threading.Event()
    render = camera._frame

    def announced_render(*args, **kwargs):
        rendering.set()
        return render(*args, **kwargs)

    camera._frame = announced_render
    reader = threading.Thread(target=camera.read)  # renders the empty tray, slowly
    reader.start()
    assert rendering.wait(5)
    faces = camera.roll(count=3)  # lands while that render is under way
    reader.join(5)
    while camera.busy:
        camera.read()
    _, frame = camera.read()
    assert sorted(DiceReader().read(frame).faces) == sorted(faces)
