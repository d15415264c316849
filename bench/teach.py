"""How long teaching the dice from the phone takes to build its model, on one core.

    python bench/teach.py [--per-face 5] [--empty 3]

Lays the demo's dice as the wizard asks (all five dice, each face, then the empty tray), captures
each through vision.teach.wizard.Teacher, then times `finish()` (the calibration in its worker thread)
with OpenCV and the BLAS held to one thread. Target: 60 s on one core.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = "1"  # before numpy is imported
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2  # noqa: E402

from table_companion.demo import demo_camera, lay_apart  # noqa: E402
from vision.teach.captures import DiceStore  # noqa: E402
from vision.camera.latest import LatestFrame  # noqa: E402
from vision.reader import DiceReader  # noqa: E402
from vision.teach.wizard import Teacher  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--per-face", type=int, default=5)
    parser.add_argument("--empty", type=int, default=3)
    args = parser.parse_args()
    cv2.setNumThreads(1)
    camera = demo_camera()
    camera.realtime = False
    latest, reader = LatestFrame(), DiceReader()
    with tempfile.TemporaryDirectory() as tmp:
        teacher = Teacher(DiceStore(Path(tmp) / "dice"), latest, lambda: reader, lambda model: None)
        teacher.start()
        for step in ("bee", "honey", "zzz", "zombee", "empty"):
            for _ in range(args.empty if step == "empty" else args.per_face):
                lay_apart(camera, [] if step == "empty" else [step] * 5)
                latest.put(*camera.read())
                assert teacher.capture(step)["accepted"]
        wall, cpu = time.perf_counter(), time.process_time()
        report = teacher.finish(wait_s=600)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"teach {args.per_face} captures of 5 dice per face and {args.empty} of the empty tray: model built in "
          f"{wall:.1f} s wall, {cpu:.1f} s CPU (target 60 s on one core); cross-validated accuracy "
          f"{100 * report['accuracy']:.1f}%, weakest {report['weakest']}, ok={report['ok']}")


if __name__ == "__main__":
    main()
