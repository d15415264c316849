import math

import numpy as np

from vision import render
from vision.detect import detect
from vision.features import PATCH, crop, die_features
from vision.model import CLASSES, load_model


def _one_die(face, angle, quarter_seed):
    rig = render.random_rig(np.random.default_rng(3))
    rng = np.random.default_rng(quarter_seed)
    scene = render.compose(rng, rig, [(face, 320.0, 240.0, angle)], rig.die_size)
    det = detect(scene.image, side=rig.die_size)
    assert len(det.dice) == 1
    return die_features(scene.image, det.dice[0], det.side, det.tray)


def test_a_die_turned_any_way_reads_the_same():
    model = load_model()
    for face in ("bee", "honey", "zzz", "zombee"):
        for angle, seed in ((0.1, 1), (0.6, 2), (1.2, 3), (2.9, 4)):
            proba = model.predict_proba(_one_die(face, angle, seed)[None])[0]
            assert CLASSES[int(proba.argmax())] == face, (face, angle)


def test_crop_is_square_to_the_die():
    img = np.full((200, 200, 3), 220, np.uint8)
    cv_box = ((100, 100), (60, 60), 30)
    import cv2

    cv2.fillPoly(img, [cv2.boxPoints(cv_box).astype(np.int32)], (20, 20, 20))
    p = crop(img, 100, 100, 60, math.radians(30))
    assert p.shape == (PATCH, PATCH, 3)
    assert p[2:-2, 2:-2].max() < 80  # all die, no tray peeking in at the corners
