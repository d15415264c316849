"""Replaying ZomBee game logs: the rulebook's examples, and refused lines, through the CLI and the Python API."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest

from companion.replay import RefusedLine, iter_replay, replay_lines

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
NEW3 = '{"cmd":"new_game","game":"zombee","players":["Tom","Mia","Ann"]}'


def cli(*args: str) -> subprocess.CompletedProcess:
    # The code under test, as test_cli runs it: an installed `companion` script may be another checkout's.
    cmd = [sys.executable, "-m", "companion.cli", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60, cwd=ROOT)


def replay_json(path: pathlib.Path) -> dict:
    done = cli("replay", str(path), "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def api_state(path: pathlib.Path) -> dict:
    engine, accepted = replay_lines(path.read_text(encoding="utf-8").splitlines())
    return engine.state()


# What a game under way publishes when the next player is yet to roll.
NEXT_TURN = {"over": False, "winners": [], "legal": [{"cmd": "roll"}], "can_undo": True}

# Example 1 by hand: Tom rolls 3 ZomBees + 2 Zzz; picks up 2 ZomBees with the 2 Zzz
# and gets 3 honey + Zzz; picks up that Zzz with the ZomBee left from roll 1 and gets
# ZomBee + Zzz. Three honey: Tom 2 -> 3 (box 9 -> 8). One green ZomBee: Tom turns a
# flower, a bee. No ZomBee flower, so the turn passes to Mia; 13 face down.
EXAMPLE_1 = {
    "game": "zombee",
    "variant": "standard",
    "rules": {"zombee_penalty": "revealer"},
    "players": [
        {"name": "Tom", "honey": 3, "green": 0, "eliminated": False},
        {"name": "Mia", "honey": 2, "green": 0, "eliminated": False},
        {"name": "Ann", "honey": 2, "green": 0, "eliminated": False},
    ],
    "active": "Mia",
    "phase": "roll",
    "pending": "Mia",
    "owed": [],
    "rolls": 0,
    "kept": [],
    "last_roll": [],
    "flowers": {"face_down": 13, "bee": 1, "question": 0},
    "supply": {"yellow": 8, "green": 5},
    "winner": None,
    "game_winners": [],
    "odds": {"zombee_next_flip": 1 / 13},
    **NEXT_TURN,
}

# Example 2 by hand: Mia (first of 5) rolls a ZomBee and 4 bees and stops. She turns one
# flower for the ZomBee, then Tom, Ann, Ben, Eva one each for the 4 bees: 5 bees up,
# 9 face down; no honey changes (box 15 - 10 = 5); the turn passes to Tom.
EXAMPLE_2 = {
    "game": "zombee",
    "variant": "standard",
    "rules": {"zombee_penalty": "revealer"},
    "players": [{"name": n, "honey": 2, "green": 0, "eliminated": False} for n in ["Mia", "Tom", "Ann", "Ben", "Eva"]],
    "active": "Tom",
    "phase": "roll",
    "pending": "Tom",
    "owed": [],
    "rolls": 0,
    "kept": [],
    "last_roll": [],
    "flowers": {"face_down": 9, "bee": 5, "question": 0},
    "supply": {"yellow": 5, "green": 5},
    "winner": None,
    "game_winners": [],
    "odds": {"zombee_next_flip": 1 / 9},
    **NEXT_TURN,
}


@pytest.mark.parametrize("name, expected", [("rulebook-example-1.jsonl", EXAMPLE_1), ("rulebook-example-2.jsonl", EXAMPLE_2)])
def test_rulebook_examples_via_cli(name, expected):
    assert replay_json(EXAMPLES / name) == {**expected, "coach": None}  # no reroll decision: the turn has passed


@pytest.mark.parametrize("name, expected", [("rulebook-example-1.jsonl", EXAMPLE_1), ("rulebook-example-2.jsonl", EXAMPLE_2)])
def test_rulebook_examples_via_api(name, expected):
    assert api_state(EXAMPLES / name) == expected


def test_example_1_step_by_step():
    states = [e.state() for _, e, _ in iter_replay((EXAMPLES / "rulebook-example-1.jsonl").read_text().splitlines())]
    first, second, third = states[1], states[2], states[3]
    assert first["last_roll"] == ["zzz", "zzz", "zombee", "zombee", "zombee"] and first["kept"] == []
    assert second["kept"] == ["zombee"] and second["last_roll"] == ["honey", "honey", "honey", "zzz"]
    # Evaluation after the third roll: honey is paid before Tom flips, the dice stay visible.
    assert third["phase"] == "flip" and third["pending"] == "Tom" and third["rolls"] == 3
    assert third["kept"] == ["honey", "honey", "honey"] and third["last_roll"] == ["zzz", "zombee"]
    assert third["players"][0]["honey"] == 3


def test_example_2_flip_order():
    pending = [e.state()["pending"] for _, e, _ in iter_replay((EXAMPLES / "rulebook-example-2.jsonl").read_text().splitlines())]
    assert pending[2:] == ["Mia", "Tom", "Ann", "Ben", "Eva", "Tom"]


def test_human_summary_without_json():
    done = cli("replay", str(EXAMPLES / "rulebook-example-1.jsonl"))
    assert done.returncode == 0
    assert "Tom" in done.stdout and "Mia" in done.stdout
    with pytest.raises(ValueError):
        json.loads(done.stdout)


def test_full_example_game_ends_with_one_winner():
    state = replay_json(EXAMPLES / "zombee-full-game.jsonl")
    assert state["phase"] == "game_over"
    living = [p["name"] for p in state["players"] if not p["eliminated"]]
    assert living == [state["winner"]] and state["game_winners"] == [state["winner"]]
    assert state["active"] is None and state["pending"] is None


def write(tmp_path, lines: list[str]) -> pathlib.Path:
    path = tmp_path / "game.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


REFUSALS = [
    # (lines, the refused line's number, words the message must name)
    ([NEW3, '{"cmd":"stop"}'], 2, ["stop", "roll"]),
    ([NEW3, "", "", '{"cmd":"stop"}'], 4, ["stop"]),
    ([NEW3, "not json"], 2, ["not JSON"]),
    ([NEW3, "", "{\"cmd\":\"roll\""], 3, ["not JSON"]),
    ([NEW3, "[1, 2]"], 2, ["JSON object"]),
    ([NEW3, '{"cmd":"dance"}'], 2, ["dance"]),
    ([NEW3, '{"faces":["bee"]}'], 2, ["cmd"]),
    ([NEW3, '{"cmd":["roll"]}'], 2, ["cmd"]),
    ([NEW3, '{"cmd":"roll","faces":["bee","bee","bee","bee","bee"],"player":"Tom"}'], 2, ["player"]),
    ([NEW3, '{"cmd":"roll","face":["bee","bee","bee","bee","bee"]}'], 2, ["face"]),
    ([NEW3, NEW3], 2, ["one game"]),
    (['{"cmd":"roll","faces":["bee","bee","bee","bee","bee"]}'], 1, ["new_game"]),
    (["", "   ", '{"cmd":"stop"}'], 3, ["new_game"]),
    ([NEW3, '{"cmd":"undo"}'], 2, ["new_game"]),
    ([NEW3, '{"cmd":"roll","faces":["bee","bee","bee","bee","bee"],"reroll":["bee"]}'], 2, ["reroll"]),
    ([NEW3, '{"cmd":"roll","faces":["bee","bee","bee","bee","bee"]}', '{"cmd":"roll","faces":["bee"]}'], 3, ["reroll"]),
    (['{"cmd":"new_game","game":"zombee","players":["Tom","tom"]}'], 1, ["unique"]),
]


@pytest.mark.parametrize("lines, number, words", REFUSALS)
def test_refused_lines_exit_2_with_the_line_number(tmp_path, lines, number, words):
    done = cli("replay", str(write(tmp_path, lines)), "--json")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith(f"line {number}: "), done.stderr
    for word in words:
        assert word in done.stderr
    with pytest.raises(RefusedLine) as info:
        replay_lines(lines)
    assert info.value.line == number
    assert str(info.value) == done.stderr.strip()


def test_empty_log_is_refused(tmp_path):
    done = cli("replay", str(write(tmp_path, ["", ""])), "--json")
    assert done.returncode == 2 and "new_game" in done.stderr


def test_blank_lines_are_skipped(tmp_path):
    text = (EXAMPLES / "rulebook-example-1.jsonl").read_text().splitlines()
    spaced = ["", text[0], "", "  ", *text[1:], ""]
    assert replay_json(write(tmp_path, spaced)) == {**EXAMPLE_1, "coach": None}


def test_undo_lines_replay(tmp_path):
    lines = (EXAMPLES / "rulebook-example-1.jsonl").read_text().splitlines()
    extra = ['{"cmd":"roll","faces":["bee","bee","bee","bee","bee"]}', '{"cmd":"undo"}']
    assert replay_json(write(tmp_path, lines + extra)) == {**EXAMPLE_1, "coach": None}


def test_commands_after_game_over_are_refused(tmp_path):
    lines = (EXAMPLES / "zombee-full-game.jsonl").read_text().splitlines()
    done = cli("replay", str(write(tmp_path, lines + ['{"cmd":"roll","faces":["bee","bee","bee","bee","bee"]}'])), "--json")
    assert done.returncode == 2 and done.stderr.startswith(f"line {len(lines) + 1}: ") and "over" in done.stderr
    done = cli("replay", str(write(tmp_path, lines + ['{"cmd":"undo"}'])), "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["phase"] == "flip"


def test_crlf_logs_count_lines_the_same(tmp_path):
    path = tmp_path / "crlf.jsonl"
    path.write_bytes(("\r\n".join([NEW3, "", '{"cmd":"flip","result":"bee"}']) + "\r\n").encode())
    done = cli("replay", str(path), "--json")
    assert done.returncode == 2 and done.stderr.startswith("line 3: ") and "Tom" in done.stderr


def test_human_summary_of_a_finished_game():
    done = cli("replay", str(EXAMPLES / "zombee-full-game.jsonl"))
    assert done.returncode == 0
    winner = replay_json(EXAMPLES / "zombee-full-game.jsonl")["winner"]
    assert "over" in done.stdout and winner in done.stdout.splitlines()[-1]


def test_an_old_log_line_with_a_key_given_twice_still_replays():
    # New input refuses a repeated key; a log that was accepted once must still open (the last key wins, as it did)
    engine, accepted = replay_lines([NEW3, '{"cmd":"roll","faces":["bee","bee","bee","bee","bee"],"cmd":"roll"}'])
    assert engine.seq == 2 and accepted[1]["cmd"] == "roll"


def test_which_moves_still_stand_after_undos():
    from companion.replay import standing

    game = [{"cmd": "new_game"}, {"cmd": "kill"}, {"cmd": "life"}, {"cmd": "undo"}, {"cmd": "bullets"},
            {"cmd": "undo"}, {"cmd": "undo"}, {"cmd": "undo"}, {"cmd": "kill"}]
    # each undo takes back the newest move still standing; the new game is never taken back
    assert standing(game) == [True, False, False, False, False, False, False, False, True]
    assert standing([{"cmd": "new_game"}, {"cmd": "kill"}]) == [True, True]
