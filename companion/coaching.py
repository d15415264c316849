"""The coach's settings and where its figures are added to a shown state.

`coach = "off" | "tip" | "full"` and the faces of the five dice come from the
settings file; the page may switch the mode, or let the coach use the chances
the table's dice have shown (`companion dice-stats`), with the PIN. The figures
are computed when a state is shown, once per (game, move, faces), never by the
engine thread, so a command is acknowledged without waiting for them.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from typing import Any, Sequence

from .coach import DEFAULT_DICE, coach, face_chances, prepare
from .commands import DICE_FACES
from .errors import ConfigError
from .zombee_dice import DICE

MODES = ("off", "tip", "full")
DEFAULT_MODE = "tip"
FACES_PER_DIE = 6
CACHE_SIZE = 256
log = logging.getLogger(__name__)


def check_mode(value: Any, source: str = "the config file") -> str:
    if value not in MODES:
        raise ConfigError(f"coach in {source} must be one of {', '.join(MODES)}, got {value!r}")
    return value


def parse_dice(value: Any, source: str = "the config file") -> tuple[tuple[str, ...], ...]:
    """`dice`: five lists of six faces each (bee, honey, zzz, zombee), one list per die."""
    where = f"[companion] dice in {source}"
    if not isinstance(value, list) or len(value) != DICE:
        raise ConfigError(f"{where} must list the faces of each of the {DICE} dice, got {value!r}")
    dice = []
    for n, die in enumerate(value, 1):
        if not isinstance(die, list) or len(die) != FACES_PER_DIE:
            raise ConfigError(f"{where}: die {n} must be a list of its {FACES_PER_DIE} faces, got {die!r}")
        bad = [f for f in die if f not in DICE_FACES]
        if bad:
            raise ConfigError(f"{where}: die {n} has an unknown face {bad[0]!r}; faces are {', '.join(DICE_FACES)}")
        dice.append(tuple(die))
    return tuple(dice)


class Coaching:
    """The coach as the table runs it: its mode, its faces, and the figures of recent states."""

    def __init__(self, mode: str = DEFAULT_MODE, dice: Sequence[Sequence[str]] | None = None):
        self.mode = check_mode(mode, "the settings")
        self.dice = tuple(tuple(d) for d in (dice or DEFAULT_DICE))
        self.observed: dict[str, float] | None = None  # chances the table's dice have shown, once accepted
        self._lock = threading.Lock()
        self._cache: OrderedDict[tuple, dict | None] = OrderedDict()

    def faces(self) -> dict[str, float]:
        return dict(self.observed) if self.observed else face_chances(self.dice)

    def settings(self) -> dict[str, Any]:
        return {"mode": self.mode, "modes": list(MODES), "faces": self.faces(),
                "source": "observed" if self.observed else "settings", "dice": [list(d) for d in self.dice]}

    def set_mode(self, mode: str) -> None:
        self.mode = check_mode(mode, "the request")

    def use_observed(self, chances: dict[str, float] | None) -> None:
        """Let the coach use these face chances (None: back to the settings' dice)."""
        self.observed = None if chances is None else {f: float(chances[f]) for f in DICE_FACES}

    def prepare(self) -> None:
        """Build the coach's tables for these faces now (about 0.1 s the first time), not for the first phone."""
        prepare(self.faces())

    def attach(self, state: dict | None) -> dict | None:
        """The state with `coach` added (ZomBee only); the state itself is not changed."""
        if not isinstance(state, dict) or state.get("game") != "zombee":
            return state
        return {**state, "coach": self.figures(state)}

    def figures(self, state: dict) -> dict | None:
        if self.mode == "off":
            return None
        faces = self.faces()
        key = (state.get("game_id"), state.get("seq"), tuple(faces.values()))
        if key[0] is not None and key[1] is not None:
            with self._lock:
                if key in self._cache:
                    return self._cache[key]
        try:
            result = coach(state, faces)
        except Exception:  # a fault in the coach must never cost a phone its state or its stream
            log.exception("the coach failed for game %s move %s", key[0], key[1])
            return None
        if key[0] is not None and key[1] is not None:
            with self._lock:
                self._cache[key] = result
                while len(self._cache) > CACHE_SIZE:
                    self._cache.popitem(last=False)
        return result
