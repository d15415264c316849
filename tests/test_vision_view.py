"""The camera view says in words what is wrong with the picture, and draws what it reads."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from table_companion.demo import demo_camera
from vision.camera.latest import LatestFrame
from vision.images import read_image
from vision.reader import DiceReader
from vision.camera.view import CameraView, NoCamera


@pytest.fixture(scope="module")
def tray():
    camera = demo_camera()
    camera.realtime = False
    camera.noise = 0
    camera.placed = [("bee", 150, 150, 0.2), ("zzz", 400, 300, 0.6)]
    return camera.read()[1]


class Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


def view_of(frame, ok=True, clock=None, reader=None):
    latest = LatestFrame(clock or Clock())
    latest.put(0.0, frame)
    reader = reader or DiceReader()
    return CameraView(latest, lambda: reader, lambda: ok, clock=clock or latest.clock)


def codes(frame):
    return [p["code"] for p in view_of(frame).status()["problems"]]


def test_a_good_picture_has_no_problem_and_its_dice_are_read(tray):
    status = view_of(tray).status()
    assert status["ok"] and sorted(d["face"] for d in status["dice"]) == ["bee", "zzz"]


def test_too_dark(tray):
    assert codes((tray * 0.2).astype(np.uint8))[0] == "dark"


def test_glare(tray):
    shiny = tray.copy()
    cv2.circle(shiny, (500, 120), 25, (255, 255, 255), -1)
    assert codes(shiny) == ["glare"]


def test_tray_not_found(tray):
    table = np.full_like(tray, 70)  # a dark table, the tray only in a corner of the picture
    table[:120, :160] = tray[:120, :160]
    assert "tray" in codes(table)


@pytest.mark.parametrize("scale", [0.35, 0.5])
def test_dice_too_small(tray, scale):
    w, h = int(640 * scale), int(480 * scale)
    far = cv2.resize(tray, (640, 480))  # the camera twice as far: the tray (with its rim) fills the middle
    far[:] = tray[3, 3]
    far[(480 - h) // 2:(480 - h) // 2 + h, (640 - w) // 2:(640 - w) // 2 + w] = cv2.resize(tray, (w, h),
                                                                                         interpolation=cv2.INTER_AREA)
    assert "small" in codes(far)


def test_camera_offline_or_frozen_is_said_and_the_overlay_differs(tray):
    with pytest.raises(NoCamera, match="camera offline"):
        view_of(tray, ok=False).jpeg()
    clock = Clock()
    view = view_of(tray, clock=clock)
    assert view.jpeg(overlay=True) != view.jpeg(overlay=False)
    clock.t += 6
    with pytest.raises(NoCamera, match="no new picture for 6 s"):
        view.jpeg()


# ---------------------------------------------------------------- a camera moved since the dice were taught
PHOTOS = Path(__file__).parent / "fixtures" / "dice-photos"  # real photos (BSD 3-Clause: see its LICENSE)


def taught_at(side):
    """A reader whose model was taught dice `side` pixels across (the shipped model given that size, as
    calibration would give it)."""
    return DiceReader(replace(DiceReader().model, side=side))


@pytest.fixture(scope="module")
def real():
    """A real photo of three of the set's dice lying apart, and the side they measure in it."""
    frame = read_image(PHOTOS / "read" / "t1_IMG_20191208_112122.jpg")
    return frame, DiceReader().inspect(frame)[1]


def test_dice_smaller_than_taught_are_named_not_shown_as_a_fine_empty_tray(real):
    frame, side = real
    status = view_of(frame, reader=taught_at(side / 0.8)).status()  # the camera raised by a quarter since
    moved = [p for p in status["problems"] if p["code"] == "moved"]
    # untold how many were thrown, dice that all look smaller were left out as another set's, and the view
    # said "the picture looks fine" over an empty tray; now they are read at their size, and it says why
    assert len(status["dice"]) == 3 and not status["ok"] and moved
    assert moved[0]["args"]["times"] == pytest.approx(0.8, abs=0.05) and moved[0]["args"]["read"]
    assert moved[0]["text"].startswith("The dice look smaller than when they were taught")
    assert status["die_px"] == pytest.approx(side, rel=0.05)  # what the camera shows, not what was taught


def test_dice_larger_than_taught_are_named(real):
    frame, side = real
    moved = [p for p in view_of(frame, reader=taught_at(side / 1.25)).status()["problems"] if p["code"] == "moved"]
    assert moved and moved[0]["args"]["times"] == pytest.approx(1.25, abs=0.05) and "larger" in moved[0]["text"]


def test_dice_of_the_taught_size_beside_another_sets_smaller_dice_raise_nothing(real):
    frame, side = real
    status = view_of(frame, reader=taught_at(side)).status()
    assert status["ok"] and len(status["dice"]) == 3
    # two of the set's dice beside a smaller dark die of another set, a lighter one and many light
    # dice: the square dark dice measure smaller by most votes, but the smaller ones are not ours
    crowded = view_of(read_image(PHOTOS / "detect" / "t1_IMG_20191208_111642.jpg"), reader=taught_at(side)).status()
    assert "moved" not in [p["code"] for p in crowded["problems"]] and len(crowded["dice"]) >= 2
