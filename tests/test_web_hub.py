"""The hub on its own: fan-out, slow phones, duplicate states."""

from __future__ import annotations

import queue

from web.hub import Hub, messages, sse


class FakeSub:
    def __init__(self):
        self.q = queue.Queue()
        self.closed = False

    def get(self, timeout):
        try:
            return self.q.get(timeout=timeout)
        except queue.Empty:
            return None

    def close(self):
        self.closed = True


class FakeTable:
    def __init__(self):
        self.subs = []

    def subscribe(self):
        self.subs.append(FakeSub())
        return self.subs[-1]


def state(seq, game_id=1):
    return {"type": "state", "state": {"game_id": game_id, "seq": seq}, "events": [], "source": "cli"}


def test_sse_format():
    assert sse("state", {"a": "é"}) == 'event: state\ndata: {"a":"é"}\n\n'


def test_one_table_subscription_fans_out_to_every_phone():
    table = FakeTable()
    hub = Hub(table, max_streams=5, poll_s=0.01)
    a, b = hub.open_stream(), hub.open_stream()
    assert len(table.subs) == 1
    hub.publish(state(2))
    assert a.queue.get_nowait()["state"]["seq"] == 2 and b.queue.get_nowait()["state"]["seq"] == 2
    hub.close()
    assert table.subs[0].closed


def test_the_pump_forwards_table_messages():
    table = FakeTable()
    hub = Hub(table, max_streams=5, poll_s=0.01)
    a = hub.open_stream()
    table.subs[0].q.put(state(7))
    assert a.queue.get(timeout=2)["state"]["seq"] == 7
    hub.close()


def test_a_phone_that_stops_reading_is_dropped():
    hub = Hub(FakeTable(), max_streams=5, queue_size=2, poll_s=0.01)
    slow, fine = hub.open_stream(), hub.open_stream()
    for seq in (2, 3):
        hub.publish(state(seq))
    fine.queue.get_nowait(), fine.queue.get_nowait()
    hub.publish(state(4))
    assert slow.closed and hub.count() == 1
    assert list(messages(slow, None, 0.01))[-1].startswith("event: state")  # ends instead of waiting
    hub.close()


def test_states_already_sent_on_connect_are_not_repeated():
    hub = Hub(FakeTable(), max_streams=5, poll_s=0.01)
    stream = hub.open_stream()
    for message in (state(3), state(4), {"type": "refused", "error": "no", "source": "panel", "command": {}},
                    state(1, game_id=2)):
        stream.put(message)
    gen = messages(stream, {"game_id": 1, "seq": 3}, heartbeat_s=0.01)
    chunks = [next(gen) for _ in range(5)]
    assert chunks[0].startswith(": connected")
    assert '"seq":3' in chunks[1] and '"initial":true' in chunks[1]
    assert '"seq":4' in chunks[2]  # seq 3 skipped
    assert chunks[3].startswith("event: refused")
    assert '"game_id":2' in chunks[4]  # a new game starts again at seq 1
    gen.close()
    assert hub.count() == 0
    hub.close()


def test_a_vanished_phone_ends_its_stream_at_the_next_heartbeat():
    hub = Hub(FakeTable(), max_streams=5, poll_s=0.01)
    stream = hub.open_stream()
    gone = [False]
    gen = messages(stream, None, heartbeat_s=0.01, disconnected=lambda: gone[0])
    next(gen), next(gen)
    assert next(gen) == ": heartbeat\n\n"
    gone[0] = True
    assert list(gen) == [] and hub.count() == 0
    hub.close()


def test_cap():
    hub = Hub(FakeTable(), max_streams=1, poll_s=0.01)
    s = hub.open_stream()
    assert hub.open_stream() is None
    s.close()
    assert hub.open_stream() is not None
    hub.close()
