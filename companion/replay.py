"""Replaying a JSON Lines game log: one command a line, the first a new_game."""

from __future__ import annotations

from typing import Any, Iterable, Iterator, Mapping

from .commands import Command, NewGame, load_json, parse_command, quote
from .engine import Engine
from .errors import CompanionError, IllegalCommand
from .events import Event


class RefusedLine(IllegalCommand):
    """A line of a game log that the rules or the parser refused; `line` is its 1-based number."""

    def __init__(self, line: int, reason: str):
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


def iter_replay(lines: Iterable[str]) -> Iterator[tuple[int, Engine, dict]]:
    """Apply a game log line by line, yielding (line number, engine, command as given) after each.

    Blank lines are skipped; line numbers count every physical line. Raises
    RefusedLine for the first line that is not accepted. The same line text gives
    the same (shared) command dict each time: do not change it.
    """
    engine: Engine | None = None
    last = 0
    # A game repeats few distinct lines (stop, undo, three flips, the usual rolls) and a Command is
    # a frozen value, so each distinct text is parsed once: a quarter of a replay's time.
    parsed: dict[str, tuple[Command, dict]] = {}
    for number, text in enumerate(lines, start=1):
        last = number
        if not text.strip():
            continue
        try:
            known = parsed.get(text)
            if known is None:  # bounded (a crafted line is refused, never a RecursionError), parsed once
                raw = load_json(text, repeated_keys=True)  # a log once accepted must still open
                known = parsed[text] = (parse_command(raw), raw)
            cmd, raw = known
            if engine is None:
                if not isinstance(cmd, NewGame):
                    raise IllegalCommand(f"the first command must be new_game, got {quote(raw)}")
                engine = Engine(cmd)
            else:
                engine.apply(cmd)
        except CompanionError as exc:
            raise RefusedLine(number, str(exc)) from None
        yield number, engine, raw  # kept as given, so export gives back the same lines
    if engine is None:
        raise RefusedLine(max(last, 1), "the game log holds no command; its first line must be a new_game command")


def replay_commands(commands: Iterable[Command | dict]) -> Iterator[tuple[Engine, list[Event]]]:
    """Apply a game's stored commands (the first a new_game) one after another, yielding the engine
    and that command's events after each (none for the new_game). For commands the game log
    already accepted: a refusal here is raised as it is."""
    engine: Engine | None = None
    for command in commands:
        cmd = parse_command(command)
        if engine is None:
            engine = Engine(cmd)
            yield engine, []
        else:
            yield engine, engine.apply(cmd)


def standing(commands: Iterable[Mapping[str, Any]]) -> list[bool]:
    """For each of a game's accepted commands (as dicts), whether it still stands: not an undo, and not
    taken back by a later one (each undo takes back the newest move still standing; new_game never)."""
    stands: list[bool] = []
    moves: list[int] = []  # the standing moves, oldest first (the new game excluded)
    for i, command in enumerate(commands):
        is_undo = command.get("cmd") == "undo"
        stands.append(not is_undo)
        if is_undo and moves:
            stands[moves.pop()] = False
        elif not is_undo and i:
            moves.append(i)
    return stands


def replay_lines(lines: Iterable[str]) -> tuple[Engine, list[dict]]:
    """Replay a whole game log; returns the engine and the accepted commands as given."""
    engine = None
    accepted: list[dict] = []
    for _, engine, raw in iter_replay(lines):
        accepted.append(raw)
    return engine, accepted
