"""Bounds on what a command carries: refused with the input and the allowed range, at constant cost."""

from __future__ import annotations

import json
import tracemalloc

import pytest

from companion import commands
from companion.cli import main
from companion.commands import Kill, load_json, parse_command
from companion.engine import Engine
from companion.errors import BadCommand, NotJSON
from companion.replay import RefusedLine, replay_lines
from web import create_app

PIN = "246813"
AUTH = {"Authorization": f"Bearer {PIN}"}
ZOO = {"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"]}
DEEP = "[" * 981 + "]" * 981
LONG_INT = "9" * 4300


@pytest.mark.parametrize("raw, fragments", [
    ({"cmd": "kill", "player": "Ann", "count": 100_000_000}, ["'count' must be from 1 to 100", "100000000"]),
    ({"cmd": "kill", "player": "Ann", "count": 0}, ["from 1 to 100"]),
    ({"cmd": "life", "player": "Ann", "delta": -101}, ["'delta' must be from -100 to 100", "-101"]),
    ({"cmd": "bullets", "player": "Ann", "delta": 10**12}, ["from -100 to 100", "1000000000000"]),
    ({"cmd": "kill", "player": "A" * 41}, ["'player' is 41 characters long", "at most 40"]),
    ({"cmd": "new_game", "game": "zoo", "players": ["Ann", "B" * 41]}, ["'players' is 41 characters", "at most 40"]),
    ({"cmd": "new_game", "game": "zoo", "players": [f"P{i}" for i in range(13)]},
     ["lists 13 names", "more than 12"]),
    ({"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben\x07"]}, ["control character", "Ben\\u0007"]),
    ({"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"], "variant": "v" * 41}, ["'variant' is 41"]),
    ({"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"], "rules": {f"k{i}": "x" for i in range(5)}},
     ["'rules' has 5 options", "at most 4"]),
    ({"cmd": "roll", "faces": ["bee"] * 11}, ["lists 11 faces", "at most 10"]),
])
def test_every_bound_is_refused_naming_the_input_and_the_range(raw, fragments):
    with pytest.raises(BadCommand) as info:
        parse_command(raw)
    for fragment in fragments:
        assert fragment in str(info.value)


def test_the_bounds_themselves_are_accepted():
    assert parse_command({"cmd": "kill", "player": "A" * 40, "count": 100}).count == 100
    assert parse_command({"cmd": "life", "player": "Ann", "delta": -100}).delta == -100
    # Unicode line separators are text a name may hold (only control characters are refused).
    assert parse_command({"cmd": "choose", "player": "Ann\u2028Lee"}).player == "Ann\u2028Lee"


@pytest.mark.parametrize("text, fragment", [
    (DEEP, "nests 981 levels deep; a command nests at most 3"),
    ('{"cmd":"stop","x":[[[["' + "]" * 50 + '"]]]]}', "nests 5 levels"),  # brackets in a string do not count
    ('{"cmd":"life","player":"Ann","delta":' + LONG_INT + "}", "has 4300 characters; a command's numbers have at most 20"),
    ('{"cmd":"life","player":"Ann","delta":1e999999999999999999999}', "at most 20"),
    ('{"cmd":"life","player":"Ann","delta":NaN}', "NaN is not a number JSON allows"),
    ("x" * (16 * 1024 + 1), "is too long; a command has at most 16384"),
], ids=["deep", "string-brackets", "4300-digits", "huge-exponent", "nan", "too-long"])
def test_json_beyond_what_a_command_needs_is_refused_before_decoding(text, fragment):
    with pytest.raises(BadCommand) as info:
        load_json(text)
    assert fragment in str(info.value)
    assert len(str(info.value)) < 400  # one readable line, not the input echoed back


def test_a_python_caller_with_a_giant_number_gets_a_refusal_not_a_crash():
    """The panel or a plugin passing a dict never went through JSON: the bounds still hold."""
    with pytest.raises(BadCommand, match="from -100 to 100"):
        parse_command({"cmd": "life", "player": "Ann", "delta": 10**5000})


def test_brackets_inside_names_are_not_nesting():
    raw = {"cmd": "new_game", "game": "zoo", "players": ["[[[[Ann", "{{{{Ben"]}
    assert load_json(json.dumps(raw)) == raw


def test_text_that_is_not_json_is_told_apart():
    with pytest.raises(NotJSON):
        load_json("{nope")
    with pytest.raises(NotJSON):
        load_json(b"\xff\xfe")


def test_a_huge_kill_costs_constant_time_and_memory():
    """Past the parser (a foreign engine caller), a count of 10^15 still costs two lock steps."""
    engine = Engine(ZOO)
    tracemalloc.start()
    try:
        events = engine.apply(Kill("Ann", 10**15))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    state = engine.state()
    ann = next(p for p in state["players"] if p["name"] == "Ann")
    assert ann["kills"] == 10**15
    assert [e.kind for e in events].count("locks_advanced") == 2  # 60:00 -> 30:00 -> open, then nothing left
    assert peak < 1_000_000


# --- over HTTP: 400 with a JSON error, the game unchanged -----------------------------------


@pytest.fixture
def client(table):
    app = create_app({"TABLE": table, "PIN": PIN})
    yield app.test_client()
    app.extensions["companion"].hub.close()


@pytest.mark.parametrize("body, fragment", [
    (DEEP, "nests 981 levels"),
    ('{"cmd":"life","player":"Ann","delta":' + LONG_INT + "}", "4300 characters"),
    ('{"cmd":"kill","player":"Ann","count":100000000}', "from 1 to 100"),
], ids=["deep", "4300-digits", "huge-count"])
def test_hostile_bodies_get_400_json_and_change_nothing(client, body, fragment):
    assert client.post("/api/commands", json=ZOO, headers=AUTH).status_code == 200
    before = client.get("/api/state").get_json()
    r = client.post("/api/commands", data=body, content_type="application/json", headers=AUTH)
    assert r.status_code == 400 and r.mimetype == "application/json"
    assert fragment in r.get_json()["error"]
    assert client.get("/api/state").get_json() == before


# --- from the CLI: one `line N:` and exit 2 --------------------------------------------------


@pytest.mark.parametrize("bad", [
    "[" * 3000 + "]" * 3000,
    '{"cmd":"life","player":"Ann","delta":' + LONG_INT + "}",
    '{"cmd":"kill","player":"Ann","count":100000000}',
], ids=["deep", "4300-digits", "huge-count"])
def test_crafted_jsonl_lines_are_one_line_refusals(tmp_path, capsys, bad):
    src = tmp_path / "crafted.jsonl"
    src.write_text(json.dumps(ZOO) + "\n" + bad + "\n")
    with pytest.raises(RefusedLine) as info:
        replay_lines(src.read_text().split("\n"))
    assert info.value.line == 2
    for argv in (["replay", str(src)], ["log", "import", str(src), "--db", str(tmp_path / "g.sqlite")]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("line 2: ") and err.count("\n") == 1 and "Traceback" not in err


def test_bounds_are_stated_in_the_docs():
    from pathlib import Path

    page = (Path(__file__).resolve().parents[1] / "docs" / "game-log.md").read_text()
    rows = page.split("\n## Limits", 1)[1].split("\n## ", 1)[0].splitlines()
    for label, value in {"`count`": commands.MAX_COUNT, "`delta`": commands.MAX_DELTA,
                         "`players`": commands.MAX_PLAYERS, "`faces`": commands.MAX_FACES,
                         "`rules`": commands.MAX_RULES, "a name": commands.MAX_NAME_CHARS,
                         "nesting": commands.MAX_NESTING, "a JSON number": commands.MAX_NUMBER_CHARS,
                         "one command": commands.MAX_COMMAND_CHARS}.items():
        row = next(r for r in rows if r.startswith(f"| {label}"))
        assert str(value) in row, row
