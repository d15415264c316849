"""The one entry point that applies a command to a game.

`Engine.apply` validates first (the game works on a copy, so a refusal changes
nothing) and keeps the state before each accepted command, so `undo` restores
that snapshot exactly instead of re-deriving it.
"""

from __future__ import annotations

from typing import Any, Protocol

from .commands import Command, NewGame, Undo, parse_command, quote
from .errors import IllegalCommand
from .events import Event


class Game(Protocol):
    """What every rules engine offers the Engine."""

    game: str

    def apply(self, cmd: Command) -> list[Event]: ...  # validate, then change; raise IllegalCommand
    def to_json(self) -> dict[str, Any]: ...
    def is_over(self) -> bool: ...
    def outcome(self) -> str: ...


def snapshot(value: Any) -> Any:
    """A deep copy of a game's plain data: lists, dicts and objects holding them.

    copy.deepcopy does the same but spends most of a replay on its memo and
    reduce protocol; a game's state never shares or cycles, so neither is needed.
    """
    if isinstance(value, list):
        return [snapshot(v) for v in value]
    if isinstance(value, dict):
        return {k: snapshot(v) for k, v in value.items()}
    if hasattr(value, "__dict__") and not isinstance(value, type):
        copied = object.__new__(type(value))
        copied.__dict__.update({k: snapshot(v) for k, v in value.__dict__.items()})
        return copied
    return value  # str, int, bool, None, and tuples of them are immutable


def start_game(cmd: NewGame) -> Game:
    """Build the game a `new_game` command asks for, or refuse it."""
    # Imported here so a rules module may use this module's helpers without a cycle.
    if cmd.game == "zombee":
        from .zombee import ZomBee

        return ZomBee(cmd)
    if cmd.game == "zoo":
        from .zoo import Zoo

        return Zoo(cmd)
    raise IllegalCommand(f"unknown game {quote(cmd.game)}; games are zombee, zoo")


class Engine:
    """One game: its current state, and the snapshots that undo goes back to."""

    def __init__(self, new_game: NewGame | dict | str):
        cmd = parse_command(new_game)
        if not isinstance(cmd, NewGame):
            raise IllegalCommand(f"a game starts with new_game, not {quote(cmd.to_dict())}")
        self.new_game = cmd
        self.game: Game = start_game(cmd)
        self._before: list[Game] = []
        self.seq = 1  # accepted commands, new_game included

    def apply(self, command: Command | dict | str) -> list[Event]:
        cmd = parse_command(command)
        if isinstance(cmd, Undo):
            return self._undo()
        if isinstance(cmd, NewGame):
            raise IllegalCommand(
                f"{quote(cmd.to_dict())}: a game log holds one game, so new_game comes only on its first line; "
                "start another game (a new log, or new_game on the live table) instead"
            )
        if self.game.is_over():
            raise IllegalCommand(f"{quote(cmd.to_dict())}: the game is over ({self.game.outcome()}); only undo is accepted")
        work = snapshot(self.game)
        events = work.apply(cmd)
        self._before.append(self.game)
        self.game = work
        self.seq += 1
        return events

    def can_undo(self) -> bool:
        return bool(self._before)

    def _undo(self) -> list[Event]:
        if not self._before:
            raise IllegalCommand("nothing to undo: the game has just been set up, and new_game cannot be taken back (start another game instead)")
        self.game = self._before.pop()
        self.seq += 1
        return [Event("undo", "The last move was taken back.")]

    def state(self) -> dict[str, Any]:
        return self.game.to_json()

    def is_over(self) -> bool:
        return self.game.is_over()
