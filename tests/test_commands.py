"""Parsing ZomBee commands: well-formed ones become commands, the rest are refused by name."""

from __future__ import annotations

import json

import pytest

from companion.commands import (MAX_COMMAND_CHARS, MAX_FACES, MAX_NUMBER_CHARS, MAX_PLAYERS, MAX_RULES, Choose, Flip,
                                Kill, NewGame, Roll, Stop, Undo, house_rule, load_json, parse_command, quote)
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


# --- each bound, exactly at it and one past it --------------------------------------------------------


def refused(raw) -> str:
    with pytest.raises(BadCommand) as err:
        parse_command(raw)
    return str(err.value)


def new_game(**kw):
    return {"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"], **kw}


def test_a_command_of_the_longest_allowed_text_is_read_and_one_character_more_is_refused():
    body = '{"cmd":"kill","player":"Ann"}'
    longest = body[:-1] + " " * (MAX_COMMAND_CHARS - len(body)) + "}"
    assert len(longest) == MAX_COMMAND_CHARS and parse_command(longest) == Kill("Ann", 1)
    assert f"a command has at most {MAX_COMMAND_CHARS}" in refused(longest[:-1] + " }")


def test_nesting_counts_depth_not_brackets():
    assert load_json('[[1],[2],[3],{"a":[4]}]') == [[1], [2], [3], {"a": [4]}]  # many brackets, 3 deep
    assert load_json('{"a":[{"b":1}]}') == {"a": [{"b": 1}]}
    for deep in ('{"a":[{"b":[1]}]}', '[[],[[[1]]]]'):  # a closed list before does not make the rest shallower
        with pytest.raises(BadCommand, match="nests 4 levels deep"):
            load_json(deep)


def test_a_number_of_the_most_digits_allowed_is_read_and_one_more_is_refused():
    assert load_json("1" * MAX_NUMBER_CHARS) == int("1" * MAX_NUMBER_CHARS)
    with pytest.raises(BadCommand, match=f"has {MAX_NUMBER_CHARS + 1} characters"):
        load_json("1" * (MAX_NUMBER_CHARS + 1))


def test_half_a_character_is_refused():
    with pytest.raises(BadCommand, match="half of a character"):
        load_json('{"cmd":"choose","player":"A\\ud800"}')


@pytest.mark.parametrize("name", ["Mia \u200d", "Ann\u00a0Lee", "Zo\u00eb", "\u00a0"])
def test_names_with_unusual_but_harmless_characters_are_kept(name):
    assert parse_command({"cmd": "choose", "player": name}).player == name


@pytest.mark.parametrize("char", ["\x00", "\x1f", "\x7f", "\x80", "\x9f"])
def test_a_control_character_in_a_name_is_refused(char):
    assert "control character" in refused({"cmd": "choose", "player": f"Ann{char}"})


def test_the_most_faces_players_and_rules_allowed_are_read_and_one_more_is_refused():
    assert len(parse_command({"cmd": "roll", "faces": ["bee"] * MAX_FACES}).faces) == MAX_FACES
    assert f"at most {MAX_FACES}" in refused({"cmd": "roll", "faces": ["bee"] * (MAX_FACES + 1)})
    names = [f"P{i}" for i in range(MAX_PLAYERS + 1)]
    assert len(parse_command(new_game(players=names[:-1])).players) == MAX_PLAYERS
    assert f"no game seats more than {MAX_PLAYERS}" in refused(new_game(players=names))
    rules = {f"r{i}": "x" for i in range(MAX_RULES + 1)}
    assert len(parse_command(new_game(rules=dict(list(rules.items())[:-1]))).rules) == MAX_RULES
    assert f"at most {MAX_RULES}" in refused(new_game(rules=rules))


@pytest.mark.parametrize("rules", [["x"], {"x": 1}, {"x": None}, "x"])
def test_rules_that_are_not_named_options_are_refused_by_name(rules):
    assert "'rules' must be an object of named options" in refused(new_game(rules=rules))


def test_a_kill_without_a_count_is_one_kill():
    assert parse_command({"cmd": "kill", "player": "Ann"}).count == 1
    assert Kill("Ann").count == 1


def test_a_stored_command_keeps_every_field_after_an_empty_one():
    """to_dict skips the fields left out (None), not the ones after them: a game's house rules
    survive being stored without a variant."""
    cmd = parse_command(new_game(rules={"lock_timer": "off"}))
    assert cmd.variant is None and cmd.to_dict()["rules"] == {"lock_timer": "off"}
    assert parse_command(cmd.to_dict()) == cmd and hash(cmd) == hash(parse_command(cmd.to_dict()))


def test_names_are_shown_as_typed_in_messages_and_json():
    assert '"Zoë"' in refused({"cmd": "kill", "player": "Zoë", "count": 0})
    assert parse_command({"cmd": "choose", "player": "Zoë"}).to_json() == '{"cmd":"choose","player":"Zoë"}'


def test_a_long_input_is_quoted_whole_up_to_200_characters_then_cut():
    assert quote("x" * 198) == '"' + "x" * 198 + '"'  # 200 characters: whole
    cut = quote("x" * 199)
    assert len(cut) == 200 and cut == '"' + "x" * 196 + "..."


@pytest.mark.parametrize("raw, words", [({"player": "Ann"}, "has no 'cmd'"),
                                        ({"cmd": "dance"}, 'has unknown cmd "dance"'),
                                        ({"cmd": None}, "has unknown cmd null")])
def test_a_missing_or_unknown_cmd_is_named(raw, words):
    assert words in refused(raw)


def test_the_house_rule_is_the_one_option_a_game_offers():
    rules = parse_command(new_game(rules={"lock_timer": "off"}))
    assert house_rule(rules, "lock_timer", ("on", "off"), "Zombie Zoo") == "off"
    assert house_rule(parse_command(new_game()), "lock_timer", ("on", "off"), "Zombie Zoo") == "on"
    with pytest.raises(BadCommand, match="unknown rule option \"speed\""):
        house_rule(parse_command(new_game(rules={"speed": "fast"})), "lock_timer", ("on", "off"), "Zombie Zoo")
