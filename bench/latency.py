"""Latency of the whole companion in demo mode, in one process with real HTTP on loopback.

    python bench/latency.py [--phones 20] [--presses 100] [--rolls 15] [--camera-phones 5]

1. From a virtual button press (POST /api/demo/press "Kill" in a Zoo game) to every one of
   the listening phones having the new state on its event stream: p50/p95/p99.
   Measured twice: without, then with `--camera-phones` phones showing the camera view (each
   fetching /api/camera.jpg?overlay=1 twice a second and /api/camera once a second, as the page
   does); the camera view must not slow commands (within 10 %).
2. From a demo roll's dice coming to rest (the synthetic camera's first still frame) to the
   state showing that roll on a phone's event stream: p50/p95/p99.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from table_companion.run import build, shutdown  # noqa: E402
from web.serve import ServerThread  # noqa: E402
from tests.support.process import EventStream  # noqa: E402


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def line(label: str, ms: list[float]) -> str:
    if not ms:
        return f"{label}: no samples"
    return (f"{label}: p50 {pct(ms, 50):.1f} ms, p95 {pct(ms, 95):.1f} ms, p99 {pct(ms, 99):.1f} ms "
            f"(n={len(ms)}, mean {statistics.mean(ms):.1f})")


class Phone(threading.Thread):
    """One phone's event stream; notes when each state (by seq) arrived."""

    def __init__(self, port: int, seconds: float):
        super().__init__(daemon=True)
        self.stream = EventStream(port, timeout=seconds).__enter__()
        self.arrived: dict[tuple[int, int], float] = {}  # (game, seq) -> when it arrived
        self.ready = threading.Event()

    def run(self) -> None:
        for event, data in self.stream:
            if event == "state" and data.get("state"):
                self.arrived[(data["state"]["game_id"], data["state"]["seq"])] = time.monotonic()
                self.ready.set()


class CameraPhone(threading.Thread):
    """A phone with the camera view open: the picture every 0.5 s, the words every second."""

    def __init__(self, port: int, pin: str):
        super().__init__(daemon=True)
        self.port, self.pin = port, pin
        self.stop = threading.Event()
        self.pictures = self.failures = 0

    def run(self) -> None:
        import http.client

        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        headers = {"Authorization": f"Bearer {self.pin}"}
        tick = 0
        while not self.stop.wait(0.5):
            tick += 1
            for url in ["/api/camera.jpg?overlay=1"] + (["/api/camera"] if tick % 2 else []):
                conn.request("GET", url, headers=headers)
                r = conn.getresponse()
                r.read()
                if r.status == 200:
                    self.pictures += url.endswith("overlay=1")
                else:
                    self.failures += 1


def wait(predicate, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.001)
    return True


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--phones", type=int, default=20)
    parser.add_argument("--presses", type=int, default=100)
    parser.add_argument("--rolls", type=int, default=15)
    parser.add_argument("--camera-phones", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ns = argparse.Namespace(demo=True, db=str(Path(tmp) / "g.sqlite"), config=None, host="127.0.0.1",
                                port=None, pin="135791", camera=None, model=None)
        parts = build(ns)
        table, panel = parts["table"], parts["panel"]
        server = ServerThread(parts["app"], "127.0.0.1", 0).start()
        try:
            table.submit({"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben", "Cat"]}, "cli")
            panel.wait_until(lambda p: p.state is not None and p.state["game"] == "zoo", 5)  # its LEDs know the game
            panel.press("Select")
            phones = [Phone(server.port, 600) for _ in range(args.phones)]
            for p in phones:
                p.start()
            for p in phones:
                p.ready.wait(10)
            import http.client
            import json

            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
            body = json.dumps({"button": "Kill", "hold_s": 0})
            headers = {"Content-Type": "application/json", "Authorization": "Bearer 135791"}

            def presses(label: str) -> list[float]:
                all_ms, each_ms = [], []
                for _ in range(args.presses):
                    seq = (table.state()["game_id"], table.state()["seq"] + 1)
                    start = time.monotonic()
                    conn.request("POST", "/api/demo/press", body, headers)
                    conn.getresponse().read()
                    if not wait(lambda: all(seq in p.arrived for p in phones), 10):
                        have = sum(seq in p.arrived for p in phones)
                        print(f"state {seq} reached {have} of {len(phones)} phones; table at "
                              f"{table.state()['seq']}; panel: {panel.last_decision}", file=sys.stderr)
                        continue
                    each_ms += [(p.arrived[seq] - start) * 1000 for p in phones]
                    all_ms.append((max(p.arrived[seq] for p in phones) - start) * 1000)
                print(line(f"press -> all {args.phones} phones{label}", all_ms))
                print(line(f"press -> each phone{label}", each_ms))
                return all_ms

            quiet = presses(", no camera view open")
            viewers = [CameraPhone(server.port, "135791") for _ in range(args.camera_phones)]
            for v in viewers:
                v.start()
            t0 = time.monotonic()
            busy = presses(f", camera view open on {args.camera_phones} phones")
            for v in viewers:
                v.stop.set()
            for v in viewers:
                v.join(5)
            seconds = time.monotonic() - t0
            pictures = sum(v.pictures for v in viewers)
            if quiet and busy:
                change = 100 * (statistics.median(busy) / statistics.median(quiet) - 1)
                print(f"camera view: {pictures} pictures in {seconds:.1f} s ({pictures / seconds:.1f}/s), "
                      f"{sum(v.failures for v in viewers)} failed; median press -> all phones "
                      f"{change:+.1f} % with it (target within 10 %)")

            table.submit({"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia"]}, "cli")
            camera, roller = parts["roller"].camera, parts["roller"]
            at_rest: list[float] = []  # wall time of each roll's first still frame, as the reader got it
            read = camera.read

            def timed_read():
                frame = read()
                if camera.settled_at is not None and not at_rest[-1:] == [camera.settled_at]:
                    at_rest.append(camera.settled_at)
                    rest_wall[camera.settled_at] = time.monotonic()
                return frame

            rest_wall: dict[float, float] = {}
            camera.read = timed_read
            roll_ms, misread = [], 0
            phone = phones[0]
            for _ in range(args.rolls):
                seq = (table.state()["game_id"], table.state()["seq"] + 1)
                roller.roll()
                if not wait(lambda: seq in phone.arrived, 15):
                    misread += 1  # a "check the dice" instead of a roll
                    continue
                roll_ms.append((phone.arrived[seq] - rest_wall[camera.settled_at]) * 1000)
                table.submit({"cmd": "undo"}, "cli")
            print(line("dice at rest -> roll on a phone", roll_ms) + f"; rolls not read: {misread}")
        finally:
            server.stop()
            shutdown(parts)


if __name__ == "__main__":
    main()
