"""The demo's simulated table: a virtual player who rolls, and a synthetic camera that renders the tray."""

from __future__ import annotations

from typing import Any

from companion.table import Table
from companion.events import phrase, render
from companion.legal import of_kind
from companion.zombee_dice import DICE

DEMO_TABLE = 0  # the seed of the demo's rendered table, light and camera
DEMO_LOOK = 0  # the seed of its lamp: one without glare on the tray (some seeds burn a patch white)
DEMO_FPS = 10  # rendering a bouncing frame takes ~80 ms here: 10 fps keeps the demo camera in real time


class DemoRoller:
    """The demo's virtual player: rolls the synthetic camera's dice when Roll is pressed (in a Zombie Zoo
    game, one pip die).

    A later roll picks up as many dice as the engine's legal moves allow (every
    yellow die of the last roll, and a ZomBee for each Zzz), as a bold player
    would; Stop ends the rolling.
    """

    def __init__(self, table: Table, camera: Any, tracker: Any):
        self.table, self.camera, self.tracker = table, camera, tracker

    def roll(self) -> None:
        state = self.table.state()
        if state is not None and state.get("game") == "zoo" and not state.get("over"):
            # The Zoo's one pip die: a fight's roll when a fight waits for one, else a move (vision.tray.ZooDie).
            self.camera.roll_pip()
            return
        legal = state.get("legal") if state else None
        rolls = of_kind(legal, "roll")
        if not rolls:
            # In words a page says in its own language, as the panel's own refusals (hw/mapping.py).
            if state is None or state.get("game") != "zombee":
                words = phrase("nobody is rolling now: no ZomBee game is under way")
            elif state.get("over"):
                words = phrase("nobody is rolling now: the game is over")
            elif of_kind(legal, "flip"):
                words = phrase("nobody is rolling now: {name} must flip a flower first", name=state["pending"])
            else:
                words = phrase("nobody is rolling now: {name} must choose who flips first", name=state["pending"])
            self.table.refuse(f"Roll: {render(words['template'], words['args'])}", "panel", {"button": "Roll"}, words)
            return
        if "reroll" not in rolls[0]:
            self.camera.roll(count=DICE)  # a turn's first roll throws every die
            return
        chosen = max((r["reroll"] for r in rolls if "reroll" in r), key=len)
        self.tracker.expect_reroll(state, chosen)
        self.camera.roll(count=len(chosen))


def demo_camera() -> Any:
    """The demo's tray: one steady, well-lit rig (the same table every time), fresh rolls each time."""
    import numpy as np

    from vision.demo.render import random_rig
    from vision.demo.synthetic import SyntheticCamera

    camera = SyntheticCamera(rig=random_rig(np.random.default_rng(DEMO_TABLE)), realtime=True, fps=DEMO_FPS)
    camera.look = DEMO_LOOK  # the same steady lamp every time, so the camera view does not report glare
    return camera


def lay_apart(camera: Any, faces) -> None:
    """These dice at rest in the synthetic tray, none touching another, as a person lays dice for a
    calibration photo (a die touching another is a reader's problem, not the calibration's)."""
    if len(faces) > DICE:  # the game's five at most: the tray would place and show up to some 40
        raise ValueError(f"{len(faces)} dice: the demo tray holds the game's {DICE} at most")
    # One call, whose tries the camera's thread never shows: when they were laid one by one, a capture
    # made while the wait below ran out could read a try that was put back (two dice touching). A CI
    # run once counted 4 of 5 bees in a capture; that was the likeliest cause, not a caught one.
    camera.set_tray(faces, apart=1.8)  # ValueError naming a face that is not a die face


def lay_tray(camera: Any, latest: Any, faces, timeout: float = 10.0) -> None:
    """POST /api/demo/tray: these dice at rest and apart in the synthetic tray, answered once the camera's
    thread has read a frame showing them (so a capture right after sees them; up to 10 s on a busy machine)."""
    lay_apart(camera, faces)
    latest.wait_for(lambda shot: camera.settled_at is not None and shot.stamp >= camera.settled_at, timeout)
