"""The crop network (vision/name/cnn.py, run from an ONNX file by cv2.dnn in vision/name/cropnet.py):
how it computes, how a model file keeps it, and what it changes for a player whose dice are drawn in
art the default model never saw."""

from dataclasses import replace

import numpy as np
import pytest

from tools.crop_arrays import conv_pool, crop_proba
from tools.export_onnx import to_cropnet
from tools.train import match
from vision.demo import render
from vision.name import model as vm
from vision.name import modelfile as mf
from vision.name.cnn import SIDE, joined
from vision.name.cropnet import CropNet, CropNetError
from vision.onnx import metadata
from vision.reader import DiceReader


def _random_network(rng, width=4, hidden=8):
    cnn, depth = {}, 3
    for i in range(1, 4):
        cnn[f"c{i}w"] = rng.normal(0, 0.3, (width << (i - 1), depth, 3, 3)).astype(np.float32)
        cnn[f"c{i}b"] = rng.normal(0, 0.1, width << (i - 1)).astype(np.float32)
        depth = width << (i - 1)
    cnn["d1w"] = rng.normal(0, 0.3, (hidden, depth * 16)).astype(np.float32)
    cnn["d1b"] = np.zeros(hidden, np.float32)
    cnn["d2w"] = rng.normal(0, 0.3, (len(vm.CLASSES), hidden)).astype(np.float32)
    cnn["d2b"] = np.zeros(len(vm.CLASSES), np.float32)
    return cnn


def test_a_convolution_layer_is_the_sum_over_each_pixels_window_then_the_largest_of_each_2x2():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(2, 6, 4, 3)).astype(np.float32)
    w = rng.normal(size=(5, 3, 3, 3)).astype(np.float32)
    b = rng.normal(size=5).astype(np.float32)
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    full = np.zeros((2, 6, 4, 5), np.float32)
    for n in range(2):
        for i in range(6):
            for j in range(4):
                window = padded[n, i:i + 3, j:j + 3, :]  # (3, 3, c): rows, columns, colours
                full[n, i, j] = np.einsum("hwc,ochw->o", window, w) + b
    full = np.maximum(full, 0)
    pooled = np.max([full[:, a::2, c::2] for a in (0, 1) for c in (0, 1)], axis=0)
    assert np.allclose(conv_pool(x, w, b), pooled, atol=1e-5)


def test_the_onnx_file_cv2_dnn_runs_gives_the_numbers_of_the_layers_computed_one_by_one():
    rng = np.random.default_rng(3)
    cnn = _random_network(rng)
    net = to_cropnet(cnn)
    crops = rng.random((6, SIDE, SIDE, 3)).astype(np.float32) * 1.5
    assert np.allclose(net.proba(crops), crop_proba(cnn, crops), atol=1e-5)
    assert metadata(net.data) == {"input_side": str(SIDE), "classes": ",".join(vm.CLASSES)}


def test_crops_of_the_wrong_size_are_refused_naming_the_shape():
    net = to_cropnet(_random_network(np.random.default_rng(0)))
    assert net.proba(np.zeros((3, SIDE, SIDE, 3))).shape == (3, len(vm.CLASSES))
    with pytest.raises(ValueError, match=r"32x32.*\(3, 30, 30, 3\)"):
        net.proba(np.zeros((3, 30, 30, 3)))


def test_a_network_made_for_other_faces_or_not_onnx_at_all_is_refused_by_name(tmp_path):
    good = to_cropnet(_random_network(np.random.default_rng(0)))
    with pytest.raises(CropNetError, match="answers bee, honey, zzz, zombee, unknown; this reader needs"):
        CropNet(good.data, "other.onnx", ("a", "b", "c", "d", "e"))
    (tmp_path / "cut.onnx").write_bytes(good.data[: len(good.data) // 2])
    with pytest.raises(CropNetError, match="cut.onnx.*cannot be read"):
        CropNet.load(tmp_path / "cut.onnx", vm.CLASSES)
    with pytest.raises(CropNetError, match="gone.onnx.*cannot be read"):
        CropNet.load(tmp_path / "gone.onnx", vm.CLASSES)


def test_two_answers_joined_agree_on_the_face_but_only_the_first_says_whether_it_is_one():
    bee, honey, zombee, unknown = (vm.CLASSES.index(f) for f in ("bee", "honey", "zombee", "unknown"))
    q = np.array([[0.6, 0.3, 0.05, 0.03, 0.02], [0.5, 0.4, 0.05, 0.03, 0.02], [0.1, 0.1, 0.1, 0.1, 0.6]])
    c = np.array([[0.7, 0.2, 0.05, 0.03, 0.02], [0.001, 0.9, 0.05, 0.03, 0.019], [0.96, 0.01, 0.01, 0.01, 0.01]])
    out = joined(q, c)
    assert np.allclose(out.sum(axis=1), 1)
    assert out[0].argmax() == bee and out[0, bee] > 0.6
    assert out[1].argmax() == honey  # the crop network ruled the bee out
    # a die the first network doubts (a pip die, say) stays as doubtful, however sure the crop network is
    assert np.allclose(out[:, unknown], q[:, unknown]) and out[2].argmax() == unknown
    # which of a bee and a ZomBee (one symbol, two colours), the first network alone says
    q2, c2 = np.array([[0.3, 0.05, 0.05, 0.5, 0.1]]), np.array([[0.9, 0.02, 0.02, 0.05, 0.01]])
    split = joined(q2, c2, (bee, zombee))
    assert split[0].argmax() == zombee and split[0, zombee] / split[0, bee] == pytest.approx(0.5 / 0.3)


def test_a_model_without_the_crops_it_reads_says_so():
    m = mf.load_model()
    assert m.needs_looks  # the shipped model carries a crop network
    extra = np.zeros((1, m.net["mean"].shape[0] - vm.DIM - int(m.net.get("hog", 0))), np.float32)
    views = np.zeros((1, 8, m.protos.shape[1]), np.float32)
    with pytest.raises(ValueError, match="crop"):
        m.predict_proba(np.zeros((1, vm.DIM), np.float32), extra, views)


def test_the_crop_network_travels_beside_the_model_file_and_older_files_read_without_it(tmp_path):
    m = mf.load_model()
    mf.save_model(m, tmp_path / "m.npz")
    assert (tmp_path / "crop.onnx").read_bytes() == m.cnn.data
    back = mf.load_model(tmp_path / "m.npz")
    crops = np.random.default_rng(1).random((4, SIDE, SIDE, 3)).astype(np.float32)
    assert np.allclose(back.cnn.proba(crops), m.cnn.proba(crops))
    mf.save_model(replace(m, cnn=None), tmp_path / "older.npz")
    assert mf.load_model(tmp_path / "older.npz").cnn is None


def test_another_crop_network_saved_in_the_same_folder_does_not_overwrite_the_first(tmp_path):
    m = mf.load_model()
    other = replace(m, cnn=to_cropnet(_random_network(np.random.default_rng(5))))
    mf.save_model(m, tmp_path / "a.npz")
    mf.save_model(other, tmp_path / "b.npz")
    assert mf.load_model(tmp_path / "a.npz").cnn.data == m.cnn.data
    assert mf.load_model(tmp_path / "b.npz").cnn.data == other.cnn.data


@pytest.mark.parametrize("damage", ["missing", "truncated", "empty"])
def test_a_damaged_crop_network_is_refused_with_the_model_file_named(tmp_path, damage):
    mf.save_model(mf.load_model(), tmp_path / "ok.npz")
    onnx_file = tmp_path / "crop.onnx"
    if damage == "missing":
        onnx_file.unlink()
    else:
        onnx_file.write_bytes(b"" if damage == "empty" else onnx_file.read_bytes()[:1000])
    with pytest.raises(vm.ModelError, match="ok.npz.*crop.onnx"):
        mf.load_model(tmp_path / "ok.npz")


def test_the_default_reads_more_dice_of_art_it_never_saw_with_the_crop_network():
    """A round bee, a honeycomb cell and serif lettering were never rendered for training. The first
    network takes the cell's hollow and a lamp's glow round it for a bee's stripes and wings; the
    crop network reads the shape, and the two together read more of these dice right: 994 of these
    1000 dice, against 980 with the first network alone."""
    both, alone = DiceReader(), DiceReader(replace(mf.load_model(), cnn=None))
    right = {"both": 0, "alone": 0}
    dice = 0
    for seed in range(200):
        rng = np.random.default_rng(900 + seed)
        rig = render.with_art(render.random_rig(rng, render.HELDOUT), render.HELDOUT_ART[seed % 2])
        scene = render.render_scene(rng, rig, count=5)
        dice += len(scene.dice)
        for name, reader in (("both", both), ("alone", alone)):
            read = reader.read(scene.image).dice
            right[name] += sum(t is not None and t.readable and t.face == d.face
                               for d, t in zip(read, match(read, scene.dice)))
    assert right["both"] >= 0.99 * dice
    assert right["both"] >= right["alone"] + 0.005 * dice
