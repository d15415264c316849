from dataclasses import replace

import numpy as np
import pytest

from vision.name.cropnet import CropNetError
from vision.name.facelayer import FEATURE_COUNT, FaceLayer, fit_layer
from vision.name.modelfile import load_model
from vision.teach.calibrate import calibrate

from support.other_art import read_right, second_renderer, table_and_rolls


def _clusters(rng, per_face, spread=0.6, width=40):
    """Features of dice of four faces, each face a cloud round its own centre: (x, faces)."""
    centres = rng.normal(0, 1, (4, width))
    faces = np.repeat(np.arange(4), per_face)
    return (centres[faces] + rng.normal(0, spread, (len(faces), width))).astype(np.float32), faces, centres


def test_a_face_layer_names_dice_it_was_not_taught_by_what_its_faces_looked_like():
    rng = np.random.default_rng(0)
    x, faces, centres = _clusters(rng, [12, 12, 12, 12])
    layer = fit_layer(x, faces, 4)
    new = (centres + rng.normal(0, 0.6, centres.shape)).astype(np.float32)
    p = layer.proba(new)
    assert p.shape == (4, 5)
    assert list(p[:, :4].argmax(axis=1)) == [0, 1, 2, 3]
    assert np.allclose(p.sum(axis=1), 1) and np.all(p[:, 4] == 0)  # it never says unknown: the prototypes do
    assert layer.proba(np.zeros((0, 40), np.float32)).shape == (0, 5)


def test_a_face_layer_keeps_through_its_arrays_and_damaged_ones_are_refused():
    rng = np.random.default_rng(2)
    x, faces, _ = _clusters(rng, [5, 5, 5, 5], width=FEATURE_COUNT)
    layer = fit_layer(x, faces, 4)
    back = FaceLayer.from_arrays(layer.to_arrays(), FEATURE_COUNT, 4)
    assert np.allclose(back.proba(x), layer.proba(x))
    assert FaceLayer.from_arrays({}, FEATURE_COUNT, 4) is None  # a model without one
    for key, value in (("face_layer_weights", np.full((FEATURE_COUNT, 4), np.nan)), ("face_layer_bias", np.zeros(3)),
                       ("face_layer_scale", np.zeros(FEATURE_COUNT))):
        with pytest.raises(ValueError, match="face layer is damaged"):
            FaceLayer.from_arrays({**layer.to_arrays(), key: value}, FEATURE_COUNT, 4)
    partial = layer.to_arrays()
    del partial["face_layer_mean"]
    with pytest.raises(ValueError, match="lacks face_layer_mean"):
        FaceLayer.from_arrays(partial, FEATURE_COUNT, 4)


def test_the_crop_network_says_what_its_convolutions_see_in_each_crop():
    cnn = load_model().cnn
    crops = np.random.default_rng(3).uniform(0, 1.2, (3, cnn.side, cnn.side, 3)).astype(np.float32)
    seen = cnn.features(crops)
    assert seen.shape == (3, FEATURE_COUNT)
    assert np.allclose(cnn.features(crops[1:2]), seen[1:2], atol=1e-4)  # each crop alone, whatever came with it
    with pytest.raises(ValueError, match="32x32"):
        cnn.features(crops[:, :16])
    with pytest.raises(CropNetError, match="no output 'fangs'"):
        cnn.forward(crops.transpose(0, 3, 1, 2), "fangs")


def test_dice_of_art_the_stock_network_misreads_are_named_by_the_tables_own_face_layer(tmp_path):
    sr = second_renderer()
    # black dice on paper whose symbols our renders never drew so
    table, scenes = table_and_rolls(sr, [5, 4], tmp_path)
    model = calibrate(tmp_path)
    assert model.net is None and model.face_layer is not None  # the stock network read the photos worse
    assert model.report["face_layer"] is True
    thrown = sum(len(scene.dice) for scene in scenes)
    alone = replace(model, face_layer=None, cnn=None, own_weight=0.0, net_trust=0.0)  # its prototypes alone
    layered, prototypes = read_right(model, table, scenes), read_right(alone, table, scenes)
    assert layered >= 0.95 * thrown  # 57 of 57 when written
    assert layered >= prototypes  # 56 of 57 by the prototypes alone
