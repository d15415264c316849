"""The one entry point that applies a command to a game.

`Engine.apply` validates first (the game works on a copy, so a refusal changes
nothing) and keeps the state before each accepted command, so `undo` restores
that snapshot exactly instead of re-deriving it.
"""

from __future__ import annotations

import functools
from enum import Enum
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


# What a game may hold, so that undo can restore it: values shared between snapshots because
# they never change, containers copied element by element, and plain objects (dataclasses,
# frozen or not, and classes with a __dict__) whose attributes are copied the same way.
# Anything else (a deque, a Counter, a bytearray, a function ...) is refused with a TypeError
# rather than shared, because a shared mutable value would silently survive an undo.
SHARED = frozenset({str, int, float, bool, type(None), bytes})
BUILTIN_VALUES = (list, dict, tuple, set, frozenset, str, int, float, bytes)


def snapshot(value: Any) -> Any:
    """A deep copy of a game's state, made only of what a game may hold (see above).

    copy.deepcopy would spend most of a replay on its memo and reduce protocol; a
    game's state never shares or cycles, so neither is needed. Dict keys are shared.
    """
    t = type(value)
    if t in SHARED:
        return value
    # Immutable leaves are passed over inline: a call per number was half of a replay's time.
    if t is list:
        return [v if type(v) in SHARED else snapshot(v) for v in value]
    if t is dict:
        return {k: v if type(v) in SHARED else snapshot(v) for k, v in value.items()}
    if t is tuple or t is set or t is frozenset:
        return t(snapshot(v) for v in value)
    if isinstance(value, Enum):
        return value
    if _plain_object(t) and hasattr(value, "__dict__"):
        copied = object.__new__(t)
        copied.__dict__.update({k: v if type(v) in SHARED else snapshot(v) for k, v in value.__dict__.items()})
        return copied
    raise TypeError(f"a game cannot hold a {t.__module__}.{t.__qualname__} ({value!r:.60}): undo could not "
                    "restore it; use str, numbers, None, enums, lists, dicts, tuples, sets or plain objects of these")


@functools.cache
def _plain_object(t: type) -> bool:
    """A class of ours whose instances keep everything in __dict__ (not a builtin, a subclass of one, or slotted)."""
    return t.__module__ != "builtins" and not issubclass(t, (type, *BUILTIN_VALUES)) and "__slots__" not in t.__dict__


def over_words(game: Game) -> str:
    """How a finished game ended, to go inside a sentence ("Mia won"): a Zoo outcome is a sentence of
    its own, with brackets of its own, and "(Ben wins with 16 points (one hero is left alive).)" read badly."""
    return game.outcome().rstrip(".")


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
            raise IllegalCommand(f"{quote(cmd.to_dict())}: the game is over: {over_words(self.game)}; "
                                 "only undo is accepted")
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
        return [Event.said("undo", "The last move was taken back.")]

    def state(self) -> dict[str, Any]:
        """The game's public state, and whether undo would be taken (undo is never in `legal`)."""
        return {**self.game.to_json(), "can_undo": self.can_undo()}

    def is_over(self) -> bool:
        return self.game.is_over()
