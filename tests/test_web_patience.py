"""Slow or hostile devices cannot lock the phones out: a request is owed in time, waiting
connections make room at the connection limit, and a stream whose phone stopped reading is hung up."""

from __future__ import annotations

import http.client
import json
import socket
import threading

import pytest

from web import create_app
from web.patience import KNOWN, STRANGER, STREAMING, Arrival, Patience, make_room
from web.serve import ServerThread
from web.stream import SHARES

PIN = "246813"


# --- when a request is owed --------------------------------------------------------------------------------


def test_headers_are_owed_within_their_time_and_a_body_by_its_length(clock):
    arrival = Arrival(Patience(headers_s=5, body_s=5, body_rate=1000, clock=clock))
    clock.now += 4.9
    assert not arrival.overdue()
    clock.now += 0.1
    assert arrival.overdue()  # a byte a second never finishes its headers

    arrival.answered()  # a kept-alive connection owes its next request from its last answer
    clock.now += 1
    arrival.headers_done(3000)
    clock.now += 7.9
    assert not arrival.overdue()  # 5 s + 3000 bytes at 1000 B/s
    clock.now += 0.1
    assert arrival.overdue()


def test_nothing_is_owed_while_a_request_is_answered(clock):
    arrival = Arrival(Patience(clock=clock))
    arrival.answering()  # a stream, say, for an hour
    clock.now += 3600
    assert not arrival.overdue() and arrival.due() is None
    arrival.waiting()
    assert arrival.due() == clock.now + 5


class Waiter:
    def __init__(self, address, since, answering=False):
        self.address = address
        self.arrival = Arrival(Patience(clock=lambda: since))
        if answering:
            self.arrival.answering()

    def arrival_if_waiting(self):
        return self.arrival if self.arrival.since is not None else None


def test_room_is_made_by_the_longest_waiting_strangers_first_never_by_a_phone_with_the_pin():
    ranks = {"10.0.0.1": STRANGER, "10.0.0.2": STREAMING, "10.0.0.3": KNOWN}
    conns = {name: Waiter(addr, since) for name, addr, since in [
        ("old-stranger", "10.0.0.1", 1), ("new-stranger", "10.0.0.1", 5),
        ("old-streamer", "10.0.0.2", 0), ("pin-phone", "10.0.0.3", -10)]}
    conns["answering"] = Waiter("10.0.0.1", -20, answering=True)
    pick = lambda n: [c for c in make_room(conns.values(), n, ranks.__getitem__)]  # noqa: E731
    assert pick(1) == [conns["old-stranger"]]
    assert pick(3) == [conns["old-stranger"], conns["new-stranger"], conns["old-streamer"]]
    assert pick(5) == pick(3)  # the PIN phone and the connection being answered stay
    assert pick(0) == []


# --- over real sockets, with the server's clock in the test's hand ------------------------------------------


@pytest.fixture
def server(table, clock):
    table.submit({"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"]}, "cli")
    app = create_app({"TABLE": table, "PIN": PIN, "HEARTBEAT_S": 30.0, "UNCAPPED_ADDRESSES": (),
                      "MAX_CONNECTIONS": 12, "MAX_CONNECTIONS_PER_ADDRESS": 12,
                      "PATIENCE": Patience(headers_s=5, body_s=5, body_rate=1000, clock=clock)})
    with ServerThread(app) as srv:
        yield srv


def channel(srv, s, ready=lambda c: True):
    """The server's connection for socket `s`, once the server's loop has it and `ready(it)`."""
    seen = threading.Event()
    for _ in range(500):
        for c in list(srv.server._map.values()):
            if getattr(c, "addr", None) == s.getsockname() and ready(c):
                return c
        seen.wait(0.01)  # the server's loop takes it (or reads its bytes) on its next turn
    raise AssertionError(f"the server never had a ready connection for {s.getsockname()}")


def connect(srv, source="127.0.0.2"):
    """A connection the server has accepted (so its time runs from the test's clock as it is now)."""
    s = socket.socket()
    s.bind((source, 0))
    s.settimeout(5)
    s.connect(("127.0.0.1", int(srv.port)))
    channel(srv, s)
    return s


def answer(s) -> bytes:
    """Everything the server sends until it closes (the test's socket timeout fails a hang)."""
    out = b""
    while chunk := s.recv(4096):
        out += chunk
    return out


def wake(srv):
    srv.server.trigger.pull_trigger()  # the server's loop looks at its connections again now


def opened(srv, s) -> bool:
    """Whether the server still answers on this connection (it closes the ones it dropped)."""
    s.sendall(b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    r = http.client.HTTPResponse(s)
    try:
        r.begin()
        r.read()
    except (ConnectionResetError, http.client.RemoteDisconnected):
        return False
    return r.status == 200


def phone_state(srv, source="127.0.0.3") -> int:
    conn = http.client.HTTPConnection("127.0.0.1", int(srv.port), timeout=5, source_address=(source, 0))
    try:
        conn.request("GET", "/api/state")
        return conn.getresponse().status
    finally:
        conn.close()


def test_headers_dripped_too_slowly_get_408_and_the_connection_closes(server, clock):
    s = connect(server)
    s.sendall(b"GET /api/state HTTP/1.1\r\nHo")  # a byte a second, say
    channel(server, s, lambda c: c.request is not None)
    assert opened(server, connect(server))  # the server is answering others meanwhile
    clock.now += 5
    wake(server)
    head, body = answer(s).split(b"\r\n\r\n", 1)
    assert head.startswith(b"HTTP/1.1 408") and b"application/json" in head
    assert "did not arrive in time" in json.loads(body)["error"]


def test_a_connection_that_sends_nothing_is_closed_quietly_in_time(server, clock):
    s = connect(server)
    clock.now += 5
    wake(server)
    assert answer(s) == b""  # no answer: there was no request to answer


def test_a_body_that_trickles_in_slower_than_its_length_allows_gets_408(server, clock):
    s = connect(server)
    s.sendall(b"POST /api/commands HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
              b"Content-Length: 2000\r\n\r\n{\"cmd\":")
    channel(server, s, lambda c: c._arrival.headers_at is not None)  # its body is owed from now
    clock.now += 8  # 5 s + 2000 bytes at 1000 B/s = 7 s
    wake(server)
    assert answer(s).startswith(b"HTTP/1.1 408")


def test_at_the_connection_limit_waiting_connections_make_room_but_not_a_phone_with_the_pin(server, clock):
    # the PIN phone: shows its PIN, then holds kept-alive connections that wait for its next request
    conn = http.client.HTTPConnection("127.0.0.1", int(server.port), timeout=5, source_address=("127.0.0.4", 0))
    conn.request("POST", "/api/pin", headers={"Authorization": f"Bearer {PIN}"})
    assert conn.getresponse().status == 200
    conn.close()
    pin_phone = [connect(server, "127.0.0.4") for _ in range(4)]
    stream = connect(server, "127.0.0.5")
    stream.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert stream.recv(12).startswith(b"HTTP/1.1 200")
    # the limit is 12 with the listening socket and the server's trigger: 10 connections
    hogs = []
    for _ in range(10):
        hogs.append(connect(server, "127.0.0.2"))
        clock.now += 0.1  # each waits a little less long than the one before
    for _ in range(3):  # a phone gets in every time, its /api/state answered
        assert phone_state(server) == 200
    assert all(opened(server, s) for s in pin_phone)
    closed = [answer(s) == b"" for s in hogs[:4]]
    assert closed == [True] * 4  # the longest-waiting made room (three phones, one last for the check above)
    table = server.app.extensions["companion"].table
    table.submit({"cmd": "kill", "player": "Ann", "count": 1}, "cli")
    seen = b""
    while b"event: state" not in seen.split(b"initial", 1)[-1]:  # the stream lives on: the kill arrives
        seen += stream.recv(4096)
    for s in pin_phone + hogs + [stream]:
        s.close()


# --- a phone that stopped reading its stream ------------------------------------------------------------


def test_a_stream_whose_phone_stopped_reading_is_hung_up_once_its_queue_is_full(table):
    table.submit({"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"]}, "cli")
    app = create_app({"TABLE": table, "PIN": PIN})
    hub = app.extensions["companion"].hub
    hub.queue_size = 4
    hung_up = []
    client = app.test_client()
    r = client.get("/events", buffered=False, environ_base={
        "waitress.client_disconnected": lambda: False, "companion.hang_up": lambda: hung_up.append(True)})
    shares = app.extensions[SHARES]
    try:
        assert shares.check() == 0 and hung_up == []  # reading or not, nothing is due yet
        for _ in range(4):  # its first message (the state) and four more: one more than its queue holds
            table.submit({"cmd": "kill", "player": "Ann", "count": 1}, "cli")
        assert table.state()["players"][0]["kills"] == 4
        assert shares.check() == 1
        assert hung_up == [True]
    finally:
        r.close()
    assert hub.count() == 0
