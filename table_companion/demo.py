"""The demo's simulated table: a virtual player who rolls, and a synthetic camera that renders the tray."""

from __future__ import annotations

from typing import Any

from companion.table import Table
from companion.zombee_dice import YELLOW, legal_rerolls

DEMO_TABLE = 0  # the seed of the demo's rendered table, light and camera
DEMO_FPS = 10  # rendering a bouncing frame takes ~80 ms here: 10 fps keeps the demo camera in real time


class DemoRoller:
    """The demo's virtual player: rolls the synthetic camera's dice when Roll is pressed.

    A later roll picks up every die the rules let it (all yellow dice of the last
    roll, and a ZomBee for each Zzz), as a bold player would; Stop ends the rolling.
    """

    def __init__(self, table: Table, camera: Any, tracker: Any):
        self.table, self.camera, self.tracker = table, camera, tracker

    def roll(self) -> None:
        state = self.table.state()
        if state is None or state.get("game") != "zombee" or state.get("phase") != "roll":
            why = "no ZomBee game is under way" if state is None or state.get("game") != "zombee" \
                else f"{state['pending']} must {'flip a flower' if state['phase'] == 'flip' else 'choose'} first"
            self.table.refuse(f"Roll: nobody is rolling now ({why})", "panel", {"button": "Roll"})
            return
        if state["rolls"] == 0:
            self.camera.roll(count=5)
            return
        picks = legal_rerolls(state["kept"], state["last_roll"])
        chosen = [f for f in YELLOW for _ in range(picks[f])] + ["zombee"] * picks["zombee"]
        if not chosen:
            self.table.refuse("Roll: no die may be rolled again; press Stop", "panel", {"button": "Roll"})
            return
        self.tracker.expect_reroll(state, chosen)
        self.camera.roll(count=len(chosen))


def demo_camera() -> Any:
    """The demo's tray: one steady, well-lit rig (the same table every time), fresh rolls each time."""
    import numpy as np

    from vision.render import random_rig
    from vision.synthetic import SyntheticCamera

    return SyntheticCamera(rig=random_rig(np.random.default_rng(DEMO_TABLE)), realtime=True, fps=DEMO_FPS)
