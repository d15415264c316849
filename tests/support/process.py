"""Drive a real `companion run` process over HTTP: for the end-to-end tests and the benchmarks.

Test support only: it is not part of the installed package.

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
