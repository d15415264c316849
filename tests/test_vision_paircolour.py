"""A bee and a ZomBee, one symbol in two colours, told apart by the symbol's colour (vision/name/paircolour.py)."""

from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.name import paircolour
from vision.name.model import CLASSES, ModelError
from vision.name.modelfile import load_model, save_model
from vision.teach.calibrate import calibrate

from support.other_art import read_right, second_renderer, table_and_rolls

BEE, ZOMBEE = CLASSES.index("bee"), CLASSES.index("zombee")
TRAY = np.array([230.0, 235.0, 232.0])
YELLOW, GREEN = (40, 210, 225), (60, 200, 70)  # BGR


def _die(body, symbol, rng, side=40):
    """A crop of a die of body colour with a blob of symbol colour and a white wing, a little noise."""
    crop = np.full((side, side, 3), body, np.float32)
    cv2.circle(crop, (side // 2 + 2, side // 2), side // 6, symbol, -1)
    cv2.circle(crop, (side // 2 - 5, side // 2 - 4), side // 14, (235, 235, 235), -1)
    return np.clip(crop + rng.normal(0, 4, crop.shape), 0, 255).astype(np.uint8)


def test_a_yellow_symbol_and_a_green_one_lean_apart_on_black_and_on_purple_dice():
    rng = np.random.default_rng(3)
    for body in ((30, 30, 30), (120, 40, 90)):
        bees = np.stack([_die(body, YELLOW, rng) for _ in range(4)])
        zombees = np.stack([_die(body, GREEN, rng) for _ in range(4)])
        colours = paircolour.symbol_colours(np.concatenate([bees, zombees]), TRAY)
        assert np.allclose(np.linalg.norm(colours, axis=1), 1, atol=1e-4)
        fitted = np.concatenate([colours[:4].mean(0), colours[4:].mean(0), [8.0]])
        leaned = paircolour.lean(colours, fitted)
        assert (leaned[:4] < 0).all() and (leaned[4:] > 0).all(), (body, leaned)


def test_the_colour_splits_the_pairs_share_and_leaves_every_other_face_as_it_was():
    bee, zombee = np.array([-0.8, 0.4, 0.4]), np.array([-0.7, 0.7, -0.1])
    bee, zombee = bee / np.linalg.norm(bee), zombee / np.linalg.norm(zombee)
    fitted = np.concatenate([bee, zombee, [8.0]]).astype(np.float32)
    green = zombee[None].astype(np.float32)
    proba = np.array([[0.55, 0.05, 0.02, 0.30, 0.08]], np.float32)  # a bee, the reader says, at 0.55
    out = paircolour.split(proba, green, fitted)
    assert out[0].argmax() == ZOMBEE  # the green symbol makes it the ZomBee
    assert out[0, BEE] + out[0, ZOMBEE] == pytest.approx(0.85)  # the pair's share is the reader's
    others = [k for k in range(len(CLASSES)) if k not in (BEE, ZOMBEE)]
    assert np.allclose(out[0, others], proba[0, others])
    between = (bee + zombee) / np.linalg.norm(bee + zombee)  # as near the one as the other: the reader's split stands
    assert np.allclose(paircolour.split(proba, between[None].astype(np.float32), fitted), proba, atol=1e-5)


def test_calibration_keeps_the_colour_only_when_it_makes_the_left_out_dice_likelier():
    rng = np.random.default_rng(5)
    truth = np.array([BEE] * 6 + [ZOMBEE] * 6)
    photos = np.array([0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5])
    left = np.full((12, len(CLASSES)), 0.02, np.float32)
    left[:, BEE] = left[:, ZOMBEE] = 0.46  # the reader cannot tell them apart
    from vision.name.confidence import log_likelihood

    apart = paircolour.symbol_colours(np.stack([_die((30, 30, 30), YELLOW if t == BEE else GREEN, rng) for t in truth]), TRAY)
    kept = paircolour.fit(apart, truth, photos, left, log_likelihood)
    assert kept is not None
    fitted, split = kept
    assert (split[truth == BEE, BEE] > 0.5).all() and (split[truth == ZOMBEE, ZOMBEE] > 0.5).all()
    mixed = apart[rng.permutation(12)]  # colours that say nothing of the face
    assert paircolour.fit(mixed, truth, photos, left, log_likelihood) is None
    for stray in (0, 11):  # one bee, or one ZomBee, whose colour lies with the other face's: not kept
        odd = apart.copy()
        odd[stray] = apart[11 - stray]
        assert paircolour.fit(odd, truth, photos, left, log_likelihood) is None, stray


def test_the_pair_colour_is_kept_in_the_model_file_and_a_damaged_one_is_refused(tmp_path):
    model = load_model(None)
    coloured = replace(model, pair_colour=np.array([-0.8, 0.4, 0.4, -0.7, 0.7, -0.1, 4.0], np.float32))
    save_model(coloured, tmp_path / "m.npz")
    assert np.allclose(load_model(tmp_path / "m.npz").pair_colour, coloured.pair_colour)
    save_model(model, tmp_path / "plain.npz")
    assert load_model(tmp_path / "plain.npz").pair_colour is None
    save_model(replace(model, pair_colour=np.array([1, 0, 0, 0, 1, 0, -2.0], np.float32)), tmp_path / "bad.npz")
    with pytest.raises(ModelError, match="damaged pair colours"):
        load_model(tmp_path / "bad.npz")


def test_small_black_dice_a_bee_and_a_zombee_the_network_mixes_up_are_told_apart_by_colour(tmp_path):
    # black dice 25 px across on paper: the reader's shapes mix a yellow bee and a green ZomBee up
    table, scenes = table_and_rolls(second_renderer(), [4, 7], tmp_path, rolls=25)
    model = calibrate(tmp_path)
    assert model.pair_colour is not None
    thrown = sum(len(scene.dice) for scene in scenes)
    read = read_right(model, table, scenes)
    assert read >= thrown - 3  # 78 of 80 when written
    assert read_right(replace(model, pair_colour=None), table, scenes) <= read - 3  # 75 when written
