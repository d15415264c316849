"""The crop network as ONNX, the file the reader runs with OpenCV's cv2.dnn.

The crop network is trained with PyTorch (tools/train_crop.py) and its weights are kept as arrays;
this turns them into as a plain ONNX graph (three 3x3 convolutions, each with ReLU and a 2x2 max-pool,
then two dense layers and a softmax), with the input side and the class names in the file's
metadata so the runtime reads them from the file, not from code. Needs the `onnx` package (the
`train` extra); the Pi only needs OpenCV to run the result.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from tools.crop_arrays import KEYS, LAYERS
from vision.name.cnn import SIDE
from vision.name.cropnet import CropNet
from vision.name.model import CLASSES
from vision.onnx import CLASSES_KEY, SIDE_KEY


def crop_graph(cnn: dict, classes=CLASSES, side: int = SIDE) -> onnx.ModelProto:
    """The ONNX model of the crop network's arrays (vision.name.cnn.KEYS)."""
    missing = [k for k in KEYS if k not in cnn]
    if missing:
        raise ValueError(f"the crop network lacks {', '.join(missing)}")
    inits = [numpy_helper.from_array(np.asarray(cnn[k], np.float32), k) for k in KEYS]
    nodes, x = [], "crop"
    for i in range(1, LAYERS + 1):
        nodes += [
            helper.make_node("Conv", [x, f"c{i}w", f"c{i}b"], [f"conv{i}"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
            helper.make_node("Relu", [f"conv{i}"], [f"relu{i}"]),
            helper.make_node("MaxPool", [f"relu{i}"], [f"pool{i}"], kernel_shape=[2, 2], strides=[2, 2]),
        ]
        x = f"pool{i}"
    nodes += [
        helper.make_node("Flatten", [x], ["flat"], axis=1),  # channels first, as it was trained
        helper.make_node("Gemm", ["flat", "d1w", "d1b"], ["dense1"], transB=1),
        helper.make_node("Relu", ["dense1"], ["hidden"]),
        helper.make_node("Gemm", ["hidden", "d2w", "d2b"], ["logits"], transB=1),
        helper.make_node("Softmax", ["logits"], ["faces"], axis=1),
    ]
    graph = helper.make_graph(
        nodes, "crop_network",
        [helper.make_tensor_value_info("crop", TensorProto.FLOAT, ["n", 3, side, side])],
        [helper.make_tensor_value_info("faces", TensorProto.FLOAT, ["n", len(classes)])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="table-companion")
    model.ir_version = 8  # OpenCV 4.8's reader takes IR 8
    helper.set_model_props(model, {SIDE_KEY: str(side), CLASSES_KEY: ",".join(classes)})
    onnx.checker.check_model(model)
    return model


def to_cropnet(cnn: dict, name: str = "crop.onnx") -> CropNet:
    """The reader's crop network (vision.name.cropnet) made from trained arrays."""
    return CropNet(crop_graph(cnn).SerializeToString(), name, CLASSES)
