"""Unfinished games resumed from a phone, past games listed, read as a timeline and exported."""

from __future__ import annotations

import json

import pytest

from web import create_app

PIN = "246813"
AUTH = {"Authorization": f"Bearer {PIN}"}
ZOMBEE = {"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia"], "variant": "standard"}
ZOO = {"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"]}
BEN_DIES = [{"cmd": "bullets", "player": "Ben", "delta": -5}, {"cmd": "life", "player": "Ben", "delta": -5}]


@pytest.fixture
def app(table):
    app = create_app({"TABLE": table, "PIN": PIN, "HEARTBEAT_S": 0.05})
    yield app
    app.extensions["companion"].hub.close()


@pytest.fixture
def client(app):
    return app.test_client()


def play(table, *commands):
    for c in commands:
        table.submit(c, "cli")


def test_an_abandoned_game_is_listed_and_resumed_through_the_table(client, table):
    play(table, ZOMBEE, {"cmd": "roll", "faces": ["honey"] * 3 + ["zzz"] * 2})
    first = table.state()["game_id"]
    play(table, ZOO, {"cmd": "kill", "player": "Ben", "count": 2})
    listing = client.get("/api/games").get_json()
    assert listing["current"] != first
    assert [(g["id"], g["over"], g["players"]) for g in listing["games"]][-1] == (first, False, ["Tom", "Mia"])
    with table.subscribe() as phone:
        phone.get(timeout=1)
        assert client.post(f"/api/games/{first}/resume").status_code == 401  # needs the PIN
        r = client.post(f"/api/games/{first}/resume", headers=AUTH)
        assert r.status_code == 200 and r.get_json()["game_id"] == first and r.get_json()["rolls"] == 1
        message = phone.get(timeout=1)  # every phone follows
        assert message["state"]["game_id"] == first and message["events"][0]["kind"] == "resumed"
    play(table, {"cmd": "stop"})  # the next command goes to the resumed game
    assert table.state()["game_id"] == first and table.state()["phase"] == "roll"


def test_a_finished_or_unknown_game_cannot_be_resumed(client, table):
    play(table, ZOO, *BEN_DIES)  # Ben dies: Ann is the last hero
    done = table.state()["game_id"]
    assert table.state()["over"]
    play(table, ZOMBEE)
    r = client.post(f"/api/games/{done}/resume", headers=AUTH)
    assert r.status_code == 400 and "finished" in r.get_json()["error"]
    assert client.post("/api/games/99/resume", headers=AUTH).status_code == 404
    assert table.state()["game"] == "zombee"  # nothing changed


def test_a_past_game_reads_as_a_timeline_and_exports_as_jsonl(client, table):
    play(table, ZOO, {"cmd": "kill", "player": "Ann", "count": 4}, *BEN_DIES)
    gid = table.state()["game_id"]
    listing = client.get("/api/games").get_json()["games"][0]
    assert listing["winners"] == ["Ann"] and listing["over"] and listing["last"] >= listing["created"]
    data = client.get(f"/api/games/{gid}").get_json()
    assert [r["command"]["cmd"] for r in data["timeline"]] == ["new_game", "kill", "bullets", "life"]
    assert any(e["kind"] == "player_out" for e in data["timeline"][3]["events"])
    r = client.get(f"/api/games/{gid}.jsonl")
    assert r.status_code == 200 and "attachment" in r.headers["Content-Disposition"]
    lines = [json.loads(line) for line in r.get_data(as_text=True).splitlines()]
    assert lines[0] == ZOO and len(lines) == 4
    assert client.get("/api/games/77").status_code == 404
    assert client.get("/history").status_code == 200


def test_the_timeline_says_which_moves_still_stand(client, table):
    # the page asks "Take back the last move? …" of the last one that stands: after an undo, the one before
    play(table, ZOO, {"cmd": "kill", "player": "Ann", "count": 4}, {"cmd": "life", "player": "Ben", "delta": -1},
         {"cmd": "undo"})
    data = client.get(f"/api/games/{table.state()['game_id']}").get_json()
    assert [(r["command"]["cmd"], r["stands"]) for r in data["timeline"]] == [
        ("new_game", True), ("kill", True), ("life", False), ("undo", False)]


def test_resuming_a_game_id_too_large_for_the_log_is_404_and_the_table_still_plays(client, table):
    # OverflowError killed the engine thread: every later command answered 503 until a restart
    play(table, ZOO)
    r = client.post("/api/games/99999999999999999999/resume", headers=AUTH)
    assert r.status_code == 404 and "no game 99999999999999999999" in r.get_json()["error"]
    r = client.post("/api/commands", json={"cmd": "kill", "player": "Ann"}, headers=AUTH)
    assert r.status_code == 200 and r.get_json()["players"][0]["kills"] == 1
