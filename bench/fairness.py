"""Greedy, slow and hostile devices against the phones at the table.

    python bench/fairness.py [--only greedy|slow|stalled] [--slow-s 60] [--crowds 200/20,1000/100] [--stall-s 60]

A real waitress server on loopback; the devices connect from their own 127.0.x.y
addresses (all loopback on Linux, so none is exempt from the per-address caps here).
Prints what the phone notices:

1. 130 unfinished requests from one greedy device: the phone's /api/state time;
2. the greedy device asking for 60 event streams: how many it gets, and whether
   the phone still gets one;
3. a phone that vanishes: how long until its stream's slot is free again;
4. 70 demo button holds of 2 s at once: the phone's /api/state time meanwhile.

Then, against `companion serve` in its own process (so its memory is its own,
`bench/slow_devices.py`):

5. each crowd of slow connections (200 from 20 addresses, 1,000 from 100) sending
   their headers a byte a second, each reconnecting at once when the server closes
   it, for `--slow-s`: another phone's /api/state on a fresh connection once a
   second (the targets: every try within 1 s with 200, within 2 s with 1,000), and the server's memory;
6. a phone that stops reading its event stream while commands flow for `--stall-s`:
   whether and when it is dropped, and the server's memory before, at most and after.
"""

from __future__ import annotations

import argparse
import http.client
import json
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(1, str(Path(__file__).resolve().parent))

from companion.gamelog import GameLog  # noqa: E402
from companion.table import Table  # noqa: E402
from web import create_app  # noqa: E402
from web.serve import ServerThread  # noqa: E402

GREEDY, PHONE = "127.0.0.2", "127.0.0.3"
PIN = "246813"


def connect(port: int, source: str) -> socket.socket:
    s = socket.socket()
    s.bind((source, 0))
    s.settimeout(10)
    s.connect(("127.0.0.1", port))
    return s


def state_ms(port: int, n: int = 20) -> list[float]:
    """The phone's /api/state, n times on fresh connections, in ms."""
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(PHONE, 0))
        conn.request("GET", "/api/state")
        r = conn.getresponse()
        r.read()
        conn.close()
        times.append((time.perf_counter() - t0) * 1000)
        assert r.status == 200, r.status
    return times


def stream(port: int, source: str) -> tuple[socket.socket, bytes]:
    s = connect(port, source)
    s.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    return s, s.recv(200).split(b"\r\n", 1)[0]


def summary(times: list[float]) -> str:
    q = statistics.quantiles(times, n=20)
    return f"p50 {statistics.median(times):.1f} ms, p95 {q[18]:.1f} ms, max {max(times):.1f} ms"


def main() -> int:
    ap = argparse.ArgumentParser(description="greedy, slow and hostile devices against the phones")
    ap.add_argument("--only", choices=("greedy", "slow", "stalled"))
    ap.add_argument("--slow-s", type=float, default=60.0, help="how long each crowd of slow connections lasts")
    ap.add_argument("--crowds", default="200/20,1000/100", help="slow connections/addresses, comma-separated")
    ap.add_argument("--stall-s", type=float, default=60.0, help="how long commands flow past a stopped reader")
    args = ap.parse_args()
    if args.only in (None, "greedy"):
        greedy()
    if args.only in (None, "slow", "stalled"):
        from slow_devices import crowds, stalled

        if args.only in (None, "slow"):
            crowds([tuple(map(int, c.split("/"))) for c in args.crowds.split(",")], args.slow_s)
        if args.only in (None, "stalled"):
            stalled(args.stall_s)
    return 0


def greedy() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        log = GameLog(Path(tmp) / "games.sqlite")
        table = Table(log).start()
        table.submit({"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"]}, "cli")
        press = lambda button, hold: threading.Event().wait(hold)  # noqa: E731 - the panel's own wait
        app = create_app({"TABLE": table, "PIN": PIN, "UNCAPPED_ADDRESSES": (), "DEMO_PRESS": press,
                          "DEMO_BUTTONS": [f"B{i}" for i in range(70)]})
        with ServerThread(app) as srv:
            port = int(srv.port)
            print(f"quiet: phone's /api/state {summary(state_ms(port))}")

            half = []
            for _ in range(130):
                try:
                    s = connect(port, GREEDY)
                    s.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # never finished
                    half.append(s)
                except OSError:
                    break
            print(f"1. 130 unfinished requests from one device: phone's /api/state {summary(state_ms(port))}")
            for s in half:
                s.close()

            greedy = [stream(port, GREEDY) for _ in range(60)]
            got = sum(b" 200 " in status for _, status in greedy)
            phone, status = stream(port, PHONE)
            print(f"2. one device asks for 60 streams: gets {got}; the phone's stream: {status.decode()}")
            for s, _ in greedy:
                s.close()
            hub = app.extensions["companion"].hub
            assert hub.wait_count(1, 10)
            t0 = time.perf_counter()
            phone.shutdown(socket.SHUT_RDWR)
            phone.close()
            freed = hub.wait_count(0, 10)
            print(f"3. a vanished phone's stream slot is free after {(time.perf_counter() - t0) * 1000:.0f} ms"
                  f" (heartbeat {app.extensions['companion'].heartbeat_s:g} s){'' if freed else ' (NOT freed)'}")

            def hold(i: int) -> None:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(f"127.0.1.{i}", 0))
                conn.request("POST", "/api/demo/press", json.dumps({"button": f"B{i}", "hold_s": 2}),
                             {"Content-Type": "application/json", "Authorization": f"Bearer {PIN}"})
                conn.getresponse().read()

            t0 = time.perf_counter()
            holders = [threading.Thread(target=hold, args=(i,)) for i in range(70)]
            for t in holders:
                t.start()
            during = state_ms(port)
            for t in holders:
                t.join()
            answered = (time.perf_counter() - t0) * 1000
            print(f"4. 70 holds of 2 s at once: all answered in {answered:.0f} ms; "
                  f"phone's /api/state meanwhile {summary(during)}")
            app.extensions["companion"].demo_press.wait_idle(10)
        table.stop()
        log.close()


if __name__ == "__main__":
    sys.exit(main())
