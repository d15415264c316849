"""Learning one table's dice, light and tray from a handful of photos.

DIR/empty/ holds photos of the empty tray; DIR/bee/, DIR/honey/, DIR/zzz/,
DIR/zombee/ each hold photos of one or more dice all showing that face. The
empty tray becomes the background the detector compares against, the dice tell
the die size in pixels, and every die, cut again with the small errors the
detector makes and the glare and blur the next roll will bring, becomes a
prototype of its face. Leaving one photo out at a time and reading its dice
with the rest gives the quality report and sets how sure a reading may be.
Bad input stops with a message naming the file.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from companion.commands import DICE_FACES
from companion.errors import ImageError

from .detect import DARKER, SMALL, brightest, detect
from .features import CROP, PATCH, crop, face_map
from .model import CLASSES, UNKNOWN, Model, gated, load_model
from .net import net_proba
from .symbol import symbol_features
from .reader import DiceReader, read_image, working

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp"}
AUGMENT = 24  # prototypes made from each calibration die
GOOD = 0.95  # cross-validated share of a face's dice read right for the face to count as learned
MIN_PHOTOS = 3
RADIUS_MARGIN = 1.3  # unknown beyond this many times the distance that holds 90% of left-out dice
NET_GATE = 1.2  # with the ZomBee network kept, the default's radius (times this) is the least radius
MIXED_RATIO = 0.5  # a left-out die this much nearer another face than its own is in the wrong folder
DOUBT_RATIO = 0.75  # ... and this much nearer is named in the report  # fewer photos of a face cannot show how that face varies
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


def background_of(frames: list[np.ndarray]) -> np.ndarray:
    """Median brightness of the empty tray photos, small: the light's fall-off is smooth."""
    stack = [cv2.resize(brightest(img), SMALL, interpolation=cv2.INTER_AREA) for img in frames]
    return np.median(np.stack(stack), axis=0).astype(np.uint8)


def darkness(faces: list[np.ndarray], empties: list[np.ndarray], background: np.ndarray) -> float:
    """How much darker this tray makes the dice look than a light tray does: the least of
    detect.DARKER under which every face photo shows a die and no empty photo does (1.0 on a white
    card; more on felt or wood). When none does, 1.0, and the photo without a die is named later."""
    for dark in DARKER:
        if all(detect(img, background=background, dark=dark).dice for img in faces) and \
                not any(detect(img, background=background, dark=dark).dice for img in empties):
            return dark
    return DARKER[0]


def _glare(p: np.ndarray, rng) -> None:
    """A lamp's reflection on a glossy face, in place: a soft spot, or a thin arc along a rounded edge."""
    if rng.random() < 0.5:
        gx, gy = rng.uniform(0.25, 0.75, 2) * PATCH
        sig = PATCH * rng.uniform(0.06, 0.16)
        p += (rng.uniform(40, 140) * np.exp(-((_xx - gx) ** 2 + (_yy - gy) ** 2) / (2 * sig * sig)))[..., None]
        return
    arc = np.zeros((PATCH, PATCH), np.float32)
    c = PATCH / 2 + rng.uniform(-3, 3, 2)
    r = PATCH * rng.uniform(0.3, 0.45)
    start = rng.uniform(0, 360)
    cv2.ellipse(arc, (int(c[0]), int(c[1])), (int(r), int(r * rng.uniform(0.8, 1.2))), 0, start,
                start + rng.uniform(40, 160), 1.0, 1, cv2.LINE_AA)
    p += (cv2.GaussianBlur(arc, (0, 0), 0.6) * rng.uniform(60, 160))[..., None]


def augment(frame, x, y, side, angle, tray, rng, n: int = AUGMENT) -> list[np.ndarray]:
    """Maps of one die as the next roll may show it: cut a little off centre and off size, brighter or
    darker, blurred, noisy, with glare."""
    out = [face_map(crop(frame, x, y, side, angle, CROP), tray)]
    for _ in range(n - 1):
        reach = 0.08 * side
        p = crop(frame, x + rng.uniform(-reach, reach), y + rng.uniform(-reach, reach), side * rng.uniform(0.9, 1.1),
                 angle + rng.uniform(-0.12, 0.12), CROP).astype(np.float32)
        p = p * rng.uniform(0.8, 1.2) + rng.normal(0, rng.uniform(1, 6), p.shape)
        if rng.random() < 0.5:
            _glare(p, rng)
        if rng.random() < 0.3:
            p = cv2.GaussianBlur(p, (0, 0), rng.uniform(0.4, 1.0))
        out.append(face_map(np.clip(p, 0, 255).astype(np.uint8), tray))
    return out


def cross_validate(maps: np.ndarray, labels: np.ndarray, groups: np.ndarray, firsts: np.ndarray) -> np.ndarray:
    """(dice, classes) distances from each die (its plain map, row firsts[i]) to the prototypes of
    the other photos (groups): how the model would see a die it was not taught."""
    probe = Model(maps, labels)
    out = np.full((len(firsts), len(CLASSES)), np.inf, np.float32)
    for g in np.unique(groups):
        rest = groups != g
        mine = np.flatnonzero(groups[firsts] == g)
        if not rest.any() or not mine.size:
            continue
        probe.protos, probe.labels = maps[rest], labels[rest]
        out[mine] = probe.distances(maps[firsts[mine]])
    return out


def fit_confidence(d: np.ndarray, truth: np.ndarray, quantile: float = 0.9, margin: float = 1.15) -> tuple[float, float]:
    """(scale, radius) from cross-validated distances: radius admits nearly every die of a taught face,
    scale is the softest that still lets a clear winner reach 0.9."""
    own = d[np.arange(len(truth)), truth]
    own = own[np.isfinite(own)]
    if not own.size:
        return 0.12, 0.5
    radius = float(np.clip(np.quantile(own, quantile) * margin, 0.2, 0.9))
    scale = float(np.clip(np.median(own) * 0.45, 0.05, 0.3))
    return scale, radius


def untaught_unknown(model: Model, d: np.ndarray, truth: np.ndarray) -> float:
    """Share of the left-out dice that read unknown when their own face is hidden too: how a face
    the reader was never taught (a 5 among 1-4, another game's symbol) would read."""
    hidden = d.copy()
    hidden[np.arange(len(truth)), truth] = np.inf
    p = model.proba(hidden)
    return float(((p.argmax(1) == UNKNOWN) | (p.max(1) < model.threshold)).mean()) if len(truth) else 1.0


def quality(pred: np.ndarray, truth: np.ndarray, photos_per_face: dict, threshold: float = 0.5) -> dict:
    """The calibration's report card from cross-validated probabilities: share of each face's dice read right."""
    faces = {}
    for i, face in enumerate(DICE_FACES):
        sel = truth == i
        if not sel.any():
            faces[face] = 0.0
            continue
        got = pred[sel].argmax(1)
        sure = pred[sel].max(1) >= threshold
        faces[face] = round(float(((got == i) & sure).mean()), 3)
    short = [f for f in DICE_FACES if photos_per_face.get(f, 0) < MIN_PHOTOS]
    weakest = short[0] if short else min(DICE_FACES, key=lambda f: (faces[f], photos_per_face.get(f, 0)))
    weak = [f for f in DICE_FACES if faces[f] < GOOD]
    ok = not short and not weak
    if ok:
        advice = "good: every face was read right when left out"
    else:
        face = short[0] if short else weakest
        more = max(2, 6 - photos_per_face.get(face, 0)) if short or faces[face] < 0.8 else 2
        advice = f"take {more} more photos of {face}" + (
            f" (only {photos_per_face.get(face, 0)})" if face in short else
            f" ({100 * faces[face]:.0f}% of its dice read right when left out)")
        if short and weak:
            advice += "; also " + ", ".join(f for f in weak if f != face) if set(weak) - {face} else ""
    total = sum(photos_per_face.values())
    right = sum(faces[f] * int((truth == i).sum()) for i, f in enumerate(DICE_FACES))
    return {"ok": ok, "faces": faces, "weakest": weakest, "advice": advice,
            "accuracy": round(right / max(len(truth), 1), 3), "photos": dict(photos_per_face),
            "dice": {f: int((truth == i).sum()) for i, f in enumerate(DICE_FACES)}, "total_photos": total}


def report_lines(report: dict) -> list[str]:
    """The report as a person reads it after `companion vision calibrate`."""
    faces = ", ".join(f"{f} {100 * a:.0f}% ({report['photos'].get(f, 0)} photos)" for f, a in report["faces"].items())
    lines = [f"cross-validated: {100 * report['accuracy']:.1f}% of calibration dice read right; {faces}",
             f"weakest face: {report['weakest']}; {report['advice']}"]
    if report.get("untaught_unknown") is not None:
        lines.append(f"a face never taught reads unknown {100 * report['untaught_unknown']:.0f}% of the time "
                     f"(each face hidden in turn)")
    if report.get("doubts"):
        lines.append("worth a second look: " + "; ".join(report["doubts"]))
    return lines


def _check_mixed(checker: DiceReader | None, img, det, face: str, f: Path) -> None:
    if checker is None:
        return
    sure = Counter(d.face for d in checker.classify(img, det) if d.face != "unknown" and d.confidence >= 0.9)
    # the stock reader may misjudge one glaring die; only a photo where the folder's face is
    # not the most common sure reading is called mixed
    if len(sure) > 1 and sure[face] < max(sure.values()):
        raise CalibrationError(f"{str(f)!r}: mixed faces ({', '.join(sorted(sure))}) in one photo; every die "
                               f"in {face}/ must show {face}")


def _check_left_out(d: np.ndarray, truth: np.ndarray, files: list[Path]) -> list[str]:
    """A die the other photos put far nearer another face than its folder's is in the wrong folder (an
    error); one merely nearer is worth a look (returned, for the report)."""
    doubts = []
    for i in range(len(truth)):
        own = d[i, truth[i]]
        others = d[i, :UNKNOWN].copy()
        others[truth[i]] = np.inf
        k = int(others.argmin())
        face = CLASSES[truth[i]]
        if np.isfinite(own) and others[k] < MIXED_RATIO * own:
            raise CalibrationError(f"{str(files[i])!r}: mixed faces? a die there looks like {CLASSES[k]}, not like "
                                   f"the other photos of {face}; every die in {face}/ must show {face}")
        if np.isfinite(own) and others[k] < DOUBT_RATIO * own:
            doubts.append(f"{face}/{files[i].name} looks like {CLASSES[k]}")
    return doubts


def calibrate(folder, base: Model | None = None, seed: int = 0, log=None, augment_per_die: int = AUGMENT) -> Model:
    """A model tuned to the table photographed in folder (see the module doc for the layout)."""
    folder = Path(folder)
    base = base or load_model()
    empties = [working(read_image(f))[0] for f in photos(folder / "empty")]
    background = background_of(empties)
    shots = {face: [(f, working(read_image(f))[0]) for f in photos(folder / face)] for face in DICE_FACES}
    dark = darkness([img for items in shots.values() for _, img in items], empties, background)
    checker = DiceReader(base) if base is not None else None
    sides, first = [], {}
    for face, items in shots.items():
        for f, img in items:
            det = detect(img, background=background, dark=dark)
            if not det.dice:
                raise CalibrationError(f"{str(f)!r}: no die found; each photo in {face}/ must show dice showing {face}")
            sides.append(det.side)
            first[f] = det
    side = float(np.median(sides))
    rng = np.random.default_rng(seed)
    maps, labels, groups, firsts, files, symbols = [], [], [], [], [], []
    photo_count = {}
    photo = 0
    for face, items in shots.items():
        for f, img in items:
            photo += 1
            det = detect(img, side=side, background=background, dark=dark)
            if not det.dice:  # a die the table's size hides (a large symbol, glare): its own size found it
                det = first[f]
            _check_mixed(checker, img, det, face, f)
            for b in det.dice:
                firsts.append(len(maps))
                files.append(f)
                if base is not None and base.net is not None:
                    symbols.append(symbol_features(img, b, det.side, det.tray))
                got = augment(img, b.x, b.y, det.side, b.angle, det.tray, rng, augment_per_die)
                maps += got
                labels += [CLASSES.index(face)] * len(got)
                groups += [photo] * len(got)
        photo_count[face] = len(items)
        if log:
            log(f"{face}: {len(items)} photos")
    maps = np.array(maps, np.float32)
    labels, groups, firsts = np.array(labels), np.array(groups), np.array(firsts)
    d = cross_validate(maps, labels, groups, firsts)
    truth = labels[firsts]
    scale, radius = fit_confidence(d, truth, margin=RADIUS_MARGIN)
    model = Model(maps, labels, scale=scale, radius=radius, kind="calibrated", side=side, dark=dark,
                  background=background,
                  threshold=base.threshold if base is not None else 0.5)
    doubts = _check_left_out(d, truth, files)
    pred = model.proba(d.copy())
    report = quality(pred, truth, photo_count, model.threshold)
    if symbols:
        # the stock ZomBee network never saw these photos: its reading of them is a fair test; keep it
        # when it reads them at least as well as the photos read each other (ZomBee dice, not pips)
        # (and then the prototypes need only reject what neither has seen: the default's wider radius)
        wide = max(radius, base.radius * NET_GATE)
        with_net = gated(replace(model, radius=wide).proba(d.copy()), net_proba(base.net, maps[firsts], np.array(symbols)))
        other = quality(with_net, truth, photo_count, model.threshold)
        if other["accuracy"] >= report["accuracy"]:
            model.net, model.radius, report = base.net, wide, other
    model.report = report
    # with the network kept the network names the face, and it cannot be asked to forget one
    model.report["untaught_unknown"] = None if model.net is not None else round(untaught_unknown(model, d, truth), 3)
    model.report["network"] = model.net is not None
    model.report["doubts"] = doubts  # photos worth a second look: in the right folder? a glare?
    model.report["photo_ids"] = sorted(hashlib.sha1(f.read_bytes()).hexdigest()[:12]
                                       for items in shots.values() for f, _ in items)
    return model


def score_on(model: Model, folder) -> float:
    """Share of the calibration dice in folder that model reads as their folder's face (unknown = wrong)."""
    folder = Path(folder)
    reader = DiceReader(model)
    right = total = 0
    for face in DICE_FACES:
        for f in photos(folder / face):
            faces = reader.read(read_image(f)).faces
            right += faces.count(face)
            total += max(len(faces), 1)
    return right / max(total, 1)

