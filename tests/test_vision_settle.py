import pytest

from vision.reader import DiceReader
from vision.settle import Settler
from vision.demo.synthetic import SyntheticCamera


@pytest.fixture(scope="module")
def reader():
    return DiceReader()


def _run(cam, settler, frames):
    out = []
    for _ in range(frames):
        ts, frame = cam.read()
        reading = settler.feed(ts, frame)
        if reading is not None:
            out.append(reading)
    return out


def test_one_reading_per_roll_soon_after_the_dice_stop(reader):
    cam = SyntheticCamera(seed=21, clock=lambda: 0.0)
    settler = Settler(0.3, reader)
    faces = cam.roll(["bee", "honey", "zzz", "zombee", "bee"])
    readings = _run(cam, settler, 50)
    assert len(readings) == 1
    assert sorted(readings[0].faces) == sorted(faces)
    assert settler.state == "still"
    latency = readings[0].timestamp - cam.settled_at
    assert 0.25 <= latency <= 0.3 + 1e-6


def test_no_reading_while_a_hand_is_in_the_tray(reader):
    cam = SyntheticCamera(seed=22, clock=lambda: 0.0, hand_seconds=1.0)
    settler = Settler(0.3, reader)
    cam.roll(count=3)
    hands = 0
    for _ in range(25):  # the first 30 frames show the hand
        ts, frame = cam.read()
        assert settler.feed(ts, frame) is None
        hands += settler.hand
        assert settler.state == "moving"
    assert hands >= 20


def test_rerolling_the_same_faces_is_a_new_reading(reader):
    cam = SyntheticCamera(seed=23, clock=lambda: 0.0)
    settler = Settler(0.2, reader)
    faces = ["honey", "honey", "zzz"]
    cam.roll(faces)
    first = _run(cam, settler, 40)
    cam.roll(faces)
    second = _run(cam, settler, 40)
    assert len(first) == 1 and len(second) == 1
    assert sorted(first[0].faces) == sorted(second[0].faces) == sorted(faces)
    assert second[0].timestamp > first[0].timestamp


def test_dice_left_lying_give_one_reading_and_an_empty_tray_none(reader):
    cam = SyntheticCamera(seed=24, clock=lambda: 5.0)
    settler = Settler(0.3, reader)
    cam.set_tray(["zombee", "bee"])
    readings = _run(cam, settler, 40)
    assert len(readings) == 1 and sorted(readings[0].faces) == ["bee", "zombee"]
    cam.roll([])  # the dice are taken away
    assert _run(cam, settler, 45) == []
    assert settler.state == "empty"


def test_still_time_is_configurable(reader):
    cam = SyntheticCamera(seed=25, clock=lambda: 0.0)
    settler = Settler(1.0, reader)
    cam.roll(count=2)
    readings = _run(cam, settler, 80)
    assert len(readings) == 1
    assert readings[0].timestamp - cam.settled_at == pytest.approx(1.0, abs=0.04)


def test_a_settled_tray_short_of_the_dice_thrown_says_so(reader):
    cam = SyntheticCamera(seed=26, clock=lambda: 0.0)
    settler = Settler(0.3, reader)
    cam.set_tray(["bee", "honey", "zzz"])
    readings = []
    for _ in range(40):
        ts, frame = cam.read()
        reading = settler.feed(ts, frame, expected=5)
        if reading is not None:
            readings.append(reading)
    assert len(readings) == 1 and len(readings[0].dice) == 3
    assert readings[0].check == "the tray shows 3 dice where 5 were thrown"
    assert readings[0].to_dict()["check"] == readings[0].check
