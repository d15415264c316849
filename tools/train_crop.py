"""Train the crop network (cnn.py) from rendered dice, for `python -m tools.train`.

Needs PyTorch, the optional `train` extra: only whoever regenerates the shipped
model needs it; the reader runs it as ONNX with cv2.dnn (export_onnx.py). Seeded,
and with PyTorch's deterministic algorithms: the same data, PyTorch version and
machine give the same weights.
"""

from __future__ import annotations

import numpy as np

from tools.crop_arrays import LAYERS
from vision.name.cnn import SIDE
from vision.name.net import with_prior

WIDTH = 16  # filters of the first convolution; each later one has twice as many
HIDDEN = 64
EPOCHS = 30
BATCH = 128
DECAY = 1e-3  # AdamW's weight decay
DROPOUT = 0.3


def _network(torch, classes: int):
    nn = torch.nn
    layers, width = [], 3
    for i in range(LAYERS):
        layers += [nn.Conv2d(width, WIDTH << i, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2)]
        width = WIDTH << i
    left = SIDE >> LAYERS
    layers += [nn.Flatten(), nn.Dropout(DROPOUT), nn.Linear(width * left * left, HIDDEN), nn.ReLU(),
               nn.Linear(HIDDEN, classes)]
    return nn.Sequential(*layers)


def _turned(torch, x, k: int):
    """x (n, c, h, w) in the k-th of its eight quarter turns and mirrors."""
    if k >= 4:
        x = x.flip(3)
    return torch.rot90(x, k % 4, (2, 3))


def fit_crop(seen: np.ndarray, y: np.ndarray, classes: int, *, prior=None, seed: int = 0,
             epochs: int = EPOCHS) -> dict:
    """The crop network's weights (cnn.KEYS) learned from crops as the network sees them (cnn.looks,
    (n, SIDE, SIDE, 3)) and their classes y. Each batch is turned or mirrored one of eight ways and
    made brighter or darker, so the network learns a face in every turn and light. Every class weighs
    the same in training; prior, as in net.fit_net, moves the output bias to how common each class is."""
    try:
        import torch
    except ImportError:
        raise ImportError("training the crop network needs PyTorch, the 'train' extra: "
                          "pip install -e '.[train]' (the reader itself does not need it)") from None
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    x = torch.tensor(np.asarray(seen, np.float32).transpose(0, 3, 1, 2))
    labels = torch.tensor(np.asarray(y, np.int64))
    counts = np.bincount(np.asarray(y), minlength=classes).astype(np.float64)
    weight = torch.tensor(len(y) / (classes * np.maximum(counts, 1)), dtype=torch.float32)
    net = _network(torch, classes)
    opt = torch.optim.AdamW(net.parameters(), 2e-3, weight_decay=DECAY)
    steps = epochs * ((len(y) + BATCH - 1) // BATCH)
    schedule = torch.optim.lr_scheduler.OneCycleLR(opt, 3e-3, total_steps=steps)
    loss_of = torch.nn.CrossEntropyLoss(weight=weight)
    net.train()
    for _ in range(epochs):
        order = torch.randperm(len(y))
        for i in range(0, len(y), BATCH):
            b = order[i:i + BATCH]
            xb = _turned(torch, x[b], int(torch.randint(8, (1,))))
            xb = xb * (0.8 + 0.4 * torch.rand(len(b), 1, 1, 1))
            loss = loss_of(net(xb), labels[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            schedule.step()
    convs = [m for m in net if isinstance(m, torch.nn.Conv2d)]
    dense = [m for m in net if isinstance(m, torch.nn.Linear)]
    out = {}
    for i, m in enumerate(convs, 1):
        out[f"c{i}w"], out[f"c{i}b"] = m.weight, m.bias
    for i, m in enumerate(dense, 1):
        out[f"d{i}w"], out[f"d{i}b"] = m.weight, m.bias
    out = {k: v.detach().numpy().astype(np.float32) for k, v in out.items()}
    if prior is not None:
        out["d2b"] = with_prior(out["d2b"], prior)
    return out
