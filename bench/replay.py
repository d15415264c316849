"""Replay speed and database open time.

    python bench/replay.py [--games 1000]

Prints: commands per second when replaying a long random game log, and the
time to open (rebuild by replay) a database holding --games finished games.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.gamelog import GameLog  # noqa: E402
from companion.replay import replay_lines  # noqa: E402
from companion.simulate import random_zombee_game  # noqa: E402


def long_log(candidates: int) -> list[str]:
    """The longest of some random 5-player tournaments, with some undos, as JSON lines."""
    games = (random_zombee_game(seed, players=5, variant="tournament", undo_chance=0.2) for seed in range(candidates))
    return [json.dumps(c) for c in max(games, key=len)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--candidates", type=int, default=50)
    args = parser.parse_args()

    lines = long_log(args.candidates)
    times = []
    for _ in range(5):
        start = time.perf_counter()
        replay_lines(lines)
        times.append(time.perf_counter() - start)
    median = statistics.median(times)
    print(f"replay: {len(lines)} commands in {median * 1000:.1f} ms median of 5 "
          f"= {len(lines) / median:,.0f} commands/s", flush=True)

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "games.sqlite"
        total = 0
        with GameLog(db) as log:
            for seed in range(args.games):
                game = random_zombee_game(seed, players=2 + seed % 4, variant="standard")
                log.import_jsonl([json.dumps(c) for c in game])
                total += len(game)
        opens = []
        for _ in range(3):
            start = time.perf_counter()
            GameLog(db).close()
            opens.append(time.perf_counter() - start)
        size = db.stat().st_size / 1e6
        print(f"open: {args.games} finished games ({total:,} commands, {size:.1f} MB) "
              f"rebuilt in {statistics.median(opens):.2f} s median of 3")


if __name__ == "__main__":
    main()
