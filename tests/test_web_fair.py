"""Fair shares for phones: one device cannot take every stream, connection or thread."""

from __future__ import annotations

import http.client
import json
import socket
import threading

import pytest

from web import create_app
from web.serve import ServerThread

PIN = "246813"
AUTH = {"Authorization": f"Bearer {PIN}"}


def get(srv, path, headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=5)
    conn.request("GET", path, headers=headers or {})
    r = conn.getresponse()
    return r.status, r.getheader("Content-Type"), r.read()


def raw(srv, data: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", srv.port), timeout=5) as s:
        s.sendall(data)
        out = b""
        while chunk := s.recv(4096):
            out += chunk
        return out


def open_stream(srv):
    sock = socket.create_connection(("127.0.0.1", srv.port), timeout=5)
    sock.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    f = sock.makefile("rb")
    return sock, f, f.readline()


# --- streams: a cap per address -------------------------------------------------------------------


def test_one_device_gets_its_share_of_streams_and_the_next_phone_still_gets_one(table):
    app = create_app({"TABLE": table, "MAX_STREAMS": 10, "MAX_STREAMS_PER_ADDRESS": 2})
    client = app.test_client()
    hog = {"REMOTE_ADDR": "10.0.0.66"}
    open_ = [client.get("/events", environ_base=hog, buffered=False) for _ in range(2)]
    try:
        assert [r.status_code for r in open_] == [200, 200]
        third = client.get("/events", environ_base=hog)
        assert third.status_code == 429 and third.is_json and "2 live pages" in third.get_json()["error"]
        phone = client.get("/events", environ_base={"REMOTE_ADDR": "10.0.0.7"}, buffered=False)
        assert phone.status_code == 200
        phone.close()
    finally:
        for r in open_:
            r.close()
    assert client.get("/events", environ_base=hog, buffered=False).status_code == 200  # closed ones come back


# --- waitress: connections per address, JSON errors, vanished phones ---------------------------------------


@pytest.fixture
def server(table):
    # Nothing uncapped: the test's connections all come from 127.0.0.1, like one device.
    app = create_app({"TABLE": table, "PIN": PIN, "HEARTBEAT_S": 30.0, "UNCAPPED_ADDRESSES": (),
                      "MAX_CONNECTIONS_PER_ADDRESS": 4, "MAX_STREAMS_PER_ADDRESS": 3})
    with ServerThread(app) as srv:
        yield srv


def test_unfinished_requests_past_the_cap_are_refused_without_a_thread(server):
    half = [socket.create_connection(("127.0.0.1", server.port), timeout=5) for _ in range(4)]
    try:
        for s in half:
            s.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # never finished
        answer = raw(server, b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        head, body = answer.split(b"\r\n\r\n", 1)
        assert head.startswith(b"HTTP/1.1 503") and b"application/json" in head and b"Retry-After: 5" in head
        assert "4 open connections" in json.loads(body)["error"]
    finally:
        for s in half:
            s.close()
    # the server's loop closes them on its next turn, and says so
    assert server.server.address_counts.wait_count("127.0.0.1", 0, timeout=5)
    assert get(server, "/api/info")[0] == 200  # the address has its share again


@pytest.mark.parametrize("request_bytes, status", [
    (b"GARBAGE\r\n\r\n", 400),
    (b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: many\r\n\r\n", 400),
    (b"POST /api/commands HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
    (b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
], ids=["request-line", "content-length", "chunk", "transfer-encoding"])
def test_malformed_http_gets_a_json_error(server, request_bytes, status):
    answer = raw(server, request_bytes)
    head, body = answer.split(b"\r\n\r\n", 1)
    assert head.split(b" ")[1] == str(status).encode()
    assert b"Content-Type: application/json" in head
    assert isinstance(json.loads(body)["error"], str)


def test_a_vanished_phone_frees_its_stream_long_before_the_heartbeat(server):
    hub = server.app.extensions["companion"].hub
    sock, f, status = open_stream(server)
    assert b"200" in status
    while b"data: " not in f.readline():
        pass
    assert hub.count() == 1
    sock.shutdown(socket.SHUT_RDWR)
    sock.close()
    # The heartbeat is 30 s away; the watcher checks every 0.5 s.
    assert hub.wait_count(0, timeout=2.0)


# --- demo holds ----------------------------------------------------------------------------------------------


def test_demo_holds_are_answered_at_once_and_hold_no_request_thread(table):
    release = threading.Event()
    started = []

    def press(button, hold):  # a panel whose holds last until the test lets go
        started.append((button, hold))
        release.wait(5)

    app = create_app({"TABLE": table, "PIN": PIN, "DEMO_PRESS": press, "DEMO_BUTTONS": ["Bee", "Undo", "Stop"]})
    client = app.test_client()
    holds = app.extensions["companion"].demo_press
    try:
        for button in ("Bee", "Undo", "Stop"):
            r = client.post("/api/demo/press", json={"button": button, "hold_s": 2}, headers=AUTH)
            assert r.status_code == 200  # answered while the hold still waits
        assert holds.held() == {"Bee", "Undo", "Stop"}
        again = client.post("/api/demo/press", json={"button": "Bee", "hold_s": 1}, headers=AUTH)
        assert again.status_code == 400 and "still held" in again.get_json()["error"]
        too_long = client.post("/api/demo/press", json={"button": "Bee", "hold_s": 2.5}, headers=AUTH)
        assert too_long.status_code == 400 and "0 to 2" in too_long.get_json()["error"]
    finally:
        release.set()
    assert holds.wait_idle()
    assert sorted(started) == [("Bee", 2.0), ("Stop", 2.0), ("Undo", 2.0)]
