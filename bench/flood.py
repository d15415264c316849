"""A flood of phone commands, panel presses and page reads at once, for a minute.

    python bench/flood.py [--seconds 60]

Prints requests per second of each kind, the page's response times during the flood
(p50/p95/p99), server errors (must be 0), and whether the log replays to the live state.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.support.process import CompanionProcess  # noqa: E402
from tests.support.scenarios import flood, replays_to_live_state  # noqa: E402


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=60)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        proc = CompanionProcess(Path(tmp) / "home").start()
        try:
            r = flood(proc, args.seconds, random.Random(1))
            s = r["seconds"]
            ms = r["read_ms"]
            print(f"flood for {s:.0f} s: {r['commands'] / s:.0f} commands/s ({r['accepted']} accepted), "
                  f"{r['presses'] / s:.0f} presses/s, {r['reads'] / s:.0f} page reads/s; server errors {r['errors']}")
            print(f"page reads during the flood: p50 {pct(ms, 50):.1f} ms, p95 {pct(ms, 95):.1f} ms, "
                  f"p99 {pct(ms, 99):.1f} ms")
            print(f"log replays to the live state: {replays_to_live_state(proc)}")
        finally:
            proc.stop()


if __name__ == "__main__":
    main()
