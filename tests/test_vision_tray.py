"""From settled tray readings to roll commands: the tracker's rules and the watcher thread."""

import threading

import numpy as np
import pytest

from companion.engine import Engine
from companion.errors import CameraError
from vision.reading import Die, Reading
from vision.tray import RollTracker, TrayAction, TrayWatcher

SPOTS = [(100, 100), (200, 120), (300, 140), (400, 160), (500, 180)]


def reading(faces, spots=SPOTS):
    return Reading(dice=[Die(f, x, y, 0.99, (x - 20, y - 20, 40, 40)) for f, (x, y) in zip(faces, spots)])


def moved(faces, dx=60):
    return reading(faces, [(x + dx, y + 30) for x, y in SPOTS])


def state(rolls=0, last_roll=(), phase="roll", game="zombee", active="Tom", seq=1):
    """A state as the engine publishes it (its legal moves included): `active`'s turn after `rolls` rolls."""
    players = ["Tom", "Mia"] if active == "Tom" else ["Mia", "Tom"]
    e = Engine({"cmd": "new_game", "game": game, "players": players})
    if rolls:
        e.apply({"cmd": "roll", "faces": list(last_roll)})
    if phase == "flip":
        e.apply({"cmd": "roll", "faces": ["bee"] * 5})
        e.apply({"cmd": "stop"})
    return {**e.state(), "game_id": 1, "seq": seq}


def test_first_roll_of_five_readable_dice_becomes_a_roll():
    action = RollTracker().on_reading(state(), reading(["bee", "bee", "honey", "zzz", "zombee"]))
    assert action.command == {"cmd": "roll", "faces": ["bee", "bee", "honey", "zzz", "zombee"]}


def test_first_roll_with_four_dice_asks_to_check():
    action = RollTracker().on_reading(state(), reading(["bee", "bee", "honey", "zzz"]))
    assert action.command is None and "first roll shows all 5 dice" in action.check and "4" in action.check


def test_a_cocked_die_is_not_guessed():
    action = RollTracker().on_reading(state(), reading(["bee", "unknown", "honey", "zzz", "zombee"]))
    assert action.command is None and "could not be read" in action.check


def test_dice_left_in_place_are_the_ones_picked_up_then_their_roll_is_the_result():
    tracker = RollTracker()
    first = ["bee", "bee", "honey", "zzz", "zombee"]
    tracker.on_reading(state(), reading(first))
    after = state(rolls=1, last_roll=["bee", "bee", "honey", "zzz", "zombee"], seq=2)
    # The player takes out honey and the ZomBee; the three others stay where they lay.
    left = reading(["bee", "bee", "zzz"], [SPOTS[0], SPOTS[1], SPOTS[3]])
    assert tracker.on_reading(after, left).selected == ("bee", "bee", "zzz")
    action = tracker.on_reading(after, moved(["honey", "zombee", "zzz"]))
    assert action.command == {"cmd": "roll", "reroll": ["bee", "bee", "zzz"], "faces": ["honey", "zombee", "zzz"]}


def test_without_a_selection_every_die_of_the_last_roll_was_rolled_again():
    tracker = RollTracker()
    tracker.on_reading(state(), reading(["bee"] * 5))
    action = tracker.on_reading(state(rolls=1, last_roll=["bee"] * 5, seq=2), moved(["honey"] * 5))
    assert action.command == {"cmd": "roll", "reroll": ["bee"] * 5, "faces": ["honey"] * 5}


def test_a_hand_passing_over_untouched_dice_is_not_a_roll():
    tracker = RollTracker()
    faces = ["bee", "bee", "honey", "zzz", "zombee"]
    tracker.on_reading(state(), reading(faces))
    assert tracker.on_reading(state(rolls=1, last_roll=faces, seq=2), reading(faces)) == TrayAction()
    # ...and the dice of the last turn, still lying there, are not the next player's roll.
    assert tracker.on_reading(state(active="Mia", seq=9), reading(faces)).command is None


def test_a_reroll_that_lands_on_the_same_faces_is_still_a_roll():
    tracker = RollTracker()
    faces = ["bee", "honey", "honey", "zzz", "zzz"]
    tracker.on_reading(state(), reading(faces))
    action = tracker.on_reading(state(rolls=1, last_roll=faces, seq=2), moved(faces))
    assert action.command == {"cmd": "roll", "reroll": faces, "faces": faces}


def test_wrong_number_of_dice_after_a_selection_asks_to_check():
    tracker = RollTracker()
    first = ["bee", "bee", "honey", "zzz", "zombee"]
    tracker.on_reading(state(), reading(first))
    after = state(rolls=1, last_roll=first, seq=2)
    tracker.on_reading(after, reading(["bee", "bee"], SPOTS[:2]))
    action = tracker.on_reading(after, moved(["honey", "zzz", "bee"]))
    assert action.command is None and "2 were to be rolled again" in action.check


def test_dice_left_in_the_tray_that_the_rules_keep_aside_ask_to_check():
    tracker = RollTracker()
    first = ["bee", "bee", "honey", "zombee", "zombee"]
    tracker.on_reading(state(), reading(first))
    after = state(rolls=1, last_roll=first, seq=2)
    left = reading(["bee", "zombee"], [SPOTS[0], SPOTS[3]])  # a ZomBee without a Zzz cannot be rolled again
    action = tracker.on_reading(after, left)
    assert action.selected is None and "cannot all be rolled again" in action.check
    assert tracker.dice_expected(after) is None  # one, two or three dice may be thrown next


def test_the_number_of_dice_to_expect_comes_from_the_engine():
    tracker = RollTracker()
    assert tracker.dice_expected(state()) == 5
    assert tracker.dice_expected(state(phase="flip")) is None
    after = state(rolls=1, last_roll=["bee", "zombee", "zombee", "zombee", "zombee"], seq=2)
    assert tracker.dice_expected(after) == 1  # only the bee may be picked up again
    action = tracker.on_reading(after, moved(["honey"]))
    assert action.command == {"cmd": "roll", "reroll": ["bee"], "faces": ["honey"]}


@pytest.mark.parametrize("st", [None, state(phase="flip"), state(game="zoo")])
def test_no_roll_is_taken_when_nobody_is_rolling(st):
    assert RollTracker().on_reading(st, reading(["bee"] * 5)).command is None


# --- the watcher thread, with a real table and a scripted camera --------------------------------

class ScriptedCamera:
    """Frames from a list; raises CameraError when it runs out (a camera unplugged)."""

    def __init__(self, n):
        self.left = n
        self.closed = False

    def read(self):
        if self.left <= 0:
            raise CameraError("camera unplugged")
        self.left -= 1
        return float(self.left), np.zeros((480, 640, 3), np.uint8)

    def close(self):
        self.closed = True


class ScriptedSettler:
    """Gives one prepared item per frame: a Reading (dice at rest) or None (dice moving)."""

    def __init__(self, readings):
        self.readings = list(readings)
        self.hand = False
        self.reader = None
        self.state = "empty"
        self.expected = []  # the dice count the watcher said was thrown, per frame

    def reset(self):
        pass

    def feed(self, stamp, frame, expected=None):
        self.expected.append(expected)
        item = self.readings.pop(0) if self.readings else None
        self.state = "moving" if item is None and self.readings else "still"
        return item


@pytest.fixture
def table(table):
    """conftest's table, with a two-player ZomBee game under way."""
    table.submit({"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia"]}, "web")
    return table


def test_watcher_sends_the_roll_and_reports_a_lost_camera_then_reconnects(table):
    opened = []
    reconnected = threading.Event()

    def open_camera():
        opened.append(ScriptedCamera(3))
        if len(opened) == 2:
            reconnected.set()
        return opened[-1]

    settler = ScriptedSettler([reading(["bee", "bee", "honey", "zzz", "zombee"])])
    with table.subscribe() as sub:
        assert sub.get(2)["initial"]
        watcher = TrayWatcher(table, open_camera, settler, retry_s=0.01).start()
        try:
            assert reconnected.wait(5)
            messages = []
            while not any(m.get("status") == "lost" for m in messages):
                messages.append(sub.get(2))
        finally:
            watcher.stop()
    kinds = [(m["type"], m.get("status")) for m in messages]
    assert ("state", None) in kinds and ("notice", "lost") in kinds
    assert table.state()["rolls"] == 1 and table.records()[-1]["source"] == "camera"
    assert all(c.closed for c in opened[:-1])


def test_a_reading_the_rules_refuse_asks_to_check_the_dice(table):
    table.submit({"cmd": "roll", "faces": ["zombee", "zombee", "zombee", "zombee", "zzz"]}, "web")
    watcher = TrayWatcher(table, lambda: ScriptedCamera(0), ScriptedSettler([]))
    watcher.tracker.expect_reroll(table.state(), ["zombee", "zombee"])  # two ZomBees with no Zzz
    with table.subscribe() as sub:
        assert sub.get(2)["initial"]
        action = watcher.handle(moved(["bee", "bee"]))
        messages = [sub.get(2), sub.get(2)]
    assert action.command is not None
    notice = next(m for m in messages if m["type"] == "notice")
    assert notice["status"] == "check" and "Zzz" in notice["text"] and notice["seen"] == ["bee", "bee"]
    assert table.state()["rolls"] == 1


def test_watcher_tells_the_panel_while_the_dice_are_still_rolling(table):
    # Two moving frames, then the dice at rest: "settling" once, then "still" once.
    settler = ScriptedSettler([None, None, reading(["bee", "bee", "honey", "zzz", "zombee"]), None])
    with table.subscribe() as sub:
        assert sub.get(2)["initial"]
        watcher = TrayWatcher(table, lambda: ScriptedCamera(4), settler, retry_s=5).start()
        try:
            messages = []
            while not any(m["type"] == "state" for m in messages):
                messages.append(sub.get(2))
        finally:
            watcher.stop()
    dice = [m["status"] for m in messages if m["type"] == "notice" and m["kind"] == "dice"]
    assert dice == ["settling", "still"]


def test_watcher_tells_the_reader_how_many_dice_were_thrown(table):
    # All five on a first roll; after it, the dice seen left to be picked up again.
    settler = ScriptedSettler([reading(["bee", "bee", "honey", "zzz", "zombee"])])
    with table.subscribe() as sub:
        watcher = TrayWatcher(table, lambda: ScriptedCamera(1), settler, retry_s=5).start()
        try:
            while sub.get(2)["type"] != "state":
                pass
        finally:
            watcher.stop()
    assert settler.expected[0] == 5
    assert table.state()["rolls"] == 1
    watcher.tracker.expect_reroll(table.state(), ["bee", "bee", "zzz"])
    assert watcher._thrown(table.state()) == 3
    watcher.tracker.selection = None
    assert list(watcher._thrown(table.state())) == [1, 2, 3, 4, 5]  # any of the five, not more


def test_a_check_notice_carries_its_words_for_the_page_in_german(table):
    from babel.messages.mofile import read_mo

    from companion.events import render
    from web.catalogs import TRANSLATIONS

    with open(TRANSLATIONS / "de" / "LC_MESSAGES" / "messages.mo", "rb") as f:
        german = {(m.id if isinstance(m.id, str) else tuple(m.id)): m.string for m in read_mo(f) if m.id}
    watcher = TrayWatcher(table, lambda: ScriptedCamera(0), ScriptedSettler([]))
    table.submit({"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia"]}, "web")
    with table.subscribe() as sub:
        assert sub.get(2)["initial"]
        watcher.handle(reading(["bee", "unknown", "honey", "zzz", "zombee"]))
        notice = sub.get(2)
    assert notice["text"] == render(notice["template"], notice["args"])
    assert notice["text"].startswith("Check the dice: 1 of them could not be read")
    reason = notice["args"]["reason"]
    assert notice["template"] in german and reason["template"] in german
    assert all(face in german for face in reason["args"]["seen"])  # bee, unknown, honey...


def test_dice_read_at_another_size_than_taught_ask_once_to_teach_them_again(table):
    # The reader read the roll at the size its dice measured (a camera raised since the dice were
    # taught): the roll still counts, and the page is told once, not at every reading.
    from dataclasses import replace

    watcher = TrayWatcher(table, lambda: ScriptedCamera(0), ScriptedSettler([]))
    with table.subscribe() as sub:
        assert sub.get(2)["initial"]
        for _ in range(2):
            watcher.handle(replace(reading(["bee", "bee", "honey", "zzz", "zombee"]), moved=0.8))
        table.notify("restart", text="end of the test's messages")  # published after all the above
        messages = []
        while not messages or messages[-1].get("kind") != "restart":
            messages.append(sub.get(2))
    notices = [m for m in messages if m["type"] == "notice" and m["kind"] == "camera"]
    assert len(notices) == 1 and notices[0]["status"] == "ok"
    assert notices[0]["text"].startswith("The dice look smaller than when they were taught")
    assert table.state()["rolls"] == 1
