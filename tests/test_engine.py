"""The Engine for ZomBee: validate-then-apply, refusals change nothing, undo restores snapshots."""

from __future__ import annotations

import json

import pytest

from companion.commands import NewGame
from companion.engine import Engine
from companion.errors import IllegalCommand

NEW = {"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia", "Ann"]}


def test_engine_starts_from_dict_text_or_command():
    a = Engine(NEW).state()
    b = Engine(json.dumps(NEW)).state()
    c = Engine(NewGame("zombee", ("Tom", "Mia", "Ann"))).state()
    assert a == b == c


def test_engine_refuses_to_start_from_another_command():
    with pytest.raises(IllegalCommand, match="new_game"):
        Engine({"cmd": "roll", "faces": ["bee"] * 5})


def test_unknown_game_is_refused():
    with pytest.raises(IllegalCommand, match="game"):
        Engine({"cmd": "new_game", "game": "chess", "players": ["Tom", "Mia"]})


def test_a_refusal_midway_leaves_nothing_half_done():
    e = Engine(NEW)
    e.apply({"cmd": "roll", "faces": ["honey", "honey", "honey", "bee", "zombee"]})
    before = json.dumps(e.state())
    # A roll whose reroll is fine for yellow dice but breaks the ZomBee rule late in the check.
    with pytest.raises(IllegalCommand):
        e.apply({"cmd": "roll", "reroll": ["honey", "zombee"], "faces": ["bee", "bee"]})
    assert json.dumps(e.state()) == before
    e.apply({"cmd": "undo"})
    assert e.state() == Engine(NEW).state()


def test_state_is_a_copy():
    e = Engine(NEW)
    s = e.state()
    s["players"][0]["honey"] = 99
    s["kept"].append("bee")
    assert e.state()["players"][0]["honey"] == 2 and e.state()["kept"] == []


def test_undo_at_the_start_is_refused_and_names_new_game():
    e = Engine(NEW)
    assert not e.can_undo()
    with pytest.raises(IllegalCommand, match="new_game"):
        e.apply({"cmd": "undo"})
    assert e.state() == Engine(NEW).state()


def test_undo_restores_each_snapshot_in_turn():
    e = Engine(NEW)
    cmds = [
        {"cmd": "roll", "faces": ["bee", "bee", "zzz", "zombee", "honey"]},
        {"cmd": "roll", "reroll": ["zzz", "zombee"], "faces": ["honey", "honey"]},
        {"cmd": "stop"},
        {"cmd": "flip", "result": "bee"},
        {"cmd": "flip", "result": "question"},
        {"cmd": "choose", "player": "Tom"},
        {"cmd": "flip", "result": "zombee"},
    ]
    seen = [json.dumps(e.state())]
    for cmd in cmds:
        e.apply(cmd)
        seen.append(json.dumps(e.state()))
    for expected in reversed(seen[:-1]):
        e.apply({"cmd": "undo"})
        assert json.dumps(e.state()) == expected
    assert not e.can_undo()
    with pytest.raises(IllegalCommand):
        e.apply({"cmd": "undo"})


@pytest.mark.parametrize("cmd", [{"cmd": "kill", "player": "Tom"}, {"cmd": "animals_cleared"},
                                 {"cmd": "life", "player": "Tom", "delta": 1}])
def test_commands_of_another_game_are_refused(cmd):
    e = Engine(NEW)
    before = e.state()
    with pytest.raises(IllegalCommand, match="not a ZomBee command"):
        e.apply(cmd)
    assert e.state() == before and not e.can_undo()


def test_snapshot_copies_everything_a_game_may_hold():
    from dataclasses import dataclass, field
    from enum import Enum

    from companion.engine import snapshot

    class Phase(Enum):
        ROLL = "roll"

    @dataclass
    class Seat:
        name: str
        marks: set = field(default_factory=set)

    @dataclass(frozen=True)
    class Rule:
        names: tuple
        notes: list

    game = {"seats": [Seat("Ann", {1})], "order": ("a", ["x"]), "taken": {"bee"},
            "rule": Rule(("a",), [1]), "phase": Phase.ROLL, "gone": frozenset({"zzz"}), "honey": 2.5}
    copy = snapshot(game)
    copy["seats"][0].marks.add(2)
    copy["order"][1].append("y")
    copy["taken"].add("honey")
    copy["rule"].notes.append(2)
    assert game == {"seats": [Seat("Ann", {1})], "order": ("a", ["x"]), "taken": {"bee"},
                    "rule": Rule(("a",), [1]), "phase": Phase.ROLL, "gone": frozenset({"zzz"}), "honey": 2.5}
    assert copy["phase"] is Phase.ROLL and copy["rule"] == Rule(("a",), [1, 2])


def test_snapshot_refuses_what_undo_could_not_restore():
    from collections import Counter, OrderedDict, deque

    from companion.engine import snapshot

    for value in (deque([1]), Counter(bee=1), OrderedDict(a=1), bytearray(b"x"), print, lambda: 1):
        with pytest.raises(TypeError, match=f"cannot hold a .*{type(value).__qualname__}"):
            snapshot({"held": [value]})


def test_a_game_holding_a_deque_fails_loudly_at_its_first_move():
    from collections import deque

    engine = Engine(NEW)
    engine.game.history = deque()  # what a careless rules change might add
    with pytest.raises(TypeError, match="deque"):
        engine.apply({"cmd": "roll", "faces": ["bee"] * 5})
    assert engine.seq == 1 and engine.state()["rolls"] == 0
