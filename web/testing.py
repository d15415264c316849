"""Drive a real `companion run` process over HTTP: for the end-to-end tests and the benchmarks.

Only loopback addresses are used. Waiting is done on the event stream or with a
deadline on the process's own answers, never on a fixed sleep.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class CompanionProcess:
    """`companion run --demo` in a child process, with a private home and database."""

    def __init__(self, home: Path, *, pin: str = "135791", port: int | None = None, db: Path | None = None,
                 extra: tuple[str, ...] = ()):
        self.home = Path(home)
        self.pin = pin
        self.port = port or free_port()
        self.db = db or self.home / "games.sqlite"
        self.extra = extra
        self.proc: subprocess.Popen | None = None

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_")}
        env.update(HOME=str(self.home), XDG_CONFIG_HOME=str(self.home / "config"),
                   XDG_DATA_HOME=str(self.home / "data"), COMPANION_PIN=self.pin, PYTHONUNBUFFERED="1")
        return env

    def start(self, timeout: float = 60.0) -> "CompanionProcess":
        self.home.mkdir(parents=True, exist_ok=True)
        cmd = [sys.executable, "-m", "companion.cli", "run", "--demo", "--host", "127.0.0.1",
               "--port", str(self.port), "--db", str(self.db), *self.extra]
        self.output = open(self.home / "companion.log", "ab")
        self.proc = subprocess.Popen(cmd, env=self.env(), stdout=self.output, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"companion run exited with {self.proc.returncode}: {self.log_text()[-2000:]}")
            try:
                if self.request("GET", "/healthz", timeout=1.0)[0] == 200:
                    return self
            except OSError:
                pass
            time.sleep(0.05)  # the child is importing OpenCV and Flask: nothing to wait on but its port
        raise RuntimeError(f"companion run did not answer within {timeout} s: {self.log_text()[-2000:]}")

    def log_text(self) -> str:
        path = self.home / "companion.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def request(self, method: str, path: str, body: Any = None, *, auth: bool = False,
                timeout: float = 10.0) -> tuple[int, Any]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            headers = {"Content-Type": "application/json"} if body is not None else {}
            if auth:
                headers["Authorization"] = f"Bearer {self.pin}"
            conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
            response = conn.getresponse()
            data = response.read()
            try:
                return response.status, json.loads(data)
            except ValueError:
                return response.status, data.decode(errors="replace")
        finally:
            conn.close()

    def command(self, cmd: dict) -> tuple[int, Any]:
        return self.request("POST", "/api/commands", cmd, auth=True)

    def press(self, button: str, hold_s: float = 0.0) -> tuple[int, Any]:
        return self.request("POST", "/api/demo/press", {"button": button, "hold_s": hold_s}, auth=True)

    def state(self) -> dict | None:
        status, body = self.request("GET", "/api/state")
        return body if status == 200 else None

    def wait_for(self, predicate: Callable[[dict], bool], timeout: float = 20.0) -> dict:
        """Follow the event stream until a published state satisfies `predicate`."""
        return self.next_event(lambda e, d: e == "state" and bool(d.get("state")) and predicate(d["state"]),
                               timeout)[1]["state"]

    def next_event(self, match: Callable[[str, dict], bool], timeout: float = 20.0) -> tuple[str, dict]:
        """Follow the event stream until an (event, data) pair satisfies `match`."""
        with EventStream(self.port, timeout=timeout) as stream:
            for event, data in stream:
                if match(event, data):
                    return event, data
        raise TimeoutError(f"no event matched within {timeout} s; state: {self.state()}")

    def kill(self) -> None:
        """SIGKILL: what a power cut looks like to the process."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)
        self.output.close()

    def stop(self) -> int:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.output.close()
        return self.proc.returncode if self.proc else 0


class EventStream:
    """A minimal Server-Sent Events reader over http.client: yields (event, data) pairs."""

    def __init__(self, port: int, timeout: float = 20.0):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        self.deadline = time.monotonic() + timeout

    def __enter__(self) -> "EventStream":
        self.conn.request("GET", "/events", headers={"Accept": "text/event-stream"})
        self.response = self.conn.getresponse()
        if self.response.status != 200:
            raise RuntimeError(f"/events answered {self.response.status}")
        return self

    def __exit__(self, *exc) -> None:
        self.conn.close()

    def __iter__(self):
        event, data = "message", []
        while time.monotonic() < self.deadline:
            line = self.response.fp.readline()
            if not line:
                return
            line = line.decode().rstrip("\r\n")
            if line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].strip())
            elif line == "" and data:
                yield event, json.loads("\n".join(data))
                event, data = "message", []


ZOO_PLAYERS = ["Ann", "Ben", "Cat", "Dan"]
PANEL_PRESSES = ("Select", "Kill", "Bullet -", "Select", "Kill", "Lock", "OK")


def crash_round(home: Path, port: int, rng, *, first_delta: int, writers: int = 3,
                kill_window: tuple[float, float] = (0.1, 1.0)) -> dict[str, int]:
    """Stream commands from several phones and the panel, SIGKILL the companion at a random
    moment, then open its database afresh and check every acknowledged command is there once.

    Each phone's command is made unique (its bullet delta) so a command applied twice shows.
    Returns counts: acknowledged, lost, duplicated, stored.
    """
    import threading

    from companion.gamelog import GameLog

    proc = CompanionProcess(home, port=port).start()
    state = proc.state()
    if state is None or state["game"] != "zoo" or state["phase"] != "play":
        proc.command({"cmd": "new_game", "game": "zoo", "players": ZOO_PLAYERS})
    acked: list[tuple[int, int, dict]] = []
    lock = threading.Lock()
    stop = threading.Event()
    deltas = iter(range(first_delta, first_delta + 10_000_000))

    def phone(name: str) -> None:
        while not stop.is_set():
            with lock:
                cmd = {"cmd": "bullets", "player": name, "delta": next(deltas)}
            try:
                status, body = proc.command(cmd)
            except (OSError, http.client.HTTPException):
                return  # the process is gone, maybe halfway through its answer
            if status == 200:
                with lock:
                    acked.append((body["game_id"], body["seq"], cmd))

    def panel() -> None:
        while not stop.is_set():
            try:
                proc.press(rng.choice(PANEL_PRESSES))
            except (OSError, http.client.HTTPException):
                return

    threads = [threading.Thread(target=phone, args=(ZOO_PLAYERS[i % len(ZOO_PLAYERS)],)) for i in range(writers)]
    threads.append(threading.Thread(target=panel))
    for t in threads:
        t.start()
    stop.wait(rng.uniform(*kill_window))  # the random moment of the power cut is the experiment itself
    proc.kill()
    stop.set()
    for t in threads:
        t.join(15)
    with GameLog(proc.db) as log:  # must open cleanly: a damaged log raises here
        stored = {gid: [r.command for r in log.records(gid)] for gid in {g for g, _, _ in acked}}
    lost = sum(1 for gid, seq, cmd in acked if len(stored[gid]) < seq or stored[gid][seq - 1] != cmd)
    # The phones' gains are unique by their delta; the panel's "Bullet -" presses repeat by design.
    seen = [json.dumps(c, sort_keys=True) for cmds in stored.values() for c in cmds
            if c.get("cmd") == "bullets" and c["delta"] > 0]
    return {"acknowledged": len(acked), "lost": lost, "duplicated": len(seen) - len(set(seen)),
            "stored": sum(len(c) for c in stored.values())}


def flood(proc: CompanionProcess, seconds: float, rng, *, writers: int = 4, readers: int = 4,
          pressers: int = 2) -> dict[str, Any]:
    """Hammer a running companion with phone commands, panel presses and page reads at once.

    Returns request counts and the /api/state and page response times (ms) seen meanwhile.
    """
    import threading

    state = proc.state()
    if state is None or state["game"] != "zoo" or state["phase"] != "play":
        proc.command({"cmd": "new_game", "game": "zoo", "players": ZOO_PLAYERS})
    stop = threading.Event()
    counts = {"commands": 0, "accepted": 0, "presses": 0, "reads": 0, "errors": 0}
    read_ms: list[float] = []
    lock = threading.Lock()

    def count(key: str, n: int = 1) -> None:
        with lock:
            counts[key] += n

    def writer(i: int) -> None:
        name = ZOO_PLAYERS[i % len(ZOO_PLAYERS)]
        while not stop.is_set():
            cmd = rng.choice([{"cmd": "bullets", "player": name, "delta": 1},
                              {"cmd": "kill", "player": name},
                              {"cmd": "undo"}])
            status, _ = proc.command(cmd)
            count("commands")
            count("accepted", status == 200)
            count("errors", status >= 500)

    def reader() -> None:
        while not stop.is_set():
            start = time.monotonic()
            status, _ = proc.request("GET", rng.choice(["/api/state", "/api/state", "/api/log", "/"]))
            with lock:
                read_ms.append((time.monotonic() - start) * 1000)
            count("reads")
            count("errors", status >= 500)

    def presser() -> None:
        while not stop.is_set():
            proc.press(rng.choice(PANEL_PRESSES))
            count("presses")

    threads = ([threading.Thread(target=writer, args=(i,)) for i in range(writers)]
               + [threading.Thread(target=reader) for _ in range(readers)]
               + [threading.Thread(target=presser) for _ in range(pressers)])
    start = time.monotonic()
    for t in threads:
        t.start()
    stop.wait(seconds)  # the flood's length is the experiment itself
    stop.set()
    for t in threads:
        t.join(30)
    elapsed = time.monotonic() - start
    return {**counts, "seconds": elapsed, "read_ms": read_ms}


def replays_to_live_state(proc: CompanionProcess) -> bool:
    """The log on disk, replayed afresh, gives exactly the state the page shows."""
    from companion.gamelog import GameLog

    # A press posted just before the flood stopped may still be on its way to the engine:
    # compare once the page and the disk agree on how many commands there are.
    for _ in range(50):
        live = proc.state()
        with GameLog(proc.db) as log:
            engine = log.engine(live["game_id"])
            if engine.seq == live["seq"]:
                return {**engine.state(), "game_id": live["game_id"], "seq": engine.seq} == live
        time.sleep(0.05)
    return False
