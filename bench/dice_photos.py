"""The hand-labelled real photos (../shared/dice-photos): their own scorer, loaded from the set."""

from __future__ import annotations

import importlib.util
from pathlib import Path


def scorer(photos: Path):
    """The set's score.py as a module (its `match` pairs readings with labelled dice)."""
    spec = importlib.util.spec_from_file_location("dice_photo_score", photos / "score.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
