"""Hundreds of power cuts: SIGKILL `companion run --demo` at random moments while three phones
and the button panel send commands, then reopen the database and count what was lost.

    python bench/crash.py [--rounds 200] [--seed 1]

Prints the phone commands acknowledged and refused (must be 0: each is a gain the engine accepts),
the acknowledged commands lost (must be 0) and applied twice (must be 0).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.support.process import free_port  # noqa: E402
from tests.support.scenarios import crash_round  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--min-acknowledged", type=int, default=300,
                        help="phone commands acknowledged before each kill's random moment")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    totals = {"acknowledged": 0, "refused": 0, "lost": 0, "duplicated": 0}
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        home, port = Path(tmp) / "home", free_port()
        for n in range(args.rounds):
            result = crash_round(home, port, rng, min_acknowledged=args.min_acknowledged)
            for key in totals:
                totals[key] += result[key]
            if (n + 1) % 25 == 0:
                print(f"  {n + 1} kills: {totals}", flush=True)
        stored = result["stored"]
    print(f"crash: {args.rounds} SIGKILLs in {time.monotonic() - start:.0f} s; "
          f"{totals['acknowledged']} phone commands acknowledged ({totals['refused']} refused), "
          f"{stored} stored in the last game; "
          f"lost {totals['lost']}, applied twice {totals['duplicated']}")
    sys.exit(1 if totals["lost"] or totals["duplicated"] or totals["refused"] else 0)


if __name__ == "__main__":
    main()
