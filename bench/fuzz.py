"""The fuzz tests of /api/commands and the JSONL reader, run long: `python bench/fuzz.py --examples 2000`.

The suite runs tests/test_fuzz.py with a few dozen fixed examples; this runs it
with fresh random examples (COMPANION_FUZZ_EXAMPLES), prints how long each took
and exits with pytest's status (0: no 5xx, no traceback, every refusal changed
nothing, the log replayed to the live state).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=2000, help="examples per test (default 2000)")
    args = parser.parse_args(argv)
    env = {**os.environ, "COMPANION_FUZZ_EXAMPLES": str(args.examples)}
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--durations=0",
                             "tests/test_fuzz.py"], cwd=ROOT, env=env, capture_output=True, text=True)
    took = time.monotonic() - started
    lines = [ln for ln in result.stdout.splitlines() if " call " in ln or "passed" in ln or "failed" in ln]
    print(f"{args.examples} examples per test, {took:.1f} s in all:")
    print("\n".join(f"  {ln.strip()}" for ln in lines))
    if result.returncode != 0:
        print(result.stdout[-4000:])
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
