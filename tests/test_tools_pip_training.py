"""The pip reader's training tools (tools/): the rendered dice it learns from, and going on from the shipped file."""

import cv2
import numpy as np
import pytest

from tools.pip_scenes import _hue_apart

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
