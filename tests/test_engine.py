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
