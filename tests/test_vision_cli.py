import argparse
import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.demo import layout

from vision.demo import render
from vision.cli import register


def run(argv):
    parser = argparse.ArgumentParser(prog="companion")
    register(parser.add_subparsers())
    args = parser.parse_args(argv)
    return args.func(args)


def test_read_json_keeps_going_past_a_corrupt_image(tmp_path, capsys):
    good = tmp_path / "roll.png"
    scene = render.render_scene(np.random.default_rng(31), faces=["bee", "honey", "zombee"])
    cv2.imwrite(str(good), scene.image)
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(b"junk")
    ann = tmp_path / "ann"
    status = run(["vision", "read", str(good), str(bad), "--json", "--annotate", str(ann)])
    out = json.loads(capsys.readouterr().out)
    assert status == 1
    assert out[0]["image"] == str(good)
    assert sorted(d["face"] for d in out[0]["dice"]) == ["bee", "honey", "zombee"]
    assert out[1]["image"] == str(bad) and "bad.jpg" in out[1]["error"]
    assert (ann / "roll.png").is_file()


def test_a_folder_or_a_picture_too_small_is_named_as_such(tmp_path, capsys):
    # they read "cannot read the file (Is a directory)" and "got shape (1, 1, 3)"
    cv2.imwrite(str(tmp_path / "dot.png"), np.zeros((1, 1, 3), np.uint8))
    assert run(["vision", "read", str(tmp_path / "dot.png"), str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "1x1 pixels, too small a picture to show dice (at least 32x32)" in out
    assert f"is a folder: give the photos in it ({str(tmp_path / '*.jpg')!r})" in out


def test_read_prints_a_line_per_image(tmp_path, capsys):
    good = tmp_path / "one.png"
    cv2.imwrite(str(good), render.render_scene(np.random.default_rng(32), faces=["zzz"]).image)
    assert run(["vision", "read", str(good)]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and "zzz" in out[0]


def test_a_lone_block_is_read_as_its_dice_and_told_too_many_says_dice_are_missing(tmp_path, capsys):
    import dataclasses
    import math

    rng = np.random.default_rng(1)
    rig = dataclasses.replace(render.random_rig(rng), rim_width=0)
    spots = layout.cluster_spots("block", 320, 250, rig.die_size, 0.4)
    scene = render.compose(rng, rig, [(f, x, y, a) for f, (x, y, a) in zip(["bee", "honey", "zzz", "zombee"], spots)],
                           rig.die_size)
    block = tmp_path / "block.png"
    cv2.imwrite(str(block), scene.image)
    assert run(["vision", "read", str(block), "--json"]) == 0
    alone = json.loads(capsys.readouterr().out)[0]
    # no lone die shows the size, so the block measures as one big die: cut in four, it reads as faces
    assert sorted(d["face"] for d in alone["dice"]) == ["bee", "honey", "zombee", "zzz"] and "check" not in alone
    assert run(["vision", "read", str(block), "--json", "--thrown", "4"]) == 0
    told = json.loads(capsys.readouterr().out)[0]
    assert len(told["dice"]) == 4 and "check" not in told
    assert all(min(math.hypot(d["x"] - t.x, d["y"] - t.y) for t in scene.dice) < rig.die_size / 2 for d in told["dice"])
    # five thrown cannot be this block: it is not cut into five to make up the number, and the line says so
    assert run(["vision", "read", str(block), "--json", "--thrown", "5"]) == 0
    five = json.loads(capsys.readouterr().out)[0]
    assert len(five["dice"]) == 4 and five["check"] == "the tray shows 4 dice where 5 were thrown"
    assert run(["vision", "read", str(block), "--thrown", "5"]) == 0
    assert "[check the dice: the tray shows" in capsys.readouterr().out
    # a number ZomBee never throws is refused, naming it (1000000 read as "2 dice where 1000000 were thrown")
    for impossible in ("0", "6", "1000000"):
        assert run(["vision", "read", str(block), "--thrown", impossible]) == 2
        assert f"--thrown {impossible}: ZomBee throws 1 to 5 dice" in capsys.readouterr().err


def test_bad_model_is_refused_without_traceback(tmp_path, capsys):
    bad = tmp_path / "model.npz"
    bad.write_bytes(b"nope")
    assert run(["vision", "read", "x.png", "--model", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "model.npz" in err and "Traceback" not in err


def test_calibrate_with_a_missing_folder_names_it(tmp_path, capsys):
    assert run(["vision", "calibrate", str(tmp_path), "--out", str(tmp_path / "m.npz")]) == 2
    assert "empty" in capsys.readouterr().err
    # the folder itself missing is named as such (it read "'.../nothere/empty' is missing")
    assert run(["vision", "calibrate", str(tmp_path / "nothere"), "--out", str(tmp_path / "m.npz")]) == 2
    assert f"{str(tmp_path / 'nothere')!r} does not exist" in capsys.readouterr().err


def test_calibrate_never_writes_its_model_over_a_file_that_is_not_one(tmp_path, capsys):
    # a mistyped --out replaced a photo with the model
    photo = tmp_path / "table.jpg"
    photo.write_bytes((PHOTOS / "detect" / "t1_IMG_20191208_111642.jpg").read_bytes())
    kept = photo.read_bytes()
    assert run(["vision", "calibrate", str(PHOTOS / "calibration"), "--out", str(photo)]) == 1
    err = capsys.readouterr().err
    assert "a file is there that is not a dice model" in err and "--force" in err and "photos" not in err
    assert photo.read_bytes() == kept


def test_calibrate_into_a_missing_folder_is_refused_before_the_work(capsys):
    # said at once, not after the seconds (on a Pi, a minute) the calibration takes
    assert run(["vision", "calibrate", str(PHOTOS / "calibration"), "--out", "/nonexistent-dir/m.npz"]) == 1
    err = capsys.readouterr().err
    assert "folder '/nonexistent-dir' does not exist" in err and "photos" not in err  # no face was read


def test_watch_synthetic_prints_settled_readings(capsys):
    assert run(["vision", "watch", "--source", "synthetic:3", "--max-readings", "2", "--still-ms", "200"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2
    for line in lines:
        data = json.loads(line)
        assert data["dice"] and all(d["face"] in ("bee", "honey", "zzz", "zombee", "unknown") for d in data["dice"])


def test_watch_with_a_missing_camera_fails_cleanly(capsys):
    assert run(["vision", "watch", "--source", "no-such-camera", "--max-readings", "1"]) == 1
    assert "unknown camera source" in capsys.readouterr().err
    # a path that is not there is named as one (it read "unknown camera source" too)
    assert run(["vision", "watch", "--source", "rolls/tuesday", "--max-readings", "1"]) == 1
    assert "camera source 'rolls/tuesday': no such folder or video file" in capsys.readouterr().err


PHOTOS = Path(__file__).parent / "fixtures" / "dice-photos"


def test_calibrate_prints_the_report_and_keeps_a_better_model_unless_forced(tmp_path, capsys):
    from vision.name.modelfile import load_model, save_model

    out = tmp_path / "table.npz"
    assert run(["vision", "calibrate", str(PHOTOS / "calibration"), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert f"wrote {out}" in text and "cross-validated" in text and "weakest face" in text
    first = load_model(out)
    assert first.kind == "calibrated" and set(first.report["faces"]) == {"bee", "honey", "zzz", "zombee"}
    # the model in place read every left-out die right: a new calibration that does worse (too few
    # photos of bee to know it) must not replace it
    first.report = dict(first.report, accuracy=1.0, ok=True)
    save_model(first, out)
    before = out.read_bytes()
    fewer = tmp_path / "fewer"
    shutil.copytree(PHOTOS / "calibration", fewer)
    for extra in sorted((fewer / "bee").iterdir())[2:]:
        extra.unlink()
    assert run(["vision", "calibrate", str(fewer), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    refusal = [line for line in err.splitlines() if "kept" in line]
    assert len(refusal) == 1 and "--force" in refusal[0] and str(out) in refusal[0]
    assert out.read_bytes() == before
    assert run(["vision", "calibrate", str(fewer), "--out", str(out), "--force"]) == 0
    assert out.read_bytes() != before


def test_calibrating_again_with_corrected_rolls_replaces_the_model_taught_without_them(tmp_path, capsys):
    """A game night replayed through rolls/ (read, correct the wrong rolls, calibrate again with the same
    --out, read on): the rolls just corrected are the hard dice, so the new model's own cross-validated
    figure falls, and the model in place was kept; the corrections never taught."""
    from vision.name.modelfile import load_model, save_model

    table, out = tmp_path / "table", tmp_path / "table.npz"
    shutil.copytree(PHOTOS / "calibration", table)
    assert run(["vision", "calibrate", str(table), "--out", str(out)]) == 0
    first = load_model(out)
    first.report = dict(first.report, accuracy=1.0, ok=True)  # in place, and as good as a model can claim
    save_model(first, out)
    roll = "t1_IMG_20191208_112122.jpg"
    (table / "rolls").mkdir()
    shutil.copy(PHOTOS / "read" / roll, table / "rolls" / roll)
    dice = json.loads((PHOTOS / "read" / "labels.json").read_text())[roll]["dice"]
    (table / "rolls" / "labels.json").write_text(json.dumps(
        {roll: [{"x": d["x"], "y": d["y"], "face": d["face"]} for d in dice if d["kind"] == "set"]}))
    capsys.readouterr()
    assert run(["vision", "calibrate", str(table), "--out", str(out)]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    again = load_model(out)
    assert len(again.report["roll_ids"]) == 1 and sum(again.report["photos"].values()) == \
        sum(first.report["photos"].values()) + 3  # the roll: one more photo of each of its three faces


def test_a_model_of_the_first_format_is_named_in_one_line(tmp_path, capsys):
    from vision.name.modelfile import DEFAULT_PATH

    old = tmp_path / "last_year.npz"
    with np.load(DEFAULT_PATH) as z:
        data = {k: z[k] for k in z.files}
    data["format_version"] = np.array(1)
    with open(old, "wb") as fh:
        np.savez(fh, **data)
    photo = str(PHOTOS / "read" / "t1_IMG_20191208_112122.jpg")
    assert run(["vision", "read", photo, "--model", str(old)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "last_year.npz" in err[0] and "version 1" in err[0] and "recalibrate" in err[0]


def test_calibrate_can_be_told_how_to_compare_dice(tmp_path, capsys):
    from vision.name.modelfile import load_model

    for compare in ("map", "views"):
        out = tmp_path / f"{compare}.npz"
        assert run(["vision", "calibrate", str(PHOTOS / "calibration"), "--out", str(out), "--compare", compare]) == 0
        assert load_model(out).descriptor == compare and load_model(out).report["compares"] == compare
    with pytest.raises(SystemExit) as refused:
        run(["vision", "calibrate", str(PHOTOS / "calibration"), "--out", str(tmp_path / "x.npz"), "--compare", "colour"])
    assert refused.value.code == 2 and "--compare" in capsys.readouterr().err


def test_watch_names_a_replayed_photo_the_reader_cannot_take(tmp_path, capsys):
    # it ended with "a frame must be a colour image at least 32x32, got shape (1, 1, 3)" alone, exit 2
    cv2.imwrite(str(tmp_path / "a.png"), np.full((480, 640, 3), 200, np.uint8))
    cv2.imwrite(str(tmp_path / "b-tiny.png"), np.zeros((1, 1, 3), np.uint8))
    assert run(["vision", "watch", "--source", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("companion vision: replay stopped")
    assert f"{str(tmp_path / 'b-tiny.png')!r}" in err and "at least 32x32" in err


def test_a_calibration_that_cannot_be_written_leaves_the_model_in_place_whole(tmp_path, capsys, monkeypatch):
    # the file was opened for writing over the old model: a full disk mid-write left it cut short
    import errno

    import companion.files
    from vision.name.modelfile import load_model

    out = tmp_path / "table.npz"
    out.write_bytes(b"the old model")

    def disk_full(fd, data):  # half the model reaches the card, then it is full
        real_write(fd, bytes(data[:len(data) // 2]))
        raise OSError(errno.ENOSPC, "No space left on device")

    real_write = companion.files.os.write
    monkeypatch.setattr(companion.files.os, "write", disk_full)
    assert run(["vision", "calibrate", str(PHOTOS / "calibration"), "--out", str(out), "--force"]) == 1
    err = capsys.readouterr().err.splitlines()[-1]
    # the model, or the crop network its face layer reads with, which is written beside it first
    assert err.startswith(f"companion vision: cannot write {tmp_path}/") and "No space left on device (" in err
    assert " free)" in err
    assert out.read_bytes() == b"the old model" and sorted(p.name for p in tmp_path.iterdir()) == ["table.npz"]
    monkeypatch.undo()
    assert run(["vision", "calibrate", str(PHOTOS / "calibration"), "--out", str(out), "--force"]) == 0
    assert load_model(out).kind == "calibrated"


@pytest.mark.parametrize("argv, says", [(["--still-ms", "99999999999"], "--still-ms must be 0-5000"),
                                        (["--still-ms", "-1"], "got -1"),
                                        (["--max-readings", "0"], "--max-readings must be 1 or more, got 0")])
def test_watch_refuses_a_wait_or_a_count_it_cannot_use(argv, says, capsys):
    # --still-ms 99999999999 was taken: the synthetic tray printed nothing, forever
    assert run(["vision", "watch", "--source", "synthetic:3", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and says in err


def _png_header(width: int, height: int) -> bytes:
    """A PNG that claims width x height pixels and holds a few: its header is what a decoder reads first."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) \
        + chunk(b"IDAT", zlib.compress(bytes(1000))) + chunk(b"IEND", b"")


def test_a_photo_too_large_to_decode_is_named_not_read(tmp_path):
    # Decoded whole, a 30000 x 30000 photo takes 2.7 GB: the reader refuses it from its header, and says
    # why. A new process, as a user runs it: OpenCV reads its size bound once, when it loads.
    import subprocess
    import sys

    huge = tmp_path / "huge.png"
    huge.write_bytes(_png_header(30000, 30000))
    done = subprocess.run([sys.executable, "-m", "companion.cli", "vision", "read", str(huge)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    # one line per photo, as for a corrupt one
    assert done.stdout.startswith(f"{huge}: error: ") and "too large to read (over 200 megapixels)" in done.stdout
    assert "Traceback" not in done.stderr


def test_watch_over_photos_that_never_settle_says_why_nothing_was_read(tmp_path, capsys):
    # three different photos: no roll lies still for 300 ms, and a newcomer got no line at all
    for f in sorted((PHOTOS / "read").glob("*.jpg"))[:3]:
        shutil.copy(f, tmp_path / f.name)
    assert run(["vision", "watch", "--source", str(tmp_path)]) == 0
    out = capsys.readouterr()
    assert out.out == ""
    assert "no reading: in 3 frames the dice never lay still for 300 ms" in out.err
    assert "4 photos in a row show the same dice" in out.err and "vision read" in out.err


def test_annotate_into_the_photos_own_folder_keeps_every_photo(tmp_path, capsys):
    # It wrote roll.png's marked copy over roll.png itself, and x.jpg's and x.png's over each other.
    scene = render.render_scene(np.random.default_rng(33), faces=["bee", "zzz"]).image
    for name in ("roll.png", "x.png", "x.jpg"):
        cv2.imwrite(str(tmp_path / name), scene)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    photos = [str(tmp_path / name) for name in ("roll.png", "x.png", "x.jpg")]
    assert run(["vision", "read", *photos, "--annotate", str(tmp_path)]) == 0
    assert {name: (tmp_path / name).read_bytes() for name in before} == before  # the photos as they were
    marked = {p.name for p in tmp_path.iterdir()} - set(before)
    assert marked == {"roll-marked.png", "x-marked.png", "x-marked-2.png"}
    assert all(cv2.imread(str(tmp_path / name)) is not None for name in marked)


def test_annotate_into_a_file_asks_for_a_folder(tmp_path, capsys):
    photo = tmp_path / "roll.png"
    cv2.imwrite(str(photo), render.render_scene(np.random.default_rng(32), faces=["zzz"]).image)
    taken = tmp_path / "notes.txt"
    taken.write_text("mine")
    assert run(["vision", "read", str(photo), "--annotate", str(taken)]) == 2
    assert f"--annotate {str(taken)!r} is a file: give a folder" in capsys.readouterr().err
    assert taken.read_text() == "mine"


def test_read_says_when_the_dice_look_another_size_than_taught_and_keeps_its_json_keys(tmp_path, capsys):
    """A camera raised since the dice were taught: untold how many were thrown, dice that all look smaller
    were left out as another set's, and the line said only "no dice". Now they are read at their size."""
    from dataclasses import replace

    from vision.name.modelfile import save_model
    from vision.images import read_image
    from vision.reader import DiceReader

    photo = Path(__file__).parent / "fixtures" / "dice-photos" / "read" / "t1_IMG_20191208_112122.jpg"
    side = DiceReader().inspect(read_image(photo))[1]  # three of the set's dice lying apart
    raised = tmp_path / "raised.npz"  # taught with the camera a quarter lower than now
    save_model(replace(DiceReader().model, side=side / 0.8), raised)
    assert run(["vision", "read", str(photo), "--model", str(raised)]) == 0
    line = capsys.readouterr().out
    assert "no dice" not in line and line.count("(") == 3  # three dice, and what to do about them:
    assert "[The dice look smaller than when they were taught: if the camera was raised, teach the dice again" in line
    assert run(["vision", "read", str(photo), "--model", str(raised), "--json"]) == 0
    assert set(json.loads(capsys.readouterr().out)[0]) == {"image", "dice"}
    # told the count, as the tray watcher is, they are read at the size they measure, and nothing is said
    assert run(["vision", "read", str(photo), "--model", str(raised), "--thrown", "3"]) == 0
    line = capsys.readouterr().out
    assert "look smaller" not in line and line.count("(") == 3
