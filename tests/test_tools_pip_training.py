"""The pip reader's training tools (tools/): the rendered dice it learns from, and going on from the shipped file."""

import cv2
import numpy as np
import pytest

from tools.pip_scenes import NONE_HERE, _hue_apart, rod, scene

WEIGHTS = np.float32([0.11, 0.59, 0.3])  # grey as the eye sees it, as pip_scenes weighs colours


def test_some_rendered_dice_have_pips_told_from_their_body_by_hue_alone():
    rng = np.random.default_rng(0)
    for _ in range(200):
        body, pip = _hue_apart(rng)
        grey = abs(float(body @ WEIGHTS) - float(pip @ WEIGHTS))
        hues = cv2.cvtColor(np.uint8([[body, pip]]), cv2.COLOR_BGR2HSV)[0, :, 0].astype(int)
        apart = min(abs(hues[0] - hues[1]), 180 - abs(hues[0] - hues[1]))
        assert grey < 75  # in grey the pips nearly vanish (the renderer's other dice differ by 60 or more)
        assert apart >= 20 or grey >= 8  # a grey body's hue says nothing; then brightness still differs a little


def test_a_pen_lies_long_and_thin_from_the_end_it_names():
    for seed in range(20):
        img = np.full((240, 240, 3), 128, np.float32)
        rod(img, np.random.default_rng(seed), 120, 120, 30.0)
        drawn = (np.abs(img - 128).max(axis=2) > 0).astype(np.uint8)
        (cx, cy), (w, h), _ = cv2.minAreaRect(cv2.findNonZero(drawn))
        assert max(w, h) >= 2 * min(w, h)  # a pen, not a die
        assert abs(np.hypot(cx - 120, cy - 120) - max(w, h) / 2) < 0.25 * max(w, h)  # (120, 120) is one of its ends


def test_a_pens_end_is_taught_as_no_die_and_never_where_a_die_lies():
    ends = 0
    for seed in range(60):
        img, dice = scene(np.random.default_rng(seed), 160, 160)
        for x, y, box, value in dice:
            if value == NONE_HERE:
                ends += 1
                assert all(np.hypot(x - dx, y - dy) > box for dx, dy, _, v in dice if v != NONE_HERE)
    assert ends >= 5


def test_training_goes_on_from_the_shipped_reader_file_reading_as_it_does():
    torch = pytest.importorskip("torch")  # a developer's tool: PyTorch is not among the test extras
    onnx = pytest.importorskip("onnx")
    from tools.pip_nets import reader_from_onnx
    from vision.pips.net import READER_CLASSES, READER_ONNX, PipNet

    model = onnx.load(str(READER_ONNX))
    crops = np.random.default_rng(1).integers(0, 256, (48, 32, 32, 3)).astype(np.float32)
    net = reader_from_onnx(model, crops)
    x = np.ascontiguousarray(crops.transpose(0, 3, 1, 2))
    shipped = PipNet(model.SerializeToString(), "shipped", READER_CLASSES).forward(x)
    net.eval()
    with torch.no_grad():
        assert np.abs(net(torch.tensor(x)).numpy() - shipped).max() < 1e-4
    net.train()
    net.drop.p = 0.0  # in training, batches like crops pass the batch norms as the file reads them
    with torch.no_grad():
        assert np.abs(net(torch.tensor(x)).numpy() - shipped).max() < 1e-3


def test_real_dice_laid_on_another_cloth_keep_their_look_and_shadow_and_a_die_lost_with_the_sheet_is_not_taught():
    from tools.real_cloth import on_cloth
    h, w = 240, 320
    lamp = np.linspace(0.8, 1.0, w, dtype=np.float32)[None, :, None]
    empty = np.full((h, w, 3), 200, np.float32) * lamp  # the camera's empty sheet, lit from one side
    photo = empty * 0.9  # the same sheet, another exposure
    photo[60:100, 140:180] *= 0.55  # a die's shadow on the sheet
    photo[50:90, 130:170] = (40, 40, 150)  # a red die...
    photo[65:75, 145:155] = (235, 235, 235)  # ...with a white pip
    photo[150:190, 60:100] = photo[150:190, 60:100] * 1.04  # a white die, nearly the sheet's own colour
    photo = np.clip(photo, 0, 255).astype(np.uint8)
    dice = [(150.0, 70.0, 40.0, 3), (80.0, 170.0, 40.0, 2), (250.0, 200.0, 30.0, -1)]
    out, kept = on_cloth(photo, dice, empty, np.random.default_rng(4))
    assert out.shape == photo.shape
    assert np.abs(out[55:85, 135:165].astype(int) - photo[55:85, 135:165]).max() <= 3  # the die as it was
    assert np.abs(out[66:74, 146:154].astype(int) - 235).max() <= 3  # its white pip stays the die's
    cloth = out[10:40, 250:300].reshape(-1, 3).mean(axis=0)
    assert np.abs(cloth - photo[10:40, 250:300].reshape(-1, 3).mean(axis=0)).max() > 5  # the sheet is gone
    shadow = out[92:99, 172:179].reshape(-1, 3).mean(axis=0)
    beside = out[110:117, 172:179].reshape(-1, 3).mean(axis=0)
    assert shadow.sum() < 0.7 * beside.sum()  # the die still casts its shadow on the new cloth
    assert kept[0] == dice[0] and kept[2] == dice[2]  # a die, and a place with none, taught as before
    assert kept[1][3] is None  # the white die went with the sheet: not taught from this photo
    wrong_camera = np.zeros((100, 100, 3), np.uint8)
    assert on_cloth(wrong_camera, dice, empty, np.random.default_rng(4)) == (wrong_camera, dice)


def test_finder_training_goes_on_from_the_shipped_finder_file_finding_as_it_does():
    torch = pytest.importorskip("torch")
    onnx = pytest.importorskip("onnx")
    from tools.pip_nets import finder_from_onnx
    from vision.pips.net import FINDER_CLASSES, FINDER_ONNX, PipNet

    model = onnx.load(str(FINDER_ONNX))
    photos = np.random.default_rng(2).integers(0, 256, (6, 96, 128, 3)).astype(np.float32)
    net = finder_from_onnx(model, photos)
    x = np.ascontiguousarray(photos.transpose(0, 3, 1, 2))
    shipped = PipNet(model.SerializeToString(), "shipped", FINDER_CLASSES).forward(x[:2])
    net.eval()
    with torch.no_grad():
        assert np.abs(net(torch.tensor(x[:2])).numpy() - shipped).max() < 1e-4


def test_a_tilted_camera_moves_each_die_with_its_pixels_and_grows_the_near_ones():
    from tools.tilt import tilted
    photo = np.full((300, 400, 3), 210, np.uint8)
    dice = [(200.0, 150.0), (200.0, 40.0), (200.0, 260.0)]  # the centre, the top edge, the bottom edge
    for x, y in dice:
        cv2.rectangle(photo, (int(x) - 15, int(y) - 15), (int(x) + 15, int(y) + 15), (30, 30, 30), -1)
    same, kept = tilted(photo, dice, 0)
    assert np.array_equal(same, photo) and np.allclose(kept, dice)
    out, moved = tilted(photo, dice, 30)  # turned about the photo's rows: the top comes nearer
    assert moved[0] == pytest.approx((200, 150), abs=0.5)  # the camera still aims at the tray's centre
    widths = []
    for x, y in moved:  # each die's body is dark where it was moved to
        assert out[int(y), int(x)].max() < 80
        widths.append(int((out[int(y), :, 0] < 120).sum()))  # the dark run along the die's row
    assert widths[1] >= widths[0] + 4 and widths[0] >= widths[2] + 3  # the near die looks larger, the far one smaller
