"""Power cuts: SIGKILL `companion run` while phones and the panel send commands; nothing acknowledged is lost."""

import random

from support.process import free_port
from support.scenarios import crash_round


def test_acknowledged_commands_survive_sigkill_and_none_is_applied_twice(tmp_path):
    rng = random.Random(20261129)
    home, port = tmp_path / "home", free_port()
    for _ in range(3):
        result = crash_round(home, port, rng, min_acknowledged=300)
        # the kill came after hundreds of phone commands were accepted and answered, none refused
        assert result["acknowledged"] >= 300 and result["refused"] == 0, result
        assert result["lost"] == 0, result
        assert result["duplicated"] == 0, result
