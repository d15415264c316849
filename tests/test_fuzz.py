"""Hostile input, generated: `/api/commands` and the JSONL reader never crash, refusals change nothing,
and the game log always replays to the live state.

A few seconds here; `python bench/fuzz.py --examples N` runs the same tests longer
(COMPANION_FUZZ_EXAMPLES sets the number of examples per test).
"""

from __future__ import annotations

import json
import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.commands import DICE_FACES, FLOWER_KINDS, LOCKS
from companion.errors import CompanionError
from companion.gamelog import GameLog
from companion.replay import replay_lines
from companion.table import Table
from web import create_app

EXAMPLES = int(os.environ.get("COMPANION_FUZZ_EXAMPLES", "60"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize="COMPANION_FUZZ_EXAMPLES" not in os.environ,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
PIN = "246813"
AUTH = {"Authorization": f"Bearer {PIN}"}
NAMES = ["Ann", "Ben", "Cy", "Dee", "Eve", "Fay"]

numbers = st.one_of(st.integers(-3, 8), st.integers(), st.sampled_from([10**8, 10**30, -(10**19)]),
                    st.floats(allow_nan=False), st.booleans())
names = st.one_of(st.sampled_from(NAMES), st.text(max_size=50))
faces = st.lists(st.sampled_from(DICE_FACES), max_size=7) | st.lists(st.text(max_size=8), max_size=12)


def command_of(name: str, **fields) -> st.SearchStrategy:
    return st.fixed_dictionaries({"cmd": st.just(name)}, optional=fields)


commands = st.one_of(
    st.fixed_dictionaries({"cmd": st.just("new_game"), "game": st.sampled_from(["zoo", "zombee", "chess"]),
                           "players": st.lists(st.sampled_from(NAMES), min_size=1, max_size=7, unique=True)},
                          optional={"variant": st.sampled_from(["standard", "tournament", "x"]),
                                    "rules": st.dictionaries(st.text(max_size=12), st.text(max_size=12), max_size=5)}),
    command_of("kill", player=names, count=numbers),
    command_of("life", player=names, delta=numbers),
    command_of("bullets", player=names, delta=numbers),
    command_of("collect_lock", player=names, lock=st.sampled_from(LOCKS) | st.text(max_size=10)),
    command_of("animals_cleared"), command_of("undo"), command_of("stop"),
    command_of("roll", faces=faces, reroll=faces),
    command_of("flip", result=st.sampled_from(FLOWER_KINDS) | st.text(max_size=8), player=names),
    command_of("choose", player=names),
)
small_zoo_moves = st.one_of(  # moves a two-player Zoo game of Ann and Ben often accepts
    st.fixed_dictionaries({"cmd": st.sampled_from(["kill"]), "player": st.sampled_from(["Ann", "Ben"]),
                           "count": st.integers(1, 7)}),
    st.fixed_dictionaries({"cmd": st.sampled_from(["life", "bullets"]), "player": st.sampled_from(["Ann", "Ben"]),
                           "delta": st.integers(-3, 3)}),
    st.fixed_dictionaries({"cmd": st.just("collect_lock"), "player": st.sampled_from(["Ann", "Ben"]),
                           "lock": st.sampled_from(LOCKS)}),
    st.just({"cmd": "undo"}), st.just({"cmd": "animals_cleared"}),
    st.just({"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"]}),
)
json_values = st.recursive(st.none() | st.booleans() | numbers | st.text(max_size=20),
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                         max_size=4), max_leaves=20)


@st.composite
def bodies(draw) -> str:
    """A command's JSON text: well-formed and plausible, or broken in a way an attacker would try."""
    kind = draw(st.sampled_from(["move"] * 4 + ["command"] * 4 + ["nested", "long_number", "value", "junk",
                                                                     "extra_key"]))
    if kind == "move":
        return json.dumps(draw(small_zoo_moves))
    if kind == "command":
        return json.dumps(draw(commands))
    if kind == "nested":
        depth = draw(st.integers(2, 5000))
        return "[" * depth + "]" * depth if draw(st.booleans()) else '{"cmd":' + "[" * depth + "]" * depth + "}"
    if kind == "long_number":
        digits = "9" * draw(st.integers(15, 6000))
        return '{"cmd":"life","player":"Ann","delta":' + digits + "}"
    if kind == "value":
        return json.dumps(draw(json_values))
    if kind == "extra_key":
        cmd = draw(commands)
        cmd[draw(st.text(max_size=10))] = draw(json_values)
        return json.dumps(cmd)
    return draw(st.text(max_size=200))


def live(table: Table) -> dict | None:
    state = table.state()
    return None if state is None else {k: v for k, v in state.items() if k not in ("game_id", "seq")}


def assert_log_replays(path, table: Table) -> None:
    """Reopening the file rebuilds every game; the current one equals what the phones see."""
    with GameLog(path) as reopened:
        gid = table.state()["game_id"] if table.state() else None
        if gid is None:
            return
        engine = reopened.engine(gid)
        assert {**engine.state()} == live(table)
        commands = [json.dumps(r.command) for r in reopened.records(gid)]
        assert replay_lines(commands)[0].state() == live(table)


def test_api_commands_never_fail_and_refusals_change_nothing(tmp_path):
    path = tmp_path / "fuzz.sqlite"
    gamelog = GameLog(path)
    table = Table(gamelog).start()
    app = create_app({"TABLE": table, "PIN": PIN})
    client = app.test_client()
    seen: dict[int, int] = {}

    @FUZZ
    @given(body=bodies(), content_type=st.sampled_from(["application/json"] * 8 + ["text/plain", ""]))
    def post(body, content_type):
        before = (table.state() or {}).get("seq"), live(table)
        r = client.post("/api/commands", data=body.encode("utf-8", "surrogatepass"), headers=AUTH,
                        content_type=content_type or None)
        seen[r.status_code] = seen.get(r.status_code, 0) + 1
        assert r.status_code < 500, r.get_data(as_text=True)
        assert r.is_json and isinstance(r.get_json().get("error", ""), str)
        assert "Traceback" not in r.get_data(as_text=True)
        if r.status_code != 200:
            assert ((table.state() or {}).get("seq"), live(table)) == before  # nothing changed

    try:
        assert client.post("/api/commands", json={"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"]},
                           headers=AUTH).status_code == 200
        post()
        assert seen.get(200, 0) > 0 and seen.get(400, 0) > 0, seen  # the fuzz reached the engine and was refused
        assert_log_replays(path, table)
    finally:
        app.extensions["companion"].hub.close()
        table.stop()
        gamelog.close()


@st.composite
def jsonl_logs(draw) -> list[str]:
    first = json.dumps({"cmd": "new_game", "game": draw(st.sampled_from(["zoo", "zombee"])),
                        "players": draw(st.lists(st.sampled_from(NAMES), min_size=2, max_size=5, unique=True))})
    rest = draw(st.lists(bodies(), max_size=25))
    return [first, *[line.replace("\n", " ") for line in rest]]


@FUZZ
@given(lines=jsonl_logs())
def test_the_jsonl_reader_refuses_with_a_line_number_or_replays_exactly(tmp_path_factory, lines):
    try:
        engine, accepted = replay_lines(lines)
    except CompanionError as exc:
        assert str(exc).startswith("line ") and "\n" not in str(exc)
        return
    with GameLog(tmp_path_factory.mktemp("log") / "import.sqlite") as gamelog:
        gid = gamelog.import_jsonl(lines)
        assert gamelog.engine(gid).state() == engine.state()
        assert [r.command for r in gamelog.records(gid)] == accepted
