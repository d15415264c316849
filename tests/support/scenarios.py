"""Load scenarios against a running `companion run --demo`: power cuts and floods of commands.

Used by tests/test_crash.py, tests/test_flood.py and the benchmarks bench/crash.py, bench/flood.py.
"""

from __future__ import annotations

import http.client
import json
import time
from pathlib import Path
from typing import Any

from .process import CompanionProcess

ZOO_PLAYERS = ["Ann", "Ben", "Cat", "Dan"]
PANEL_PRESSES = ("Select", "Kill", "Bullet -", "Select", "Kill", "Lock", "OK")


def crash_round(home: Path, port: int, rng, *, min_acknowledged: int = 300, writers: int = 3,
                kill_after: tuple[float, float] = (0.0, 0.3)) -> dict[str, int]:
    """Stream commands from several phones and the panel, SIGKILL the companion at a random
    moment once at least `min_acknowledged` phone commands were acknowledged, then open its
    database afresh and check every acknowledged command is there once.

    Each phone gains bullets for its own player, the gains cycling through 1..MAX_DELTA: the
    engine accepts every one, and the player and the order make each command unique (the panel
    only ever spends bullets). A phone waits for each answer before it sends the next, so its
    player's gains in the log must be exactly what it sent, in order: a command applied twice, or
    one left out between two stored, shows there. Returns counts: acknowledged, refused (phone
    commands answered other than 200 by a live companion), lost, duplicated, stored.
    """
    import threading

    from companion.commands import MAX_DELTA
    from companion.gamelog import GameLog

    proc = CompanionProcess(home, port=port).start()
    state = proc.state()
    if state is None or state["game"] != "zoo" or state["phase"] != "play":
        proc.command({"cmd": "new_game", "game": "zoo", "players": ZOO_PLAYERS})
        state = proc.state()
    acked: list[tuple[int, int, dict]] = []
    sent: dict[str, list[dict]] = {}
    refused: list[int] = []
    lock = threading.Lock()
    stop, enough = threading.Event(), threading.Event()

    def phone(name: str) -> None:
        mine = sent.setdefault(name, [])
        while not stop.is_set():
            cmd = {"cmd": "bullets", "player": name, "delta": len(mine) % MAX_DELTA + 1}
            mine.append(cmd)
            try:
                status, body = proc.command(cmd)
            except (OSError, http.client.HTTPException):
                return  # the process is gone, maybe halfway through its answer
            with lock:
                if status == 200:
                    acked.append((body["game_id"], body["seq"], cmd))
                    if len(acked) >= min_acknowledged:
                        enough.set()
                else:
                    refused.append(status)

    def panel() -> None:
        while not stop.is_set():
            try:
                proc.press(rng.choice(PANEL_PRESSES))
            except (OSError, http.client.HTTPException):
                return

    threads = [threading.Thread(target=phone, args=(ZOO_PLAYERS[i],)) for i in range(writers)]
    threads.append(threading.Thread(target=panel))
    for t in threads:
        t.start()
    enough.wait(120)  # set by the phones; a companion that acknowledges nothing fails the round's count
    stop.wait(rng.uniform(*kill_after))  # the random moment of the power cut is the experiment itself
    proc.kill()
    stop.set()
    for t in threads:
        t.join(15)
    with GameLog(proc.db) as log:  # must open cleanly: a damaged log raises here
        stored = {gid: [r.command for r in log.records(gid)] for gid in {g for g, _, _ in acked} | {state["game_id"]}}
    lost = sum(1 for gid, seq, cmd in acked if len(stored[gid]) < seq or stored[gid][seq - 1] != cmd)
    round_cmds = stored[state["game_id"]][state["seq"]:]
    duplicated = 0
    for name, mine in sent.items():
        gains = [c for c in round_cmds if c.get("cmd") == "bullets" and c.get("player") == name and c["delta"] > 0]
        same = next((i for i, (a, b) in enumerate(zip(gains, mine)) if a != b), min(len(gains), len(mine)))
        duplicated += len(gains) - same  # stored past the point where the log and the phone part ways
    return {"acknowledged": len(acked), "refused": len(refused), "lost": lost, "duplicated": duplicated,
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
    # compare once the page and the disk agree on how many commands there are, waiting for the
    # page's next state on its event stream (its first message is the state as it stands).
    live = proc.state()
    for _ in range(50):
        with GameLog(proc.db) as log:
            engine = log.engine(live["game_id"])
        if engine.seq == live["seq"]:
            return {**engine.state(), "game_id": live["game_id"], "seq": engine.seq} == live
        proc.next_event(lambda event, data: event == "state" and (data.get("state") or {}).get("seq") != live["seq"],
                        timeout=5)
        live = proc.state()
    return False
