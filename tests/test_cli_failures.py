"""Every CLI failure is one line on stderr and the README's exit status: 2 refused input, 1 anything else."""

import hashlib
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cli import main
from companion.errors import CameraError

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
FULL_GAME = EXAMPLES / "zombee-full-game.jsonl"


@pytest.fixture(autouse=True)
def no_settings(tmp_path, monkeypatch):
    """`run` reads no settings file of the machine's user."""
    monkeypatch.delenv("COMPANION_CONFIG", raising=False)
    monkeypatch.delenv("COMPANION_DB", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "g.sqlite"
    assert main(["log", "import", str(FULL_GAME), "--db", str(path)]) == 0
    return path


def one_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_export_to_a_folder_that_does_not_exist(db, capsys):
    assert main(["log", "export", "1", "--db", str(db), "-o", "/proc/nope/x.jsonl"]) == 1
    assert "cannot write /proc/nope/x.jsonl" in one_line(capsys)


@pytest.mark.parametrize("where", ["/proc/nonexistent/x.sqlite", "{file}/x.sqlite"])
def test_run_with_a_game_log_that_cannot_be_created(tmp_path, where, capsys):
    blocker = tmp_path / "afile"
    blocker.write_text("not a folder")
    db = where.format(file=blocker)
    assert main(["run", "--demo", "--port", "0", "--db", db]) == 1
    assert f"cannot create the game log {db}" in one_line(capsys)


@pytest.mark.parametrize("argv", [["serve", "--pin", "123456"], ["run", "--demo", "--pin", "123456"],
                                  ["log", "import", str(FULL_GAME)]])
def test_a_given_game_log_in_a_folder_that_does_not_exist_is_refused(tmp_path, argv, capsys, monkeypatch):
    # the folders were made and the server started on a new, empty game log there
    monkeypatch.setattr("web.serve.ServerThread", lambda *a, **k: pytest.fail("the server started"))
    db = tmp_path / "typo" / "dir" / "x.sqlite"
    server = argv[0] in ("run", "serve")
    assert main([*argv, "--db", str(db), *(["--port", "0"] if server else [])]) == 1
    assert f"the folder {db.parent} does not exist" in one_line(capsys)
    assert not (tmp_path / "typo").exists()


@pytest.mark.parametrize("argv", [["serve"], ["run", "--demo"], ["run", "--demo", "--camera", "0"]])
def test_a_second_server_on_the_same_game_log_is_refused(db, argv, capsys, monkeypatch):
    import os

    from companion.loglock import ServerLock

    # a second server opened the log too: two engines, two writers, and the log could fork
    monkeypatch.setattr("web.serve.ServerThread", lambda *a, **k: pytest.fail("the second server started"))
    # nor does it reach for the first one's camera: it said "webcam 0 cannot be opened", hiding the cause
    monkeypatch.setattr("vision.camera.sources.open_source", lambda *a, **k: pytest.fail("the camera was opened"))
    before = digest(db)
    with ServerLock(db):  # as the first `companion run` or `serve` holds it
        assert main([*argv, "--db", str(db), "--pin", "123456", "--port", "0"]) == 1
        line = one_line(capsys)
        assert f"another companion (pid {os.getpid()}) is already using the game log {db}" in line
        # reading goes on while a server runs
        assert main(["log", "--db", str(db)]) == 0 and main(["replay", "--db", str(db), "1"]) == 0
        assert main(["stats", "--db", str(db)]) == 0
    assert digest(db) == before  # the second start did not open the log


ACCEPTED = "picamera2, a webcam index like 0, synthetic, a folder of images or a video file"


@pytest.mark.parametrize("camera, status, says", [
    ("nonsense", 2, "--camera: unknown camera source 'nonsense': use " + ACCEPTED),
    ("synthetic:x", 2, "--camera: synthetic source seed must be a whole number, got 'synthetic:x'"),
    ("99", 1, "--camera: webcam 99 cannot be opened (is it plugged in? try another index); --camera takes " + ACCEPTED),
    ("{tmp}", 1, "--camera: '{tmp}' holds no images (.jpg, .png); --camera takes " + ACCEPTED),
])
def test_run_refuses_a_camera_it_cannot_open_at_the_start(tmp_path, camera, status, says, capsys, monkeypatch):
    # it started anyway, said "demo mode: simulated camera", and the page showed the camera lost for good
    monkeypatch.setattr("web.serve.ServerThread", lambda *a, **k: pytest.fail("the server started"))
    db = tmp_path / "g.sqlite"
    argv = ["run", "--demo", "--camera", camera.format(tmp=tmp_path / "empty"), "--db", str(db), "--port", "0"]
    (tmp_path / "empty").mkdir()
    assert main(argv) == status
    assert "companion run: " + says.format(tmp=tmp_path / "empty") in one_line(capsys)
    assert not db.exists()  # refused before the game log was touched


def test_a_camera_from_the_settings_file_that_is_not_there_yet_is_named_and_the_start_goes_on(tmp_path, capsys):
    # A Pi that boots with a loose ribbon: the game goes on by hand, and the camera is looked for again.
    # (Refused, the service restarted every 2 s and the table had no page at all.)
    from table_companion.run import StartCamera

    config = tmp_path / "companion.toml"
    tries = []

    def opener(spec):
        tries.append(spec)
        raise CameraError("webcam 99 cannot be opened (is it plugged in? try another index)")

    camera = StartCamera("99", f"camera in {config}", opener, required=False)
    said = one_line(capsys)
    assert f"companion run: camera in {config}: webcam 99 cannot be opened" in said and "starting without it" in said
    with pytest.raises(CameraError):
        camera()  # the watcher's next look: still not there, said as the camera offline
    assert tries == ["99", "99"]
    with pytest.raises(CameraError, match="^--camera: webcam 99 cannot be opened"):
        StartCamera("99", "--camera", opener)  # asked for at a terminal: the answer is at once


@pytest.mark.parametrize("command", ["run", "serve"])
@pytest.mark.parametrize("flags, named", [(["--port", "-1"], "--port"), (["--port", "99999"], "--port"),
                                          (["--host", "999.1.1.1"], "--host '999.1.1.1'")])
def test_run_and_serve_refuse_an_address_they_cannot_listen_on(tmp_path, command, flags, named, capsys):
    db = tmp_path / "g.sqlite"
    assert main([command, "--db", str(db), "--pin", "123456", *flags]) == 2
    assert named in one_line(capsys)
    assert not db.exists()  # refused before anything was opened


def test_a_closed_pipe_ends_quietly():
    proc = subprocess.Popen([sys.executable, "-m", "companion.cli", "replay", str(FULL_GAME)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # `| head` that has read enough: closed before the summary is written
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 141
    assert err == b""


def test_a_database_cut_short_is_one_line_and_exit_1(db, capsys):
    for seed in range(30):  # enough pages that half of the file is missing pages, not just a header
        assert main(["log", "import", str(FULL_GAME), "--db", str(db)]) == 0
    data = db.read_bytes()
    db.write_bytes(data[: len(data) // 2])
    capsys.readouterr()
    for argv in (["log", "--db", str(db)], ["replay", "--db", str(db), "1"], ["log", "export", "1", "--db", str(db)]):
        assert main(argv) == 1
        assert "cut short" in one_line(capsys)


def newer(db):
    con = sqlite3.connect(db)
    con.execute("UPDATE meta SET value='99' WHERE key='schema_version'")
    con.commit()
    con.close()


def zeroed_header(db):
    data = bytearray(db.read_bytes())
    data[:100] = b"\x00" * 100
    db.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", [newer, zeroed_header])
@pytest.mark.parametrize("argv", [["replay", "--db", "{db}", "1"], ["log", "--db", "{db}"],
                                  ["log", "import", str(FULL_GAME), "--db", "{db}"],
                                  ["serve", "--db", "{db}", "--pin", "123456", "--port", "0"],
                                  ["run", "--demo", "--db", "{db}", "--pin", "123456", "--port", "0"]])
def test_a_damaged_or_newer_database_exits_1_everywhere_untouched(db, damage, argv, capsys):
    damage(db)
    before = digest(db)
    capsys.readouterr()
    assert main([a.format(db=db) for a in argv]) == 1
    assert str(db) in one_line(capsys)
    assert digest(db) == before


@pytest.mark.parametrize("argv", [["replay", "--db", "{path}", "1"], ["log", "--db", "{path}"],
                                  ["log", "export", "1", "--db", "{path}"]])
def test_reading_a_path_that_does_not_exist_is_an_error_and_creates_nothing(tmp_path, argv, capsys):
    path = tmp_path / "sub" / "games.sqlite"
    assert main([a.format(path=path) for a in argv]) == 1
    assert "there is no game log at" in one_line(capsys)
    assert not (tmp_path / "sub").exists()


def foreign_wal(path):
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("CREATE TABLE notes (text TEXT)")
    con.commit()
    con.close()


def foreign_delete(path):
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE notes (text TEXT)")
    con.commit()
    con.close()


def empty_sqlite(path):
    con = sqlite3.connect(path)
    con.execute("PRAGMA user_version = 1")
    con.close()


def text_file(path):
    path.write_text(json.dumps({"not": "a game log"}))


@pytest.mark.parametrize("make", [foreign_wal, foreign_delete, empty_sqlite, text_file])
@pytest.mark.parametrize("argv", [["log", "--db", "{path}"], ["replay", "--db", "{path}", "1"],
                                  ["log", "export", "1", "--db", "{path}"],
                                  ["log", "import", str(FULL_GAME), "--db", "{path}"]])
def test_a_file_that_is_not_ours_is_refused_untouched(tmp_path, make, argv, capsys):
    path = tmp_path / "other.db"
    make(path)
    before = digest(path)
    assert main([a.format(path=path) for a in argv]) == 1
    assert "not a table companion game log" in one_line(capsys)
    assert digest(path) == before


@pytest.mark.parametrize("host, port, ok", [("127.0.0.1", 8000, True), ("localhost", 0, True), ("0.0.0.0", 65535, True),
                                            ("127.0.0.1", 65536, False), ("256.0.0.1", 80, False)])
def test_listen_problem_passes_what_can_be_listened_on(host, port, ok):
    from web.serve import listen_problem

    assert (listen_problem(host, port) is None) == ok


@pytest.mark.parametrize("url, says", [("127.0.0.1:9", "cannot reach the companion at 'http://127.0.0.1:9'"),
                                       ("ftp://127.0.0.1", "'ftp://127.0.0.1' is not the companion's address"),
                                       ("http://", "'http://' is not the companion's address")])
def test_send_names_an_address_it_cannot_use_in_one_line(url, says, capsys):
    # an address typed without http:// (as the banner shows it) is tried as http; the rest is named
    assert main(["send", '{"cmd":"undo"}', "--url", url, "--pin", "123456"]) == 1
    assert says in one_line(capsys)


@pytest.mark.parametrize("status, body", [(404, b"<html>Not Found</html>"), (501, b"Unsupported method"),
                                          (200, b"<html>a printer's page</html>"), (200, b"[1, 2]")])
def test_send_to_another_web_server_says_the_address_is_not_the_companion(status, body, capsys):
    # Another server at that address said "refused (404): Not Found" (exit 2, as if the game had
    # refused the move), and a 200 page that is no JSON was a traceback.
    import http.server
    import threading

    class Other(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - the handler's own name
            self.send_response(status)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Other)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"127.0.0.1:{server.server_port}"
        assert main(["send", '{"cmd":"undo"}', "--url", url, "--pin", "123456"]) == 1
        line = one_line(capsys)
        assert "is not the table companion: check --url" in line and "refused" not in line, line
    finally:
        server.shutdown()
        server.server_close()


def test_send_refuses_a_key_given_twice_before_the_network(capsys):
    # it went out as {"cmd":"undo"}: the last "cmd" won in silence
    assert main(["send", '{"cmd":"kill","cmd":"undo"}', "--url", "127.0.0.1:9", "--pin", "123456"]) == 2
    line = one_line(capsys)
    assert '"cmd" is given twice' in line and "cannot reach" not in line


@pytest.mark.parametrize("argv", [["replay", "--db", "{db}", "99999999999999999999"],
                                  ["log", "export", "99999999999999999999", "--db", "{db}"]])
def test_a_game_id_too_large_for_the_log_is_no_game_not_a_traceback(db, argv, capsys):
    # it printed OverflowError's traceback (SQLite's integers are 64-bit) and exited 1
    assert main([a.format(db=db) for a in argv]) == 2
    assert "no game 99999999999999999999" in one_line(capsys)


@pytest.mark.parametrize("url", ["http://[::1", "http://127.0.0.1:abc", "http://127.0.0.1:99999"])
def test_send_names_an_address_it_cannot_parse_in_one_line(url, capsys):
    # a traceback (ValueError: Invalid IPv6 URL; InvalidURL: nonnumeric port), or "Connection refused" for 99999
    assert main(["send", '{"cmd":"undo"}', "--url", url, "--pin", "123456"]) == 1
    assert f"--url {url!r} is not the companion's address" in one_line(capsys)


def test_send_refuses_a_pin_with_a_line_break_in_one_line(capsys):
    # http.client refused the header: a ValueError traceback
    assert main(["send", '{"cmd":"undo"}', "--url", "127.0.0.1:9", "--pin", "123\n456"]) == 2
    line = one_line(capsys)
    assert "override PIN" in line and "line break" in line and "123" not in line


def test_replay_with_a_database_and_no_game_id_says_so_in_plain_words(db, capsys):
    # it read "got None"
    assert main(["replay", "--db", str(db)]) == 2
    line = one_line(capsys)
    assert "give a game id (a number) to replay, got none;" in line and "None" not in line


def test_watch_stopped_with_ctrl_c_ends_0_as_the_readme_says(tmp_path):
    # the README said every command ends 130 on Ctrl-C; watch (like run and serve) runs until stopped and ends 0
    import os
    import signal

    root = Path(__file__).resolve().parent.parent
    assert "`run`, `serve` and `vision watch`, which run until they are stopped, end 0" in (root / "README.md").read_text()
    proc = subprocess.Popen([sys.executable, "-m", "companion.cli", "vision", "watch", "--source", "synthetic:3"],
                            cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(root)},
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert json.loads(proc.stdout.readline())["dice"]  # it is reading: now the user presses Ctrl-C
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 0 and "Traceback" not in err


@pytest.mark.parametrize("json_out", [[], ["--json"]])
def test_replay_with_a_settings_file_that_is_not_there_is_refused_either_way(tmp_path, capsys, json_out):
    # With --json it was refused; the plain summary ignored the file named and exited 0.
    missing = tmp_path / "nothere.toml"
    assert main(["replay", str(FULL_GAME), "--config", str(missing), *json_out]) == 2
    assert "nothere.toml does not exist" in one_line(capsys)


def test_export_without_a_game_id_says_where_the_ids_are(db, capsys):
    assert main(["log", "export", "--db", str(db)]) == 2
    said = one_line(capsys)
    assert "needs a game id" in said and "None" not in said and "companion log" in said


@pytest.mark.parametrize("command", ["run", "serve"])
def test_a_port_another_program_holds_is_said_before_a_game_log_is_made(tmp_path, capsys, command):
    # It was found only once the server started: an empty game log and its lock file were left behind.
    import socket

    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        db = tmp_path / "new.sqlite"
        argv = [command, "--host", "127.0.0.1", "--port", str(port), "--db", str(db), "--pin", "123456"]
        assert main(argv + (["--demo"] if command == "run" else [])) == 1
    said = one_line(capsys)
    assert f"cannot listen on 127.0.0.1:{port}" in said and "already running" in said
    assert list(tmp_path.iterdir()) == []
