"""The app under real waitress: streams over sockets, the cap, vanished phones."""

from __future__ import annotations

import http.client
import json
import socket

import pytest

from web import create_app
from web.serve import HEADROOM, ServerThread, display_host, page_url, qr_text, threads_for

PIN = "246813"
ZOMBEE = {"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia"]}


@pytest.fixture
def server(table):
    app = create_app({"TABLE": table, "PIN": PIN, "HEARTBEAT_S": 0.05, "MAX_STREAMS": 3})
    with ServerThread(app) as srv:
        yield srv


def open_stream(srv):
    """A raw socket reading /events; returns (socket, file)."""
    sock = socket.create_connection(("127.0.0.1", srv.port), timeout=5)
    sock.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
    f = sock.makefile("rb")
    status = f.readline()
    return sock, f, status


def read_until(f, marker: bytes, limit=2000) -> bytes:
    seen = b""
    for _ in range(limit):
        line = f.readline()
        seen += line
        if marker in line:
            return seen
    raise AssertionError(f"{marker!r} never came; got {seen[-300:]!r}")


def test_threads_are_the_stream_cap_plus_headroom(table):
    app = create_app({"TABLE": table, "MAX_STREAMS": 20})
    assert threads_for(app) == 20 + HEADROOM


def test_stream_over_a_socket_gets_the_state_then_updates(server, table):
    table.submit(ZOMBEE, "cli")
    sock, f, status = open_stream(server)
    try:
        assert b"200" in status
        read_until(f, b": connected")
        first = read_until(f, b"data: ")
        assert b'"initial":true' in first
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        conn.request("POST", "/api/commands", json.dumps({"cmd": "roll", "faces": ["bee"] * 5}),
                     {"Content-Type": "application/json", "Authorization": f"Bearer {PIN}"})
        assert conn.getresponse().status == 200
        update = read_until(f, b"data: ")
        assert b"event: state" in update and b'"source":"web"' in update
        assert b": heartbeat" in read_until(f, b": heartbeat")
    finally:
        sock.close()


def test_a_vanished_phone_is_cleaned_up(server):
    hub = server.app.extensions["companion"].hub
    sock, f, _ = open_stream(server)
    read_until(f, b"data: ")
    assert hub.count() == 1
    sock.shutdown(socket.SHUT_RDWR)
    sock.close()
    assert hub.wait_count(0, timeout=5)


def test_past_the_cap_streams_get_503_and_the_rest_still_works(server):
    streams = [open_stream(server) for _ in range(3)]
    try:
        for _, f, status in streams:
            assert b"200" in status
            read_until(f, b"data: ")
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        conn.request("GET", "/events")
        r = conn.getresponse()
        assert r.status == 503 and "too many" in json.loads(r.read())["error"]
        conn.request("GET", "/healthz")
        r = conn.getresponse()
        assert r.status == 200 and json.loads(r.read())["streams"] == 3
    finally:
        for sock, _, _ in streams:
            sock.close()


def test_urls_and_qr():
    assert display_host("192.168.1.20") == "192.168.1.20"
    assert display_host("0.0.0.0")  # a LAN address, hostname.local or 127.0.0.1
    assert page_url("127.0.0.1", 8000) == "http://127.0.0.1:8000/"
    assert page_url("::1", 80) == "http://[::1]:80/"
    art = qr_text("http://127.0.0.1:8000/")
    assert len(art.splitlines()) > 10 and "█" in art


def test_a_body_past_the_limit_is_refused_on_its_length_before_it_is_sent(server):
    # 20 MB announced, a few bytes sent: the answer comes at once, without waiting for (or storing)
    # the rest (waitress used to read up to 1 GB before the app's 16 KiB limit applied)
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    with sock:
        sock.sendall(b"POST /api/commands HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 20000000\r\n\r\n{\"cmd\":")
        f = sock.makefile("rb")
        status = f.readline()
        assert b" 413 " in status, status
        length = 0
        for line in iter(f.readline, b"\r\n"):
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        assert "too large" in json.loads(f.read(length))["error"].lower()
