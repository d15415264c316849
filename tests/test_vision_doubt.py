"""When unsure, ask once: a die between two faces is one question, answered by one tap that enters the roll."""

from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from companion.notices import DiceStatus, NoticeKind
from table_companion.corrections import CorrectionWatcher
from vision.doubt import AnswerConflict, Asking, DoubtError, between, doubted
from vision.reading import Die, Reading
from vision.teach.captures import DiceStore
from vision.tray import RollTracker, TrayWatcher

SPOTS = [(100, 100), (200, 120), (300, 140), (400, 160), (500, 180)]
FACES = ["bee", "bee", "honey", "zzz", "zombee"]
BETWEEN = (("honey", 0.48), ("zzz", 0.41))  # the reader's two likeliest faces of a die it cannot name
CLEARLY_UNKNOWN = (("honey", 0.05), ("zzz", 0.03))  # neither face is close: a cocked die, a face never taught


def die(face, spot, likeliest=None):
    x, y = spot
    conf = likeliest[0][1] if likeliest else 0.99
    return Die(face, x, y, conf, (x - 20, y - 20, 40, 40), likeliest or ((face, 0.99), ("bee", 0.01)))


def reading(faces=FACES, doubts=None):
    """A reading of faces; doubts: position -> the likeliest faces of a die read unknown there."""
    doubts = doubts or {}
    return Reading([die("unknown", s, doubts[i]) if i in doubts else die(f, s)
                    for i, (f, s) in enumerate(zip(faces, SPOTS))])


def frame():
    img = np.full((300, 640, 3), 200, np.uint8)
    for x, y in SPOTS:
        cv2.rectangle(img, (x - 20, y - 20), (x + 20, y + 20), (20, 20, 20), -1)
    return img


@pytest.fixture
def table(table):
    """conftest's table, with a two-player ZomBee game under way."""
    table.submit({"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia"]}, "web")
    return table


def test_a_die_between_two_faces_raises_one_question_and_a_clear_unknown_none():
    assert between(reading(doubts={2: BETWEEN}).dice[2]) == ("honey", "zzz")
    assert between(reading(doubts={2: CLEARLY_UNKNOWN}).dice[2]) is None
    assert between(reading().dice[2]) is None  # read as a face: nothing to ask
    assert doubted(reading(doubts={2: BETWEEN}).dice) == (2,)
    assert doubted(reading(doubts={2: BETWEEN, 3: CLEARLY_UNKNOWN}).dice) is None
    assert doubted(reading(doubts={0: BETWEEN, 2: BETWEEN, 3: BETWEEN}).dice) is None  # too many to ask


def test_the_tracker_asks_about_the_die_and_keeps_checking_a_clear_unknown(table):
    state = table.state()
    action = RollTracker().on_reading(state, reading(doubts={2: BETWEEN}))
    assert action.doubts == (2,) and action.check is None
    assert action.command == {"cmd": "roll", "faces": ["bee", "bee", "unknown", "zzz", "zombee"]}
    clear = RollTracker().on_reading(state, reading(doubts={2: CLEARLY_UNKNOWN}))
    assert clear.doubts == () and clear.command is None and "could not be read" in clear.check


@pytest.fixture
def asked(table, tmp_path):
    """A first roll read with die 3 between honey and zzz: the question open, a keeper of corrections listening."""
    shot = frame()
    read = reading(doubts={2: BETWEEN})
    watcher = TrayWatcher(table, lambda: None, SimpleNamespace(reader=None))
    watcher.last_read = (shot, read)
    store = DiceStore(tmp_path / "dice")
    keeper = CorrectionWatcher(table, watcher, store)
    sub = table.subscribe()
    sub.get(1)
    action = watcher.handle(read, shot)

    def heard():
        out = []
        while (message := sub.get(0.3)) is not None:
            keeper.on_message(message)
            out.append(message)
        return out

    yield SimpleNamespace(table=table, asking=watcher.asking, action=action, heard=heard, store=store)
    sub.close()


def test_every_phone_hears_one_question_and_the_roll_waits(asked):
    notice = next(m for m in asked.heard() if m["type"] == "notice")
    assert notice["kind"] == NoticeKind.DICE and notice["status"] == DiceStatus.ASKED
    assert notice["question"]["questions"] == [{"die": 3, "faces": ["honey", "zzz"], "answer": None}]
    assert notice["text"] == "The camera is unsure of die 3: honey, zzz?"
    assert asked.table.state()["rolls"] == 0  # nothing entered yet
    assert asked.asking.current()["questions"][0]["die"] == 3
    assert asked.asking.crop(3)[:2] == b"\xff\xd8"  # a JPEG of the die


def test_one_tap_enters_the_roll_and_teaches_the_die(asked):
    answer = asked.asking.answer(3, "zzz")
    assert answer["state"]["last_roll"] == ["bee", "bee", "zzz", "zzz", "zombee"]
    assert asked.table.records()[-1]["source"] == "web"  # a phone's roll: a correction
    asked.heard()
    kept = asked.store.pending()[0][1]["dice"]
    assert [d["face"] for d in kept] == ["bee", "bee", "zzz", "zzz", "zombee"]
    assert asked.asking.current() is None  # answered: gone from every phone


def test_a_second_contradicting_answer_is_refused_with_the_first(asked):
    asked.asking.answer(3, "honey")
    with pytest.raises(AnswerConflict, match="die 3 was already answered as honey and the roll entered"):
        asked.asking.answer(3, "zzz")
    assert asked.asking.answer(3, "honey")["state"] is None  # the same answer twice changes nothing
    assert asked.table.state()["last_roll"] == ["bee", "bee", "honey", "zzz", "zombee"]
    assert asked.table.state()["seq"] == 2  # one roll, entered once


def test_an_answer_naming_no_die_asked_or_no_face_of_the_game_is_refused(asked):
    with pytest.raises(DoubtError, match="die 4 was not asked about; the question is about die 3"):
        asked.asking.answer(4, "honey")
    with pytest.raises(DoubtError, match='"dragon" is not a face'):
        asked.asking.answer(3, "dragon")
    assert asked.table.state()["rolls"] == 0 and asked.asking.current() is not None


def test_a_question_is_gone_once_the_roll_is_entered_another_way(asked):
    asked.table.submit({"cmd": "roll", "faces": FACES}, "web")  # "something else": the roll entered by hand
    assert asked.asking.current() is None
    with pytest.raises(AnswerConflict, match="moved on"):
        asked.asking.answer(3, "honey")


def test_two_dice_in_doubt_are_entered_with_the_second_answer_and_both_kept(table, tmp_path):
    read = reading(doubts={1: BETWEEN, 2: (("zzz", 0.45), ("honey", 0.4))})
    watcher = TrayWatcher(table, lambda: None, SimpleNamespace(reader=None))
    watcher.last_read = (frame(), read)
    keeper = CorrectionWatcher(table, watcher, DiceStore(tmp_path / "dice"))
    with table.subscribe() as sub:
        sub.get(1)
        watcher.handle(read, watcher.last_read[0])
        assert watcher.asking.answer(2, "honey")["state"] is None
        assert table.state()["rolls"] == 0
        assert watcher.asking.answer(3, "zzz")["state"]["last_roll"] == ["bee", "honey", "zzz", "zzz", "zombee"]
        while (message := sub.get(0.3)) is not None:
            keeper.on_message(message)
    kept = keeper.store.pending()[0][1]["dice"]
    assert [d["face"] for d in kept] == ["bee", "honey", "zzz", "zzz", "zombee"]


def test_the_reader_names_each_die_s_runner_up_without_changing_its_faces():
    from table_companion.demo import demo_camera
    from vision.reader import DiceReader

    camera = demo_camera()
    camera.realtime = False
    camera.placed = [(f, x, y, 0.3) for f, (x, y) in zip(FACES, [(100, 100), (300, 120), (500, 300),
                                                                 (200, 350), (420, 180)])]
    _, shot = camera.read()
    read = DiceReader().read(shot)
    assert sorted(read.faces) == sorted(FACES)
    for d in read.dice:
        assert len(d.likeliest) == 2 and d.likeliest[0][0] == d.face and d.second != d.face
        assert d.likeliest[0][1] >= d.second_confidence >= 0.0


def test_a_face_read_only_just_with_a_close_runner_up_is_asked_too():
    """A honey read as zzz at little more than the threshold (the misses seen on small real dice) would
    go in silently; asked, one tap puts it right. A face read surely is never asked about."""
    only_just = die("zzz", SPOTS[1], (("zzz", 0.55), ("honey", 0.40)))
    surely = die("zzz", SPOTS[1], (("zzz", 0.8), ("honey", 0.19)))
    alone = die("zzz", SPOTS[1], (("zzz", 0.6), ("bee", 0.1)))  # nothing close: read as it is
    assert between(only_just) == ("zzz", "honey")
    assert between(surely) is None and between(alone) is None
    dice = reading().dice
    assert doubted([dice[0], only_just, *dice[2:]]) == (1,)
    assert doubted([dice[0], surely, *dice[2:]]) is None
