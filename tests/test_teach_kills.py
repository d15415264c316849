"""Killed at any moment of Use it, Back to the previous model or Learn from corrections, the companion
restarts with a dice store whose model in use loads (the old model or the new, never half of one)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from pathlib import Path

from companion.config import Settings
from table_companion.run import taught_model
from tests.support.teaching import QuickRig, small_model
from vision.name.modelfile import save_model
from vision.teach.captures import DEFAULT, DiceStore

ROOT = Path(__file__).resolve().parent.parent
KILLS = 50


def test_a_kill_at_any_point_of_using_going_back_or_learning_leaves_a_model_that_loads(tmp_path, monkeypatch, capsys):
    import vision.teach.calibrate

    model_file = tmp_path / "small.npz"
    save_model(small_model(), model_file)
    monkeypatch.setattr(vision.teach.calibrate, "calibrate", lambda folder, **k: small_model())
    root = tmp_path / "dice"
    rig = QuickRig(root)  # a table with a taught model in use, and one corrected roll waiting
    rig.teach()
    rig.teacher.finish(30)
    rig.teacher.use()
    rig.correct()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    rng = random.Random(60)
    seen = set()
    for kill in range(KILLS):
        child = subprocess.Popen([sys.executable, str(ROOT / "tests" / "support" / "teach_kills.py"), str(root),
                                  str(model_file), str(kill)], stdout=subprocess.PIPE, env=env, text=True)
        try:
            assert child.stdout.readline() == "ready\n", "the child did not start"
            for _ in range(rng.randrange(1, 16)):  # the writes and renames of a few uses, returns and learnings
                assert child.stdout.readline() == "point\n", "the child stopped"
            child.send_signal(signal.SIGKILL)
        finally:
            child.kill()
            child.wait(10)
            child.stdout.close()
        store = DiceStore(root)  # the restart
        assert store.index_problem() is None, f"kill {kill}: {store.index_problem()}"
        current = store.current()
        assert current == DEFAULT or store.problem(current) is None, f"kill {kill}: {store.problem(current)}"
        assert taught_model(store, Settings(), explicit=False) is not None or current == DEFAULT
        assert (store.meta() or {}).get("error") is None, f"kill {kill}: {store.meta()}"
        seen.add(current)
    assert not capsys.readouterr().err and len(seen) > 3  # the kills landed in many uses, not one
