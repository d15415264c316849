"""A dice model's file: what save_model writes and load_model reads back (a NumPy .npz archive).

The file holds a model's prototypes and how it compares dice (model.py), what calibration learned of
the table, its report, a refitted network's arrays, a table's face layer and the name of the crop
network kept beside it. Writing is whole or not at all (companion.files.write_atomic), so a full
card leaves the model in use as it was; reading checks every field and refuses a file that is
missing, damaged, another reader's or a newer companion's with ModelError naming the file and what
is wrong, never a half-read model.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import math
import shutil
import zipfile
from dataclasses import replace
from pathlib import Path
from typing import Callable

import numpy as np

from companion import files

from ..cut.features import view_dim
from .cropnet import CropNet, CropNetError
from .facelayer import FEATURE_COUNT, FaceLayer
from .model import (CLASSES, MAX_LARGER, MAX_NUDGE, MAX_PARALLAX, MAX_SOFTEN, UNKNOWN, WIDTH, Model,
                    ModelError)
from .net import KEYS as NET_KEYS, edges_read
from .pipfaces import checked as pips_checked

__all__ = ["DEFAULT_PATH", "FORMAT_VERSION", "load_model", "model_bytes", "save_model"]

FORMAT_VERSION = 2
DEFAULT_PATH = Path(__file__).parent.parent / "models" / "default.npz"  # vision/models, data beside the rooms
SECOND = "second_"  # a model file's keys of its second way of comparing dice (Model.second)


def save_model(model: Model, path, disk_usage: Callable = shutil.disk_usage) -> None:
    """Write model to path whole (companion.files.write_atomic): a full card leaves the file that was
    there as it was, and raises WriteError naming the file and the room left. A crop network written
    beside it for this model alone goes again when the model itself cannot be written: on a full
    card it would hold room nobody asked for. disk_usage: see files.write_atomic."""
    path = Path(path)
    before = set(path.parent.glob("*.onnx"))
    try:
        files.write_atomic(path, model_bytes(model, path.parent, disk_usage), disk_usage=disk_usage)
    except files.WriteError:
        for written in set(path.parent.glob("*.onnx")) - before:
            written.unlink(missing_ok=True)
        raise


def model_bytes(model: Model, folder, disk_usage: Callable = shutil.disk_usage) -> bytes:
    """The model file's bytes; a crop network is kept beside it in folder, by name."""
    arrays = _arrays(model)
    if model.report is not None:
        arrays["report"] = np.array(json.dumps(model.report, sort_keys=True))
    if model.net is not None:
        arrays.update({"net_" + k: v for k, v in model.net.items()})
    if model.cnn is not None:  # the ONNX file beside the model, by name (older readers ignore the key)
        arrays["crop_net"] = np.array(_crop_file(model.cnn, Path(folder), disk_usage))
    if model.second is not None:  # older readers ignore these keys and read the first way alone
        arrays.update({SECOND + k: v for k, v in _arrays(model.second).items()})
        arrays["second_weight"] = np.array(model.second_weight, np.float32)
    if model.pips:  # older readers ignore these keys and read by the prototypes alone
        arrays["pips"] = np.array(model.pips, np.int8)
        arrays["pip_weight"] = np.array(model.pip_weight, np.float32)
    if model.pair_colour is not None:  # older readers ignore it and split a bee from a ZomBee as before
        arrays["pair_colour"] = np.asarray(model.pair_colour, np.float32)
    out = io.BytesIO()  # a file object keeps numpy from appending .npz to a name
    np.savez_compressed(out, **arrays)
    return out.getvalue()


def _crop_file(cnn: CropNet, folder: Path, disk_usage: Callable) -> str:
    """The name, in folder, of a file holding cnn's ONNX bytes: its own name when that file holds them
    (or is not there yet, and is written), else one named by its content."""
    for name in (Path(cnn.source).name, f"crop-{hashlib.sha256(cnn.data).hexdigest()[:12]}.onnx"):
        if not name.endswith(".onnx"):
            continue
        target = folder / name
        if not target.exists():
            files.write_atomic(target, cnn.data, disk_usage=disk_usage)
        if target.read_bytes() == cnn.data:
            return name
    raise ModelError(f"could not keep the crop network beside the model in {str(folder)!r}")


def _arrays(model: Model) -> dict:
    """The fields of a model file that say how it compares dice (not its report or network)."""
    arrays = dict(
        format_version=np.array(FORMAT_VERSION), classes=np.array(CLASSES), kind=np.array(model.kind),
        descriptor=np.array(model.descriptor), neighbours=np.array(model.neighbours, np.int16),
        own_weight=np.array(model.own_weight, np.float32), net_trust=np.array(model.net_trust, np.float32),
        own_unknown=np.array(model.own_unknown),
        soften=np.array(model.soften, np.float32),
        signed=np.array(model.signed), nudge=np.array(model.nudge, np.float32), balanced=np.array(model.balanced),
        protos=model.protos.astype(np.float16), labels=model.labels.astype(np.int8),
        scale=np.array(model.scale, np.float32), radius=np.array(model.radius, np.float32),
        side=np.array(model.side, np.float32), dark=np.array(model.dark, np.float32),
        shrink=np.array(model.shrink, np.float32), threshold=np.array(model.threshold, np.float32),
        parallax=np.array(model.parallax, np.float32), channel=np.array(model.channel, np.int8),
        sides=np.array(model.sides, np.float32),
    )
    if model.face_layer is not None:
        arrays.update(model.face_layer.to_arrays())
    if model.background is not None:
        arrays["background"] = model.background
    if model.tray_colour is not None:
        arrays["tray_colour"] = np.asarray(model.tray_colour, np.float32)
    return arrays


def load_model(path=None) -> Model:
    """Load a model file; None means the default shipped in the package. Raises ModelError naming the file."""
    if path is None or Path(path) == DEFAULT_PATH:
        return replace(_load_default())  # a copy: callers may tune side or threshold
    return _load(Path(path))


@functools.lru_cache(maxsize=1)
def _load_default() -> Model:
    """The shipped model is read once per process: every DiceReader() shares it."""
    return _load(DEFAULT_PATH)


def _load(path: Path) -> Model:
    try:
        with open(path, "rb") as fh:
            if fh.read(2) != b"PK":  # every .npz is a zip archive
                raise ModelError(f"model file {str(path)!r} is not a dice model (.npz)")
        with np.load(path, allow_pickle=False) as z:
            data = {k: z[k] for k in z.files}
    except FileNotFoundError:
        raise ModelError(f"model file {str(path)!r} does not exist") from None
    except ModelError:
        raise  # already says what the file is (a ValueError too: it was said twice)
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise ModelError(f"model file {str(path)!r} is not a dice model (.npz) or is damaged: {exc}") from None
    try:
        return _model(path, data)
    except ModelError:
        raise
    except (ValueError, TypeError, IndexError, AttributeError) as exc:  # a field of the wrong type or shape
        raise ModelError(f"model file {str(path)!r} is damaged: {exc}") from None


def _model(path: Path, data: dict) -> Model:
    """The model the fields of a model file hold, or ModelError saying which is wrong."""
    if "format_version" not in data:
        raise ModelError(f"model file {str(path)!r} has no format_version: not a dice model")
    version = int(data["format_version"])
    if version > FORMAT_VERSION:  # made by a newer companion: recalibrating here is not the cure
        raise ModelError(f"model file {str(path)!r} is format version {version}, made by a newer companion; this "
                         f"one reads version {FORMAT_VERSION}: update the companion, or calibrate again with this one")
    if version != FORMAT_VERSION:
        raise ModelError(f"model file {str(path)!r} is format version {version}; this reader needs "
                         f"version {FORMAT_VERSION}: recalibrate or run python -m tools.train")
    missing = [k for k in ("protos", "labels", "scale", "radius", "classes") if k not in data]
    if missing:
        raise ModelError(f"model file {str(path)!r} lacks {', '.join(missing)}: damaged")
    if tuple(str(c) for c in data["classes"]) != CLASSES:
        raise ModelError(f"model file {str(path)!r} knows classes {list(data['classes'])}, expected {list(CLASSES)}")
    protos, labels = data["protos"].astype(np.float32), data["labels"].astype(int)
    descriptor = str(data.get("descriptor", "map"))
    if descriptor not in WIDTH:
        raise ModelError(f"model file {str(path)!r} compares {descriptor!r}, which this reader does not know")
    signed = bool(data.get("signed", False))  # files written before signed views have unsigned ones
    width = view_dim(signed) if descriptor == "views" else WIDTH[descriptor]
    if protos.ndim != 2 or protos.shape[1] != width or len(labels) != len(protos) or not len(labels) \
            or labels.min() < 0 or labels.max() >= len(CLASSES):
        raise ModelError(f"model file {str(path)!r} has prototypes of the wrong shape: damaged or another reader's")
    report = json.loads(str(data["report"])) if "report" in data else None
    tray_colour = data.get("tray_colour")
    if tray_colour is not None and (tray_colour.shape != (3,) or not np.all(np.isfinite(tray_colour))
                                    or tray_colour.min() <= 0):
        raise ModelError(f"model file {str(path)!r} has a damaged tray colour")
    background = data.get("background")
    if background is not None and (background.ndim != 2 or min(background.shape) < 2
                                   or not np.issubdtype(background.dtype, np.number)
                                   or not np.all(np.isfinite(background))):
        raise ModelError(f"model file {str(path)!r} has a damaged picture of the empty tray")
    net = None
    if "net_w1" in data:
        net = {k: data.get("net_" + k) for k in NET_KEYS}
        if "net_hog" in data:
            net["hog"] = data["net_hog"]
        if any(v is None for v in net.values()) or net["w1"].shape[0] != net["mean"].shape[0] \
                or net["w1"].shape[1] != net["w2"].shape[0] or net["w2"].shape[1] != len(CLASSES) \
                or not 0 <= edges_read(net) <= WIDTH["views"]:
            raise ModelError(f"model file {str(path)!r} has a damaged network")
    try:
        face_layer = FaceLayer.from_arrays(data, FEATURE_COUNT, UNKNOWN)
    except ValueError as exc:
        raise ModelError(f"model file {str(path)!r}: {exc}") from None
    if face_layer is not None and "crop_net" not in data:
        raise ModelError(f"model file {str(path)!r} has a face layer but no crop network to read the dice with")
    cnn = None  # files from before the ONNX crop network kept its arrays (cnn_*): read without it
    if "crop_net" in data:
        name = Path(str(data["crop_net"])).name  # a name beside the model file, never a path elsewhere
        if net is None and face_layer is None:
            raise ModelError(f"model file {str(path)!r} has a crop network but no network or face layer to join it to")
        try:
            cnn = CropNet.load(Path(path).parent / name, CLASSES)
        except CropNetError as exc:
            raise ModelError(f"model file {str(path)!r}: {exc}") from None
    model = Model(protos, labels, scale=float(data["scale"]), radius=float(data["radius"]),
                 kind=str(data.get("kind", "default")), side=float(data.get("side", 0.0)),
                 dark=float(data.get("dark", 1.0)), shrink=float(np.clip(data.get("shrink", 1.0), 0.05, MAX_LARGER)),
                 background=background, tray_colour=tray_colour,
                 threshold=float(data.get("threshold", 0.5)), report=report, net=net, cnn=cnn, face_layer=face_layer,
                 descriptor=descriptor,
                 neighbours=max(1, int(data.get("neighbours", 1))),
                 own_weight=float(np.clip(data.get("own_weight", 0.0), 0.0, 1.0)),
                 net_trust=float(np.clip(np.nan_to_num(data.get("net_trust", 0.0)), 0.0, 1.0)),
                 own_unknown=bool(data.get("own_unknown", False)),
                 soften=float(np.clip(np.nan_to_num(data.get("soften", 0.0)), 0.0, MAX_SOFTEN)), signed=signed,
                 nudge=float(np.clip(np.nan_to_num(data.get("nudge", 0.0)), 0.0, MAX_NUDGE)),
                 balanced=bool(data.get("balanced", False)), parallax=float(data.get("parallax", 0.0)),
                 sides=float(data.get("sides", 0.0)))
    sizes = {"scale": model.scale, "radius": model.radius, "side": model.side, "dark": model.dark,
             "threshold": model.threshold, "parallax": model.parallax, "sides": model.sides}
    wrong = [k for k, v in sizes.items() if not math.isfinite(v) or v < 0 or (v == 0 and k in ("scale", "dark"))]
    wrong += [k for k in ("parallax", "sides") if sizes[k] > MAX_PARALLAX]
    channel = float(data.get("channel", -1))  # a colour channel (BGR) or -1: a number that is none is damage
    wrong += [] if channel in (-1.0, 0.0, 1.0, 2.0) else ["channel"]
    model.channel = int(channel) if not wrong else -1
    if wrong or model.threshold > 1 or not np.all(np.isfinite(protos)):
        raise ModelError(f"model file {str(path)!r} has damaged numbers: {', '.join(wrong) or 'prototypes or threshold'}")
    if SECOND + "protos" in data:
        second = {k.removeprefix(SECOND): v for k, v in data.items() if k.startswith(SECOND)}
        model.second = replace(_model(path, second), net=net)
        if (model.descriptor, model.second.descriptor) != ("views", "map"):  # both_ways joins views and maps
            raise ModelError(f"model file {str(path)!r} compares {model.descriptor} and {model.second.descriptor}: "
                             f"a model read both ways compares views first, then symbol maps")
        model.second_weight = float(np.clip(np.nan_to_num(data.get("second_weight", 0.0)), 0.0, 1.0))
    if "pips" in data:
        pips = pips_checked(data["pips"], data.get("pip_weight", 0.0))
        if pips is None:
            raise ModelError(f"model file {str(path)!r} has damaged pip counts: four different counts 1-6, "
                             f"one a face, and a weight above 0 and at most 1")
        model.pips, model.pip_weight = pips
    if "pair_colour" in data:
        colour = np.asarray(data["pair_colour"], np.float32)
        if colour.shape != (7,) or not np.all(np.isfinite(colour)) or colour[6] <= 0:
            raise ModelError(f"model file {str(path)!r} has damaged pair colours: a bee's and a ZomBee's "
                             f"colour (3 numbers each) and a sharpness above 0")
        model.pair_colour = colour
    return model
