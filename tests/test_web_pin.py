"""The override PIN that lasts across restarts (web/pinfile.py, web.cli.pin_from)."""

from __future__ import annotations

import argparse
import os
import re
import stat

import pytest

import web.serve
from web import cli
from web.pinfile import kept_pin, pin_path


def parser():
    p = argparse.ArgumentParser(prog="companion")
    cli.register(p.add_subparsers())
    return p


class FakeServer:
    port = 8123

    def __init__(self, app, host, port):
        self.app = app

    def serve_until_interrupted(self):
        pass


def start(tmp_path, monkeypatch, capsys, *argv):
    """One `companion serve` start; the Override PIN line it printed and the PIN the app checks."""
    apps = []
    monkeypatch.setattr(web.serve, "ServerThread", lambda *a: apps.append(FakeServer(*a)) or apps[-1])
    args = parser().parse_args(["serve", "--db", str(tmp_path / "elsewhere" / "g.sqlite"), *argv])
    assert args.func(args) == 0
    line = re.search(r"^Override PIN: .*$", capsys.readouterr().out, re.M).group(0)
    return line, apps[0].app.extensions["companion"].pin


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.delenv("COMPANION_PIN", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    (tmp_path / "elsewhere").mkdir()
    return tmp_path / "xdg" / "table-companion"


def test_the_same_pin_at_every_start_kept_in_the_data_folder_not_beside_db(tmp_path, monkeypatch, capsys, data):
    first_line, first = start(tmp_path, monkeypatch, capsys)
    second_line, second = start(tmp_path, monkeypatch, capsys)
    assert first == second and len(first) == 6 and first.isdigit()
    assert first_line == second_line == (f"Override PIN: {first}  (kept in {data / 'override-pin'} for every start; "
                                         "--pin or COMPANION_PIN overrides it)")
    assert pin_path(data).read_text().strip() == first
    assert not (tmp_path / "elsewhere" / "override-pin").exists()


def test_the_kept_pin_is_readable_by_the_owner_only(tmp_path):
    old = os.umask(0)  # a umask that would let everyone read a plainly created file
    try:
        kept_pin(tmp_path / "d")
    finally:
        os.umask(old)
    assert stat.S_IMODE(pin_path(tmp_path / "d").stat().st_mode) == 0o600


def test_a_widened_pin_file_is_narrowed_again_and_keeps_its_pin(tmp_path):
    pin = kept_pin(tmp_path)
    pin_path(tmp_path).chmod(0o644)
    assert kept_pin(tmp_path) == pin
    assert stat.S_IMODE(pin_path(tmp_path).stat().st_mode) == 0o600


def test_a_kept_pin_too_short_to_be_safe_is_replaced(tmp_path):
    pin_path(tmp_path).write_text("12\n")
    pin = kept_pin(tmp_path)
    assert len(pin) == 6 and pin_path(tmp_path).read_text().strip() == pin


def test_flag_then_environment_then_settings_then_the_kept_pin(tmp_path, data):
    kept = kept_pin(data)
    env = {"XDG_DATA_HOME": str(tmp_path / "xdg")}
    given = parser().parse_args(["serve", "--pin", "333333"])
    bare = parser().parse_args(["serve"])
    assert cli.pin_from(given, {**env, "COMPANION_PIN": "222222"}, configured="111111") == ("333333", None)
    assert cli.pin_from(bare, {**env, "COMPANION_PIN": "222222"}, configured="111111") == ("222222", None)
    assert cli.pin_from(bare, env, configured="111111") == ("111111", None)
    assert cli.pin_from(bare, env)[0] == kept
    assert pin_path(data).read_text().strip() == kept  # an override never replaces the kept PIN


def test_a_data_folder_that_cannot_be_written_still_gives_a_pin_and_says_so(tmp_path, monkeypatch, capsys, data):
    data.parent.mkdir(parents=True)
    data.write_text("a file where the folder should be")
    line, pin = start(tmp_path, monkeypatch, capsys)
    assert line.startswith(f"Override PIN: {pin}  (made up for this run: cannot keep it in {data}")
