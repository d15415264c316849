"""The rules' fixed numbers and names, as one JSON object for clients (GET /api/info).

Clients draw the games with these instead of keeping copies; the values live in
the rules modules, here they are only gathered.
"""

from __future__ import annotations

from typing import Any

from . import zombee, zoo
from .commands import DICE_FACES, FLOWER_KINDS, LOCKS, MAX_NAME_CHARS
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
        # how many players each game seats, and the longest name: a refused new game is explained with them
        "players": {"zombee": {"min": zombee.MIN_PLAYERS, "max": zombee.MAX_PLAYERS},
                    "zoo": {"min": zoo.MIN_PLAYERS, "max": zoo.MAX_PLAYERS}},
        "name_chars": MAX_NAME_CHARS,
    }
