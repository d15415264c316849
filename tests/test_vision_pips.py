"""The pip die reader (vision.pips): dice of any colour found and read with no calibration, unreadable
dice said to be unknown, bad frames refused; and the demo's drawn pip die read back."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.errors import ImageError
from vision.images import read_image
from vision.pips import UNKNOWN, PipDie, read_d6
from vision.pips.draw import BLACK, WHITE, draw_die, tray

PHOTOS = Path(__file__).parent / "fixtures" / "dice-photos" / "detect"
RED = (40, 40, 200)


def _values(dice):
    return sorted(d.value for d in dice)


def test_a_white_die_on_a_light_tray_is_found_and_read():
    img = draw_die(tray(seed=1), 300, 200, 4, side=40, angle=20, body=WHITE, pip=BLACK)
    dice = read_d6(img)
    assert [d.value for d in dice] == [4]
    assert abs(dice[0].x - 300) < 4 and abs(dice[0].y - 200) < 4
    assert dice[0].confidence >= 0.9


def test_a_red_die_with_white_pips_is_read():
    dice = read_d6(draw_die(tray(seed=2), 200, 240, 2, side=44, angle=35, body=RED, pip=WHITE))
    assert [d.value for d in dice] == [2]


@pytest.mark.parametrize("value", [5, 6])
def test_a_five_and_a_six_are_told_apart_by_their_layout(value):
    dice = read_d6(draw_die(tray(seed=3), 320, 240, value, side=40, angle=10, body=WHITE, pip=BLACK))
    assert [d.value for d in dice] == [value]


def test_every_face_at_every_turn_on_one_tray():
    img = tray(seed=4)
    for i, value in enumerate(range(1, 7)):
        img = draw_die(img, 80 + 95 * i, 120 + 160 * (i % 2), value, side=38, angle=13 * i,
                       body=((60, 160, 60), WHITE, BLACK, RED, (40, 200, 230), (150, 60, 30))[i],
                       pip=(WHITE, BLACK, WHITE, WHITE, BLACK, WHITE)[i])
    dice = sorted(read_d6(img), key=lambda d: d.x)
    truth = [1, 2, 3, 4, 5, 6]  # left to right
    assert len(dice) == 6
    assert all(d.value == v for d, v in zip(dice, truth) if d.confidence >= 0.9)
    assert sum(d.value == v for d, v in zip(dice, truth)) >= 5  # a yellow 5 with black pips reads 4 at 0.53


@pytest.mark.parametrize("value", [2, 5, 6])
def test_a_die_close_to_the_camera_is_read_as_one_die_not_as_its_pips(value):
    """A die a third of the photo across, larger than the finder learned: found as its pips close up,
    it is found whole from farther off and read there."""
    dice = read_d6(draw_die(tray(seed=9), 320, 240, value, side=200, angle=20, body=WHITE, pip=BLACK))
    assert [d.value for d in dice] == [value]
    assert abs(dice[0].x - 320) < 20 and abs(dice[0].y - 240) < 20


@pytest.mark.parametrize("value", [1, 6])
def test_a_die_half_the_photo_across_is_found_from_farther_off(value):
    """A die filling half the picture (a phone held over it): the finder finds nothing at its usual look
    and looks farther off, where the die is whole."""
    dice = read_d6(draw_die(tray(seed=10), 320, 240, value, side=320, angle=20, body=WHITE, pip=BLACK))
    assert [d.value for d in dice] == [value]


@pytest.mark.parametrize("value, side", [(1, 200), (1, 260), (3, 320)])
def test_a_large_die_found_only_as_something_that_is_no_die_is_looked_for_farther_off(value, side):
    """A die so close that the usual look finds only a pip or its shadow, which the reader calls no die:
    nothing found being a die, the finder looks farther off as it does when it finds nothing."""
    dice = read_d6(draw_die(tray(seed=9), 320, 240, value, side=side, angle=0, body=WHITE, pip=BLACK))
    assert [d.value for d in dice] == [value]


def test_a_covered_die_is_unknown_at_its_place_never_a_guess():
    img = draw_die(tray(seed=5), 300, 240, 6, side=44, angle=0, body=WHITE, pip=BLACK)
    # a fingertip over two thirds of the face: its pips can no longer be counted
    cv2.rectangle(img, (270, 215), (335, 247), (120, 150, 200), -1)
    dice = read_d6(img)
    assert all(d.value in (UNKNOWN,) for d in dice)


def test_an_empty_tray_gives_no_dice():
    assert read_d6(tray(seed=6)) == []


def test_a_die_cut_by_the_photos_edge_is_unknown():
    img = draw_die(tray(seed=7), 8, 200, 3, side=44, angle=0, body=RED, pip=WHITE)
    assert all(d.value == UNKNOWN for d in read_d6(img))


def test_a_frame_that_is_no_image_is_refused_clearly():
    with pytest.raises(ImageError, match="8-bit image"):
        read_d6(np.zeros((100, 100), np.float32))
    with pytest.raises(ImageError, match="at least 32x32"):
        read_d6(np.zeros((10, 10, 3), np.uint8))


def test_a_corrupt_photo_file_is_named_in_the_error(tmp_path):
    bad = tmp_path / "roll.jpg"
    bad.write_bytes(b"\xff\xd8 not really a jpeg")
    with pytest.raises(ImageError, match="roll.jpg"):
        read_d6(read_image(bad))


def test_a_reading_says_where_the_die_is_and_what_it_shows():
    die = PipDie(10.0, 20.0, 3, 0.95, (0.0, 10.0, 20.0, 30.0))
    assert die.to_dict() == {"x": 10.0, "y": 20.0, "value": 3, "confidence": 0.95, "box": [0.0, 10.0, 20.0, 30.0]}


def test_drawing_refuses_a_face_a_die_does_not_have():
    with pytest.raises(ValueError, match="1 to 6"):
        draw_die(tray(), 100, 100, 7)


# real photos the reader never learned from (the held-out half of the shared set)
HELD_OUT = [("detect", "t1_IMG_20191208_111904.jpg"), ("detect", "t1_IMG_20191208_112340.jpg"),
            ("read", "t1_IMG_20191208_112122.jpg"), ("read", "t1_IMG_20191208_112710.jpg"),
            ("read", "t1_IMG_20191208_112300.jpg")]


def _truth(folder, name):
    labels = json.loads((PHOTOS.parent / folder / "labels.json").read_text())
    return labels[name]["dice"] if isinstance(labels[name], dict) else labels[name]


@pytest.mark.parametrize("folder, name", HELD_OUT)
def test_every_die_of_a_real_photo_is_found_once_at_its_place(folder, name):
    """Dice of many colours on a light sheet with a plastic bar and its holes: each die found once, nothing else."""
    truth = _truth(folder, name)
    dice = read_d6(read_image(PHOTOS.parent / folder / name))
    assert len(dice) == len(truth)
    for t in truth:
        side = max(t["box"][2] - t["box"][0], t["box"][3] - t["box"][1])
        assert min(np.hypot(d.x - t["x"], d.y - t["y"]) for d in dice) < 0.3 * side


@pytest.mark.parametrize("name, x, y", [("t1_IMG_20191208_111904.jpg", 355, 302), ("t1_IMG_20191208_112340.jpg", 518, 262)])
def test_a_dark_die_whose_red_pips_a_poor_jpeg_smeared_is_read_by_what_its_readers_agree_on(name, x, y):
    """Saved at JPEG quality 30, a smoky die's four red pips lose most of their colour: the first reader
    doubts it. Each of the nine readings of the doubtful die (three readers, three cuts) gives the four
    some belief while their other counts scatter (a five, a six, a two): averaged, the four stayed below
    sure; joined by what they agree on (their geometric mean), the scattered counts fall away."""
    img = read_image(PHOTOS / name)
    poor = cv2.imdecode(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 30])[1], cv2.IMREAD_COLOR)
    there = [d for d in read_d6(poor) if np.hypot(d.x - x, d.y - y) < 10]
    assert [d.value for d in there] == [4]


# 111904's gold 1 touches a black die corner to corner: found close up, lost in the wide frame, where the
# finder sizes the black die larger and the two finds fall within one die's reach (finding.apart)
@pytest.mark.parametrize("folder, name", HELD_OUT[1:])
@pytest.mark.parametrize("high", [2.0, 3.375])
def test_a_camera_showing_the_whole_table_finds_the_same_dice(folder, name, high):
    """The same photo in a 16:9 frame twice as high (or as a 4K frame, 3.375 times), as a wide camera
    farther off shows the table: its dice are a fiftieth (a hundredth) of the frame across, and each is
    found once where it lies, read as close up. The rest of the frame is the sheet's colour, the seam
    feathered (a hard seam cuts the tray's bar into a lone block with a hole, a die showing 1, which no
    camera shows)."""
    img, truth = read_image(PHOTOS.parent / folder / name), _truth(folder, name)
    h, w = img.shape[:2]
    wide = np.empty((int(high * h), int(high * h * 16 / 9), 3), np.float32)
    wide[:] = np.median(img.reshape(-1, 3), axis=0)
    top, left = (wide.shape[0] - h) // 2, (wide.shape[1] - w) // 2
    keep = np.zeros((h, w), np.float32)
    keep[24:-24, 24:-24] = 1
    keep = cv2.GaussianBlur(keep, (0, 0), 12)[..., None]
    wide[top:top + h, left:left + w] = keep * img + (1 - keep) * wide[top:top + h, left:left + w]
    wide = wide.astype(np.uint8)
    near, far = read_d6(img), read_d6(wide)
    assert len(far) == len(truth)
    for t in truth:
        side = max(t["box"][2] - t["box"][0], t["box"][3] - t["box"][1])
        assert min(np.hypot(d.x - left - t["x"], d.y - top - t["y"]) for d in far) < 0.3 * side
    as_near = [min(near, key=lambda n: np.hypot(d.x - left - n.x, d.y - top - n.y)).value == d.value for d in far]
    assert sum(as_near) >= len(far) - 1  # a doubtful die may come out another way, cut at other pixels


def test_a_4k_camera_showing_the_whole_table_finds_its_dice():
    """22 dice of a real photo in a 4K frame, each some 3 pixels across at the finder's usual look, where
    it finds none of them: it first looks at a photo that large twice as close, and goes on from there."""
    img, truth = read_image(PHOTOS / "t1_IMG_20191208_111642.jpg"), _truth("detect", "t1_IMG_20191208_111642.jpg")
    h, w = img.shape[:2]
    wide = np.empty((2160, 3840, 3), np.uint8)
    wide[:] = np.median(img.reshape(-1, 3), axis=0)
    top, left = (2160 - h) // 2, (3840 - w) // 2
    wide[top + 24:top + h - 24, left + 24:left + w - 24] = img[24:-24, 24:-24]  # a hard seam: no feathering needed here
    far = read_d6(wide)
    assert len(truth) - 1 <= len(far) <= len(truth)
    found = [min(np.hypot(d.x - left - t["x"], d.y - top - t["y"]) for d in far)
             < 0.3 * max(t["box"][2] - t["box"][0], t["box"][3] - t["box"][1]) for t in truth]
    assert sum(found) >= len(truth) - 1


def test_real_photo_sure_readings_are_right():
    """What the reader is sure of is what the dice show."""
    sure = 0
    for folder, name in HELD_OUT:
        truth = _truth(folder, name)
        for d in read_d6(read_image(PHOTOS.parent / folder / name)):
            if d.value != UNKNOWN and d.confidence >= 0.9:
                sure += 1
                assert min(truth, key=lambda t: (t["x"] - d.x) ** 2 + (t["y"] - d.y) ** 2)["value"] == d.value
    assert sure >= 10


def test_the_networks_files_say_what_they_read():
    from vision.pips.net import FINDER_CLASSES, FINDER_ONNX, READER_CLASSES, READER_ONNX, PipNet
    finder, reader = PipNet.load(FINDER_ONNX, FINDER_CLASSES), PipNet.load(READER_ONNX, READER_CLASSES)
    assert (finder.side, finder.stride, finder.classes) == (320, 4, FINDER_CLASSES)
    assert reader.classes == ("1", "2", "3", "4", "5", "6", "unknown", "none") and reader.side == 32


def test_a_damaged_network_file_is_refused_by_name(tmp_path):
    from vision.pips.net import READER_CLASSES, READER_ONNX, PipNet, PipNetError
    bad = tmp_path / "pips_read.onnx"
    bad.write_bytes(READER_ONNX.read_bytes()[:5000])
    with pytest.raises(PipNetError, match="pips_read.onnx.*damaged"):
        PipNet.load(bad, READER_CLASSES)
    with pytest.raises(PipNetError, match="missing.onnx"):
        PipNet.load(tmp_path / "missing.onnx", READER_CLASSES)


def test_a_network_made_for_other_answers_is_refused_by_name():
    from vision.pips.net import FINDER_ONNX, READER_CLASSES, PipNet, PipNetError
    with pytest.raises(PipNetError, match="pips.onnx.*answers heat"):
        PipNet.load(FINDER_ONNX, READER_CLASSES)


def _with_metadata(data: bytes, key: str, value: str) -> bytes:
    """An ONNX file with one more metadata entry (ModelProto field 14) appended, as protobuf allows."""
    def field(number: int, payload: bytes) -> bytes:
        assert len(payload) < 128
        return bytes([number << 3 | 2, len(payload)]) + payload
    return data + field(14, field(1, key.encode()) + field(2, value.encode()))


def test_a_reader_file_says_how_wide_it_crops_and_a_senseless_width_is_refused():
    from vision.pips.net import READER_CLASSES, READER_ONNX, PipNet, PipNetError
    shipped = READER_ONNX.read_bytes()
    assert PipNet(_with_metadata(shipped, "crop", "1.25"), "tight.onnx", READER_CLASSES).crop == 1.25
    with pytest.raises(PipNetError, match="wide.onnx.*crops 9.0 times"):
        PipNet(_with_metadata(shipped, "crop", "9"), "wide.onnx", READER_CLASSES)
    with pytest.raises(PipNetError, match="odd.onnx.*not a number"):
        PipNet(_with_metadata(shipped, "crop", "wide"), "odd.onnx", READER_CLASSES)


def _cli(argv):
    import argparse

    from vision.cli import register

    parser = argparse.ArgumentParser(prog="companion")
    register(parser.add_subparsers())
    args = parser.parse_args(argv)
    return args.func(args)


def test_cli_reads_pip_dice_as_json_and_goes_on_past_a_bad_photo(tmp_path, capsys):
    good = tmp_path / "roll.png"
    cv2.imwrite(str(good), draw_die(tray(seed=8), 200, 200, 5, side=42, angle=25, body=RED, pip=WHITE))
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(b"nope")
    assert _cli(["vision", "read", str(good), str(bad), "--dice", "d6", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out[0]["image"] == str(good)
    assert [(d["value"], set(d)) for d in out[0]["dice"]] == [(5, {"x", "y", "value", "confidence"})]
    assert "bad.jpg" in out[1]["error"]


def test_cli_refuses_zombee_options_with_pip_dice(tmp_path, capsys):
    assert _cli(["vision", "read", "x.jpg", "--dice", "d6", "--thrown", "2"]) == 2
    assert "--thrown" in capsys.readouterr().err


def test_a_doubtful_die_is_read_again_cut_smaller_and_larger_and_a_sure_one_is_not():
    from vision.pips import SIZES, SURE, beliefs
    from vision.pips.net import READER_CLASSES

    class Reader:  # sure of a 3 on the left die; on the right one sure of a 2 only when cut at another size
        side, crop = 32, 1.5

        def __init__(self):
            self.passes = []

        def forward(self, x):
            n = len(x) // 4  # four quarter turns of each crop
            self.passes.append(n)
            out = np.full((len(x), len(READER_CLASSES)), 0.01, np.float32)
            first = len(self.passes) == 1
            for i in range(len(x)):
                die = i % n
                if first and die == 0:
                    out[i, READER_CLASSES.index("3")] = 0.95
                else:
                    out[i, READER_CLASSES.index("2")] = 0.05 if first else 0.95
            return out / out.sum(axis=1, keepdims=True)

    reader = Reader()
    got = beliefs(tray(), [(150.0, 200.0, 40.0), (400.0, 200.0, 40.0)], reader, others=())
    assert reader.passes == [2] + [1] * len(SIZES)  # the doubtful die alone, once at each other size
    assert got[0].argmax() == READER_CLASSES.index("3") and got[0].max() >= SURE
    two = READER_CLASSES.index("2")
    assert got[1].argmax() == two and SURE <= got[1, two] < 0.95  # what the three readings agree on


def test_a_doubtful_die_is_also_read_by_the_second_readers_and_a_sure_one_is_not():
    from vision.pips import FLOOR, SIZES, SURE, beliefs, second_readers
    from vision.pips.net import READER_CLASSES

    class Reader:  # believes a 4 at `belief` about every crop (the first one, at its first reading, sure of
        side, crop = 32, 1.5  # the first die), and counts the crops it was shown

        def __init__(self, belief, first=False):
            self.belief, self.first, self.crops = belief, first, []

        def forward(self, x):
            self.crops.append(len(x) // 4)  # four quarter turns of each crop
            out = np.full((len(x), len(READER_CLASSES)), 0.0, np.float32)
            out[:, READER_CLASSES.index("4")] = self.belief
            out[:, READER_CLASSES.index("unknown")] = 1 - self.belief
            if self.first and len(self.crops) == 1:  # crops are turn after turn: the even ones are the first die
                out[0::2, READER_CLASSES.index("4")], out[0::2, READER_CLASSES.index("unknown")] = 0.95, 0.05
            return out

    first, second = Reader(0.5, first=True), Reader(0.9)
    got = beliefs(tray(), [(150.0, 200.0, 40.0), (400.0, 200.0, 40.0)], first, others=(second,))
    assert first.crops == [2] + [1] * len(SIZES)
    assert second.crops == [1] * (1 + len(SIZES))  # the doubtful die only, at each size
    four = READER_CLASSES.index("4")
    assert got[0, four] == pytest.approx(0.95)  # the sure die as the first reader read it
    # the readings joined by their geometric mean: half of them 0.5 / 0.5 (four / unknown), half 0.9 / 0.1,
    # each other class at the floor
    four_of, unknown_of, rest = np.sqrt(0.5 * 0.9), np.sqrt(0.5 * 0.1), (len(READER_CLASSES) - 2) * FLOOR
    assert got[1, four] == pytest.approx(four_of / (four_of + unknown_of + rest), rel=1e-4)
    assert got[1, four] >= SURE  # the second reader's belief lifted a die the first doubted
    assert len(second_readers()) == 2 and all(r.classes == READER_CLASSES for r in second_readers())
