"""The pip reader's two networks in PyTorch, and each written as a plain ONNX graph for cv2.dnn.

The finder: a small fully convolutional net (stride 16 deep, back up to stride 4 with two skips) whose
four outputs per 4x4 cell are all squashed to 0-1: a die's centre here (heat), where in the cell,
and the log of its box. The reader: four 3x3 convolutions and two dense layers on a 32x32 crop,
answering 1-6, unknown or none. Batch norms are folded into the convolutions on export; the photo's
0-255 pixels are scaled inside the graph, so the runtime hands over pixels as they are. Needs
PyTorch and onnx: a developer's tools, not the Pi's.
"""

from __future__ import annotations

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper
from torch import nn

from vision.onnx import CLASSES_KEY, SIDE_KEY, STRIDE_KEY
from vision.pips.net import CROP, CROP_KEY, FINDER_CLASSES, READER_CLASSES, PipNet


def _cbr(cin, cout, stride=1):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())


def _scaled(x):
    return (x / 255.0 - 0.5) * 4.0


class Finder(nn.Module):
    def __init__(self):
        super().__init__()
        self.e1, self.e2, self.e3 = _cbr(3, 8, 2), _cbr(8, 16, 2), _cbr(16, 16)
        self.e4, self.e5 = _cbr(16, 32, 2), _cbr(32, 32)
        self.e6, self.e7 = _cbr(32, 48, 2), _cbr(48, 48)
        self.l7, self.l5 = nn.Conv2d(48, 16, 1), nn.Conv2d(32, 16, 1)
        self.head = _cbr(16, 16)
        self.out = nn.Conv2d(16, 4, 1)
        self.out.bias.data[0] = -2.2  # few cells hold a die's centre

    def forward(self, x, logits=False):
        a = self.e3(self.e2(self.e1(_scaled(x))))
        b = self.e5(self.e4(a))
        c = self.e7(self.e6(b))
        up = nn.functional.interpolate
        m = torch.relu(up(self.l7(c), scale_factor=2.0, mode="nearest") + self.l5(b))
        z = self.out(self.head(torch.relu(up(m, scale_factor=2.0, mode="nearest") + a)))
        return z if logits else torch.sigmoid(z)


class Reader(nn.Module):
    def __init__(self, classes: int = len(READER_CLASSES), side: int = 32):
        super().__init__()
        self.convs = nn.ModuleList([_cbr(3, 16), _cbr(16, 32), _cbr(32, 48), _cbr(48, 64)])
        self.d1, self.d2 = nn.Linear(64 * (side // 8) ** 2, 96), nn.Linear(96, classes)
        self.drop = nn.Dropout(0.3)

    def forward(self, x, logits=False):
        x = _scaled(x)
        for i, conv in enumerate(self.convs):
            x = conv(x)
            if i < 3:
                x = nn.functional.max_pool2d(x, 2)
        z = self.d2(self.drop(torch.relu(self.d1(x.flatten(1)))))
        return z if logits else torch.softmax(z, 1)


def focal(z, target, alpha=2.0, beta=4.0):
    """CenterNet's focal loss on heat logits z against gaussian targets (1 at each centre)."""
    p = torch.sigmoid(z).clamp(1e-4, 1 - 1e-4)
    pos = target.eq(1).float()
    pos_loss = -torch.log(p) * (1 - p) ** alpha * pos
    neg_loss = -torch.log(1 - p) * p ** alpha * (1 - target) ** beta * (1 - pos)
    return (pos_loss.sum() + neg_loss.sum()) / pos.sum().clamp(min=1)


# ---------------------------------------------------------------- ONNX
class _Graph:
    def __init__(self):
        self.nodes, self.inits, self.n = [], [], 0

    def const(self, value, name=None):
        name = name or f"k{len(self.inits)}"
        self.inits.append(numpy_helper.from_array(np.asarray(value, np.float32), name))
        return name

    def node(self, op, inputs, **attrs):
        self.n += 1
        out = f"{op.lower()}{self.n}"
        self.nodes.append(helper.make_node(op, inputs, [out], **attrs))
        return out

    def conv(self, x, conv: nn.Conv2d, bn: nn.BatchNorm2d | None = None, relu=False):
        w = conv.weight.detach().numpy().astype(np.float64)
        b = conv.bias.detach().numpy().astype(np.float64) if conv.bias is not None else np.zeros(w.shape[0])
        if bn is not None:  # folded: y = g (conv - mean) / sqrt(var + eps) + beta
            g = bn.weight.detach().numpy() / np.sqrt(bn.running_var.detach().numpy() + bn.eps)
            w = w * g[:, None, None, None]
            b = (b - bn.running_mean.detach().numpy()) * g + bn.bias.detach().numpy()
        k = conv.kernel_size[0]
        y = self.node("Conv", [x, self.const(w), self.const(b)], kernel_shape=[k, k], strides=list(conv.stride),
                      pads=[conv.padding[0]] * 4)
        return self.node("Relu", [y]) if relu else y

    def cbr(self, x, block):
        return self.conv(x, block[0], block[1], relu=True)

    def scaled(self, x):
        return self.node("Add", [self.node("Mul", [x, self.const(4.0 / 255)]), self.const(-2.0)])

    def model(self, name, inp, out, in_shape, out_shape, meta: dict) -> onnx.ModelProto:
        graph = helper.make_graph(self.nodes, name, [helper.make_tensor_value_info(inp, TensorProto.FLOAT, in_shape)],
                                  [helper.make_tensor_value_info(out, TensorProto.FLOAT, out_shape)], self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="table-companion")
        model.ir_version = 8
        helper.set_model_props(model, meta)
        onnx.checker.check_model(model)
        return model


def finder_onnx(net: Finder, side: int, stride: int) -> onnx.ModelProto:
    g = _Graph()
    x = g.scaled("photo")
    a = g.cbr(g.cbr(g.cbr(x, net.e1), net.e2), net.e3)
    b = g.cbr(g.cbr(a, net.e4), net.e5)
    c = g.cbr(g.cbr(b, net.e6), net.e7)
    two = g.const([1, 1, 2, 2])
    roi = g.const([])
    m = g.node("Relu", [g.node("Add", [g.node("Resize", [g.conv(c, net.l7), roi, two], mode="nearest"),
                                       g.conv(b, net.l5)])])
    u = g.node("Relu", [g.node("Add", [g.node("Resize", [m, roi, two], mode="nearest"), a])])
    out = g.node("Sigmoid", [g.conv(g.cbr(u, net.head), net.out)])
    return g.model("pip_finder", "photo", out, [1, 3, "h", "w"], [1, 4, "gh", "gw"],
                   {SIDE_KEY: str(side), STRIDE_KEY: str(stride), CLASSES_KEY: ",".join(FINDER_CLASSES)})


def reader_onnx(net: Reader, side: int, factor: float = CROP) -> onnx.ModelProto:
    g = _Graph()
    x = g.scaled("crop")
    for i, conv in enumerate(net.convs):
        x = g.cbr(x, conv)
        if i < 3:
            x = g.node("MaxPool", [x], kernel_shape=[2, 2], strides=[2, 2])
    x = g.node("Flatten", [x], axis=1)
    x = g.node("Relu", [g.node("Gemm", [x, g.const(net.d1.weight.detach().numpy()), g.const(net.d1.bias.detach().numpy())],
                               transB=1)])
    x = g.node("Gemm", [x, g.const(net.d2.weight.detach().numpy()), g.const(net.d2.bias.detach().numpy())], transB=1)
    out = g.node("Softmax", [x], axis=1)
    return g.model("pip_reader", "crop", out, ["n", 3, side, side], ["n", len(READER_CLASSES)],
                   {SIDE_KEY: str(side), CLASSES_KEY: ",".join(READER_CLASSES), CROP_KEY: str(factor)})


def check_export(net, model: onnx.ModelProto, x: np.ndarray, classes) -> float:
    """The largest difference between PyTorch's answer and cv2.dnn's on x."""
    net.eval()
    with torch.no_grad():
        want = net(torch.tensor(x)).numpy()
    got = PipNet(model.SerializeToString(), "check", classes).forward(x)
    return float(np.abs(want - got).max())


def _from_onnx(net: nn.Module, model: onnx.ModelProto, layers: list, batch: np.ndarray) -> nn.Module:
    """net with the weights of its exported file, model. layers: its conv + batch norm blocks and its plain
    convolutions or dense layers, in the order the export wrote them. Each block's convolution takes the
    folded weights; its batch norm is set to the mean and spread the convolution shows on batch (n, h, w,
    3), so that in training a batch like it passes through as the file reads it, and in eval mode the
    module answers exactly as the file."""
    arrays = [numpy_helper.to_array(t) for t in model.graph.initializer]
    pairs = [(a, arrays[i + 1]) for i, a in enumerate(arrays) if a.ndim >= 2]  # a weight, then its bias
    blocks = [layer for layer in layers if isinstance(layer, nn.Sequential)]
    with torch.no_grad():
        for layer, (w, b) in zip(layers, pairs, strict=True):
            if isinstance(layer, nn.Sequential):
                conv, bn = layer[0], layer[1]
                conv.weight.copy_(torch.tensor(w))
                bn.weight.fill_(1.0), bn.running_mean.zero_(), bn.running_var.fill_(1.0 - bn.eps)
                bn.bias.copy_(torch.tensor(b))  # eval mode: conv + b, the file's own layer
            else:
                layer.weight.copy_(torch.tensor(w)), layer.bias.copy_(torch.tensor(b))
        seen = []
        hooks = [block[0].register_forward_hook(lambda m, i, o: seen.append(o)) for block in blocks]
        net.eval()
        net(torch.tensor(np.ascontiguousarray(batch.transpose(0, 3, 1, 2)), dtype=torch.float32))
        for hook in hooks:
            hook.remove()
        for block, out in zip(blocks, seen):
            bn, b = block[1], block[1].bias.clone()
            mean, var = out.mean((0, 2, 3)), out.var((0, 2, 3), unbiased=False)
            bn.running_mean.copy_(mean), bn.running_var.copy_(var)
            bn.weight.copy_(torch.sqrt(var + bn.eps)), bn.bias.copy_(mean + b)
    net.train()
    return net


def reader_from_onnx(model: onnx.ModelProto, crops: np.ndarray) -> Reader:
    """A reader file (reader_onnx) back as a PyTorch module to go on training from, when the run that
    made it kept no weights; its batch norms set on crops (n, side, side, 3) as _from_onnx says."""
    net = Reader(side=int(PipNet(model.SerializeToString(), "resumed", READER_CLASSES).side))
    return _from_onnx(net, model, [*net.convs, net.d1, net.d2], crops)


def finder_from_onnx(model: onnx.ModelProto, photos: np.ndarray) -> Finder:
    """A finder file (finder_onnx) back as a PyTorch module, as reader_from_onnx; photos (n, h, w, 3)."""
    net = Finder()
    return _from_onnx(net, model, [net.e1, net.e2, net.e3, net.e4, net.e5, net.e6, net.e7, net.l7, net.l5,
                                   net.head, net.out], photos)
