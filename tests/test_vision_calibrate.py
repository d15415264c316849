import shutil

import numpy as np
import pytest

from vision import render
from vision.calibrate import CalibrationError, calibrate
from vision.reader import DiceReader
from vision.train import match


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cal")
    rng = np.random.default_rng(500)
    rig = render.random_rig(rng, render.HELDOUT)
    render.write_calibration_set(folder, rng, rig, per_face=6, empty=2)
    return folder, rig, rng


def test_calibrated_reader_reads_this_tables_rolls(table):
    folder, rig, rng = table
    model = calibrate(folder)
    assert model.kind == "calibrated"
    assert model.side == pytest.approx(rig.die_size, rel=0.15)
    assert model.background is not None
    reader = DiceReader(model)
    right = total = 0
    for _ in range(8):
        scene = render.render_scene(rng, rig, count=5)
        reading = reader.read(scene.image)
        assert len(reading.dice) == len(scene.dice)
        right += sum(t is not None and t.face == d.face for d, t in zip(reading.dice, match(reading.dice, scene.dice)))
        total += len(scene.dice)
    assert right / total >= 0.95


def _copy(table, tmp_path):
    folder, rig, rng = table
    dst = tmp_path / "cal"
    shutil.copytree(folder, dst)
    return dst


def test_empty_face_folder_is_named(table, tmp_path):
    dst = _copy(table, tmp_path)
    for f in (dst / "honey").iterdir():
        f.unlink()
    with pytest.raises(CalibrationError, match="honey.*no photos"):
        calibrate(dst)
    shutil.rmtree(dst / "honey")
    with pytest.raises(CalibrationError, match="honey.*missing"):
        calibrate(dst)


def test_photo_without_a_die_is_named(table, tmp_path):
    dst = _copy(table, tmp_path)
    shutil.copy(dst / "empty" / "empty0.png", dst / "bee" / "oops.png")
    with pytest.raises(CalibrationError, match="oops.png.*no die"):
        calibrate(dst)


def test_mixed_faces_are_named(table, tmp_path):
    dst = _copy(table, tmp_path)
    folder, rig, rng = table
    scene = render.render_scene(np.random.default_rng(9), rig, faces=["zombee", "honey", "zombee", "honey"])
    import cv2

    cv2.imwrite(str(dst / "zzz" / "mixed.png"), scene.image)
    with pytest.raises(CalibrationError, match="mixed.png.*mixed faces"):
        calibrate(dst)


def test_corrupt_photo_is_named(table, tmp_path):
    dst = _copy(table, tmp_path)
    (dst / "bee" / "zz_corrupt.jpg").write_bytes(b"nope")
    with pytest.raises(Exception, match="zz_corrupt.jpg"):
        calibrate(dst)
