"""The rules' fixed numbers and names, as one JSON object for clients (GET /api/info).

Clients draw the games with these instead of keeping copies; the values live in
the rules modules, here they are only gathered.
"""

from __future__ import annotations

from typing import Any

from .commands import DICE_FACES, FLOWER_KINDS, LOCKS
from .zombee import FLOWERS
from .zombee_dice import DICE, MAX_ROLLS
from .zoo import LOCK_NAMES


def game_constants() -> dict[str, Any]:
    return {
        "faces": list(DICE_FACES),  # in the order a roll is listed
        "flowers": list(FLOWER_KINDS),
        "locks": list(LOCKS),
        "dice": DICE,  # thrown on a turn's first roll
        "max_rolls": MAX_ROLLS,
        "flower_totals": dict(FLOWERS),  # how many flowers of each kind the game holds
        "lock_names": dict(LOCK_NAMES),
    }
