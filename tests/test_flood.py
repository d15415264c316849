"""A flood of phone commands, panel presses and page reads leaves the game consistent and the page answering."""

import random

from support.process import CompanionProcess
from support.scenarios import flood, replays_to_live_state


def test_flood_leaves_the_engine_consistent_and_the_page_responsive(tmp_path):
    proc = CompanionProcess(tmp_path / "home").start()
    try:
        result = flood(proc, 3.0, random.Random(5))
        assert result["errors"] == 0, result
        assert result["accepted"] > 0 and result["reads"] > 0 and result["presses"] > 0
        status, page = proc.request("GET", "/", timeout=5)
        assert status == 200 and "Table companion" in page
        assert replays_to_live_state(proc)
    finally:
        proc.stop()
