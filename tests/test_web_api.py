"""The JSON API and the page, through Flask's test client, against a real Table."""

from __future__ import annotations

import io
import json
import re
import sqlite3

import pytest

from companion.coach import coach
from companion.table import Table
from web import create_app

PIN = "246813"
AUTH = {"Authorization": f"Bearer {PIN}"}
ZOMBEE = {"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia", "Ann"], "variant": "standard"}
ZOO = {"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"]}


@pytest.fixture
def app(table, clock):
    app = create_app({"TABLE": table, "PIN": PIN, "CLOCK": clock, "HEARTBEAT_S": 0.05})
    yield app
    app.extensions["companion"].hub.close()


@pytest.fixture
def client(app):
    return app.test_client()


def post(client, body, headers=AUTH, **kw):
    return client.post("/api/commands", json=body, headers=headers, **kw)


# --- the page -------------------------------------------------------------------------------


def test_page_serves_every_asset_itself(client):
    r = client.get("/")
    assert r.status_code == 200 and r.mimetype == "text/html"
    html = r.get_data(as_text=True)
    assert "Table companion" in html
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert assets and not [a for a in assets if a.startswith(("http:", "https:", "//"))]
    for url in assets:
        if url.startswith("/static/"):
            assert client.get(url).status_code == 200, url
    assert "default-src 'self'" in r.headers["Content-Security-Policy"]
    assert r.headers["X-Content-Type-Options"] == "nosniff"


def test_healthz(client):
    r = client.get("/healthz")
    assert r.status_code == 200 and r.get_json()["ok"] is True


def test_info_without_demo(client):
    info = client.get("/api/info").get_json()
    assert info["demo"] is False and info["buttons"] == [] and info["overrides"] is True
    # The rules' constants, so the page keeps no copy of them.
    assert info["dice"] == 5 and info["max_rolls"] == 3 and info["faces"] == ["bee", "honey", "zzz", "zombee"]
    assert info["flower_totals"] == {"bee": 11, "question": 2, "zombee": 1}
    assert info["lock_names"]["lions_den"] == "Lions' Den" and list(info["lock_names"]) == info["locks"]
    assert info["players"] == {"zombee": {"min": 2, "max": 5}, "zoo": {"min": 2, "max": 6}} and info["name_chars"] == 40


# --- reading ----------------------------------------------------------------------------------


def test_state_is_404_json_before_any_game(client):
    r = client.get("/api/state")
    assert r.status_code == 404 and "new_game" in r.get_json()["error"]
    assert client.get("/api/log").get_json() == {"game_id": None, "records": []}
    assert client.get("/api/chart").get_json()["points"] == []


def test_state_is_the_replay_json_plus_game_id_and_seq(client, table, gamelog):
    table.submit(ZOMBEE, "cli")
    table.submit({"cmd": "roll", "faces": ["bee", "honey", "honey", "zzz", "zzz"]}, "panel")
    state = client.get("/api/state").get_json()
    engine = gamelog.engine(state["game_id"])
    # The coach is added for showing: the figures of the engine's own state.
    assert state == {**engine.state(), "game_id": state["game_id"], "seq": 2, "coach": coach(engine.state())}
    assert state["coach"]["options"][0]["reroll"] == []


def test_log_lists_accepted_commands_with_seq_time_source(client, table):
    table.submit(ZOMBEE, "cli")
    table.submit({"cmd": "roll", "faces": ["bee", "honey", "honey", "zzz", "zzz"]}, "camera")
    with pytest.raises(ValueError):
        table.submit({"cmd": "flip", "result": "bee"}, "panel")  # refused: not logged
    log = client.get("/api/log").get_json()
    assert [(r["seq"], r["source"], r["command"]["cmd"]) for r in log["records"]] == [(1, "cli", "new_game"), (2, "camera", "roll")]
    assert all(isinstance(r["time"], float) for r in log["records"])


def test_chart_has_a_point_per_accepted_command(client, table):
    table.submit(ZOMBEE, "cli")
    table.submit({"cmd": "roll", "faces": ["honey", "honey", "honey", "zzz", "zzz"]}, "cli")
    chart = client.get("/api/chart").get_json()
    assert chart["players"] == ["Tom", "Mia", "Ann"]
    assert [p["seq"] for p in chart["points"]] == [1, 2]
    assert chart["points"][0]["values"] == [2, 2, 2]


# --- commands ---------------------------------------------------------------------------------


def test_accepted_command_answers_the_new_state(client):
    r = post(client, ZOMBEE)
    assert r.status_code == 200
    body = r.get_json()
    assert body["game"] == "zombee" and body["seq"] == 1 and body["active"] == "Tom"
    r = post(client, {"cmd": "roll", "faces": ["bee", "honey", "zzz", "zzz", "zombee"]})
    assert r.status_code == 200 and r.get_json()["seq"] == 2
    assert client.get("/api/log").get_json()["records"][-1]["source"] == "web"


def test_a_command_sent_with_if_match_is_applied_only_to_the_state_it_names(client):
    # Two phones confirming Undo at once took back two moves; two starting a game made two games.
    assert post(client, {"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"]},
                headers={**AUTH, "If-Match": '"none"'}).status_code == 200
    seen = client.get("/api/state").headers["ETag"]
    assert post(client, {"cmd": "kill", "player": "Ann"}, headers={**AUTH, "If-Match": seen}).status_code == 200
    undo = post(client, {"cmd": "undo"}, headers={**AUTH, "If-Match": seen})  # sent for the state before the kill
    assert undo.status_code == 412 and "moved on" in undo.get_json()["error"]
    assert "game 1 is at move 2" in undo.get_json()["error"]
    again = post(client, {"cmd": "new_game", "game": "zoo", "players": ["Xu", "Yo"]},
                 headers={**AUTH, "If-Match": '"none"'})
    assert again.status_code == 412
    state = client.get("/api/state")
    assert state.get_json()["seq"] == 2 and state.get_json()["players"][0]["kills"] == 1
    assert state.headers["ETag"] == '"g1-2"'
    ok = post(client, {"cmd": "undo"}, headers={**AUTH, "If-Match": state.headers["ETag"]})
    assert ok.status_code == 200 and ok.headers["ETag"] == '"g1-3"'
    bad = post(client, {"cmd": "undo"}, headers={**AUTH, "If-Match": "seq 3"})
    assert bad.status_code == 400 and "If-Match" in bad.get_json()["error"]
    assert client.get("/api/state").get_json()["seq"] == 3


def test_zoo_overrides(client):
    assert post(client, ZOO).status_code == 200
    for cmd in ({"cmd": "kill", "player": "Ann", "count": 3}, {"cmd": "life", "player": "Ben", "delta": -1},
                {"cmd": "bullets", "player": "Ann", "delta": 1},
                {"cmd": "collect_lock", "player": "Ben", "lock": "polar_bears"}):
        assert post(client, cmd).status_code == 200, cmd
    state = client.get("/api/state").get_json()
    ann, ben = state["players"]
    assert (ann["kills"], ann["bullets"], ben["life"], ben["locks"]) == (3, 6, 4, ["polar_bears"])
    assert state["locks"]["polar_bears"] == "collected" and state["seq"] == 5


@pytest.mark.parametrize("body, words", [
    ({"cmd": "stop"}, "not rolled yet"),
    ({"cmd": "fly"}, "unknown cmd"),
    ({"cmd": "stop", "now": True}, "unknown key"),
    ({"cmd": "roll", "faces": ["six"]}, "not a die face"),
    ({"cmd": "kill", "player": "Tom", "count": True}, "whole number"),
])
def test_refused_command_is_400_and_changes_nothing(client, body, words):
    post(client, ZOMBEE)
    before = client.get("/api/state").get_json()
    r = post(client, body)
    assert r.status_code == 400 and words in r.get_json()["error"]
    assert client.get("/api/state").get_json() == before


def test_a_key_given_twice_is_400_naming_it_and_changes_nothing(client):
    post(client, ZOO)
    before = client.get("/api/state").get_json()
    # {"cmd":"kill","player":"Ann","player":"Ben"} gave Ben the kill: the last key won in silence
    r = client.post("/api/commands", data='{"cmd":"kill","player":"Ann","player":"Ben"}',
                    content_type="application/json", headers=AUTH)
    assert r.status_code == 400 and '"player" is given twice' in r.get_json()["error"]
    assert client.get("/api/state").get_json() == before


@pytest.mark.parametrize("body", ['{"cmd":"new_game","game":"zoo","players":["Tom","\\ud800x"]}',
                                  '{"cmd":"kill","player":"\\udc00"}'])
def test_half_a_character_is_400_and_changes_nothing(client, body):
    # A lone \ud800 escape was a 500 (the game log could not store it), and its refusal, sent to every
    # phone, ended every live stream (it could not be written as UTF-8).
    post(client, ZOO)
    before = client.get("/api/state").get_json()
    r = client.post("/api/commands", data=body, content_type="application/json", headers=AUTH)
    assert r.status_code == 400 and "half of a character" in r.get_json()["error"]
    assert client.get("/api/state").get_json() == before


def test_json_that_is_not_an_object_is_400(client):
    r = client.post("/api/commands", data="[1, 2]", content_type="application/json", headers=AUTH)
    assert r.status_code == 400 and "object" in r.get_json()["error"]


def test_command_without_a_game_is_400(client):
    r = post(client, {"cmd": "stop"})
    assert r.status_code == 400 and "new_game" in r.get_json()["error"]


def test_no_pin_or_wrong_pin_is_401(client):
    r = post(client, ZOMBEE, headers={})
    assert r.status_code == 401 and r.headers["WWW-Authenticate"].startswith("Bearer")
    assert "PIN" in r.get_json()["error"]
    assert post(client, ZOMBEE, headers={"Authorization": "Bearer 1111"}).status_code == 401
    assert post(client, ZOMBEE, headers={"Authorization": f"Basic {PIN}"}).status_code == 401
    assert client.get("/api/state").status_code == 404  # nothing changed


def test_app_without_a_pin_refuses_every_override(table):
    client = create_app({"TABLE": table, "PIN": None}).test_client()
    assert post(client, ZOMBEE, headers={"Authorization": "Bearer "}).status_code == 401
    assert post(client, ZOMBEE, headers={"Authorization": "Bearer None"}).status_code == 401


def test_body_that_is_not_json_is_415(client):
    r = client.post("/api/commands", data="cmd=stop", content_type="application/x-www-form-urlencoded", headers=AUTH)
    assert r.status_code == 415 and "JSON" in r.get_json()["error"]
    r = client.post("/api/commands", data="{not json", content_type="application/json", headers=AUTH)
    assert r.status_code == 415
    r = client.post("/api/commands", data=b"\xff\xfe", content_type="application/json", headers=AUTH)
    assert r.status_code == 415


def test_body_over_16_kib_is_413(client):
    big = {"cmd": "new_game", "game": "zoo", "players": ["x" * 17000]}
    r = post(client, big)
    assert r.status_code == 413 and "16 KiB" in r.get_json()["error"]


def test_chunked_body_over_16_kib_is_413(client):
    body = b'{"cmd": "new_game", "game": "zoo", "players": ["' + b"x" * 20000 + b'"]}'
    r = client.post("/api/commands", input_stream=io.BytesIO(body), content_type="application/json",
                    headers={**AUTH, "Transfer-Encoding": "chunked"}, environ_base={"wsgi.input_terminated": True})
    assert r.status_code == 413


def test_repeated_wrong_pins_from_one_address_are_429_until_the_lockout_ends(client, clock):
    wrong = {"Authorization": "Bearer 0000"}
    codes = [post(client, ZOMBEE, headers=wrong).status_code for _ in range(5)]
    assert codes == [401, 401, 401, 401, 429]
    r = post(client, ZOMBEE)  # even the right PIN waits
    assert r.status_code == 429 and int(r.headers["Retry-After"]) > 0 and "wrong PIN" in r.get_json()["error"]
    other = post(client, ZOMBEE, environ_base={"REMOTE_ADDR": "10.0.0.9"})
    assert other.status_code == 200  # another phone is not locked out
    clock.now += 121
    assert post(client, {"cmd": "undo"}).status_code == 400  # allowed again (nothing to undo)


def test_save_pin_check_answers_and_counts_towards_the_same_lockout(client, clock):
    check = lambda pin: client.post("/api/pin", headers={"Authorization": f"Bearer {pin}"})  # noqa: E731
    assert check(PIN).status_code == 200 and check(PIN).get_json() == {"ok": True}
    assert client.post("/api/pin").status_code == 401  # no PIN at all: nothing to count
    assert [check("0000").status_code for _ in range(4)] == [401] * 4
    # The fifth wrong PIN, with a command: the same count, so checking is no cheaper way to guess.
    assert post(client, ZOMBEE, headers={"Authorization": "Bearer 0000"}).status_code == 429
    locked = check(PIN)
    assert locked.status_code == 429 and int(locked.headers["Retry-After"]) > 0
    clock.now += 121
    assert check(PIN).status_code == 200


def test_wrong_pins_spread_over_time_do_not_lock_out(client, clock):
    wrong = {"Authorization": "Bearer 0000"}
    for _ in range(8):
        assert post(client, ZOMBEE, headers=wrong).status_code == 401
        clock.now += 100  # at most 4 wrong PINs fall within any 300 s window
    assert post(client, ZOMBEE).status_code == 200


def test_a_busy_table_is_503(gamelog):
    idle = Table(gamelog)  # never started: nobody drains its queue
    client = create_app({"TABLE": idle, "PIN": PIN, "SUBMIT_TIMEOUT": 0.05}).test_client()
    r = post(client, ZOMBEE)
    assert r.status_code == 503 and "did not answer" in r.get_json()["error"]


# --- errors ------------------------------------------------------------------------------------


def test_unknown_path_and_wrong_method_are_json(client):
    r = client.get("/nowhere")
    assert r.status_code == 404 and r.is_json
    r = client.get("/api/commands")
    assert r.status_code == 405 and r.is_json and "POST" in r.headers["Allow"]


def test_a_crash_is_a_json_500_without_traceback(gamelog):
    class Broken(Table):
        def state(self):
            raise RuntimeError("secret detail")

    client = create_app({"TABLE": Broken(gamelog), "PIN": PIN}).test_client()
    r = client.get("/api/state")
    assert r.status_code == 500 and r.get_json() == {"error": "internal error"}
    assert b"Traceback" not in r.data and b"secret" not in r.data


def test_debug_mode_is_never_on(table):
    app = create_app({"TABLE": table, "DEBUG": True})
    assert app.debug is False


def test_create_app_needs_a_table():
    with pytest.raises(ValueError, match="TABLE"):
        create_app({})


# --- the virtual panel of demo mode ---------------------------------------------------------------


@pytest.fixture
def demo(table):
    presses = []
    app = create_app({"TABLE": table, "PIN": PIN, "DEMO_PRESS": lambda b, h: presses.append((b, h)),
                      "DEMO_BUTTONS": ["Bee", "Roll"]})
    return app.test_client(), presses


def test_demo_press_is_404_when_not_in_demo_mode(client):
    assert client.post("/api/demo/press", json={"button": "Bee"}, headers=AUTH).status_code == 404


def test_demo_press_calls_the_panel(demo):
    client, presses = demo
    assert client.get("/api/info").get_json()["buttons"] == ["Bee", "Roll"]
    r = client.post("/api/demo/press", json={"button": "Roll", "hold_s": 1.5}, headers=AUTH)
    assert r.status_code == 200
    assert client.application.extensions["companion"].demo_press.wait_idle()  # the hold runs off the request
    assert presses == [("Roll", 1.5)]
    assert client.post("/api/demo/press", json={"button": "Bee"}, headers=AUTH).status_code == 200
    assert presses[-1] == ("Bee", 0.0)


@pytest.mark.parametrize("body", [
    {"button": "Honey"}, {"button": 3}, {"button": "Bee", "hold_s": -1}, {"button": "Bee", "hold_s": "1"},
    {"button": "Bee", "hold_s": True}, {"button": "Bee", "hold_s": 2.01}, {"button": "Bee", "extra": 1},
])
def test_demo_press_refuses_bad_bodies(demo, body):
    client, presses = demo
    r = client.post("/api/demo/press", json=body, headers=AUTH)
    assert r.status_code == 400 and r.get_json()["error"] and presses == []


def test_demo_press_needs_the_pin(demo):
    client, presses = demo
    assert client.post("/api/demo/press", json={"button": "Bee"}).status_code == 401
    assert presses == []


def test_a_command_is_committed_to_the_synced_log_file_before_the_phone_is_answered(app, client, table):
    """The answer a phone gets is a promise that the command survives the plug being pulled: the
    COMMIT has run on a connection that syncs the write-ahead log at each commit before the answer
    is sent, and the command is already in the file for any other connection to read."""
    db = table.log._db
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL: fsync at every COMMIT
    statements = []
    db.set_trace_callback(statements.append)
    try:
        wal = table.log.path.with_name(table.log.path.name + "-wal")
        before = wal.stat().st_size if wal.exists() else 0
        r = post(client, ZOO)
        at_answer = list(statements)
    finally:
        db.set_trace_callback(None)
    assert r.status_code == 200
    ends = [s for s in at_answer if s in ("BEGIN IMMEDIATE", "COMMIT", "ROLLBACK")]
    assert ends == ["BEGIN IMMEDIATE", "COMMIT"]  # the command's one transaction, committed before the answer
    assert wal.stat().st_size > before  # the commit's frames are in the write-ahead log file
    other = sqlite3.connect(f"file:{table.log.path}?mode=ro", uri=True)
    try:
        stored = [json.loads(c) for (c,) in other.execute("SELECT command FROM commands")]
    finally:
        other.close()
    assert ZOO in stored
