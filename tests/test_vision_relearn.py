"""Corrections teach (vision/teach/relearn.py): after a corrected roll the next model is learned in the
background and switched in only when it reads the corrected rolls at least as well; the phones are told."""

from __future__ import annotations

import pytest

import vision.teach.relearn as relearn
from test_vision_teach import Rig
from vision.teach.relearn import Relearner, kept_rolls, learned_words


@pytest.fixture
def taught(tmp_path):
    rig = Rig(tmp_path / "dice")
    rig.teach()
    rig.teacher.finish()
    rig.teacher.use()
    return rig


def _correct(rig, faces=("bee", "honey")):
    """A roll the camera read, corrected on a phone to faces (kept as corrections.CorrectionWatcher keeps it)."""
    rig.show(list(faces))
    frame = rig.latest.get().frame
    reading = rig.reader.read(frame)
    assert sorted(reading.faces) == sorted(faces)  # each die's face, in the reading's order
    return rig.store.keep_correction(frame, reading.dice, reading.faces)


def test_a_model_learned_from_corrections_that_reads_them_as_well_is_switched_in_and_said(taught):
    before = taught.store.current()
    assert _correct(taught) == 2
    learner = Relearner(taught.teacher, clock=lambda: 1000.0)
    learner.kept()
    assert learner.wait(120)
    last = taught.teacher.status()["learned"]
    assert last["adopted"] is True and last["rolls"] == 1 and last["after"] >= last["before"]
    assert taught.store.current() != before and taught.store.pending_dice() == 0  # learned, nothing waits
    assert taught.in_use[-1] is not None and taught.store.meta() is None  # in use at once; no wizard left open
    assert learned_words(last).startswith("learned from 1 corrected rolls: ")
    assert len(kept_rolls(taught.store.photos_dir(taught.store.current()))) == 2  # one photo per face


def test_a_model_that_reads_the_corrected_rolls_worse_is_not_used_and_the_corrections_wait(taught, monkeypatch):
    before = taught.store.current()
    _correct(taught)
    monkeypatch.setattr(relearn, "read_as_well", lambda models, rolls: ([0.97, 0.9], 10))
    learner = Relearner(taught.teacher)
    learner.kept()
    assert learner.wait(120)
    last = taught.teacher.status()["learned"]
    assert last["adopted"] is False and (last["before"], last["after"]) == (0.97, 0.9)
    assert taught.store.current() == before and taught.store.pending_dice() == 2 and taught.store.meta() is None
    assert learned_words(last) == ("kept the model in use: it reads the 1 corrected rolls 97.0 % right, "
                                   "the model learned from them 90.0 %")


def test_nothing_is_learned_while_a_wizard_is_open_or_before_the_table_was_taught(tmp_path, taught):
    fresh = Rig(tmp_path / "fresh")
    _correct(fresh)  # corrected under the shipped model: added to a calibration only once there is one
    assert Relearner(fresh.teacher).once() is None and fresh.store.pending_dice() == 2
    _correct(taught)
    taught.teacher.start()  # a phone is teaching the dice: its draft is not taken over
    assert Relearner(taught.teacher).once() is None
    assert taught.store.meta()["kind"] == "wizard" and taught.store.pending_dice() == 2


def test_a_learning_that_fails_tells_the_phones_and_leaves_the_model_in_use(taught, monkeypatch):
    before = taught.store.current()
    _correct(taught)

    def broken(*a, **k):
        raise RuntimeError("the card is full")
    monkeypatch.setattr(relearn, "read_as_well", broken)
    learner = Relearner(taught.teacher, clock=lambda: 5.0)
    learner.kept()
    assert learner.wait(120)
    assert taught.teacher.status()["learned"] == {"at": 5.0, "error": "learning from corrected rolls failed: "
                                                                      "the card is full"}
    assert taught.store.current() == before
