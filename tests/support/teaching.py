"""A dice store taught quickly, for the full-card and kill tests: a tray that reads as whatever step it
is told to show, and a small model (the shipped one cut to a few prototypes of each face) that the
calibration is patched to return. What is tested is the store and the wizard, not the reading.

Test support only: it is not part of the installed package.
"""

from __future__ import annotations

import time
from dataclasses import replace
from types import SimpleNamespace

import numpy as np

from vision.camera.latest import LatestFrame
from vision.name.modelfile import load_model
from vision.teach.captures import DiceStore
from vision.teach.wizard import Teacher

FEW = {"bee": 2, "honey": 2, "zzz": 2, "zombee": 2, "empty": 1}
SPOTS = [(40, 40, 30, 30), (120, 40, 30, 30), (40, 120, 30, 30), (120, 120, 30, 30)]  # apart


def small_model(report: dict | None = None):
    """The shipped model with 10 prototypes per class: it saves in milliseconds and loads."""
    d = load_model(None)
    idx = np.concatenate([np.flatnonzero(d.labels == c)[:10] for c in np.unique(d.labels)])
    return replace(d, protos=d.protos[idx], labels=d.labels[idx], report=report or {"accuracy": 1.0})


class Tray:
    """Reads as `showing` says: four dice of that face, none on the empty tray."""

    def __init__(self):
        self.showing = "empty"
        self.frame = np.random.default_rng(1).integers(0, 255, (200, 200, 3), np.uint8)

    def reading(self, faces=None):
        faces = faces if faces is not None else ([] if self.showing == "empty" else [self.showing] * 4)
        dice = [SimpleNamespace(face=f, confidence=1.0, box=SPOTS[k]) for k, f in enumerate(faces)]
        return SimpleNamespace(dice=dice, hand=False, faces=list(faces))

    def read(self, frame, *a, **k):
        return self.reading()

    read_any_tray = read


class QuickRig:
    """A Teacher over a DiceStore at root, with the Tray as its camera and reader."""

    def __init__(self, root, disk_usage=None):
        self.tray = Tray()
        self.latest = LatestFrame()
        self.in_use = []
        self.store = DiceStore(root, **({"disk_usage": disk_usage} if disk_usage else {}))
        self.teacher = Teacher(self.store, self.latest, lambda: self.tray, self.in_use.append, suggested=FEW)

    def show(self, step):
        self.tray.showing = step
        self.latest.put(time.monotonic(), self.tray.frame)

    def capture(self, step):
        self.show(step)
        return self.teacher.capture(step)

    def teach(self):
        self.teacher.start()
        for step, n in FEW.items():
            for _ in range(n):
                assert self.capture(step)["accepted"]

    def correct(self, faces=("honey", "zzz")) -> int:
        """A corrected roll kept: two dice read as bees, corrected."""
        return self.store.keep_correction(self.tray.frame, self.tray.reading(["bee"] * len(faces)).dice, list(faces))
