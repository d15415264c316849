"""A die's cut moved onto its top face where the camera sees its sides (vision/find/parallax.py)."""

import math

import numpy as np
import pytest

from vision.find.clusters import Blob
from vision.find.parallax import FOCAL, tops
from vision.name.modelfile import load_model
from vision.reader import DiceReader

SHAPE = (480, 640, 3)


def _die(x, y):
    return Blob(x=x, y=y, side=30.0, angle=0.3, area=900.0, fill=0.9, aspect=1.0, group=1)


def test_a_die_away_from_the_middle_is_cut_farther_out_the_farther_it_lies():
    near, far, middle = _die(420, 240), _die(620, 240), _die(320, 240)
    moved = tops([near, far, middle], SHAPE, 30.0, 1.0)
    # its sides show on the middle's side of it, half their width is 30 * r / (0.83 * 640) / 2 pixels
    assert moved[0].x - near.x == pytest.approx(0.5 * 30 * 100 / (FOCAL * 640))
    assert moved[1].x - far.x == pytest.approx(3 * (moved[0].x - near.x))
    assert (moved[2].x, moved[2].y) == (middle.x, middle.y)  # straight below the camera: no side shows
    corner = tops([_die(20, 40)], SHAPE, 30.0, 1.0)[0]
    assert corner.x < 20 and corner.y < 40  # outward, toward its own corner
    assert math.atan2(corner.y - 40, corner.x - 20) == pytest.approx(math.atan2(40 - 240, 20 - 320))
    assert moved[0].angle == near.angle and moved[0].side == near.side  # only the place moves


def test_no_parallax_leaves_every_die_where_it_was_found():
    dice = [_die(20, 40), _die(600, 400)]
    assert tops(dice, SHAPE, 30.0, 0.0) == dice


def test_the_reader_reports_each_die_at_its_top_under_the_models_parallax(tmp_path):
    from dataclasses import replace

    from vision.demo import render

    rng = np.random.default_rng(5)
    rig = render.random_rig(rng)
    scene = render.render_scene(rng, rig, faces=["bee", "zzz"])
    plain = DiceReader(load_model()).read(scene.image)
    sided = DiceReader(replace(load_model(), parallax=1.0)).read(scene.image)
    assert len(plain.dice) == len(sided.dice) == 2
    h, w = scene.image.shape[:2]
    out = [math.hypot(b.x - w / 2, b.y - h / 2) - math.hypot(a.x - w / 2, a.y - h / 2)
           for a, b in zip(plain.dice, sided.dice)]
    assert min(out) >= 0 and max(out) >= 1  # farther from the middle than the plain reader puts them


def _sided_photos(seed: int, sides: bool):
    """Face photos as calibration reads them, (face, picture, detection): three dark dice a photo, each
    showing its face's mark on top and, when sides, the side facing the picture's middle beside it, as
    wide as a 62-degree lens straight above shows it, bearing a piece of some other mark. The found
    die is the top and that side together."""
    from vision.find.detect import Detection

    rng = np.random.default_rng(seed)
    s, marks = 48, ("disc", "bar", "cross", "ring")
    out = []

    def mark(img, kind, x, y, r):
        x, y, r = int(x), int(y), max(int(r), 2)
        if kind == "disc":
            cv2.circle(img, (x, y), r, (235, 235, 235), -1)
        elif kind == "bar":
            cv2.rectangle(img, (x - r, y - r // 3), (x + r, y + r // 3), (235, 235, 235), -1)
        elif kind == "cross":
            cv2.line(img, (x - r, y - r), (x + r, y + r), (235, 235, 235), 3)
            cv2.line(img, (x - r, y + r), (x + r, y - r), (235, 235, 235), 3)
        else:
            cv2.circle(img, (x, y), r, (235, 235, 235), 2)

    import cv2

    for face, kind in zip(("bee", "honey", "zzz", "zombee"), marks):
        for _ in range(6):
            img = np.full(SHAPE, 200, np.uint8)
            dice = []
            for i in range(3):
                x = 320 + (1 if i % 2 else -1) * rng.uniform(140, 290)
                y = 60 + 150 * i + rng.uniform(-10, 10)
                w = abs(x - 320) * s / (FOCAL * 640) if sides else 0.0
                inner = -1 if x > 320 else 1  # the side faces the middle
                cv2.rectangle(img, (int(x - s / 2), int(y - s / 2)), (int(x + s / 2), int(y + s / 2)), (30, 30, 30), -1)
                mark(img, kind, x, y, s * 0.22)
                if w:
                    x0, x1 = sorted((x + inner * s / 2, x + inner * (s / 2 + w)))
                    cv2.rectangle(img, (int(x0), int(y - s / 2)), (int(x1), int(y + s / 2)), (45, 45, 45), -1)
                    for dy in (-s / 4, s / 4):  # pieces of other marks, two to a side
                        mark(img, str(rng.choice([m for m in marks if m != kind])), (x0 + x1) / 2, y + dy, w * 0.45)
                dice.append(_die(x + inner * w / 2, y))
            out.append((face, img, Detection(dice, False, float(s), np.array([200.0, 200.0, 200.0], np.float32))))
    return out


def test_calibration_moves_cuts_onto_the_tops_only_where_the_camera_shows_the_sides():
    from vision.teach.sizing import parallax_of

    assert parallax_of(_sided_photos(3, sides=True)) > 0
    assert parallax_of(_sided_photos(3, sides=False)) == 0.0


def _tray_with_sides(places, parallax, s=40):
    """A light tray with dark dice of side s at places, each drawn as a camera straight above a
    62-degree lens sees a cube away from the middle (parallax 1.0; less: a narrower lens): its top, and
    beside it, toward the middle, the sides that show (a shade lighter than the top)."""
    import cv2

    img = np.full(SHAPE, 205, np.uint8)
    for x, y in places:
        top = np.array([[x - s / 2, y - s / 2], [x + s / 2, y - s / 2], [x + s / 2, y + s / 2], [x - s / 2, y + s / 2]])
        toward = np.array([320 - x, 240 - y]) * parallax * s / (FOCAL * 640)
        cv2.fillPoly(img, [cv2.convexHull(np.concatenate([top, top + toward]).astype(np.int32))], (50, 50, 50))
        cv2.fillPoly(img, [top.astype(np.int32)], (30, 30, 30))
        cv2.circle(img, (int(x), int(y)), int(s * 0.2), (200, 200, 200), -1)
    return img


TOUCHING_FAR_OUT = ([(540, 60), (580, 80)], [(100, 420), (60, 400)], [(100, 400), (140, 420)],
                    [(500, 380), (520, 420)])


@pytest.mark.parametrize("parallax", [0.5, 1.0])
def test_two_dice_touching_far_from_the_middle_are_two_dice_under_the_models_parallax(parallax):
    from vision.find.detect import detect

    # their sides make the pair cover about three tops: counted as tops, they were three dice
    counts = [len(detect(_tray_with_sides(p, parallax), side=40.0, sides=parallax).dice) for p in TOUCHING_FAR_OUT]
    plain = [len(detect(_tray_with_sides(p, parallax), side=40.0).dice) for p in TOUCHING_FAR_OUT]
    assert counts == [2, 2, 2, 2]
    assert max(plain) == 3  # what the sides did without the parallax counted in


@pytest.mark.parametrize("places", [[(560, 60)], [(600, 440)], [(320, 240), (360, 260)],
                                    [(500, 80), (540, 100), (580, 120)], [(80, 400), (120, 420), (100, 440)]])
def test_lone_dice_rows_and_dice_in_the_middle_keep_their_count_under_parallax(places):
    from vision.find.detect import detect

    for parallax in (0.5, 1.0):
        assert len(detect(_tray_with_sides(places, parallax), side=40.0, sides=parallax).dice) == len(places)


def _lone_dice_photos(grow: float, far_out: bool = True, photos: int = 6):
    """(face, picture, detection) of face photos with three lone dice each, every die covering
    (1 + grow * its distance from the middle in FOCAL widths) tops: what calibration's sizing sees."""
    from vision.find.detect import Detection

    rng = np.random.default_rng(7)
    out, side = [], 30.0
    for _ in range(photos):
        dice = []
        for _ in range(3):
            x, y = (rng.uniform(20, 620), rng.uniform(20, 460)) if far_out else (rng.uniform(290, 350), rng.uniform(215, 265))
            far = math.hypot(x - 320, y - 240) / (FOCAL * 640)
            area = 0.95 * side * side * (1 + grow * far) * rng.uniform(0.97, 1.03)
            dice.append(Blob(x=x, y=y, side=side, angle=0.0, area=area, fill=0.9, aspect=1.0, group=1))
        out.append(("bee", np.zeros(SHAPE, np.uint8), Detection(dice, False, side, np.array([200.0] * 3, np.float32))))
    return out


@pytest.mark.parametrize("grow", [0.0, 0.4, 1.0])
def test_calibration_measures_how_much_more_a_die_covers_away_from_the_middle(grow):
    from vision.teach.sizing import sides_of

    assert sides_of(_lone_dice_photos(grow)) == pytest.approx(grow, abs=0.15)  # 18 dice, each 3 % off


def test_too_few_lone_dice_or_none_far_out_measure_no_sides():
    from vision.teach.sizing import sides_of

    assert sides_of(_lone_dice_photos(1.0, photos=2)) == 0.0  # six dice
    assert sides_of(_lone_dice_photos(1.0, far_out=False)) == 0.0  # all near the middle: no slope to see
