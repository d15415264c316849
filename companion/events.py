"""Events: what happened when a command was applied, in the games' own words.

The engine returns them so the phone page can tell the story ("Mia turned over
the ZomBee") and the panel can beep; they are never stored, since replaying the
commands makes them again.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Mapping


@dataclass(frozen=True)
class Event:
    kind: str
    text: str
    player: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> "Event":
        return cls(kind=raw["kind"], text=raw["text"], player=raw.get("player"))


# Kinds that deserve the buzzer's long beep.
ALARM_KINDS = frozenset({"zombee_revealed", "game_over", "tournament_over", "player_out"})
