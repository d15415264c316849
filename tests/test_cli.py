import json
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def run(*args, cwd=None):
    """The real console entry point, as a user types it."""
    return subprocess.run([sys.executable, "-m", "companion.cli", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, timeout=60)


def test_replay_prints_the_state_as_json():
    out = run("replay", EXAMPLES / "rulebook-example-2.jsonl", "--json")
    assert out.returncode == 0, out.stderr
    state = json.loads(out.stdout)
    assert state["active"] == "Tom" and state["flowers"]["bee"] == 5


def test_replay_without_json_prints_a_summary_naming_who_acts():
    out = run("replay", EXAMPLES / "rulebook-example-1.jsonl")
    assert out.returncode == 0
    assert "Mia must roll" in out.stdout


def test_refused_line_exits_2_with_its_number(tmp_path):
    log = tmp_path / "bad.jsonl"
    log.write_text('{"cmd":"new_game","game":"zombee","players":["A","B"]}\n\n{"cmd":"stop"}\n')
    out = run("replay", log)
    assert out.returncode == 2
    assert out.stderr.startswith("line 3: ") and "not rolled yet" in out.stderr
    assert "Traceback" not in out.stderr


def test_missing_file_is_a_clear_error(tmp_path):
    out = run("replay", tmp_path / "nope.jsonl")
    # A file that cannot be read is a failure (1), not a refused line (2): the README's exit codes.
    assert out.returncode == 1 and "cannot read" in out.stderr


def test_log_import_list_export_round_trip(tmp_path, capsys):
    db = tmp_path / "g.sqlite"
    src = EXAMPLES / "zombee-full-game.jsonl"
    assert main(["log", "import", str(src), "--db", str(db)]) == 0
    assert main(["log", "--db", str(db), "--json"]) == 0
    capsys.readouterr()
    assert main(["log", "--db", str(db)]) == 0
    listing = capsys.readouterr().out
    assert "zombee" in listing and "over" in listing
    out = tmp_path / "back.jsonl"
    assert main(["log", "export", "1", "--db", str(db), "--out", str(out)]) == 0
    original = [json.loads(l) for l in src.read_text().splitlines() if l.strip()]
    assert [json.loads(l) for l in out.read_text().splitlines()] == original


def test_replay_from_the_database_matches_the_file(tmp_path, capsys):
    db = tmp_path / "g.sqlite"
    src = EXAMPLES / "rulebook-example-1.jsonl"
    main(["log", "import", str(src), "--db", str(db)])
    capsys.readouterr()
    assert main(["replay", "--db", str(db), "1", "--json"]) == 0
    from_db = json.loads(capsys.readouterr().out)
    assert main(["replay", str(src), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == from_db


def test_import_of_a_refused_log_stores_nothing(tmp_path, capsys):
    db = tmp_path / "g.sqlite"
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"cmd":"new_game","game":"zombee","players":["A","B"]}\n{"cmd":"roll","faces":["bee"]}\n')
    assert main(["log", "import", str(bad), "--db", str(db)]) == 2
    assert "line 2:" in capsys.readouterr().err
    main(["log", "--db", str(db)])
    assert "no games" in capsys.readouterr().out


def test_unknown_game_id_in_database(tmp_path, capsys):
    db = tmp_path / "g.sqlite"
    main(["log", "import", str(EXAMPLES / "rulebook-example-1.jsonl"), "--db", str(db)])
    assert main(["replay", "--db", str(db), "9"]) == 2
    assert "no game 9" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["log", "export", "x"], ["replay", "--db", "x.sqlite", "abc"]])
def test_bad_arguments_are_refused_without_traceback(tmp_path, argv, capsys):
    argv = [a if a != "x.sqlite" else str(tmp_path / a) for a in argv]
    if argv[0] == "log":
        argv += ["--db", str(tmp_path / "g.sqlite")]
    assert main(argv) == 2
    assert capsys.readouterr().err.strip()


@pytest.mark.parametrize("argv, named", [
    (["log", "export", "1", "--json"], "--json"),  # printed JSON Lines, not the JSON asked for
    (["log", "import", str(EXAMPLES / "rulebook-example-1.jsonl"), "--json"], "--json"),
    (["log", "--out", "{tmp}/games.txt"], "--out"),  # the listing went to the terminal, no file was written
    (["log", "import", str(EXAMPLES / "rulebook-example-1.jsonl"), "--out", "{tmp}/x.jsonl"], "--out"),
])
def test_log_refuses_an_output_option_its_action_would_ignore(tmp_path, argv, named, capsys):
    db = tmp_path / "g.sqlite"
    assert main(["log", "import", str(EXAMPLES / "rulebook-example-1.jsonl"), "--db", str(db)]) == 0
    capsys.readouterr()
    assert main([a.format(tmp=tmp_path) for a in argv] + ["--db", str(db)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and named in err
    assert not list(tmp_path.glob("*.txt")) and not (tmp_path / "x.jsonl").exists()
    assert main(["log", "--db", str(db), "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 1  # nothing was imported
