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
