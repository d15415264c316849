"""`companion run --demo` end to end: a real process, real HTTP, the real dice reader on rendered rolls."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from support.browser import ARGS, CHROMIUM, OUT
from support.process import CompanionProcess



@pytest.fixture
def companion(tmp_path):
    proc = CompanionProcess(tmp_path / "home").start()
    yield proc
    proc.stop()


def roll_with_the_camera(companion: CompanionProcess, before: dict) -> dict:
    """Press the virtual Roll button and wait for the camera's reading to reach the game.

    A reading the reader is unsure of asks the table to check the dice; like a player, the
    test then throws again (at most twice), so a rare misread cannot pass for a roll.
    """
    def rolled(event, data):
        if event == "notice" and data.get("kind") == "dice" and data.get("status") == "check":
            return True
        s = data.get("state") if event == "state" else None
        return bool(s) and (s["rolls"] == before["rolls"] + 1 or s["active"] != before["active"]
                            or s["phase"] != "roll")

    for _ in range(3):
        assert companion.press("Roll")[0] == 200
        event, data = companion.next_event(rolled, timeout=30)
        if event == "state":
            return data["state"]
    raise AssertionError(f"three throws in a row were not read: {data}")


def play_to_a_revealed_zombee(companion: CompanionProcess) -> tuple[dict, str, dict]:
    """Roll, stop and flip until someone turns over the ZomBee: (new state, who paid, honey before)."""
    state = companion.state()
    for _ in range(20):
        if state["phase"] == "roll":
            assert state["rolls"] == 0
            state = roll_with_the_camera(companion, state)
            assert len(state["kept"] + state["last_roll"]) == 5, state
            if state["phase"] == "roll":
                assert companion.press("Stop")[0] == 200
                state = companion.wait_for(lambda s: s["phase"] != "roll" or s["rolls"] == 0)
        if state["phase"] == "flip":
            loser = state["pending"]
            before = {p["name"]: p["honey"] for p in state["players"]}  # a roll may have earned a drop
            assert companion.press("ZomBee")[0] == 200
            return companion.wait_for(lambda s: s["rolls"] == 0 and s["phase"] == "roll"), loser, before
    raise AssertionError("no flower to turn over in 20 turns")


def test_a_round_played_with_virtual_presses_and_demo_rolls(companion, tmp_path):
    assert companion.command({"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia"]})[0] == 200
    state, loser, before = play_to_a_revealed_zombee(companion)

    honey = {p["name"]: p["honey"] for p in state["players"]}
    assert honey[loser] == before[loser] - 1 and sum(honey.values()) + state["supply"]["yellow"] == 15
    assert state["flowers"] == {"face_down": 14, "bee": 0, "question": 0}
    assert state["active"] == loser == state["pending"]
    status, log = companion.request("GET", "/api/log")
    sources = {r["source"] for r in log["records"]}
    assert {"web", "camera", "panel"} <= sources  # the roll came from the camera, the flips from the panel

    if not os.path.exists(CHROMIUM):
        pytest.skip(f"Debian's chromium is not at {CHROMIUM}")
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.goto(f"http://127.0.0.1:{companion.port}/")
        expect(page.locator("#now-main")).to_contain_text(loser)
        expect(page.locator("#zb-players")).to_contain_text(f"{honey[loser]} honey")
        expect(page.locator("#panel")).to_be_visible()  # the virtual panel of demo mode
        OUT.mkdir(exist_ok=True)
        page.screenshot(path=str(OUT / "run-demo.png"), full_page=True)
        browser.close()


def test_a_restart_continues_the_game_and_says_so(tmp_path):
    home = tmp_path / "home"
    first = CompanionProcess(home).start()
    try:
        first.command({"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia"]})
        first.command({"cmd": "roll", "faces": ["bee", "bee", "honey", "zzz", "zombee"]})
        before = first.state()
    finally:
        first.kill()  # as a power cut would
    second = CompanionProcess(home, port=first.port).start()
    try:
        assert second.state() == before
        status, info = second.request("GET", "/api/info")
        assert info["status"]["restarted"] is True and info["status"]["demo"] is True
        # named on every page that opens: which game continues, and where (the banner said "the game")
        assert (info["status"]["game"], info["status"]["move"]) == (before["game_id"], before["seq"])
    finally:
        second.stop()


def test_a_write_ahead_file_damaged_by_the_power_cut_is_kept_and_every_phone_told(tmp_path):
    # SQLite took it for empty: "no game yet", not a word, and the next clean stop deleted the moves
    home = tmp_path / "home"
    first = CompanionProcess(home).start()
    try:
        first.command({"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"]})
        first.command({"cmd": "kill", "player": "Ann"})
    finally:
        first.kill()
    wal = Path(f"{first.db}-wal")
    damaged = bytearray(wal.read_bytes())
    damaged[16:24] = b"XXXXXXXX"
    wal.write_bytes(bytes(damaged))
    second = CompanionProcess(home, port=first.port).start()
    try:
        status, info = second.request("GET", "/api/info")
        kept = first.db.parent / info["status"]["log_damaged"]
        assert kept.name.startswith("games.sqlite-wal.damaged-") and kept.read_bytes() == bytes(damaged)
    finally:
        second.stop()
    assert kept.read_bytes() == bytes(damaged)  # still there after a clean stop


def test_a_second_start_on_the_same_game_log_is_refused_while_reading_goes_on(companion, tmp_path):
    import subprocess
    import sys

    companion.command({"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"]})
    second = CompanionProcess(tmp_path / "home", db=companion.db)  # another `companion run` on the same file
    out = subprocess.run([sys.executable, "-m", "companion.cli", "run", "--demo", "--host", "127.0.0.1", "--port",
                          str(second.port), "--db", str(companion.db)],
                         capture_output=True, text=True, timeout=60, env=second.env())
    # it served the same log with an engine of its own: two writers, and the log could fork
    assert out.returncode == 1 and out.stdout == "" and "Traceback" not in out.stderr
    assert out.stderr.count("\n") == 1
    assert f"another companion (pid {companion.proc.pid}) is already using the game log {companion.db}" in out.stderr
    listing = subprocess.run([sys.executable, "-m", "companion.cli", "log", "--db", str(companion.db)],
                             capture_output=True, text=True, timeout=60, env=second.env())
    assert listing.returncode == 0 and "Ann, Ben" in listing.stdout  # reading goes on while it serves
    assert companion.command({"cmd": "kill", "player": "Ann"})[0] == 200  # the first one is untouched


def test_the_camera_opened_at_the_start_is_watched_and_one_lost_in_a_game_is_opened_again(table):
    import threading
    from types import SimpleNamespace

    import numpy as np

    from companion.errors import CameraError
    from table_companion.run import StartCamera
    from vision.tray import TrayWatcher

    class Webcam:
        def __init__(self, frames):
            self.frames, self.closed = frames, False

        def read(self):
            if self.frames == 0:
                raise CameraError("webcam 0 stopped delivering frames (unplugged?)")
            self.frames -= 1
            return 0.0, np.zeros((48, 64, 3), np.uint8)

        def close(self):
            self.closed = True

    opened, tries, back = [], [], threading.Event()

    def opener(spec):
        tries.append(spec)
        if len(tries) == 2:  # unplugged: the first try to open it again fails
            raise CameraError("webcam 0 cannot be opened (is it plugged in? try another index)")
        opened.append(Webcam(2 if not opened else 10**9))
        if len(opened) == 2:
            back.set()
        return opened[-1]

    camera = StartCamera("0", "--camera", opener)
    assert tries == ["0"]  # opened at the start, before the watcher runs
    table.submit({"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"]}, "web")
    with table.subscribe() as sub:
        assert sub.get(2)["initial"]
        idle = SimpleNamespace(reset=lambda: None)  # a Zoo game: the frames are not read for dice
        watcher = TrayWatcher(table, camera, idle, retry_s=0.01).start()
        try:
            assert back.wait(10)  # lost during the game, then opened again: the companion carried on
            seen = []
            while [status for status, _ in seen[-2:]] != ["lost", "ok"]:
                message = sub.get(5)
                if message.get("kind") == "camera":
                    seen.append((message["status"], message["text"]))
        finally:
            watcher.stop()
            camera.close()
    assert [status for status, _ in seen] == ["ok", "lost", "ok"] and "unplugged?" in seen[1][1]
    assert tries == ["0", "0", "0"] and opened[0].closed


def test_zoo_game_leaves_the_camera_idle(companion):
    companion.command({"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"]})
    assert companion.press("Roll")[0] == 200
    companion.press("Select")
    companion.press("Kill")
    state = companion.wait_for(lambda s: s["players"][0]["kills"] == 1)
    _, log = companion.request("GET", "/api/log")
    assert [r["source"] for r in log["records"]] == ["web", "panel"]
    assert state["game"] == "zoo"


def test_a_bad_pin_map_stops_the_start_before_the_game_log_is_touched(tmp_path):
    import subprocess
    import sys

    config = tmp_path / "companion.toml"
    config.write_text('[panel.buttons]\nBee = 17\nStop = 17\n', encoding="utf-8")
    db = tmp_path / "games.sqlite"
    out = subprocess.run([sys.executable, "-m", "companion.cli", "run", "--demo", "--config", str(config),
                          "--db", str(db), "--port", "0"], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "HOME": str(tmp_path)})
    assert out.returncode == 2
    assert "GPIO17" in out.stderr and "Traceback" not in out.stderr
    assert not db.exists()


def test_companion_send_reaches_the_running_table_as_the_cli(companion):
    import subprocess
    import sys

    def send(*args, page=""):
        return subprocess.run([sys.executable, "-m", "companion.cli", "send", *args, "--url",
                               f"http://127.0.0.1:{companion.port}{page}", "--pin", companion.pin],
                              capture_output=True, text=True, timeout=60)

    ok = send('{"cmd":"new_game","game":"zoo","players":["Ann","Ben"]}', "--json")
    assert ok.returncode == 0 and '"game": "zoo"' in ok.stdout
    # an address copied from the phone's browser, page and all, reaches the same table (it was a 404)
    copied = send('{"cmd":"kill","player":"Ann"}', "--json", page="/?lang=de")
    assert copied.returncode == 0 and '"kills": 1' in copied.stdout, copied.stderr
    refused = send('{"cmd":"kill","player":"Zed"}')
    assert refused.returncode == 2 and "Zed" in refused.stderr
    malformed = send('{"cmd":"kil"}')
    assert malformed.returncode == 2 and "unknown cmd" in malformed.stderr
    _, log = companion.request("GET", "/api/log")
    assert [r["source"] for r in log["records"]] == ["cli", "cli"]


def test_the_pin_comes_from_the_flag_then_the_environment_then_the_settings_file(tmp_path):
    import argparse

    from table_companion.run import register, settings_from

    config = tmp_path / "companion.toml"
    config.write_text('[companion]\npin = "111111"\nport = 8123\n')
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())

    def pin(*argv, env):
        settings, made_up, _ = settings_from(parser.parse_args(["run", "--config", str(config), *argv]), env)
        assert settings.port == 8123  # the rest of the file still applies
        return settings.pin, made_up

    assert pin("--pin", "333333", env={"COMPANION_PIN": "222222"}) == ("333333", None)
    assert pin(env={"COMPANION_PIN": "222222"}) == ("222222", None)
    assert pin(env={}) == ("111111", None)
    config.write_text("[companion]\nport = 8123\n")
    made, made_up = pin(env={"XDG_DATA_HOME": str(tmp_path / "data")})
    assert made_up and len(made) == 6 and made.isdigit()
    assert pin(env={"XDG_DATA_HOME": str(tmp_path / "data")}) == (made, made_up)  # the same at the next start
    config.write_text('[companion]\npin = " "\n')
    with pytest.raises(ValueError, match=str(config)):
        settings_from(parser.parse_args(["run", "--config", str(config)]), {})


def test_the_first_line_says_which_camera_a_demo_reads():
    # `run --demo --camera 0` said "simulated camera" while it read the webcam
    from types import SimpleNamespace

    from table_companion.run import mode_line

    assert mode_line({"demo": True, "camera": None}).startswith("demo mode: simulated camera and buttons")
    assert mode_line({"demo": True, "camera": SimpleNamespace(spec="0")}).startswith("demo mode: camera 0, simulated "
                                                                                    "buttons")
    assert mode_line({"demo": False, "camera": SimpleNamespace(spec="picamera2")}) == "on the Pi"
