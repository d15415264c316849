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

import cv2
import numpy as np

from companion.commands import DICE_FACES

from ..name.model import Model, load_model, save_model

STEPS = DICE_FACES + ("empty",)  # the wizard's order: each face, then the empty tray
DEFAULT = "default"  # the model shipped in the package
CROP_MARGIN = 0.12  # of a die's box kept around it in a correction's crop: its rounded edge, not a neighbour
# A table corrected over months must not make each "Learn from corrections" slower than the last:
# calibration takes time in step with its photos (18 photos per face of five dice, about 12 s here and
# some 50 s on a Pi 4: bench/vision.py --only speed), and every learning adds the corrected rolls to
# the photos. The newest are kept: they show the table, the lamp and the dice as they are now.
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
    def __init__(self, root):
        self.root = Path(root)
        self.draft = self.root / "draft"
        self.draft_model = self.root / "draft.npz"
        self.corrections = self.root / "corrections"

    # --- the models ---------------------------------------------------------------------------

    def index(self) -> dict:
        try:
            data = json.loads((self.root / "models.json").read_text())
            return data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            return {}

    def _write_index(self, data: dict) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = self.root / "models.json.tmp"
        tmp.write_text(json.dumps(data))
        tmp.replace(self.root / "models.json")  # a power cut leaves the old index or the new, never half

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
        """The built draft becomes the model in use; the one in use until now becomes the previous."""
        index = self.index()
        n = int(index.get("next", 1))
        self.draft_model.replace(self.model_path(n))
        (self.draft / "meta.json").unlink(missing_ok=True)
        self.draft.replace(self.photos_dir(n))
        index.update(current=n, previous=index.get("current") or DEFAULT, next=n + 1)
        self._write_index(index)
        self._prune(index)
        return n

    def revert(self):
        """Swap the model in use and the previous one; returns the one now in use (a number or DEFAULT)."""
        index = self.index()
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
        try:
            return json.loads((self.draft / "meta.json").read_text())
        except (OSError, ValueError):
            return None

    def write_meta(self, meta: dict) -> None:
        self.draft.mkdir(parents=True, exist_ok=True)
        (self.draft / "meta.json").write_text(json.dumps(meta))

    def start_draft(self, meta: dict, copy_from: Path | None = None) -> None:
        self.drop_draft()
        if copy_from is not None:
            shutil.copytree(copy_from, self.draft)
        for step in STEPS:
            (self.draft / step).mkdir(parents=True, exist_ok=True)
        self.write_meta(meta)

    def drop_draft(self) -> None:
        shutil.rmtree(self.draft, ignore_errors=True)
        self.draft_model.unlink(missing_ok=True)

    def counts(self) -> dict[str, int]:
        return {s: len(list((self.draft / s).glob("*.png"))) if (self.draft / s).is_dir() else 0 for s in STEPS}

    def add_capture(self, step: str, frame: np.ndarray) -> Path:
        folder = self.draft / step
        folder.mkdir(parents=True, exist_ok=True)
        n = max([int(p.stem.split("-")[-1]) for p in folder.glob(f"{step}-*.png") if p.stem.split("-")[-1].isdigit()]
                or [0]) + 1
        path = folder / f"{step}-{n:03d}.png"
        if not cv2.imwrite(str(path), frame):
            raise OSError(f"could not write {path}")
        return path

    def save_draft_model(self, model: Model) -> None:
        save_model(model, self.draft_model)

    # --- corrections ----------------------------------------------------------------------------------

    def keep_correction(self, frame: np.ndarray, dice: list, faces: list[str], clock=time.time) -> int:
        """Keep the crops of the dice of a corrected roll with their corrected faces; returns how many."""
        self.corrections.mkdir(parents=True, exist_ok=True)
        ident = f"{int(clock() * 1000):d}"
        h, w = frame.shape[:2]
        entries = []
        boxes = [_grown(d.box, w, h) for d in dice]
        for k, (die, face) in enumerate(zip(dice, faces)):
            x0, y0, x1, y1 = boxes[k]
            if any(_overlap(boxes[k], other) for j, other in enumerate(boxes) if j != k):
                continue  # a die touching another: its crop would teach part of the neighbour too
            name = f"{ident}-{k}.png"
            cv2.imwrite(str(self.corrections / name), frame[y0:y1, x0:x1])
            entries.append({"face": face, "file": name, "at": [x0, y0]})
        if not entries:
            return 0
        (self.corrections / f"{ident}.json").write_text(json.dumps({"size": [w, h], "dice": entries}))
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
                cv2.imwrite(str(folder / face / f"corrected-{ident}.png"), canvas)
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
