"""Cases 5 and 6 of `python bench/fairness.py`: slow devices against `companion serve` in its own process.

5. crowds of connections that send their headers a byte a second (each reconnects at once when the
   server closes it, as an attack tool does) while a phone on another address asks for /api/state
   once a second on a fresh connection;
6. a phone that stops reading its event stream while commands flow.

The server runs in a child process so that its memory (VmRSS) is its own, not the drippers'.
"""

from __future__ import annotations

import errno
import http.client
import json
import os
import selectors
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.process import free_port  # noqa: E402

PIN = "246813"
PHONE, READER = "127.0.0.3", "127.0.0.4"
NAMES = ["A" * 40, "B" * 40, "C" * 40]  # long names: larger states, so a stopped reader falls behind sooner
# a request whose headers never end: one byte a second for as long as the server keeps the connection
DRIP = b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"z" * 4000
IP_BIND_ADDRESS_NO_PORT = getattr(socket, "IP_BIND_ADDRESS_NO_PORT", 24)  # Linux: pick the port at connect


class Server:
    """`companion serve` in a child process with its own database and home."""

    def __init__(self, tmp: Path):
        self.port = free_port()
        home = tmp / "home"
        home.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(home), "XDG_DATA_HOME": str(home / "data"),
               "XDG_CONFIG_HOME": str(home / "config")}
        env = {k: v for k, v in env.items() if not k.startswith("COMPANION_")}
        self.log = open(tmp / "serve.log", "ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "companion.cli", "serve", "--db", str(tmp / "games.sqlite"), "--host", "127.0.0.1",
             "--port", str(self.port), "--pin", PIN], env=env, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if self.request("GET", "/healthz", timeout=1)[0] == 200:
                    return
            except OSError:
                pass
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)  # the child is importing Flask: nothing to wait on but its port
        raise RuntimeError(f"companion serve did not start (see {tmp / 'serve.log'})")

    def request(self, method: str, path: str, body=None, *, source: str = "127.0.0.1", timeout: float = 10,
                conn: http.client.HTTPConnection | None = None):
        own = conn is None
        conn = conn or http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout, source_address=(source, 0))
        try:
            headers = {"Authorization": f"Bearer {PIN}"}
            if body is not None:
                headers["Content-Type"] = "application/json"
            conn.request(method, path, None if body is None else json.dumps(body), headers)
            r = conn.getresponse()
            data = r.read()
            return r.status, data
        finally:
            if own:
                conn.close()

    def rss_mb(self) -> float:
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        return int(status.split("VmRSS:")[1].split()[0]) / 1024

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
        self.log.close()


class Drippers(threading.Thread):
    """`total` connections from `addresses` source addresses, each sending DRIP a byte a second and
    reconnecting at once when the server closes it."""

    def __init__(self, port: int, total: int, addresses: int):
        super().__init__(daemon=True)
        self.port, self.total, self.addresses = port, total, addresses
        self.stop_event = threading.Event()
        self.sel = selectors.DefaultSelector()
        self.opened = self.closed_by_server = self.answered_408 = 0
        self.lives: list[float] = []  # how long each connection the server closed had lived

    def _open(self, slot: int) -> None:
        s = socket.socket()
        s.setsockopt(socket.IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, 1)
        s.bind((f"127.0.1.{1 + slot % self.addresses}", 0))
        s.setblocking(False)
        err = s.connect_ex(("127.0.0.1", self.port))
        if err not in (0, errno.EINPROGRESS):
            s.close()
            return
        now = time.monotonic()
        self.sel.register(s, selectors.EVENT_READ, {"slot": slot, "sent": 0, "next": now, "born": now})
        self.opened += 1

    def _reopen(self, s: socket.socket, info: dict, by_server: bool) -> None:
        self.sel.unregister(s)
        s.close()
        if by_server:
            self.closed_by_server += 1
            self.lives.append(time.monotonic() - info["born"])
        if not self.stop_event.is_set():
            self._open(info["slot"])

    def run(self) -> None:
        for slot in range(self.total):
            self._open(slot)
        while not self.stop_event.is_set():
            for key, _ in self.sel.select(timeout=0.05):
                s, info = key.fileobj, key.data
                try:
                    data = s.recv(4096)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if data.startswith(b"HTTP/1.1 408"):
                    self.answered_408 += 1
                if not data or data.startswith(b"HTTP/"):
                    self._reopen(s, info, by_server=True)
            now = time.monotonic()
            for key in list(self.sel.get_map().values()):
                s, info = key.fileobj, key.data
                if info["next"] <= now and info["sent"] < len(DRIP):
                    try:
                        s.send(DRIP[info["sent"]:info["sent"] + 1])
                    except BlockingIOError:
                        continue  # still connecting
                    except OSError:
                        self._reopen(s, info, by_server=True)
                        continue
                    info["sent"] += 1
                    info["next"] = now + 1.0
        for key in list(self.sel.get_map().values()):
            key.fileobj.close()

    def stop(self) -> None:
        self.stop_event.set()
        self.join(10)


def phone_tries(server: Server, seconds: float) -> tuple[list[float], int, float]:
    """/api/state from PHONE on a fresh connection once a second: (ms of each answer, failures, peak MB)."""
    times, failures, peak = [], 0, server.rss_mb()
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        t0 = time.perf_counter()
        try:
            status, _ = server.request("GET", "/api/state", source=PHONE, timeout=10)
            ok = status == 200
        except OSError:
            ok = False
        took = (time.perf_counter() - t0) * 1000
        if ok:
            times.append(took)
        else:
            failures += 1
        peak = max(peak, server.rss_mb())
        time.sleep(max(0.0, 1.0 - took / 1000))  # once a second, like a page's reload
    return times, failures, peak


def crowds(sizes: list[tuple[int, int]], seconds: float) -> None:
    targets = {200: 1000.0, 1000: 2000.0}
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(Path(tmp))
        try:
            server.request("POST", "/api/commands", {"cmd": "new_game", "game": "zoo", "players": NAMES})
            for total, addresses in sizes:
                before = server.rss_mb()
                crowd = Drippers(server.port, total, addresses)
                crowd.start()
                times, failures, peak = phone_tries(server, seconds)
                crowd.stop()
                target = targets.get(total, 2000.0)
                within = sum(t <= target for t in times)
                lives = crowd.lives or [0.0]
                print(f"5. {total} slow connections from {addresses} addresses for {seconds:g} s: the phone's "
                      f"/api/state answered {len(times)} of {len(times) + failures} tries, {within} within "
                      f"{target / 1000:g} s (p50 {statistics.median(times or [0]):.1f} ms, max {max(times or [0]):.1f} ms); "
                      f"the server closed {crowd.closed_by_server} slow connections ({crowd.answered_408} with 408), "
                      f"after a median {statistics.median(lives):.2f} s, at most {max(lives):.1f} s; "
                      f"server memory {before:.0f} MB, at most {peak:.0f} MB (+{peak - before:.1f} MB)")
        finally:
            server.stop()


def stalled(seconds: float) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(Path(tmp))
        try:
            server.request("POST", "/api/commands", {"cmd": "new_game", "game": "zoo", "players": NAMES})
            flow = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
            commands = [{"cmd": "kill", "player": NAMES[0], "count": 1}, {"cmd": "undo"}]
            for i in range(200):  # warm: the same work as below, without the stopped reader
                server.request("POST", "/api/commands", commands[i % 2], conn=flow)
            before = server.rss_mb()
            reader = socket.socket()
            reader.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a sleeping phone's small window
            reader.bind((READER, 0))
            reader.connect(("127.0.0.1", server.port))
            reader.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            t0 = time.monotonic()
            dropped_at, peak, sent, next_look = None, before, 0, t0
            while time.monotonic() - t0 < seconds:
                server.request("POST", "/api/commands", commands[sent % 2], conn=flow)
                sent += 1
                if time.monotonic() >= next_look:
                    next_look += 0.5
                    peak = max(peak, server.rss_mb())
                    streams = json.loads(server.request("GET", "/healthz")[1])["streams"]
                    if dropped_at is None and streams == 0:
                        dropped_at = time.monotonic() - t0
            flow.close()
            after = server.rss_mb()
            reader.settimeout(5)
            got, ended = 0, False
            try:
                while chunk := reader.recv(1 << 20):
                    got += len(chunk)
                ended = True
            except OSError:
                pass
            reader.close()
            drop = f"dropped after {dropped_at:.1f} s" if dropped_at is not None else "NOT dropped"
            print(f"6. a phone stops reading its stream while {sent} commands flow for {seconds:g} s: {drop}; "
                  f"reading again it gets {got / 1e6:.1f} MB and then {'the end of the stream' if ended else 'nothing'}; "
                  f"server memory {before:.0f} MB before, at most {peak:.0f} MB, {after:.0f} MB after "
                  f"({after - before:+.1f} MB)")
        finally:
            server.stop()
