"""How fast does a command reach every phone, and how many /api/state reads per second?

Runs the real app under waitress on 127.0.0.1 (a free port) with a real Table and a
temporary game log, opens 20 and then 50 event streams from a separate process
(like phones), and for each accepted command measures the time from the Table
publishing it to every phone having received it. Then it measures GET /api/state
requests per second from a few keep-alive clients (also in separate processes),
with the phones still listening.

    python bench/push.py [--phones 20 50] [--commands 200] [--seconds 3]

Only 127.0.0.1 is contacted. Takes well under a minute on a laptop.
"""

from __future__ import annotations

import argparse
import http.client
import multiprocessing as mp
import re
import selectors
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.gamelog import GameLog  # noqa: E402
from companion.table import Table  # noqa: E402
from web import create_app  # noqa: E402
from web.serve import ServerThread  # noqa: E402

SEQ = re.compile(rb'"seq":(\d+)')


def phones(port: int, n: int, pipe) -> None:
    """A child process holding n event streams; tells the parent when all have seen a seq."""
    sel = selectors.DefaultSelector()
    buffers: dict[socket.socket, bytes] = {}
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ)
        buffers[s] = b""
    seen: dict[int, list[float]] = {}
    reported = 0
    pipe.send(("ready", n))
    while True:
        if pipe.poll():
            if pipe.recv() == "stop":
                break
        for key, _ in sel.select(timeout=0.05):
            s = key.fileobj
            try:
                chunk = s.recv(65536)
            except BlockingIOError:
                continue
            now = time.monotonic()
            if not chunk:
                sel.unregister(s)
                continue
            data = buffers[s] + chunk
            *lines, buffers[s] = data.split(b"\n")
            for line in lines:
                if line.startswith(b"data: ") and b'"initial":true' not in line:
                    m = SEQ.search(line)
                    if m:
                        seq = int(m.group(1))
                        seen.setdefault(seq, []).append(now)
                        if len(seen[seq]) == n and seq > reported:
                            reported = seq
                            pipe.send(("all", seq))
    pipe.send(("times", seen))
    for s in list(buffers):
        s.close()


def reader(port: int, seconds: float, out) -> None:
    """A child process reading /api/state over one keep-alive connection for `seconds`."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    count, end = 0, time.monotonic() + seconds
    while time.monotonic() < end:
        conn.request("GET", "/api/state")
        r = conn.getresponse()
        r.read()
        if r.status == 200:
            count += 1
    out.put(count)


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    k = max(0, min(len(values) - 1, round(p / 100 * (len(values) - 1))))
    return values[k]


def run(n: int, commands: int, seconds: float, readers: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        log = GameLog(Path(tmp) / "bench.sqlite")
        table = Table(log).start()
        table.submit({"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"]}, "bench")
        app = create_app({"TABLE": table, "PIN": "bench", "MAX_STREAMS": n + 10, "HEARTBEAT_S": 5.0})
        published: dict[int, float] = {}
        sub = table.subscribe()
        stop = threading.Event()

        def watch():  # the moment each accepted command is published
            while not stop.is_set():
                m = sub.get(0.1)
                if m and m.get("type") == "state":
                    published[m["state"]["seq"]] = time.monotonic()

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        server = ServerThread(app).start()
        ctx = mp.get_context("spawn")
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=phones, args=(server.port, n, child), daemon=True)
        proc.start()
        try:
            assert parent.recv() == ("ready", n)
            if not app.extensions["companion"].hub.wait_count(n, timeout=30):
                raise SystemExit(f"only {app.extensions['companion'].hub.count()} of {n} streams opened")
            for i in range(commands):
                table.post({"cmd": "life", "player": "Ann", "delta": -1 if i % 2 == 0 else 1}, "bench")
                while True:
                    if not parent.poll(10):
                        raise SystemExit("phones stopped receiving")
                    kind, value = parent.recv()
                    if kind == "all":
                        break
            # /api/state reads with the phones still listening
            out = ctx.Queue()
            procs = [ctx.Process(target=reader, args=(server.port, seconds, out)) for _ in range(readers)]
            for p in procs:
                p.start()
            total = sum(out.get(timeout=seconds + 30) for _ in procs)
            for p in procs:
                p.join()
            parent.send("stop")
            kind, times = parent.recv()
        finally:
            proc.join(timeout=5)
            stop.set()
            server.stop()
            table.stop()
            sub.close()
            log.close()
    every, each = [], []
    for seq, arrivals in times.items():
        if seq in published and len(arrivals) == n:
            lat = [(t - published[seq]) * 1000 for t in arrivals]
            every.append(max(lat))
            each.extend(lat)
    return {"phones": n, "commands": len(every), "every": every, "each": each, "rps": total / seconds}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--phones", type=int, nargs="+", default=[20, 50])
    ap.add_argument("--commands", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=3.0, help="length of the /api/state read test")
    ap.add_argument("--readers", type=int, default=4, help="client processes reading /api/state")
    args = ap.parse_args(argv)
    print(f"push latency: Table publishes an accepted command -> every phone has it ({args.commands} commands, "
          "one at a time); /api/state: GET requests per second from "
          f"{args.readers} keep-alive clients for {args.seconds:g} s, phones still listening")
    print("         all phones have it (ms)    one phone (ms)")
    print(f"{'phones':>6} {'p50':>8} {'p95':>8} {'p99':>8} {'p50':>8} {'p99':>8} {'state req/s':>12}")
    for n in args.phones:
        r = run(n, args.commands, args.seconds, args.readers)
        e, o = r["every"], r["each"]
        print(f"{n:>6} {pct(e, 50):>8.2f} {pct(e, 95):>8.2f} {pct(e, 99):>8.2f} {statistics.median(o):>8.2f}"
              f" {pct(o, 99):>8.2f} {r['rps']:>12.0f}   ({r['commands']} commands)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
