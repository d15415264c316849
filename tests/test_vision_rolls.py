"""Whole rolls with their dice named (DIR/rolls/ and rolls/labels.json): learned as a calibration's
photos, and every bad label named with its file and entry before a model is written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from companion.cli import main as companion
from vision.images import read_image
from vision.teach.photo_checks import CalibrationError
from vision.teach.rolls import composed, read_labels, with_rolls

PHOTOS = Path(__file__).parent / "fixtures" / "dice-photos"
ROLL = "t1_IMG_20191208_112122.jpg"  # a real roll: a zombee, a honey and a bee of the set, apart


def _labelled(name=ROLL) -> list[dict]:
    dice = json.loads((PHOTOS / "read" / "labels.json").read_text())[name]["dice"]
    return [{"x": d["x"], "y": d["y"], "face": d["face"]} for d in dice if d["kind"] == "set"]


@pytest.fixture
def folder(tmp_path):
    out = tmp_path / "table"
    shutil.copytree(PHOTOS / "calibration", out)
    (out / "rolls").mkdir()
    shutil.copy(PHOTOS / "read" / ROLL, out / "rolls" / ROLL)
    (out / "rolls" / "labels.json").write_text(json.dumps({ROLL: _labelled()}))
    return out


def test_each_face_of_a_roll_becomes_a_photo_of_the_empty_tray_with_that_faces_dice_where_they_lay(folder):
    plate = read_image(sorted((folder / "empty").iterdir())[0])
    roll = read_image(folder / "rolls" / ROLL)
    (labelled,) = read_labels(folder)
    pictures = composed(labelled, plate)
    assert sorted(pictures) == sorted(d["face"] for d in _labelled())
    for d in _labelled():
        x, y = int(d["x"]), int(d["y"])
        mine = pictures[d["face"]]
        assert np.array_equal(mine[y - 5:y + 5, x - 5:x + 5], roll[y - 5:y + 5, x - 5:x + 5])  # the die itself
        for other, picture in pictures.items():
            if other != d["face"]:  # and nowhere else: the other faces' photos show the tray there
                assert np.array_equal(picture[y - 5:y + 5, x - 5:x + 5], plate[y - 5:y + 5, x - 5:x + 5])


def test_calibration_reads_the_rolls_as_photos_of_their_faces(folder):
    with with_rolls(folder) as seen:
        for d in _labelled():
            assert (seen / d["face"] / f"rolls-{Path(ROLL).stem}.png").is_file()
        assert len(list((seen / "bee").iterdir())) == len(list((folder / "bee").iterdir())) + 1
    assert not seen.exists()  # the folder the rolls were laid out in is gone afterwards


def test_an_empty_rolls_folder_is_no_rolls(folder):
    shutil.rmtree(folder / "rolls")
    (folder / "rolls").mkdir()
    assert read_labels(folder) == []
    with with_rolls(folder) as seen:
        assert seen == folder


def _calibrate(folder, tmp_path, capsys) -> tuple[int, str]:
    out = tmp_path / "model.npz"
    status = companion(["vision", "calibrate", str(folder), "--out", str(out)])
    err = capsys.readouterr().err.strip()
    assert not out.exists()  # no model written
    return status, err


@pytest.mark.parametrize("labels, said", [
    ("{not json", r"labels.json' is not JSON"),
    ({"gone.jpg": [{"x": 1, "y": 1, "face": "bee"}]}, r"entry 'gone.jpg' names no photo"),
    ({ROLL: [{"x": 343, "y": 293, "face": "pip"}]}, r"entry '.*112122.jpg', die 1: 'pip' is not a ZomBee face"),
    ({ROLL: [{"x": 343, "y": 293, "face": "zombee"}, {"x": 40, "y": 40, "face": "bee"}]},
     r"entry '.*112122.jpg', die 2 at \(40, 40\) is on no die"),
    ({ROLL: [{"x": "left", "y": 3, "face": "bee"}]}, r"die 1: needs numbers x and y"),
    ([ROLL], r"must map each photo's file name to its dice"),
])
def test_a_bad_label_is_one_line_naming_the_file_and_entry_exit_2_and_no_model(folder, tmp_path, capsys, labels, said):
    (folder / "rolls" / "labels.json").write_text(labels if isinstance(labels, str) else json.dumps(labels))
    status, err = _calibrate(folder, tmp_path, capsys)
    assert status == 2
    assert len(err.splitlines()) == 1 and "rolls/labels.json" in err
    assert pytest.importorskip("re").search(said, err), err


def test_photos_of_rolls_without_labels_are_refused(folder, tmp_path, capsys):
    (folder / "rolls" / "labels.json").unlink()
    status, err = _calibrate(folder, tmp_path, capsys)
    assert status == 2 and "labels.json' is missing" in err


def test_a_roll_from_another_camera_is_refused_by_its_size(folder):
    small = read_image(folder / "rolls" / ROLL)[:300, :300]
    import cv2

    cv2.imwrite(str(folder / "rolls" / ROLL), small)
    with pytest.raises(CalibrationError, match="300x300 but the empty tray's photo is 640x640"):
        with with_rolls(folder):
            pass
