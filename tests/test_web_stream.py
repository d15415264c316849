"""GET /events through Flask's test client: the state at once, updates, refusals, the cap."""

from __future__ import annotations

import json

import pytest

from web import create_app

PIN = "246813"
ZOMBEE = {"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia"]}
FIRST_ROLL = {"cmd": "roll", "faces": ["bee", "honey", "zzz", "zzz", "zzz"]}


@pytest.fixture
def app(table):
    app = create_app({"TABLE": table, "PIN": PIN, "HEARTBEAT_S": 0.02, "MAX_STREAMS": 2})
    yield app
    app.extensions["companion"].hub.close()


def hub(app):
    return app.extensions["companion"].hub


def parse(chunk: bytes) -> tuple[str | None, dict | None]:
    text = chunk.decode()
    event = next((line[7:] for line in text.splitlines() if line.startswith("event: ")), None)
    data = next((json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")), None)
    return event, data


def next_event(body, limit=500):
    """The next real event, skipping heartbeat comments (each one heartbeat interval at most)."""
    for _ in range(limit):
        event, data = parse(next(body))
        if event:
            return event, data
    raise AssertionError("no event came")


def test_stream_starts_with_a_comment_and_the_state(app, table):
    table.submit(ZOMBEE, "cli")
    r = app.test_client().get("/events")
    assert r.status_code == 200 and r.mimetype == "text/event-stream"
    assert r.headers["Cache-Control"].startswith("no-cache")
    body = iter(r.response)
    assert next(body).startswith(b": connected")
    event, data = next_event(body)
    assert event == "state" and data["initial"] is True
    assert data["state"] == {**table.state(), "coach": None}  # no roll yet: nothing to coach
    r.close()


def test_stream_sends_null_state_when_there_is_no_game(app):
    r = app.test_client().get("/events")
    body = iter(r.response)
    next(body)
    assert next_event(body) == ("state", {"state": None, "events": [], "source": None, "initial": True})
    r.close()


def test_every_accepted_command_from_any_source_is_pushed(app, table):
    table.submit(ZOMBEE, "cli")
    r = app.test_client().get("/events")
    body = iter(r.response)
    next(body), next_event(body)
    table.post(FIRST_ROLL, "camera")
    event, data = next_event(body)
    assert event == "state" and data["source"] == "camera" and data["command"] == FIRST_ROLL
    assert data["state"]["seq"] == 2 and data["state"]["last_roll"] == FIRST_ROLL["faces"]
    assert any(e["kind"] == "roll" and "Tom" in e["text"] for e in data["events"])
    r.close()


def test_refusals_and_notices_are_pushed(app, table):
    table.submit(ZOMBEE, "cli")
    r = app.test_client().get("/events")
    body = iter(r.response)
    next(body), next_event(body)
    table.post({"cmd": "flip", "result": "bee"}, "panel")
    event, data = next_event(body)
    assert event == "refused" and data["source"] == "panel" and "roll" in data["error"]
    table.notify("camera", text="The camera is offline.")
    event, data = next_event(body)
    assert event == "notice" and data.pop("time") > 0 and data == {"kind": "camera", "text": "The camera is offline."}
    r.close()


def test_heartbeat_comment_when_nothing_happens(app):
    r = app.test_client().get("/events")
    body = iter(r.response)
    next(body), next_event(body)
    assert next(body) == b": heartbeat\n\n"
    r.close()


def test_streams_over_the_cap_get_503_and_closed_ones_free_their_slot(app):
    client = app.test_client()
    first, second = client.get("/events"), client.get("/events")
    assert hub(app).count() == 2
    third = client.get("/events")
    assert third.status_code == 503 and "too many" in third.get_json()["error"]
    assert third.headers["Retry-After"] == "10"
    assert client.get("/api/info").status_code == 200  # other requests still answered
    first.close()  # never read: the slot is still given back
    assert hub(app).wait_count(1, timeout=2)
    again = client.get("/events")
    assert again.status_code == 200
    second.close(), again.close()
    assert hub(app).wait_count(0, timeout=2)


def test_closing_the_hub_ends_every_stream(app):
    r = app.test_client().get("/events")
    body = iter(r.response)
    next(body), next_event(body)
    hub(app).close()
    assert list(body) == [] or all(c.startswith(b":") for c in body)
    assert hub(app).count() == 0
    assert app.test_client().get("/events").status_code == 503  # closed for good
