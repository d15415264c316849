"""Statistics across games and what the dice really do, on a game log with known content."""

from __future__ import annotations

import csv
import io
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from companion.coaching import DEFAULT_DICE, face_chances
from companion.dice_stats import chi_square_p, dice_stats, wilson
from companion.gamelog import GameLog
from companion.stats import GameStats, to_csv

ROOT = Path(__file__).resolve().parents[1]
ZZZ4 = ["zzz"] * 4

# Tom and Mia. A first roll of five bees is taken back. Tom takes a drop; Mia rolls five ZomBees
# (scored at once), turns a bee then the ZomBee (1 honey left), then one ZomBee more: she is out.
GAME_A = [
    {"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia"]},
    {"cmd": "roll", "faces": ["bee"] * 5}, {"cmd": "undo"},
    {"cmd": "roll", "faces": ["honey", "honey", "honey", "zzz", "zzz"]}, {"cmd": "stop"},
    {"cmd": "roll", "faces": ["zombee"] * 5},
    {"cmd": "flip", "result": "bee"}, {"cmd": "flip", "result": "zombee"},
    {"cmd": "roll", "faces": ["zombee"] + ZZZ4}, {"cmd": "stop"}, {"cmd": "flip", "result": "zombee"},
]
# " tom " is Tom again (spaces and case ignored); he turns the ZomBee twice and Ann wins.
GAME_B = [
    {"cmd": "new_game", "game": "zombee", "players": ["Ann", " TOM "]},
    {"cmd": "roll", "faces": ["zzz"] * 5}, {"cmd": "stop"},
    {"cmd": "roll", "faces": ["zombee"] + ZZZ4}, {"cmd": "stop"}, {"cmd": "flip", "result": "zombee"},
    {"cmd": "roll", "faces": ["zombee"] + ZZZ4}, {"cmd": "stop"}, {"cmd": "flip", "result": "zombee"},
]
UNFINISHED = [{"cmd": "new_game", "game": "zombee", "players": ["Tom", "Eva"]}, {"cmd": "roll", "faces": ["bee"] * 5}]


def lines(commands):
    return [json.dumps(c) for c in commands]


@pytest.fixture
def log(gamelog):
    for game in (GAME_A, GAME_B, UNFINISHED):
        gamelog.import_jsonl(lines(game))
    gamelog.import_jsonl((ROOT / "examples" / "zoo-game.jsonl").read_text().splitlines())
    return gamelog


def by_name(summary):
    return {p["player"]: p for p in summary["players"]}


def test_players_are_recognised_by_name_and_only_finished_games_count(log):
    s = GameStats().summary(log)
    assert (s["games"], s["unfinished"], s["zombee_games"], s["zoo_games"]) == (3, 1, 2, 1)
    p = by_name(s)
    assert sorted(p) == ["Ann", "Ben", "Cat", "Mia", "TOM"]  # the latest spelling of Tom
    tom = p["TOM"]
    assert (tom["games"], tom["wins"], tom["win_rate"]) == (2, 1, 0.5)
    assert (tom["honey_taken"], tom["flowers_turned"], tom["zombees_revealed"]) == (1, 2, 2)
    mia = p["Mia"]
    assert (mia["games"], mia["wins"], mia["flowers_turned"], mia["zombees_revealed"]) == (1, 0, 3, 2)
    ann = p["Ann"]  # one ZomBee win, one Zoo game lost
    assert (ann["games"], ann["wins"], ann["zombee_games"], ann["zoo_games"]) == (2, 1, 1, 1)
    assert [h["total"] for h in tom["honey"]] == [1, 1]


def test_zoo_tallies(log):
    p = by_name(GameStats().summary(log))
    assert [(p[n]["kills"], p[n]["locks"], p[n]["deaths"], p[n]["average_score"]) for n in ("Ann", "Ben", "Cat")] == [
        (9, 0, 1, 5.0), (7, 1, 0, 17.0), (5, 1, 1, 8.0)]
    assert p["Ben"]["wins"] == 1 and p["Ben"]["win_rate"] == 1.0


def test_tournament_rounds_won(gamelog):
    from companion.simulate import random_zombee_game

    game = random_zombee_game(3, players=3, variant="tournament")
    gamelog.import_jsonl(lines(game))
    s = GameStats().summary(gamelog)
    state = gamelog.engine(gamelog.latest_id()).state()
    for name in state["players"]:
        assert by_name(s)[name["name"]]["rounds_won"] == state["game_winners"].count(name["name"])
    assert by_name(s)[state["winner"]]["rounds_won"] == 2


def test_a_new_command_replays_only_its_game(log, monkeypatch):
    import companion.stats as stats

    cache = GameStats()
    cache.summary(log)
    seen = []
    real = stats.digest
    monkeypatch.setattr(stats, "digest", lambda cmds, gid, created: seen.append(gid) or real(cmds, gid, created))
    cache.summary(log)
    assert seen == []
    gid = [g["id"] for g in log.games() if not g["over"]][0]
    log.apply(gid, {"cmd": "stop"}, "cli")
    cache.summary(log)
    assert seen == [gid]


def test_csv_has_a_row_per_player(log):
    rows = list(csv.DictReader(io.StringIO(to_csv(GameStats().summary(log)))))
    assert [r["player"] for r in rows] == ["Ann", "TOM", "Ben", "Cat", "Mia"]  # most wins, then most games
    tom = next(r for r in rows if r["player"] == "TOM")
    assert (tom["games"], tom["wins"], tom["win_rate"], tom["average_score"]) == ("2", "1", "0.5", "")


def test_csv_keeps_a_formula_looking_name_a_name(gamelog):
    game = [dict(GAME_B[0], players=["=cmd()", "Bo"])] + GAME_B[1:]
    gamelog.import_jsonl(lines(game))
    rows = list(csv.reader(io.StringIO(to_csv(GameStats().summary(gamelog)))))
    assert "'=cmd()" in [r[0] for r in rows]


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "companion.cli", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=60)


def test_cli_stats_and_dice_stats(log):
    done = run_cli("stats", "--db", str(log.path), "--json")
    assert done.returncode == 0, done.stderr
    assert by_name(json.loads(done.stdout))["TOM"]["wins"] == 1
    text = run_cli("stats", "--db", str(log.path)).stdout
    assert "3 finished games" in text and "TOM" in text
    done = run_cli("dice-stats", "--db", str(log.path), "--json")
    d = json.loads(done.stdout)
    # First rolls still in effect: A 3 (the five bees were undone), B 3, the unfinished game 1.
    assert (d["rolls"], d["faces"]["bee"]["count"], d["faces"]["zombee"]["count"]) == (7, 5, 8)
    assert "First rolls: 7 (35 dice)" in run_cli("dice-stats", "--db", str(log.path)).stdout


def test_stats_refuses_two_output_formats_at_once(log, capsys):
    from companion.cli import main

    # --json --csv printed CSV alone, as if --json had not been given
    with pytest.raises(SystemExit) as exited:
        main(["stats", "--db", str(log.path), "--json", "--csv"])
    out, err = capsys.readouterr()
    assert exited.value.code == 2 and out == ""
    assert "--csv: not allowed with argument --json" in err and "Traceback" not in err


# --- the statistics themselves --------------------------------------------------------------------


def test_wilson_interval():
    low, high = wilson(10, 100)  # the textbook example: 10 of 100
    assert (round(low, 4), round(high, 4)) == (0.0552, 0.1744)
    assert wilson(0, 0) == (0.0, 1.0)
    low, high = wilson(0, 20)
    assert low == 0.0 and 0.16 < high < 0.17


@pytest.mark.parametrize("x", [0.01, 0.5, 1.0, 3.0, 7.81, 20.0, 60.0])
def test_chi_square_tail_matches_closed_forms(x):
    assert chi_square_p(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-12)
    assert chi_square_p(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-9)
    # df = 4: exp(-x/2) (1 + x/2)
    assert chi_square_p(x, 4) == pytest.approx(math.exp(-x / 2) * (1 + x / 2), rel=1e-9)


def test_chi_square_critical_value_for_three_degrees():
    assert chi_square_p(7.814727903, 3) == pytest.approx(0.05, abs=1e-9)


def test_fair_dice_pass_and_loaded_dice_are_caught():
    assumed = face_chances(DEFAULT_DICE)
    faces = list(DEFAULT_DICE[0]) * 20  # every face exactly as often as expected
    fair = [faces[i:i + 5] for i in range(0, len(faces), 5)]
    d = dice_stats(fair, assumed)
    assert d["dice"] == 120 and d["test"]["df"] == 3 and not d["test"]["differ"]
    assert d["test"]["statistic"] == pytest.approx(0.0) and d["test"]["p_value"] == pytest.approx(1.0)
    assert d["faces"]["honey"]["estimate"] == pytest.approx(1 / 6)
    loaded = [["zzz", "zzz", "honey", "zzz", "zombee"]] * 30
    d = dice_stats(loaded, assumed)
    assert d["test"]["differ"] and d["test"]["p_value"] < 1e-6
    assert d["observed"] == {"bee": 0.0, "honey": 0.2, "zzz": 0.6, "zombee": 0.2}
    assert "differ" in d["verdict"]


def test_too_few_rolls_are_not_tested():
    d = dice_stats([["zzz"] * 5], face_chances(DEFAULT_DICE))
    assert not d["test"]["enough_data"] and not d["test"]["differ"]
    assert dice_stats([], face_chances(DEFAULT_DICE))["test"]["p_value"] is None


@pytest.mark.parametrize("command", ["stats", "dice-stats"])
def test_statistics_of_a_log_that_does_not_exist_say_so_and_make_none(tmp_path, command, capsys):
    # they made an empty game log where none was (and said "0 finished games"), at the default place too
    from companion.cli import main

    missing = tmp_path / "games.sqlite"
    assert main([command, "--db", str(missing)]) == 1
    err = capsys.readouterr().err
    assert f"there is no game log at {missing}" in err and err.count("\n") == 1
    assert not missing.exists()


def test_the_pages_statistics_warm_up_is_quiet_when_the_log_closes_under_it(table, caplog):
    # Ctrl-C closed the game log while the warm-up still read it: a traceback on the terminal at every stop
    from web import create_app
    from web.insight import warm_up

    app = create_app({"TABLE": table, "PIN": None})
    table.log.close()
    with caplog.at_level("ERROR"):
        warm_up(app).join(30)
    assert not caplog.records
    table.log.closed = False  # a log that fails while open is still said, with its traceback
    with caplog.at_level("ERROR"):
        warm_up(app).join(30)
    assert "reading the statistics in the background failed" in caplog.text


def test_one_finished_game_is_said_in_the_singular():
    from companion.stats import describe

    one = {"games": 1, "zombee_games": 1, "zoo_games": 0, "unfinished": 0, "players": []}
    assert describe(one).startswith("1 finished game (1 ZomBee, 0 Zombie Zoo)")
    assert describe({**one, "games": 2, "zoo_games": 1}).startswith("2 finished games")
