"""A full memory card while the dice are taught: every write of the dice store refused in turn, and
the wizard ends with the reason, recovers once room is made, and keeps all it acknowledged; room
asked before a step starts; a damaged model, meta or index file said in one line, nothing deleted."""

from __future__ import annotations

import errno
import shutil
from types import SimpleNamespace

import pytest

import companion.files
import vision.teach.calibrate
from companion.files import WriteError
from tests.support.teaching import FEW, QuickRig, small_model
from vision.teach.room import NoRoom
from vision.teach.wizard import TeachError

FULL = 16 * 1024


class Card:
    """companion.files.write_atomic, refusing its `fail_at`-th write (counted from 0) as a full card;
    room is made again at once (the next write goes through)."""

    def __init__(self, real, fail_at: int | None = None):
        self.real, self.fail_at, self.writes, self.failed = real, fail_at, [], None

    def __call__(self, path, data, **options):
        self.writes.append(path.name)
        if len(self.writes) - 1 == self.fail_at:
            self.failed = path.name
            raise WriteError(path, "No space left on device", code=errno.ENOSPC, free=FULL)
        return self.real(path, data, **options)


@pytest.fixture
def quick(monkeypatch):
    monkeypatch.setattr(vision.teach.calibrate, "calibrate", lambda folder, **k: small_model())


@pytest.fixture
def taught(tmp_path, quick):
    """A store with a model taught and in use (model 1): what a table has before the card fills."""
    rig = QuickRig(tmp_path / "template")
    rig.teach()
    rig.teacher.finish(30)
    rig.teacher.use()
    return tmp_path / "template"


def journey(rig: QuickRig, said: list):
    """Teach the dice, use it, keep a corrected roll, learn from it, use that, go back: each step tried
    again once when the card refused it (room made), as a person would after reading the reason."""
    acknowledged = {"captures": dict.fromkeys(FEW, 0), "corrections": []}

    def step(action, *args):
        try:
            return action(*args)
        except (NoRoom, TeachError, WriteError) as exc:
            said.append(str(exc) if not isinstance(exc, WriteError) else rig.store.unkept)
            if said[-1].endswith("tap Finish again"):  # the build ended: its captures are there
                return rig.teacher.finish(30)
            return action(*args)

    def check():  # after every step: nothing acknowledged is lost, the model in use loads
        counts = rig.store.counts() if rig.store.meta() and rig.store.meta()["kind"] == "wizard" else None
        if counts is not None:
            assert counts == acknowledged["captures"]
        waiting = {ident for ident, _ in rig.store.pending()}
        kept = [rig.store.photos_dir(rig.store.index().get(k)) for k in ("current", "previous")]
        for ident in acknowledged["corrections"]:
            assert ident in waiting or any(list(p.glob(f"*/corrected-{ident}.png")) for p in kept)
        assert rig.store.problem(rig.store.current()) is None and rig.store.index_problem() is None

    step(rig.teacher.start)
    check()
    for face, n in FEW.items():
        for _ in range(n):
            rig.show(face)
            if step(rig.teacher.capture, face)["accepted"]:
                acknowledged["captures"][face] += 1
            check()
    assert "report" not in step(rig.teacher.finish, 30) and rig.store.counts() == FEW
    check()
    step(rig.teacher.use)
    assert rig.store.current() == 2
    check()
    if step(rig.correct):
        acknowledged["corrections"].append(rig.store.pending()[-1][0])
    check()
    step(rig.teacher.learn, 30)
    check()
    step(rig.teacher.use)
    assert rig.store.current() == 3 and rig.store.pending_dice() == 0
    check()
    step(rig.teacher.revert)
    assert rig.store.current() == 2
    check()


def test_each_write_of_the_store_refused_in_turn_is_said_and_recovered_from_with_nothing_lost(
        taught, tmp_path, monkeypatch):
    real = companion.files.write_atomic
    counting = Card(real)
    monkeypatch.setattr(companion.files, "write_atomic", counting)
    journey(QuickRig(shutil.copytree(taught, tmp_path / "count")), said := [])
    assert not said and len(counting.writes) >= 25
    refused = set()
    for k in range(len(counting.writes)):
        card = Card(real, fail_at=k)
        monkeypatch.setattr(companion.files, "write_atomic", card)
        root = shutil.copytree(taught, tmp_path / f"run-{k}")
        rig = QuickRig(root)
        journey(rig, said := [])
        refused.add(card.failed)
        assert said, f"write {k} ({card.failed}) refused without a word"
        assert said[0].startswith("The memory card is full (16 KB free); delete old game exports or photos, then "), said
        assert rig.teacher.status()["wizard"] is None and rig.teacher._built.is_set()
        assert not list(root.rglob(".*.part")), "a half-written file was left"
    # every kind of file the store writes was refused once
    assert {"meta.json", "draft.npz", "models.json", "bee-001.png", "empty-001.png"} <= refused
    assert any(n.endswith(".json") and n[0].isdigit() for n in refused)  # a correction's note
    assert any(n.startswith("corrected-") for n in refused)  # a corrected die pasted for learning


def test_a_build_whose_model_cannot_be_saved_ends_with_the_reason_and_teaching_goes_on(tmp_path, quick, monkeypatch):
    # main: the build thread died in save_model, Finish answered "building" for good, Teach the dice
    # said "still being built" until a restart
    rig = QuickRig(tmp_path / "dice")
    rig.teach()
    broken = OSError(errno.ENOSPC, "No space left on device")
    with monkeypatch.context() as card:
        card.setattr(rig.store, "save_draft_model", lambda model: (_ for _ in ()).throw(broken))
        with pytest.raises(TeachError, match=r"could not be saved \(\[Errno 28\] No space left on device\); tap Fin"):
            rig.teacher.finish(30)
        assert rig.teacher._built.is_set() and rig.teacher.status()["wizard"]["building"] is False
    assert "faces" in rig.teacher.finish(30) or rig.teacher.status()["wizard"]["report"]
    rig.teacher.cancel()
    rig.teacher.start()  # not "a cancelled calibration is still being built"


def test_a_meta_that_cannot_be_written_after_the_build_still_ends_it(tmp_path, quick, monkeypatch):
    rig = QuickRig(tmp_path / "dice")
    rig.teach()
    real = rig.store.write_meta
    calls = []

    def full(meta):  # the first write (Finish tapped) goes through; the build's own do not
        calls.append(meta)
        if len(calls) > 1:
            raise WriteError(rig.store.draft / "meta.json", "No space left on device", code=errno.ENOSPC, free=FULL)
        real(meta)

    with monkeypatch.context() as card:
        card.setattr(rig.store, "write_meta", full)
        with pytest.raises(TeachError, match=r"^The memory card is full \(16 KB free\); delete old game exports "
                                             r"or photos, then tap Finish again$"):
            rig.teacher.finish(30)
        assert not rig.store.draft_model.exists() and rig.store.counts() == FEW
    rig.teacher.finish(30)
    rig.teacher.use()
    assert rig.store.current() == 1


def space(free):
    return lambda path: SimpleNamespace(free=free, total=8 << 20, used=0)


def test_steps_are_refused_at_once_when_the_card_lacks_their_room(tmp_path, quick):
    rig = QuickRig(tmp_path / "dice", disk_usage=space(FULL))
    with pytest.raises(NoRoom, match=r"^The memory card is too full to teach the dice: about .* needed, 16 KB free; "
                                     r"delete old game exports or photos, then tap Teach the dice again$"):
        rig.teacher.start()
    assert rig.teacher.status()["wizard"] is None
    rig.store.disk_usage = space(1 << 30)
    rig.teach()
    rig.store.disk_usage = space(FULL)
    with pytest.raises(NoRoom, match="too full to keep another capture"):
        rig.capture("bee")
    with pytest.raises(NoRoom, match="too full to build the model"):
        rig.teacher.finish(30)
    rig.store.disk_usage = space(1 << 30)
    rig.teacher.finish(30)
    rig.teacher.use()
    rig.correct()
    rig.store.disk_usage = space(FULL)
    with pytest.raises(NoRoom, match="too full to learn from corrections"):
        rig.teacher.learn(30)
    assert rig.store.pending_dice() == 2 and rig.teacher.status()["wizard"] is None


def test_low_room_is_said_by_the_camera_view_and_healthz(tmp_path):
    from companion.files import room
    from vision.camera.latest import LatestFrame
    from vision.camera.view import CameraView

    view = CameraView(LatestFrame(), lambda: None, lambda: None, space=lambda: room(12 << 20))
    problems = view.status()["problems"]
    assert problems[-1]["code"] == "space" and "nearly full (12.0 MB free)" in problems[-1]["text"]
    assert room(60 << 20) == {"free": 60 << 20, "low": False, "text": ""}


def files_of(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def two_models(root):
    """A store with model 2 in use and model 1 the previous one."""
    rig = QuickRig(root)
    for _ in range(2):
        rig.teach()
        rig.teacher.finish(30)
        rig.teacher.use()
    assert rig.store.index() == {"current": 2, "previous": 1, "next": 3}
    return rig


BAD = {"truncated": lambda good: good[:len(good) // 2], "empty": lambda good: b"",
       "another version": None, "not what its name says": lambda good: b'["a", "list"]'}


@pytest.mark.parametrize("bad", BAD)
def test_a_damaged_index_is_said_in_one_line_and_the_newest_model_that_loads_is_offered(tmp_path, quick, bad, capsys):
    from companion.config import Settings
    from table_companion.run import taught_model

    rig = two_models(tmp_path / "dice")
    index = rig.store.root / "models.json"
    index.write_bytes(BAD[bad](index.read_bytes()) if BAD[bad] else b'{"current": 2, "format": 9}')
    before = files_of(rig.store.root)
    used = len(rig.in_use)
    status = rig.teacher.status()
    problem = status["problems"][0]
    assert problem.startswith(f"{index} ") and "\n" not in problem and len(status["problems"]) == 1
    assert {"truncated": "cut short or not JSON", "empty": "is empty", "another version": "format 9, made by a newer",
            "not what its name says": "not what its name says"}[bad] in problem
    assert status["restore"]["name"] == 2 and "model 2" in problem
    assert len(rig.in_use) == used  # the model read with stays as it was while the companion runs
    assert taught_model(rig.store, Settings(), explicit=False) is None  # after a restart: the shipped one, said
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(index) in err and "chosen on the phone" in err
    with pytest.raises(TeachError, match="cannot be told"):
        rig.teacher.revert()
    assert files_of(rig.store.root) == before  # nothing deleted
    assert rig.teacher.restore()["model"]["name"] == 2 and rig.teacher.status()["problems"] == []
    assert rig.store.index() == {"current": 2, "previous": 1, "next": 3} and rig.in_use[-1].report


@pytest.mark.parametrize("bad", BAD)
def test_a_damaged_model_in_use_is_said_and_the_previous_one_read_with(tmp_path, quick, bad, capsys):
    import numpy as np

    from companion.config import Settings
    from table_companion.run import taught_model

    rig = two_models(tmp_path / "dice")
    model = rig.store.model_path(2)
    if BAD[bad]:
        model.write_bytes(BAD[bad](model.read_bytes()))
    else:
        with np.load(model) as z:
            arrays = {k: z[k] for k in z.files}
        np.savez(model.open("wb"), **{**arrays, "format_version": np.array(99)})
    before = files_of(rig.store.root)
    taught = taught_model(rig.store, Settings(), explicit=False)
    assert taught.protos.shape == rig.store.load(1).protos.shape  # the previous, intact model
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"'{model}'" in err and "trying the previous one" in err
    (problem,) = rig.teacher.status()["problems"]
    assert problem.startswith(f"model file '{model}'") and problem.endswith("reading with the previous model")
    with pytest.raises(TeachError, match="model-2.npz"):  # nor is it put back in use from the previous one
        rig.teacher.revert(), rig.teacher.revert()
    assert files_of(rig.store.root) == before


@pytest.mark.parametrize("bad", BAD)
def test_a_damaged_calibration_note_keeps_its_captures_and_is_built_again(tmp_path, quick, bad):
    rig = QuickRig(tmp_path / "dice")
    rig.teach()
    meta = rig.store.draft / "meta.json"
    meta.write_bytes(BAD[bad](meta.read_bytes()) if BAD[bad] else b'{"kind": "wizard", "started": 1, "format": 2}')
    wizard = rig.teacher.status()["wizard"]
    assert wizard["error"].startswith(f"{meta} ") and wizard["error"].endswith(
        "the captures are kept: tap Finish to build from them, or Cancel")
    assert rig.store.counts() == FEW
    with pytest.raises(TeachError, match="already under way"):
        rig.teacher.start()  # which would drop the captures
    rig.teacher.finish(30)
    rig.teacher.use()
    assert rig.store.current() == 1


def test_a_finish_whose_calibration_is_cancelled_meanwhile_says_so(tmp_path, monkeypatch):
    import threading

    building, gate = threading.Event(), threading.Event()
    monkeypatch.setattr(vision.teach.calibrate, "calibrate",
                        lambda folder, **k: (building.set(), gate.wait(10), small_model())[2])
    rig = QuickRig(tmp_path / "dice")
    rig.teach()
    answers = []
    waiting = threading.Thread(target=lambda: answers.append(pytest.raises(TeachError, rig.teacher.finish, 30)))
    waiting.start()
    assert building.wait(10)
    rig.teacher.cancel()
    gate.set()
    waiting.join(10)
    assert "was cancelled (maybe on another phone) while its model was built" in str(answers[0].value)
    rig.teacher.start()
