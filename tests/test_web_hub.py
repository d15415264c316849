"""The phones' streams on their own: each a Table subscription, slow phones ended, the cap."""

from __future__ import annotations

import json

from web.hub import Hub, messages, sse

NEW = {"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"]}


def data(chunk: str) -> dict:
    return json.loads(chunk.split("data: ", 1)[1])


def test_sse_format():
    assert sse("state", {"a": "é"}) == 'event: state\ndata: {"a":"é"}\n\n'


def test_every_phone_gets_the_current_state_first_then_each_update_once(table):
    table.submit(NEW, "cli")
    hub = Hub(table, max_streams=5)
    a, b = hub.open_stream(), hub.open_stream()
    assert table.subscriber_count() == 2  # no pump: each stream is its own subscription
    table.submit({"cmd": "kill", "player": "Ann"}, "web")
    for stream in (a, b):
        gen = messages(stream, heartbeat_s=5)
        assert next(gen).startswith(": connected")
        first, second = data(next(gen)), data(next(gen))
        assert first["initial"] is True and first["state"]["seq"] == 1 and first["source"] is None
        assert "initial" not in second and second["state"]["seq"] == 2 and second["source"] == "web"
        gen.close()
    assert hub.count() == 0 and table.subscriber_count() == 0
    hub.close()


def test_a_phone_that_stops_reading_is_ended_and_its_slot_freed(table):
    table.submit(NEW, "cli")
    hub = Hub(table, max_streams=5, queue_size=2)
    slow, fine = hub.open_stream(), hub.open_stream()
    fine.get(1)  # the initial state
    table.submit({"cmd": "kill", "player": "Ann"}, "web")  # fills the slow phone's queue
    fine.get(1)
    table.submit({"cmd": "kill", "player": "Ben"}, "web")
    assert slow.closed and not fine.closed
    chunks = list(messages(slow, 5))  # ends instead of waiting: the page reconnects for a fresh state
    assert chunks[0].startswith(": connected") and len(chunks) <= 3
    assert hub.count() == 1 and fine.get(1)["state"]["seq"] == 3
    hub.close()


def test_a_vanished_phone_ends_its_stream_at_the_next_heartbeat(table):
    hub = Hub(table, max_streams=5)
    stream = hub.open_stream()
    gone = [False]
    gen = messages(stream, heartbeat_s=0.01, disconnected=lambda: gone[0])
    next(gen)
    assert data(next(gen)) == {"state": None, "events": [], "source": None, "initial": True}
    assert next(gen) == ": heartbeat\n\n"
    gone[0] = True
    assert list(gen) == [] and hub.count() == 0 and table.subscriber_count() == 0
    hub.close()


def test_cap(table):
    hub = Hub(table, max_streams=1)
    s = hub.open_stream()
    assert hub.open_stream() is None
    s.close()
    assert hub.open_stream() is not None
    hub.close()
    assert hub.open_stream() is None  # closed for good


def test_a_message_with_half_a_character_is_still_sent_as_utf8():
    # A notice quoting a file name that is not UTF-8 (Python keeps its bytes as lone surrogates) could not
    # be written: the stream it went out on ended, on every phone.
    line = sse("notice", {"text": "roll-\udc80.jpg is not a photo", "name": "Zoë"})
    line.encode("utf-8")
    assert json.loads(line.split("data: ", 1)[1]) == {"text": "roll-\udc80.jpg is not a photo", "name": "Zoë"}
    assert sse("state", {"name": "Zoë"}) == 'event: state\ndata: {"name":"Zoë"}\n\n'  # plain text stays plain
