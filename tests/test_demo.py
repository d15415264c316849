"""The demo's virtual player rolls what the engine lists as legal."""

from __future__ import annotations

import pytest

from table_companion.demo import DemoRoller
from vision.tray import RollTracker


class Camera:
    def __init__(self):
        self.rolled: list[int] = []

    def roll(self, count):
        self.rolled.append(count)


@pytest.fixture
def table(table):
    """conftest's table, with a two-player ZomBee game under way."""
    table.submit({"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia"]}, "web")
    return table


def test_first_roll_throws_every_die_then_the_largest_legal_reroll(table):
    camera, tracker = Camera(), RollTracker()
    roller = DemoRoller(table, camera, tracker)
    roller.roll()
    assert camera.rolled == [5]
    table.submit({"cmd": "roll", "faces": ["bee", "zzz", "zombee", "zombee", "zombee"]}, "camera")
    roller.roll()
    # The bee, the Zzz and one ZomBee riding along with it; the other ZomBees stay aside.
    assert camera.rolled == [5, 3] and tracker.selection == ("bee", "zzz", "zombee")


def test_roll_is_refused_while_a_flower_is_to_be_turned(table):
    camera = Camera()
    table.submit({"cmd": "roll", "faces": ["bee"] * 5}, "camera")
    table.submit({"cmd": "stop"}, "web")
    with table.subscribe() as sub:
        DemoRoller(table, camera, RollTracker()).roll()
        refused = next(m for m in iter(lambda: sub.get(2), None) if m["type"] == "refused")
    assert camera.rolled == [] and "Mia must flip a flower first" in refused["error"]
