"""`companion serve`: registration, the PIN, the banner, start and stop."""

from __future__ import annotations

import argparse

import pytest

import web.serve
from web import cli


def parser():
    p = argparse.ArgumentParser(prog="companion")
    cli.register(p.add_subparsers(dest="command"))
    return p


def test_register_adds_serve_with_defaults():
    args = parser().parse_args(["serve"])
    assert (args.db, args.host, args.port, args.pin, args.max_streams) == (None, "0.0.0.0", 8000, None, 60)
    assert args.func is cli.handle
    args = parser().parse_args(["serve", "--db", "x.sqlite", "--host", "127.0.0.1", "--port", "9000", "--pin", "776655"])
    assert (args.db, args.host, args.port, args.pin) == ("x.sqlite", "127.0.0.1", 9000, "776655")


def test_pin_from_flag_then_environment_then_the_kept_one(tmp_path):
    args = parser().parse_args(["serve", "--pin", "432100"])
    assert cli.pin_from(args, {"COMPANION_PIN": "9"}) == ("432100", None)
    args = parser().parse_args(["serve"])
    assert cli.pin_from(args, {"COMPANION_PIN": " 987654 "}) == ("987654", None)
    pin, made_up = cli.pin_from(args, {"XDG_DATA_HOME": str(tmp_path)})
    assert "kept in" in made_up and len(pin) == 6 and pin.isdigit()
    with pytest.raises(ValueError, match="empty"):
        cli.pin_from(parser().parse_args(["serve", "--pin", " "]), {})


@pytest.mark.parametrize("argv, source", [(["serve", "--pin", "1"], "--pin"), (["serve"], "COMPANION_PIN")])
def test_a_pin_shorter_than_six_is_refused_with_the_reason(argv, source):
    with pytest.raises(ValueError) as info:
        cli.pin_from(parser().parse_args(argv), {"COMPANION_PIN": "4711"})
    assert "at least 6 characters" in str(info.value) and source in str(info.value)


class FakeServer:
    port = 8123

    def __init__(self, app, host, port):
        self.app = app
        self.served = False

    def serve_until_interrupted(self):
        # While "serving": the app answers and the Table is running.
        assert self.app.test_client().get("/healthz").status_code == 200
        self.served = True


def test_serve_prints_address_pin_and_qr_then_stops_on_ctrl_c(tmp_path, monkeypatch, capsys):
    made = []
    monkeypatch.setattr(web.serve, "ServerThread", lambda *a: made.append(FakeServer(*a)) or made[-1])
    monkeypatch.delenv("COMPANION_PIN", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    args = parser().parse_args(["serve", "--db", str(tmp_path / "g.sqlite"), "--host", "127.0.0.1", "--port", "0"])
    assert args.func(args) == 0
    out = capsys.readouterr().out
    assert "http://127.0.0.1:8123/" in out and "Override PIN: " in out and "kept in" in out and "█" in out
    assert made[0].served
    assert made[0].app.extensions["companion"].pin in out


def test_serve_takes_the_pin_from_the_environment(tmp_path, monkeypatch, capsys):
    made = []
    monkeypatch.setattr(web.serve, "ServerThread", lambda *a: made.append(FakeServer(*a)) or made[-1])
    monkeypatch.setenv("COMPANION_PIN", "515000")
    args = parser().parse_args(["serve", "--db", str(tmp_path / "g.sqlite")])
    assert args.func(args) == 0
    assert made[0].app.extensions["companion"].pin == "515000"
    assert "Override PIN: 515000\n" in capsys.readouterr().out


def test_serve_uses_the_companion_default_database(tmp_path, monkeypatch):
    made = []
    monkeypatch.setattr(web.serve, "ServerThread", lambda *a: made.append(FakeServer(*a)) or made[-1])
    monkeypatch.setenv("COMPANION_DB", str(tmp_path / "default.sqlite"))
    args = parser().parse_args(["serve", "--pin", "111111"])
    assert args.func(args) == 0
    assert (tmp_path / "default.sqlite").exists()


def test_serve_refuses_a_damaged_database_in_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"")
    args = parser().parse_args(["serve", "--db", str(bad)])
    assert args.func(args) == 1
    err = capsys.readouterr().err
    assert err.startswith("companion serve: ") and err.count("\n") == 1 and "Traceback" not in err


def test_serve_refuses_bad_numbers(capsys):
    assert cli.handle(parser().parse_args(["serve", "--port", "70000"])) == 2
    assert cli.handle(parser().parse_args(["serve", "--max-phones", "0"])) == 2
    assert "--port" in capsys.readouterr().err


def test_serve_reports_a_port_in_use(tmp_path, capsys):
    import socket

    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        port = taken.getsockname()[1]
        args = parser().parse_args(["serve", "--db", str(tmp_path / "g.sqlite"), "--host", "127.0.0.1", "--port", str(port)])
        assert args.func(args) == 1
        assert "cannot listen" in capsys.readouterr().err
    finally:
        taken.close()


SCRIPT = """
import argparse, sys
from web import cli
p = argparse.ArgumentParser(prog="companion")
cli.register(p.add_subparsers())
args = p.parse_args(sys.argv[1:])
sys.exit(args.func(args))
"""


def test_serve_for_real_until_ctrl_c(tmp_path):
    import json
    import re
    import signal
    import subprocess
    import sys
    import urllib.request
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    proc = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, "serve", "--db", str(tmp_path / "g.sqlite"), "--host", "127.0.0.1",
         "--port", "0", "--pin", "864200"],
        cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # as from a terminal: a suite started in the background (`pytest &`) ignores Ctrl-C, and a
        # child inherits that ignore, so the server would rightly never see the Ctrl-C sent below
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        first = proc.stdout.readline()
        port = re.search(r"http://127\.0\.0\.1:(\d+)/", first).group(1)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as r:
            assert json.load(r)["ok"] is True
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/api/commands", method="POST",
            data=json.dumps({"cmd": "new_game", "game": "zoo", "players": ["A", "B"]}).encode(),
            headers={"Content-Type": "application/json", "Authorization": "Bearer 864200"})
        with urllib.request.urlopen(request, timeout=5) as r:
            assert json.load(r)["game"] == "zoo"
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=10)
        out, err = first + proc.stdout.read(), proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "Override PIN: 8642" in out and "Traceback" not in err
