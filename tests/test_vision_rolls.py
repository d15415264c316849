"""Whole rolls with their dice named (DIR/rolls/ and rolls/labels.json): each labelled die the reader
finds is learned as an example of its face, and every bad label is named with its file and entry
before a model is written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from companion.cli import main as companion
from vision.images import read_image
from vision.name.modelfile import load_model
from vision.teach.rolls import read_labels

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


def test_a_rolls_labelled_dice_are_found_and_taught_as_examples_of_their_faces(folder, tmp_path, capsys):
    out = tmp_path / "model.npz"
    assert companion(["vision", "calibrate", str(folder), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"rolls/{ROLL}: 3 of its 3 labelled dice found and taught" in err
    photos = load_model(out).report["photos"]
    plain = {face: len(list((folder / face).iterdir())) for face in ("bee", "honey", "zzz", "zombee")}
    assert photos == {**plain, "bee": plain["bee"] + 1, "honey": plain["honey"] + 1, "zombee": plain["zombee"] + 1}


def test_an_empty_rolls_folder_is_no_rolls(folder):
    shutil.rmtree(folder / "rolls")
    (folder / "rolls").mkdir()
    assert read_labels(folder) == []


def test_a_label_is_paired_with_the_nearest_die_found_each_die_once():
    from vision.teach.rolls import LabelledDie, Roll, paired

    class Found:
        def __init__(self, x, y):
            self.x, self.y = x, y
    found = [Found(100, 100), Found(130, 100), Found(400, 400)]
    roll = Roll(Path("r.jpg"), (LabelledDie(205, 200, "bee"), LabelledDie(250, 200, "zzz"), LabelledDie(10, 10, "honey")))
    got = paired(found, roll, 0.5, 30.0)  # the photo's pixels are twice the found dice's
    assert [(f.x, face) for f, face in got] == [(100, "bee"), (130, "zzz")]  # the honey lies on no die found


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


def test_a_lone_die_showing_one_white_pip_on_a_white_tray_is_on_a_die(tmp_path):
    """The pip in the middle of a one is the tray's colour: a label at the die's centre sits on it. Alone
    in its roll (no other die to measure a side by) it was refused as "on no die"."""
    import cv2
    import numpy as np

    from vision.teach.rolls import LabelledDie, Roll, check_rolls

    tray = np.full((480, 640, 3), 215, np.uint8)
    roll = tray.copy()
    cv2.rectangle(roll, (300, 220), (340, 260), (25, 25, 25), -1)  # a dark die 40 px across
    cv2.circle(roll, (320, 240), 7, (215, 215, 215), -1)  # its one pip, as light as the tray
    cv2.imwrite(str(tmp_path / "one.png"), roll)
    check_rolls([Roll(tmp_path / "one.png", (LabelledDie(320, 240, "bee"),))], tray)  # raises if refused
    with pytest.raises(Exception, match="on no die"):  # a label beside the die is still on none
        check_rolls([Roll(tmp_path / "one.png", (LabelledDie(420, 240, "bee"),))], tray)


def test_photos_of_rolls_without_labels_are_refused(folder, tmp_path, capsys):
    (folder / "rolls" / "labels.json").unlink()
    status, err = _calibrate(folder, tmp_path, capsys)
    assert status == 2 and "labels.json' is missing" in err


def test_a_roll_from_another_camera_is_refused_by_its_size(folder, tmp_path, capsys):
    small = read_image(folder / "rolls" / ROLL)[:300, :300]
    import cv2

    cv2.imwrite(str(folder / "rolls" / ROLL), small)
    status, err = _calibrate(folder, tmp_path, capsys)
    assert status == 2 and "is 300x300 but the empty tray's photo is 640x640" in err


def test_dice_a_player_named_where_the_network_saw_no_face_teach_the_table_they_are_faces(tmp_path):
    import cv2

    from support.other_art import read_right, second_renderer, table_and_rolls
    from vision.teach.calibrate import calibrate

    # purple dice on pale felt under a camera that shows their sides: the stock network calls none of the
    # calibration photos' dice unknown, but some dice of the rolls (a top with a strip of another face
    # beside it looks like a cocked die)
    sr = second_renderer()
    table, scenes = table_and_rolls(sr, [5, 5], tmp_path, rolls=40)
    first = calibrate(tmp_path)
    played, later = scenes[:15], scenes[15:]
    # the first roll a player corrects on the phone, learned as calibration learns rolls/
    i = next(i for i, scene in enumerate(played) if read_right(first, table, [scene]) < len(scene.dice))
    (tmp_path / "rolls").mkdir()
    cv2.imwrite(str(tmp_path / "rolls" / "roll.png"), played[i].image)
    labels = {"roll.png": [{"x": x, "y": y, "face": face} for x, y, face in played[i].dice]}
    (tmp_path / "rolls" / "labels.json").write_text(json.dumps(labels))
    learned = calibrate(tmp_path)
    assert not first.own_unknown and learned.own_unknown  # the table's own dice now join in saying unknown
    thrown = sum(len(scene.dice) for scene in later)
    before, after = read_right(first, table, later), read_right(learned, table, later)
    assert after >= before and after >= thrown - 1  # 83 and 83 of 83 when written
