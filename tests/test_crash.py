"""Power cuts: SIGKILL `companion run` while phones and the panel send commands; nothing acknowledged is lost."""

import random

from support.process import free_port
from support.scenarios import crash_round


def test_acknowledged_commands_survive_sigkill_and_none_is_applied_twice(tmp_path):
    rng = random.Random(20261129)
    home, port = tmp_path / "home", free_port()
    total = 0
    for round_no in range(3):
        result = crash_round(home, port, rng, first_delta=1 + round_no * 1_000_000)
        assert result["lost"] == 0, result
        assert result["duplicated"] == 0, result
        total += result["acknowledged"]
    assert total > 0  # the kills came while commands were being acknowledged
