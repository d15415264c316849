"""Learning one table's dice, light and tray from a handful of photos.

DIR/empty/ holds photos of the empty tray; DIR/bee/, DIR/honey/, DIR/zzz/,
DIR/zombee/ each hold photos of one or more dice all showing that face. The
empty tray becomes the background the detector compares against, the dice tell
the die size in pixels, and every die (turned and jittered a little, as the
next roll will) is added to the rendered examples before the network is
trained again. Bad input stops with a message naming the file.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from companion.commands import DICE_FACES
from companion.errors import ImageError

from .detect import SMALL, brightest, detect
from .features import PATCH, crop, features
from .model import CLASSES, Model, fit, load_model
from .reader import DiceReader, read_image

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp"}
AUGMENT = 24  # jittered copies per calibration die
CALIBRATION_WEIGHT = 3.0  # one real die counts as much as three rendered ones
_yy, _xx = np.mgrid[0:PATCH, 0:PATCH].astype(np.float32)


class CalibrationError(ImageError):
    """Calibration photos that cannot teach the reader (missing, empty, no die, mixed faces)."""


def photos(folder: Path) -> list[Path]:
    if not folder.is_dir():
        raise CalibrationError(f"{str(folder)!r} is missing: calibration needs empty/ and one folder per face "
                               f"({', '.join(DICE_FACES)})")
    files = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    if not files:
        raise CalibrationError(f"{str(folder)!r} holds no photos (.jpg or .png)")
    return files


def background_of(files: list[Path]) -> np.ndarray:
    """Median brightness of the empty tray photos, small: the light's fall-off is smooth."""
    stack = [cv2.resize(brightest(read_image(f)), SMALL, interpolation=cv2.INTER_AREA) for f in files]
    return np.median(np.stack(stack), axis=0).astype(np.uint8)


def _jitter(frame, blob, side, tray, rng) -> list[np.ndarray]:
    out = []
    shape = (blob.fill, blob.aspect, blob.area / (side * side))
    for _ in range(AUGMENT):
        # shifts up to a tenth of a die: where dice touch, the cut between them is never exact
        reach = 0.1 * side
        p = crop(frame, blob.x + rng.uniform(-reach, reach), blob.y + rng.uniform(-reach, reach),
                 side * rng.uniform(0.93, 1.07), blob.angle + rng.uniform(-0.15, 0.15) + rng.integers(0, 4) * np.pi / 2)
        p = p.astype(np.float32) * rng.uniform(0.85, 1.15) + rng.normal(0, rng.uniform(1, 5), p.shape)
        if rng.random() < 0.6:
            # a lamp's reflection somewhere on the face: glare must not turn a Zzz into a winged bee
            gx, gy = rng.uniform(0.25, 0.75, 2) * PATCH
            sig = PATCH * rng.uniform(0.08, 0.18)
            spot = rng.uniform(50, 150) * np.exp(-((_xx - gx) ** 2 + (_yy - gy) ** 2) / (2 * sig * sig))
            p += spot[..., None]
        if rng.random() < 0.3:
            p = cv2.GaussianBlur(p, (0, 0), rng.uniform(0.4, 0.9))
        out.append(features(np.clip(p, 0, 255).astype(np.uint8), tray, shape))
    return out


def calibrate(folder, base: Model | None = None, seed: int = 0, log=None) -> Model:
    """A model tuned to the table photographed in folder (see the module doc for the layout)."""
    folder = Path(folder)
    base = base or load_model()
    background = background_of(photos(folder / "empty"))
    shots = {face: [(f, read_image(f)) for f in photos(folder / face)] for face in DICE_FACES}
    checker = DiceReader(base)
    sides = []
    for face, items in shots.items():
        for f, img in items:
            det = detect(img, background=background)
            if not det.dice:
                raise CalibrationError(f"{str(f)!r}: no die found; each photo in {face}/ must show dice showing {face}")
            sides.append(det.side)
    side = float(np.median(sides))
    rng = np.random.default_rng(seed)
    xs, ys = [], []
    for face, items in shots.items():
        for f, img in items:
            det = detect(img, side=side, background=background)
            sure = Counter(d.face for d in checker.classify(img, det) if d.face != "unknown" and d.confidence >= 0.97)
            seen = set(sure)
            # the stock reader may misjudge one glaring die; only a photo where the folder's face is
            # not the most common sure reading is called mixed
            if len(seen) > 1 and sure[face] < max(sure.values()):
                raise CalibrationError(f"{str(f)!r}: mixed faces ({', '.join(sorted(seen))}) in one photo; every die "
                                       f"in {face}/ must show {face}")
            for b in det.dice:
                xs += _jitter(img, b, side, det.tray, rng)
                ys += [CLASSES.index(face)] * AUGMENT
        if log:
            log(f"{face}: {len(items)} photos")
    x, y = np.array(xs, np.float32), np.array(ys)
    weight = np.full(len(y), CALIBRATION_WEIGHT)
    if base.train_x is not None:
        x = np.concatenate([x, base.train_x.astype(np.float32)])
        y = np.concatenate([y, base.train_y.astype(int)])
        weight = np.concatenate([weight, np.ones(len(base.train_y))])
    return fit(x, y, seed=seed, sample_weight=weight, kind="calibrated", side=side, background=background,
               threshold=base.threshold)
