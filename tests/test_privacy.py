"""Nothing about the machine reaches a viewer: a full disk is told in plain words, the path goes to the log."""

from __future__ import annotations

import logging

import pytest

from web import create_app

PIN = "246813"
AUTH = {"Authorization": f"Bearer {PIN}"}
ZOO = {"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"]}


def fill_the_disk(gamelog) -> None:
    """A real SQLITE_FULL: the database may not grow by a single page any more."""
    pages = gamelog._db.execute("PRAGMA page_count").fetchone()[0]
    gamelog._db.execute(f"PRAGMA max_page_count = {pages}")


@pytest.fixture
def client(table):
    app = create_app({"TABLE": table, "PIN": PIN})
    yield app.test_client()
    app.extensions["companion"].hub.close()


def test_a_full_disk_hides_the_path_from_viewers_and_logs_it(client, table, gamelog, caplog):
    assert client.post("/api/commands", json=ZOO, headers=AUTH).status_code == 200
    fill_the_disk(gamelog)
    path = str(gamelog.path)
    with table.subscribe() as viewer, caplog.at_level(logging.ERROR):
        for _ in range(300):  # until a write needs a new page
            r = client.post("/api/commands", json={"cmd": "kill", "player": "Ann"}, headers=AUTH)
            if r.status_code != 200:
                break
        assert r.status_code == 503 and r.is_json
        body = r.get_data(as_text=True)
        assert "disk" in r.get_json()["error"] and path not in body and "sqlite" not in body.lower()
        refusals = []
        while (message := viewer.get(0.5)) is not None:
            if message["type"] == "refused":
                refusals.append(message)
        assert refusals and all(path not in str(m) and "sqlite" not in str(m).lower() for m in refusals)
        assert "nothing was changed" in refusals[-1]["error"]
    assert path in caplog.text and "full" in caplog.text  # the whole story for whoever runs the server
    kills = next(p for p in client.get("/api/state").get_json()["players"] if p["name"] == "Ann")["kills"]
    assert kills == len(gamelog.records(gamelog.latest_id())) - 1  # nothing half-stored
