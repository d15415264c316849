"""The dice the companion was taught from the phone, kept in the data folder.

    <dice folder>/                 (default: `dice/` beside the game log)
      models.json                  {"current": 3, "previous": "default", "next": 4}
      model-3.npz                  the model in use
      model-3/empty/ bee/ honey/ zzz/ zombee/
                                   the photos it was built from: `companion vision calibrate model-3`
                                   builds the same model
      draft/ ...                   a calibration under way, same layout, plus draft/meta.json
      draft.npz                    the draft's model once built, until "Use it"
      corrections/<id>.json, <id>-<k>.png
                                   dice of rolls a phone corrected, waiting to be learned

Only the model in use and the previous one are kept (with their photos), so "back to the
previous model" is always possible and the folder does not grow. Nor do the corrections: only the
newest PENDING_ROLLS corrected rolls wait, and a calibration keeps the newest CORRECTED_PER_FACE
corrected photos of each face beside the ones taught by hand.
"""

from __future__ import annotations

import json
import shutil
import time
from collections import Counter
from pathlib import Path
from typing import Callable

import cv2
import numpy as np

from companion import files
from companion.commands import DICE_FACES
from companion.errors import ImageError

from ..name.model import Model, ModelError
from ..name.modelfile import DEFAULT_PATH, load_model, save_model

STEPS = DICE_FACES + ("empty",)  # the wizard's order: each face, then the empty tray
DEFAULT = "default"  # the model shipped in the package
CROP_MARGIN = 0.12  # of a die's box kept around it in a correction's crop: its rounded edge, not a neighbour
# A table corrected over months must not make each "Learn from corrections" slower than the last:
# calibration takes time in step with its photos (18 photos per face of five dice, about 12 s here and
# some 50 s on a Pi 4: bench/vision.py --only speed), and every learning adds the corrected rolls to
# the photos. The newest are kept: they show the table, the lamp and the dice as they are now.
FORMAT = 1  # of models.json and draft/meta.json; a newer companion's are read, never written over
PENDING_ROLLS = 40  # corrected rolls waiting to be learned; an older one is dropped for a new one
CORRECTED_PER_FACE = 12  # corrected photos of each face a calibration keeps (the hand-taught ones all stay)


def match_corrections(read: list[str], corrected: list[str]) -> list[str] | None:
    """The corrected face of each die read, or None when that cannot be told for sure.

    Dice whose face the correction keeps are taken as read right. The others are those read as a
    face the correction has none of (or `unknown`); they must all turn out the same face, else which
    die is which is a guess. A face read too often but not absent (two bees read, one bee entered)
    leaves it open which bee was wrong: None."""
    if len(read) != len(corrected) or not read:
        return None
    want, have = Counter(corrected), Counter(read)
    if want == have:
        return None  # nothing was corrected
    wrong_faces = {f for f in have if want[f] == 0}
    if any(0 < want[f] < have[f] for f in have):
        return None
    left = want - Counter(f for f in read if f not in wrong_faces)
    if len(left) != 1:
        return None
    (face,) = left
    return [face if f in wrong_faces else f for f in read]


def _grown(box, w: int, h: int) -> tuple[int, int, int, int]:
    x, y, bw, bh = box
    m = int(max(bw, bh) * CROP_MARGIN)
    return max(x - m, 0), max(y - m, 0), min(x + bw + m, w), min(y + bh + m, h)


def _by_age(path: Path) -> tuple[int, str]:
    """Sorts a correction's files oldest first: their names hold the time they were kept, in ms."""
    ident = path.stem.removeprefix("corrected-")
    return (int(ident), "") if ident.isdigit() else (-1, ident)


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


class DiceStore:
    """disk_usage: shutil.disk_usage, or a stand-in that says how much room the card has."""

    def __init__(self, root, disk_usage: Callable = shutil.disk_usage):
        self.root = Path(root)
        self.draft = self.root / "draft"
        self.draft_model = self.root / "draft.npz"
        self.corrections = self.root / "corrections"
        self.disk_usage = disk_usage
        self.unkept: str | None = None  # why the last corrected roll could not be kept, for the page

    def _write(self, path: Path, data: bytes) -> None:
        """Every file of the store is written whole (companion.files.write_atomic), or WriteError."""
        files.write_atomic(path, data, disk_usage=self.disk_usage)

    def _write_png(self, path: Path, image: np.ndarray) -> None:
        ok, data = cv2.imencode(".png", image)
        if not ok:
            raise ImageError(f"the picture for {path} could not be encoded as PNG")
        self._write(path, data.tobytes())

    def free(self) -> int | None:
        """Bytes free on the dice folder's card (None when unknown)."""
        return files.free_space(self.root, self.disk_usage)

    # --- the models ---------------------------------------------------------------------------

    def index(self) -> dict:
        """models.json, or {} when it is missing or cannot be read (index_problem() says why)."""
        return self._read_index()[0]

    def index_problem(self) -> str | None:
        """One line when models.json is missing or damaged while taught models are on the card."""
        return self._read_index()[1]

    def _read_index(self) -> tuple[dict, str | None]:
        path = self.root / "models.json"
        data, problem = _read_json(path, ("current", "previous", "next"))
        if problem is None:
            for key in ("current", "previous"):
                if key in data and data[key] != DEFAULT and not isinstance(data[key], int):
                    problem = f"{path}: {key} is {data[key]!r}, not a model number"
            if not isinstance(data.get("next", 1), int):
                problem = f"{path}: next is {data['next']!r}, not a model number"
        if problem is None or not self.numbers():  # with no taught model on the card there is nothing to lose
            return (data if problem is None else {}), None
        return {}, problem

    def _write_index(self, data: dict) -> None:
        # a power cut leaves the old index or the new, never half
        self._write(self.root / "models.json", json.dumps({**data, "format": FORMAT}).encode())

    def numbers(self) -> list[int]:
        """The taught models' numbers on the card, newest first."""
        return sorted((int(n) for p in self.root.glob("model-*.npz")
                       if (n := p.name.removeprefix("model-").removesuffix(".npz")).isdigit()), reverse=True)

    def problem(self, which) -> str | None:
        """Why the model `which` cannot be read (one line naming its file), or None when it loads."""
        try:
            self.load(which)
        except ModelError as exc:
            return str(exc)
        return None

    def newest_loadable(self) -> int | None:
        return next((n for n in self.numbers() if self.problem(n) is None), None)

    def restore(self) -> int:
        """With models.json damaged or missing: the newest taught model that loads becomes the one in
        use, the next older that loads the previous one. Nothing is deleted."""
        good = [n for n in self.numbers() if self.problem(n) is None]
        if not good:
            raise LookupError("no taught model on the card can be read")
        self._write_index({"current": good[0], "previous": good[1] if len(good) > 1 else DEFAULT,
                           "next": self.numbers()[0] + 1})
        return good[0]

    def model_path(self, n) -> Path:
        return self.root / f"model-{n}.npz"

    def photos_dir(self, n) -> Path:
        return self.root / f"model-{n}"

    def load(self, which) -> Model:
        return load_model(None if which in (None, DEFAULT) else self.model_path(which))

    def current(self):
        """The taught model's number in use, or DEFAULT."""
        return self.index().get("current") or DEFAULT

    def adopt_draft(self) -> int:
        """The built draft becomes the model in use; the one in use until now becomes the previous.
        The index is written last: killed before it, the companion restarts with the old model."""
        index, problem = self._read_index()
        previous = index.get("current") or (self.newest_loadable() if problem else None) or DEFAULT
        n = max([int(index.get("next", 1)), *(k + 1 for k in self.numbers())])  # never over a half-adopted one
        shutil.rmtree(self.photos_dir(n), ignore_errors=True)  # a half-adopted one's photos, if any
        self.draft_model.replace(self.model_path(n))
        self.draft.replace(self.photos_dir(n))
        index.update(current=n, previous=previous, next=n + 1)
        try:
            self._write_index(index)
        except OSError:  # the card refused the index: the draft is put back, built, for Use it again
            self.photos_dir(n).replace(self.draft)
            self.model_path(n).replace(self.draft_model)
            raise
        (self.photos_dir(n) / "meta.json").unlink(missing_ok=True)
        if problem is None:  # with the index damaged, which models were kept cannot be told: none is deleted
            self._prune(index)
        return n

    def revert(self):
        """Swap the model in use and the previous one; returns the one now in use (a number or DEFAULT)."""
        index, problem = self._read_index()
        if problem:
            raise LookupError(f"which model was in use before cannot be told ({problem}); "
                              "put the newest model that loads in use first")
        if not index.get("previous"):
            raise LookupError("there is no previous model to go back to")
        index["current"], index["previous"] = index["previous"], index.get("current") or DEFAULT
        self._write_index(index)
        return index["current"]

    def _prune(self, index: dict) -> None:
        keep = {index.get("current"), index.get("previous")}
        for p in self.root.glob("model-*"):
            n = p.name.removeprefix("model-").removesuffix(".npz")
            if n.isdigit() and int(n) not in keep:
                shutil.rmtree(p) if p.is_dir() else p.unlink()

    # --- a calibration under way ------------------------------------------------------------------

    def meta(self) -> dict | None:
        """The calibration under way, or None. A damaged draft/meta.json with captures beside it is
        still a calibration under way (its photos are kept), with the damage as its error."""
        path = self.draft / "meta.json"
        meta, problem = _read_json(path, ("kind", "started"))
        if problem is None:
            return meta
        if problem.endswith("is missing") and not any(self.counts().values()):
            return None
        return {"kind": "wizard", "started": None,
                "error": f"{problem}; the captures are kept: tap Finish to build from them, or Cancel"}

    def write_meta(self, meta: dict) -> None:
        self._write(self.draft / "meta.json", json.dumps({**meta, "format": FORMAT}).encode())

    def start_draft(self, meta: dict, copy_from: Path | None = None) -> None:
        self.drop_draft()
        self.write_meta(meta)  # first: a draft folder without its meta is no calibration (killed meanwhile)
        if copy_from is not None:  # (a meta.json left there by a kill during Use it is not copied)
            shutil.copytree(copy_from, self.draft, dirs_exist_ok=True, ignore=shutil.ignore_patterns("meta.json"))
        for step in STEPS:
            (self.draft / step).mkdir(parents=True, exist_ok=True)

    def drop_draft(self) -> None:
        """Gone whole: renamed aside first, so a kill while its photos are deleted leaves no half draft."""
        aside = self.root / ".dropped"
        shutil.rmtree(aside, ignore_errors=True)
        try:
            self.draft.replace(aside)
        except OSError:
            shutil.rmtree(self.draft, ignore_errors=True)
        shutil.rmtree(aside, ignore_errors=True)
        self.draft_model.unlink(missing_ok=True)

    def counts(self) -> dict[str, int]:
        return {s: len(list((self.draft / s).glob("*.png"))) if (self.draft / s).is_dir() else 0 for s in STEPS}

    def add_capture(self, step: str, frame: np.ndarray) -> Path:
        folder = self.draft / step
        folder.mkdir(parents=True, exist_ok=True)
        n = max([int(p.stem.split("-")[-1]) for p in folder.glob(f"{step}-*.png") if p.stem.split("-")[-1].isdigit()]
                or [0]) + 1
        path = folder / f"{step}-{n:03d}.png"
        self._write_png(path, frame)
        return path

    def save_draft_model(self, model: Model) -> None:
        save_model(model, self.draft_model, self.disk_usage)  # and the crop network it names, beside it

    def photo_size(self) -> int | None:
        """About how much room one calibration photo takes (the mean of those on the card), or None."""
        sizes = [p.stat().st_size for folder in (self.draft, self.photos_dir(self.current()))
                 for p in folder.glob("*/*.png")][:200]
        return sum(sizes) // len(sizes) if sizes else None

    def model_size(self) -> int:
        """About how much room a built model takes (the largest on the card, else the shipped one's)."""
        sizes = [p.stat().st_size for p in (*self.root.glob("model-*.npz"), self.draft_model) if p.exists()]
        return max(sizes) if sizes else DEFAULT_PATH.stat().st_size

    def folder_size(self, folder: Path) -> int:
        return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())

    # --- corrections ----------------------------------------------------------------------------------

    def keep_correction(self, frame: np.ndarray, dice: list, faces: list[str], clock=time.time) -> int:
        """Keep the crops of the dice of a corrected roll with their corrected faces; returns how many.
        Its crops are written first and its note last: a full card keeps all of a roll or none of it
        (WriteError, also kept in `unkept` for the page to say)."""
        ident = f"{int(clock() * 1000):d}"
        h, w = frame.shape[:2]
        entries = []
        boxes = [_grown(d.box, w, h) for d in dice]
        try:
            for k, (die, face) in enumerate(zip(dice, faces)):
                x0, y0, x1, y1 = boxes[k]
                if any(_overlap(boxes[k], other) for j, other in enumerate(boxes) if j != k):
                    continue  # a die touching another: its crop would teach part of the neighbour too
                name = f"{ident}-{k}.png"
                self._write_png(self.corrections / name, frame[y0:y1, x0:x1])
                entries.append({"face": face, "file": name, "at": [x0, y0]})
            if not entries:
                return 0
            self._write(self.corrections / f"{ident}.json", json.dumps({"size": [w, h], "dice": entries}).encode())
        except files.WriteError as exc:
            self.drop_corrections([ident])
            self.unkept = exc.words("correct the next roll again") + " (a corrected roll could not be kept)"
            raise
        self.unkept = None
        waiting = [ident for ident, _ in self.pending()]
        self.drop_corrections(waiting[:max(len(waiting) - PENDING_ROLLS, 0)])
        return len(entries)

    def pending(self) -> list[tuple[str, dict]]:
        """(ident, what was kept) of each corrected roll waiting, oldest first."""
        out = []
        for p in sorted(self.corrections.glob("*.json"), key=_by_age):
            try:
                out.append((p.stem, json.loads(p.read_text())))
            except (OSError, ValueError):
                continue
        return out

    def pending_dice(self) -> int:
        return sum(len(m.get("dice", [])) for _, m in self.pending())

    def compose_corrections(self, folder: Path) -> list[str]:
        """Write each corrected roll into folder as calibration photos: per face, the dice of that face
        pasted where they lay onto the folder's first empty-tray photo. Returns the corrections used."""
        empties = sorted((folder / "empty").glob("*.png"))
        if not empties:
            return []
        plate = cv2.imread(str(empties[0]))
        used = []
        for ident, meta in self.pending():
            if plate is None or list(meta.get("size", [])) != [plate.shape[1], plate.shape[0]]:
                continue  # another camera or resolution: these dice would teach the wrong picture
            by_face: dict[str, np.ndarray] = {}
            for d in meta.get("dice", []):
                crop = cv2.imread(str(self.corrections / d["file"]))
                if crop is None or d.get("face") not in DICE_FACES:
                    continue
                canvas = by_face.setdefault(d["face"], plate.copy())
                x0, y0 = d["at"]
                canvas[y0:y0 + crop.shape[0], x0:x0 + crop.shape[1]] = crop
            for face, canvas in by_face.items():
                self._write_png(folder / face / f"corrected-{ident}.png", canvas)
            used.append(ident)
        for face in DICE_FACES:
            corrected = sorted((folder / face).glob("corrected-*.png"), key=_by_age)
            for p in corrected[:max(len(corrected) - CORRECTED_PER_FACE, 0)]:
                p.unlink()
        return used

    def drop_corrections(self, idents) -> None:
        for ident in idents:
            meta = self.corrections / f"{ident}.json"
            for p in self.corrections.glob(f"{ident}-*.png"):
                p.unlink(missing_ok=True)
            meta.unlink(missing_ok=True)


def _read_json(path: Path, keys: tuple[str, ...]) -> tuple[dict, str | None]:
    """(the JSON object at path, None) or ({}, one line naming the file and what is wrong)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}, f"{path} is missing"
    except OSError as exc:
        return {}, f"{path} cannot be read: {exc.strerror or exc}"
    if not raw.strip():
        return {}, f"{path} is empty"
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        return {}, f"{path} is cut short or not JSON ({exc})"
    if not isinstance(data, dict) or not set(keys) & set(data):
        return {}, f"{path} is not what its name says (no {', '.join(keys)})"
    if not isinstance(data.get("format", FORMAT), int) or data.get("format", FORMAT) > FORMAT:
        return {}, f"{path} is format {data.get('format')!r}, made by a newer companion (this one reads {FORMAT})"
    data.pop("format", None)  # written by every write, not part of what the file says
    return data, None
