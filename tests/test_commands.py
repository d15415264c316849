"""Parsing ZomBee commands: well-formed ones become commands, the rest are refused by name."""

from __future__ import annotations

import json

import pytest

from companion.commands import Choose, Flip, NewGame, Roll, Stop, Undo, parse_command
from companion.errors import BadCommand


def test_new_game_fields():
    cmd = parse_command('{"cmd":"new_game","game":"zombee","players":[" Tom ","Mia"],"variant":"tournament",'
                        '"rules":{"zombee_penalty":"active"}}')
    assert isinstance(cmd, NewGame)
    assert cmd.players == ("Tom", "Mia") and cmd.variant == "tournament"
    assert dict(cmd.rules) == {"zombee_penalty": "active"}


def test_variant_is_optional():
    cmd = parse_command({"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia"]})
    assert cmd.variant is None and cmd.rules is None


@pytest.mark.parametrize("players, word", [
    (["Tom", "tom"], "unique"),
    (["Ann", "Mia", "ANN "], "unique"),
    (["Tom", " "], "empty"),
    (["Tom", ""], "empty"),
    (["Tom", 3], "list of names"),
    ("Tom,Mia", "list of names"),
])
def test_bad_player_lists(players, word):
    with pytest.raises(BadCommand, match=word):
        parse_command({"cmd": "new_game", "game": "zombee", "players": players})


def test_roll_and_reroll():
    first = parse_command({"cmd": "roll", "faces": ["bee", "honey", "zzz", "zombee", "bee"]})
    assert first == Roll(("bee", "honey", "zzz", "zombee", "bee"), None)
    later = parse_command({"cmd": "roll", "reroll": ["zzz", "zombee"], "faces": ["bee", "bee"]})
    assert later.reroll == ("zzz", "zombee") and later.faces == ("bee", "bee")


@pytest.mark.parametrize("raw, word", [
    ({"cmd": "roll", "faces": ["bee", "skull"]}, "skull"),
    ({"cmd": "roll", "faces": "bee"}, "faces"),
    ({"cmd": "roll", "faces": ["bee"], "reroll": ["bees"]}, "bees"),
    ({"cmd": "roll", "faces": ["bee"], "reroll": None}, "reroll"),
    ({"cmd": "roll"}, "faces"),
    ({"cmd": "flip", "result": "honey"}, "honey"),
    ({"cmd": "flip"}, "result"),
    ({"cmd": "flip", "result": "bee", "player": 2}, "player"),
    ({"cmd": "choose"}, "player"),
    ({"cmd": "choose", "player": ["Mia"]}, "player"),
])
def test_malformed_commands(raw, word):
    with pytest.raises(BadCommand) as info:
        parse_command(raw)
    assert word in str(info.value)


@pytest.mark.parametrize("raw, key", [
    ({"cmd": "stop", "now": True}, "now"),
    ({"cmd": "undo", "steps": 2}, "steps"),
    ({"cmd": "flip", "result": "bee", "who": "Mia"}, "who"),
    ({"cmd": "choose", "player": "Mia", "reason": "x"}, "reason"),
    ({"cmd": "roll", "faces": ["bee"] * 5, "rerol": ["bee"]}, "rerol"),
    ({"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia"], "variants": "standard"}, "variants"),
])
def test_unknown_keys_are_refused(raw, key):
    with pytest.raises(BadCommand, match="unknown key") as info:
        parse_command(raw)
    assert f'"{key}"' in str(info.value)


@pytest.mark.parametrize("raw", ['{"cmd": ["roll"]}', '{"cmd": {"a": 1}}', '{"cmd": 7}', '{"cmd": null}', "{}"])
def test_a_cmd_that_is_no_command_name_is_refused(raw):
    with pytest.raises(BadCommand, match="cmd"):
        parse_command(raw)


@pytest.mark.parametrize("raw", ["", "roll", "{'cmd': 'stop'}", '{"cmd":"stop"'])
def test_not_json_is_refused(raw):
    with pytest.raises(BadCommand, match="not JSON"):
        parse_command(raw)


@pytest.mark.parametrize("raw", ["[]", '"stop"', "3", "null"])
def test_json_that_is_not_an_object_is_refused(raw):
    with pytest.raises(BadCommand, match="JSON object"):
        parse_command(raw)


def test_simple_commands_and_round_trip():
    assert parse_command('{"cmd":"stop"}') == Stop()
    assert parse_command('{"cmd":"undo"}') == Undo()
    assert parse_command({"cmd": "flip", "result": "question", "player": "Mia"}) == Flip("question", "Mia")
    assert parse_command({"cmd": "choose", "player": "Ann"}) == Choose("Ann")
    for cmd in (Flip("bee"), Roll(("bee",) * 5), Roll(("bee",), ("zzz",)), Choose("Mia"), Stop()):
        assert parse_command(cmd.to_json()) == cmd


@pytest.mark.parametrize("raw", [{"cmd": "flip", "result": "Bee"}, {"cmd": "roll", "faces": ["BEE"] * 5},
                                 {"cmd": "Stop"}])
def test_names_of_faces_and_commands_are_exact(raw):
    with pytest.raises(BadCommand):
        parse_command(raw)


@pytest.mark.parametrize("raw", ['{"cmd":"undo","x":1}', '{"cmd":"animals_cleared","x":1}', '{"cmd":"kill"}',
                                 '{"cmd":"undo","steps":2}'])
def test_what_a_command_takes_is_said_without_a_wrong_article(raw):
    # "a undo takes cmd" read wrongly; the sentence names the command without an article
    with pytest.raises(BadCommand) as info:
        parse_command(raw)
    message = str(info.value)
    assert " a undo" not in message and " a animals_cleared" not in message
    name = json.loads(raw)["cmd"]
    assert f"the {name} command takes cmd" in message


@pytest.mark.parametrize("text, key", [
    ('{"cmd":"kill","cmd":"undo"}', "cmd"),
    ('{"cmd":"kill","player":"Ann","player":"Ben"}', "player"),
    ('{"cmd":"new_game","game":"zoo","players":["Ann","Ben"],"rules":{"x":1,"x":2}}', "x"),
])
def test_a_key_given_twice_is_refused_by_name(text, key):
    # the last one won in silence: {"cmd":"kill","cmd":"undo"} was an undo
    with pytest.raises(BadCommand) as info:
        parse_command(text)
    assert f'"{key}" is given twice' in str(info.value) and "give each key once" in str(info.value)
