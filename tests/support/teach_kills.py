"""The child process of the kill test (tests/test_teach_kills.py): over and over, Use it on a freshly
built model, Back to the previous model, and Learn from corrections then Use it, on the dice store at
argv[1]. It prints `ready` once set up and `point` just before each write and rename of the store
made by those three steps (not by the captures before them), so the parent can kill it (SIGKILL) at a
random one of them.

Test support only: it is not part of the installed package.
"""

from __future__ import annotations

import pathlib
import random
import sys

import companion.files
import vision.teach.calibrate
from tests.support.teaching import QuickRig
from vision.name.modelfile import load_model


LIVE = []  # non-empty while one of the three steps runs


def point(real):
    def wrapped(*args, **kwargs):
        if LIVE:
            print("point", flush=True)
        return real(*args, **kwargs)
    return wrapped


def live(step, *args):
    LIVE.append(step)
    try:
        return step(*args)
    finally:
        LIVE.clear()


def main(root: str, model_file: str, seed: int) -> None:
    vision.teach.calibrate.calibrate = lambda folder, **k: load_model(model_file)
    rig = QuickRig(root)
    if rig.store.meta() is not None:  # a calibration left by the last kill: cancelled, as a person would
        rig.teacher.cancel()
    companion.files.write_atomic = point(companion.files.write_atomic)
    pathlib.Path.replace = point(pathlib.Path.replace)
    rng = random.Random(seed)
    print("ready", flush=True)
    while True:
        kind = rng.choice(["use", "revert", "learn"])
        if kind == "use":
            rig.teach()
            rig.teacher.finish(30)
            live(rig.teacher.use)
        elif kind == "revert" and rig.store.index().get("previous"):
            live(rig.teacher.revert)
        elif kind == "learn" and rig.store.current() != "default":
            rig.correct()
            live(rig.teacher.learn, 30)
            live(rig.teacher.use)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
