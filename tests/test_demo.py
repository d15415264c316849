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


def test_in_a_zoo_game_roll_throws_one_pip_die_that_the_camera_draws_with_pips(tmp_path, gamelog):
    from companion.table import Table
    from vision.demo.synthetic import SyntheticCamera

    zoo = Table(gamelog).start()
    try:
        zoo.submit({"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"]}, "web")
        camera = SyntheticCamera(seed=3, noise=0)
        DemoRoller(zoo, camera, RollTracker()).roll()
        while camera.busy:
            camera.read()
        assert len(camera.faces) == 1 and camera.rig.art.pips is not None
        assert camera.roll_pip(6) == 6
        while camera.busy:
            camera.read()
        _, six = camera.read()
        assert camera.faces == ("six",)
        camera.roll(["bee", "bee"], 2)  # a ZomBee game's dice afterwards: its own symbols again
        assert camera.rig.art.pips is None and six.shape == camera.read()[1].shape
    finally:
        zoo.stop()
