"""A second real dice set: the smaller dark dice of the real photos' test_raw/ (purple with white pips,
teal and smoky with red pips, among others), which the photos' labels call "dark-other-size" and the
main figures ask nothing of. No single-face photos of them exist, so each one that lies clear of
other dice is cut out with its shadow and laid on an empty photo of the same sheet and camera
(calibration/empty), one die per photo, the way the set's own calibration photos were made (its
README). Faces 1-4 become calibration folders; 5 and 6 are faces never taught.

What it shows is how the reader does on dice it was not tuned on: calibrated on these dice alone,
each third of the taught dice is read by a model calibrated on the other two thirds, and every
5 and 6 by the model of all of them. There are few of these dice (25 taught, 10 never taught): a
die is 4 points, so read the figures as counts. A second, larger and more mixed set adds the dice
the labels call borderline (SETS: 64 taught, 38 never taught). Writes only into a temporary folder."""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

from companion.commands import DICE_FACES
from vision.teach.calibrate import calibrate
from vision.images import read_image
from vision.reader import DiceReader
from vision.teach.report import report_lines

from dice_photos import SURE  # bench/, beside this script
from pips import halves  # the pip reader's tuning and held-out halves of test_raw/

KIND = "dark-other-size"
MARGIN = 0.15  # of the labelled box, kept around a die: its shadow and rim come along
CLEAR = 0.2  # another labelled die's box, less this much of it each side, must not reach into the cut
FOLDS = 3


def _overlaps(a, b) -> bool:
    return not (a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1])


def _inner(box, k: float = CLEAR):
    w, h = box[2] - box[0], box[3] - box[1]
    return box[0] + k * w, box[1] + k * h, box[2] - k * w, box[3] - k * h


def cuts(photos: Path, kinds=(KIND,)) -> list[tuple[int, Path, tuple[int, int, int, int]]]:
    """(pips, photo, box with margin) of every die of kinds that lies clear of the other labelled dice
    (the box may reach past the photo's edge: build drops those)."""
    labels = json.loads((photos / "test_raw" / "labels.json").read_text())
    out = []
    for name, info in sorted(labels.items()):
        for d in info["dice"]:
            if d["kind"] not in kinds:
                continue
            x0, y0, x1, y1 = d["box"]
            m = MARGIN * (x1 - x0)
            big = (x0 - m, y0 - m, x1 + m, y1 + m)
            if any(_overlaps(big, _inner(o["box"])) for o in info["dice"] if o is not d):
                continue
            out.append((d["value"], photos / "test_raw" / name, tuple(int(round(v)) for v in big)))
    return out


def lay(sheet: np.ndarray, photo: np.ndarray, box) -> np.ndarray:
    """sheet with the die cut from photo at box laid on it where it lay, matched to the sheet's
    exposure by the cut's own rim of sheet, its edge feathered."""
    x0, y0, x1, y1 = box
    src = photo[y0:y1, x0:x1].astype(np.float32)
    dst = sheet[y0:y1, x0:x1].astype(np.float32)
    rim = np.ones(src.shape[:2], bool)
    rim[3:-3, 3:-3] = False
    src *= np.median(dst[rim], axis=0) / np.maximum(np.median(src[rim], axis=0), 1)
    alpha = np.zeros(src.shape[:2], np.float32)
    cv2.rectangle(alpha, (3, 3), (src.shape[1] - 4, src.shape[0] - 4), 1, -1)
    alpha = cv2.GaussianBlur(alpha, (0, 0), 1.5)[..., None]
    out = sheet.copy()
    out[y0:y1, x0:x1] = np.clip(alpha * src + (1 - alpha) * dst, 0, 255).astype(np.uint8)
    return out


def build(photos: Path, out: Path, kinds=(KIND,)) -> dict[int, list[Path]]:
    """The laid photos under out (out/N/*.jpg for N pips), by pips."""
    sheets = [read_image(p) for p in sorted((photos / "calibration" / "empty").glob("*.jpg"))]
    found = cuts(photos, kinds)
    sources = {src: read_image(src) for src in dict.fromkeys(src for _, src, _ in found)}
    inside = [(pips, src, box) for pips, src, box in found
              if min(box) >= 0 and box[2] <= sources[src].shape[1] and box[3] <= sources[src].shape[0]]
    made: dict[int, list[Path]] = {}
    for i, (pips, src, box) in enumerate(inside):
        folder = out / str(pips)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{src.stem}_{box[0]}_{box[1]}.jpg"
        cv2.imwrite(str(path), lay(sheets[i % len(sheets)], sources[src], box), [cv2.IMWRITE_JPEG_QUALITY, 95])
        made.setdefault(pips, []).append(path)
    return made


def _calibration(photos: Path, made: dict, folder: Path, leave: int | None) -> Path:
    """A calibration folder of the laid 1-4 photos (less every FOLDS-th from leave) and the empty sheet."""
    for sub, src in [("empty", p) for p in sorted((photos / "calibration" / "empty").glob("*.jpg"))] + [
            (DICE_FACES[pips - 1], p) for pips in range(1, len(DICE_FACES) + 1)
            for i, p in enumerate(made.get(pips, [])) if leave is None or i % FOLDS != leave]:
        (folder / sub).mkdir(parents=True, exist_ok=True)
        (folder / sub / src.name).write_bytes(src.read_bytes())
    return folder


# (kinds, what they are): the smaller dark dice alone; then with the dice the labels call borderline
# (blue and green swirled, maroon, gold and lighter smoky dice), a larger and more mixed set
SETS = (((KIND,), "the smaller dark dice"),
        ((KIND, "borderline"), "the smaller dark dice and the borderline ones (blue, green, maroon, gold)"))


def bench_other(photos: Path) -> None:
    if not (photos / "test_raw" / "labels.json").is_file():
        print(f"\n== other real dice: skipped, {str(photos)!r} holds no dice-photos set (use --photos)")
        return
    for kinds, what in SETS:
        with tempfile.TemporaryDirectory() as d:
            _bench_set(photos, Path(d), kinds, what)


def _bench_set(photos: Path, d: Path, kinds: tuple, what: str) -> None:
    made = build(photos, d / "laid", kinds)
    counts = ", ".join(f"{n} pips {len(made.get(n, []))}" for n in range(1, 7))
    t = time.perf_counter()
    model = calibrate(_calibration(photos, made, d / "all", None))
    print(f"\n== other real dice: {what} ({', '.join(kinds)} in test_raw/), laid one per photo on the empty "
          f"sheet: {counts}; calibration on all their 1-4 took {time.perf_counter() - t:.1f} s")
    for line in report_lines(model.report):
        print("   " + line)
    # pip dice taught as the faces are read by the Zoo's pip reader too (vision/name/pipfaces.py), which
    # learned from the tuning half of these photos: the dice of the other half are counted apart as well
    held = set(halves(json.loads((photos / "test_raw" / "labels.json").read_text()))["held-out"])
    right = taught = sure = wrong = 0
    unseen = {"right": 0, "taught": 0, "unknown": 0, "untaught": 0}
    for k in range(FOLDS):
        reader = DiceReader(calibrate(_calibration(photos, made, d / f"fold{k}", k)))
        for pips in range(1, len(DICE_FACES) + 1):
            for path in made.get(pips, [])[k::FOLDS]:
                taught += 1
                ok, s, w = _read(reader, path, DICE_FACES[pips - 1])
                right, sure, wrong = right + ok, sure + s, wrong + w
                if _source(path) in held:
                    unseen["taught"], unseen["right"] = unseen["taught"] + 1, unseen["right"] + ok
    reader = DiceReader(model)
    untaught = unknown = 0
    for pips in (5, 6):
        for path in made.get(pips, []):
            untaught += 1
            ok, s, w = _read(reader, path, "unknown")
            unknown, sure, wrong = unknown + ok, sure + s, wrong + w
            if _source(path) in held:
                unseen["untaught"], unseen["unknown"] = unseen["untaught"] + 1, unseen["unknown"] + ok
    print(f"   each third of the 1-4 dice read by a model calibrated on the other two thirds: {right} of "
          f"{taught} right ({100 * right / max(taught, 1):.0f} %)")
    print(f"   5 and 6 read unknown: {unknown} of {untaught}; sure (conf >= {SURE}) {sure} dice, wrong {wrong}")
    print(f"   of them, the dice of photos the pip reader never learned from (bench/pips.py's held-out half): "
          f"{unseen['right']} of {unseen['taught']} right, 5 and 6 unknown {unseen['unknown']} of {unseen['untaught']}")


def _source(laid: Path) -> str:
    """The name of the test_raw/ photo a laid photo's die was cut from (build names them so)."""
    return laid.stem.rsplit("_", 2)[0] + ".jpg"


def _read(reader: DiceReader, path: Path, face: str) -> tuple[bool, int, int]:
    """(whether the photo's one die read as face, its dice read as a face at SURE or more, those of
    them wrong: all of them when it did not read as face)."""
    dice = reader.read(read_image(path)).dice
    ok = len(dice) == 1 and dice[0].face == face
    sure = sum(d.face != "unknown" and d.confidence >= SURE for d in dice)
    return ok, sure, 0 if ok else sure
