"""The calibration photos checked: a face's folder read as calibration reads it, and what is refused
(a photo in two folders, a die of another face) or worth the user's second look, each naming the
file. calibrate.py builds the model; this module says what is wrong with what it was given."""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path

import numpy as np

from companion.commands import DICE_FACES
from companion.errors import ImageError

from ..images import IMAGE_SUFFIXES, photo_files
from ..name.confidence import without_own
from ..name.model import CLASSES, UNKNOWN

MIXED_RATIO = 0.5  # a left-out die this much nearer another face than its own is in the wrong folder
DOUBT_RATIO = 0.75  # ... and this much nearer is named in the report
# Of the other left-out dice, at least this share must lie nearest their own face before one die is
# refused as in the wrong folder: where six photos a face do not tell this table's faces apart, a die of
# the right face lies nearer another just as often. A table drawn by a renderer the reader never saw
# (bench/other_renderer.py), its bee photos all bees, was refused as "mixed faces?" with 48 % of its
# left-out dice nearest their own face; such a die is named for a second look instead
SEPARATED = 0.8


class CalibrationError(ImageError):
    """Calibration photos that cannot teach the reader (missing, empty, no die, mixed faces)."""


def photos(folder: Path) -> list[Path]:
    """The photos of one face's folder (or empty/). Photos it cannot take are named, never passed over:
    a photo left out unsaid left a face short, and the report asked for photos the user had taken."""
    same = [p for p in folder.parent.iterdir() if p.is_dir() and p.name.lower() == folder.name]
    if len(same) > 1:  # "Bee/", as a phone or a Mac may name it, is bee/; both at once cannot be
        raise CalibrationError(f"{' and '.join(repr(p.name + '/') for p in sorted(same))} are both the folder of "
                               f"{folder.name}: put every photo of {folder.name} into one of them")
    if not same:
        raise CalibrationError(f"{str(folder)!r} is missing: calibration needs empty/ and one folder per face "
                               f"({', '.join(DICE_FACES)})")
    folder = same[0]
    files = photo_files(folder)
    subs = [sub for sub in sorted(folder.iterdir()) if sub.is_dir() and not sub.name.startswith(".")]
    nested = [(sub, n) for sub, n in ((sub, len(photo_files(sub))) for sub in subs) if n]
    if nested:  # a phone's export (bee/Camera/) or photos sorted further: not read, so said
        sub, n = nested[0]
        raise CalibrationError(f"{str(sub)!r} holds {n} photo{'s' if n > 1 else ''} that calibration does not read "
                               f"(it reads the photos directly in {folder.name}/): move them up into {folder.name}/, "
                               f"or out of it")
    if not files:
        raise CalibrationError(f"{str(folder)!r} holds no photos "
                               f"({', '.join(sorted(s for s in IMAGE_SUFFIXES if s not in ('.heic', '.heif')))})")
    return files


def check_mixed(checker, img, det, face: str, f: Path) -> None:
    """Refuses a photo of face whose dice the reader in use (checker, a reader.DiceReader; None: no
    check) reads surely as other faces more often than as face."""
    if checker is None:
        return
    sure = Counter(d.face for d in checker.classify(img, det) if d.face != "unknown" and d.confidence >= 0.9)
    # the stock reader may misjudge one glaring die; only a photo where the folder's face is
    # not the most common sure reading is called mixed
    if len(sure) > 1 and sure[face] < max(sure.values()):
        raise CalibrationError(f"{str(f)!r}: mixed faces ({', '.join(sorted(sure))}) in one photo; every die "
                               f"in {face}/ must show {face}")


def photo_ids(originals: dict) -> dict[Path, str]:
    """Each photo's fingerprint (the SHA-1 of its bytes): for check_copies, and kept in the report."""
    return {f: hashlib.sha1(f.read_bytes()).hexdigest() for items in originals.values() for f, _ in items}


def check_copies(originals: dict, ids: dict[Path, str]) -> None:
    """One photo in two folders (copied, not moved) shows two faces at once: named both times. Told
    apart by the dice alone, either copy could be blamed, the right one half the time."""
    seen: dict[str, tuple[str, Path]] = {}
    for face, items in originals.items():
        if face == "empty":
            continue  # an empty tray's photo among a face's is named as showing no die, more to the point
        for f, _ in items:
            key = ids[f]
            if key in seen and seen[key][0] != face:
                first_face, first = seen[key]
                raise CalibrationError(f"{str(f)!r} is the same photo as {str(first)!r}: one photo cannot show "
                                       f"{first_face} and {face}; keep it only in the folder of the face it shows")
            seen.setdefault(key, (face, f))


def left_out_doubts(truth: np.ndarray, files: list[Path], *ways: np.ndarray) -> list[str]:
    """A die the other photos put far nearer another face than its folder's is in the wrong folder (an
    error); one merely nearer is worth a look (returned, for the report). ways: the left-out dice's
    class distances as each way the model compares them sees them (views, maps); it takes every
    way to say so. A model that reads both ways refused a table's honey photo that its views alone
    put near the ZomBees, where its maps, which see the ZomBee's green, put it with the honey."""
    rows = np.arange(len(truth))
    ratios = []
    for d in ways:
        own = d[rows, truth]
        others = without_own(d, truth)[:, :UNKNOWN].min(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratios.append(np.where(np.isfinite(own) & (own > 0), others / own, np.inf))
    ratio = np.max(ratios, axis=0)  # every way must say so
    like = without_own(ways[0], truth)[:, :UNKNOWN].argmin(axis=1)  # the face the first way names
    # per die, the share of the other dice that the best way of comparing puts nearest their own face
    own = np.array([d[:, :UNKNOWN].argmin(axis=1) == truth for d in ways], float)
    others = (own.sum(axis=1, keepdims=True) - own) / max(len(truth) - 1, 1)
    apart = others.max(axis=0)
    doubts = []
    for i in np.flatnonzero(ratio < DOUBT_RATIO):
        face, other = CLASSES[truth[i]], CLASSES[like[i]]
        if ratio[i] < MIXED_RATIO and apart[i] >= SEPARATED:
            raise CalibrationError(f"{str(files[i])!r}: mixed faces? a die there looks like {other}, not like "
                                   f"the other photos of {face}; every die in {face}/ must show {face}")
        # said before the weakest face's advice (report.report_lines): more photos would not mend it
        doubts.append(f"check {face}/{files[i].name}: its die looks like {other}, not like the other photos of "
                      f"{face}; if it shows {other}, move it to {other}/ and calibrate again")
    return doubts
