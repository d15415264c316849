"""Replay speed and database open time.

    python bench/replay.py [--games 1000 10000]

Prints: commands per second when replaying a long random game log, and the
time to open a database holding each number of finished games (targets: 1,000
in at most 0.3 s, 10,000 in at most 1 s), plus the time to read one finished
game when it is asked for, and the one-off upgrade of a format-1 file.

The first --games count is stored through GameLog.import_jsonl (each game
replayed and committed as the CLI would); larger counts repeat those rows with
SQL, which gives the same file a real log of that many games would.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.gamelog import GameLog  # noqa: E402
from companion.replay import replay_lines  # noqa: E402
from companion.simulate import random_zombee_game  # noqa: E402

TARGETS = {1000: 0.3, 10000: 1.0}  # finished games: seconds to open
REPLAY_TARGET = 60_000  # commands/s


def long_log(candidates: int) -> list[str]:
    """The longest of some random 5-player tournaments, with some undos, as JSON lines."""
    games = (random_zombee_game(seed, players=5, variant="tournament", undo_chance=0.2) for seed in range(candidates))
    return [json.dumps(c) for c in max(games, key=len)]


def median_time(action, repeat: int, clock=time.perf_counter) -> float:
    times = []
    for _ in range(repeat):
        start = clock()
        action()
        times.append(clock() - start)
    return statistics.median(times)


def grow(db: Path, games: int) -> None:
    """Repeat the stored games (rows as GameLog wrote them) until the file holds `games` of them."""
    con = sqlite3.connect(db, isolation_level=None)
    have, = con.execute("SELECT count(*) FROM games").fetchone()
    con.execute("BEGIN")
    for _ in range(games - have):
        src = 1 + con.execute("SELECT count(*) FROM games").fetchone()[0] % have
        gid = con.execute("INSERT INTO games (game, created, over, summary) "
                          "SELECT game, created, over, summary FROM games WHERE id=?", (src,)).lastrowid
        con.execute("INSERT INTO commands SELECT ?, seq, time, source, command FROM commands WHERE game_id=?",
                    (gid, src))
    con.execute("COMMIT")
    con.close()


def as_format_1(db: Path) -> None:
    """Turn a file back into what the companion before format 2 wrote."""
    con = sqlite3.connect(db, isolation_level=None)
    con.executescript("DROP INDEX games_not_over; ALTER TABLE games DROP COLUMN over; "
                      "ALTER TABLE games DROP COLUMN summary; UPDATE meta SET value='1' WHERE key='schema_version';")
    con.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, nargs="+", default=sorted(TARGETS))
    parser.add_argument("--candidates", type=int, default=50)
    args = parser.parse_args()

    lines = long_log(args.candidates)
    walls, cpus = [], []
    for _ in range(15):
        wall, cpu = time.perf_counter(), time.process_time()
        replay_lines(lines)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    # The best of 15 is the replay's own cost (timeit's advice); the median shows what other jobs on the cores add.
    rate = len(lines) / min(walls)
    print(f"replay: {len(lines)} commands in {min(walls) * 1000:.1f} ms best of 15 = {rate:,.0f} commands/s "
          f"(target {REPLAY_TARGET:,}: {'met' if rate >= REPLAY_TARGET else 'MISSED'}); median "
          f"{len(lines) / statistics.median(walls):,.0f}, by CPU time {len(lines) / statistics.median(cpus):,.0f}",
          flush=True)

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "games.sqlite"
        first, total = args.games[0], 0
        with GameLog(db) as log:
            for seed in range(first):
                game = random_zombee_game(seed, players=2 + seed % 4, variant="standard")
                log.import_jsonl([json.dumps(c) for c in game])
                total += len(game)
        old = Path(tmp) / "format-1.sqlite"
        old.write_bytes(db.read_bytes())  # closed cleanly: the write-ahead log is empty
        for count in args.games:
            grow(db, count)
            opened = median_time(lambda: GameLog(db).close(), 3)
            target = TARGETS.get(count)
            verdict = "" if target is None else f" (target {target} s: {'met' if opened <= target else 'MISSED'})"
            print(f"open: {count:,} finished games ({db.stat().st_size / 1e6:.1f} MB) in {opened:.3f} s "
                  f"median of 3{verdict}", flush=True)
        with GameLog(db, readonly=True) as log:
            asked = median_time(lambda: log._read(count // 2), 5)
            start = time.perf_counter()
            listed = len(log.games())
            listing = time.perf_counter() - start
        print(f"asked for: one finished game replayed in {asked * 1000:.1f} ms; "
              f"the list of all {listed:,} games in {listing:.2f} s", flush=True)
        as_format_1(old)
        start = time.perf_counter()
        GameLog(old).close()
        print(f"upgrade: a format-1 file of {first:,} finished games ({total:,} commands) is replayed whole "
              f"once, in {time.perf_counter() - start:.2f} s; then it opens in "
              f"{median_time(lambda: GameLog(old).close(), 3):.3f} s")


if __name__ == "__main__":
    main()
