"""Trays of another maker's ZomBee art, drawn by bench/second_renderer.py (written apart from vision/demo),
and how many of their dice a model reads right."""

import importlib.util
import sys
from pathlib import Path

import numpy as np

from vision.reader import DiceReader

ROOT = Path(__file__).resolve().parent.parent.parent


def second_renderer():
    """bench/second_renderer.py as a module."""
    spec = importlib.util.spec_from_file_location("second_renderer", ROOT / "bench" / "second_renderer.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["second_renderer"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def table_and_rolls(sr, seed, folder, rolls=15):
    """A documented table of seed (dark dice on a light tray), its calibration photos written into
    folder, and rolls of it: (table, scenes)."""
    rng = np.random.default_rng(seed)
    table = sr.random_table(rng, sr.DARK_BODIES, sr.LIGHT_SURFACES, 8.0, (25.0, 50.0))
    sr.write_calibration(folder, rng, table)
    scenes = [sr.render(rng, table, [str(f) for f in rng.choice(sr.FACES, size=int(rng.integers(1, 6)))])
              for _ in range(rolls)]
    return table, scenes


def read_right(model, table, scenes) -> int:
    """Dice of scenes read as their face, told how many were thrown (as the game does)."""
    reader, n = DiceReader(model), 0
    for scene in scenes:
        reading = reader.read(scene.image, expected=len(scene.dice))
        for x, y, face in scene.dice:
            near = [d for d in reading.dice if np.hypot(d.x - x, d.y - y) <= 0.6 * table.die_px]
            n += bool(near) and near[0].face == face
    return n
