"""How long the coach takes per state, and how fast the statistics page answers with many games.

    python bench/coach.py [--games 1000] [--states 400]

Coach: every possible first roll and a sample of second-roll positions, each in
tables of 2, 3 and 5 players with some flowers face up; prints the one-off
build for the default faces, then the median and worst time of `coach(state)`
(the figures are cached per (game, move) on top of this, so each state costs this once).
Statistics: a log of --games random finished ZomBee games (and a few Zoo games);
prints the background warm-up at start (every game replayed once), GET /api/stats then, again,
after one more command (one game replayed), and GET /stats (the page itself).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion import coach as coach_module  # noqa: E402
from companion.coach import coach, multisets, faces_of  # noqa: E402
from companion.engine import Engine  # noqa: E402
from companion.gamelog import GameLog  # noqa: E402
from companion.simulate import random_zombee_game  # noqa: E402
from companion.table import Table  # noqa: E402
from companion.zombee_dice import can_roll_again, reroll_choices  # noqa: E402

TABLES = [["Tom", "Mia"], ["Tom", "Mia", "Ann"], ["Tom", "Mia", "Ann", "Ben", "Eva"]]
ZOO = Path(__file__).resolve().parent.parent / "examples" / "zoo-game.jsonl"


def positions(samples: int, rng: random.Random) -> list[dict]:
    out = []
    for players in TABLES:
        for flips_up in (0, 6):
            base = [{"cmd": "new_game", "game": "zombee", "players": players}]
            # A turn of bees for the others turns some flowers face up (the bees of the flower deck).
            if flips_up:
                base += [{"cmd": "roll", "faces": ["bee"] * 5}, {"cmd": "stop"}] + [{"cmd": "flip", "result": "bee"}] * 5
            for first in multisets(5):
                faces = faces_of(first)
                if not can_roll_again([], faces):
                    continue
                e = Engine(base[0])
                for cmd in base[1:] + [{"cmd": "roll", "faces": faces}]:
                    e.apply(cmd)
                out.append(e.state())
                for _ in range(samples // 50):
                    reroll = rng.choice(reroll_choices([], faces))
                    second = [rng.choice(("bee", "honey", "zzz", "zombee")) for _ in reroll]
                    e2 = Engine(base[0])
                    for cmd in base[1:] + [{"cmd": "roll", "faces": faces},
                                           {"cmd": "roll", "reroll": reroll, "faces": second}]:
                        e2.apply(cmd)
                    if e2.state()["phase"] == "roll":
                        out.append(e2.state())
    return out


def bench_coach(samples: int) -> None:
    rng = random.Random(1)
    states = positions(samples, rng)
    t = time.perf_counter()
    coach(states[0])
    build = time.perf_counter() - t
    gc.collect()  # the garbage of building the positions is not the coach's: collect it before timing
    times, cpu = [], []
    for s in states:
        t, c = time.perf_counter(), time.process_time()
        coach(s)
        times.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    by_rolls = {r: [x for x, s in zip(times, states) if s["rolls"] == r] for r in (1, 2)}
    print(f"coach: one-off build for the default faces {build * 1000:.0f} ms "
          f"({coach_module.tree((1 / 3, 1 / 6, 1 / 6, 1 / 3)).option_rows} option rows)")
    p99 = statistics.quantiles(times, n=100)[-1]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"coach: {len(states)} states (machine load average {load:.1f}), median {statistics.median(times) * 1000:.2f} ms, 99th percentile "
          f"{p99 * 1000:.2f} ms, worst {max(times) * 1000:.2f} ms  (target: at most 20 ms); CPU time: median "
          f"{statistics.median(cpu) * 1000:.2f} ms, worst {max(cpu) * 1000:.2f} ms")
    for r, xs in by_rolls.items():
        print(f"  after roll {r}: {len(xs)} states, median {statistics.median(xs) * 1000:.2f} ms, worst {max(xs) * 1000:.2f} ms")


def bench_stats(games: int) -> None:
    from web import create_app

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "games.sqlite"
        t = time.perf_counter()
        with GameLog(db) as log:
            for seed in range(games):
                log.import_jsonl([json.dumps(c) for c in random_zombee_game(seed, players=2 + seed % 4)])
            for _ in range(5):
                log.import_jsonl(ZOO.read_text().splitlines())
        print(f"stats: built a log of {games + 5} games in {time.perf_counter() - t:.1f} s")
        with GameLog(db) as log:
            table = Table(log).start()
            table.submit({"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia"]}, "cli")
            t = time.perf_counter()
            app = create_app({"TABLE": table, "PIN": "1", "STATS_WARM_UP": True})
            warm = [th for th in threading.enumerate() if th.name == "stats-warm-up"]
            for th in warm:
                th.join()
            warmed = time.perf_counter() - t
            client = app.test_client()

            def timed(path: str) -> float:
                t = time.perf_counter()
                r = client.get(path)
                assert r.status_code == 200, r.get_data(as_text=True)
                return time.perf_counter() - t

            first = timed("/api/stats")
            print(f"stats: background warm-up at start (every game replayed once) {warmed:.1f} s")
            again = [timed("/api/stats") for _ in range(5)]
            table.submit({"cmd": "roll", "faces": ["bee", "honey", "zzz", "zzz", "zombee"]}, "cli")
            after = timed("/api/stats")
            page = [timed("/stats") for _ in range(5)]
            csv = timed("/api/stats.csv")
            dice = timed("/api/dice-stats")
            table.stop()
        print(f"stats: GET /api/stats first {first * 1000:.0f} ms (after the warm-up), "
              f"then median {statistics.median(again) * 1000:.1f} ms, worst {max(again) * 1000:.1f} ms (target: 200 ms)")
        print(f"stats: after one more command {after * 1000:.1f} ms; GET /stats {max(page) * 1000:.1f} ms; "
              f"CSV {csv * 1000:.1f} ms; /api/dice-stats {dice * 1000:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--states", type=int, default=400, help="second-roll samples per table (about)")
    args = parser.parse_args()
    bench_coach(args.states)
    bench_stats(args.games)


if __name__ == "__main__":
    main()
