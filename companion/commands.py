"""Commands: the one language every input speaks.

Camera readings, panel presses, phone overrides, the CLI and replayed logs all
become these small frozen dataclasses. `parse_command` turns a JSON object (or a
JSON text) into one, refusing anything malformed with a message that quotes the
input and says what would have been well-formed.
"""

from __future__ import annotations

import functools
import json
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, ClassVar, Mapping

from .errors import BadCommand

DICE_FACES = ("bee", "honey", "zzz", "zombee")
FLOWER_KINDS = ("bee", "question", "zombee")
LOCKS = ("tiger_trail", "lions_den", "hyena_hideout", "polar_bears")
GAMES = ("zombee", "zoo")


def quote(value: Any) -> str:
    """Render the user's input compactly for an error message."""
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 200 else text[:197] + "..."


def _str(raw: Mapping, key: str, *, choices: tuple[str, ...] | None = None) -> str:
    value = raw[key]
    if not isinstance(value, str):
        raise BadCommand(f"{key!r} must be a string, got {quote(value)} in {quote(raw)}")
    if choices is not None and value not in choices:
        raise BadCommand(f"{key!r} must be one of {', '.join(choices)}; got {quote(value)} in {quote(raw)}")
    return value


def _int(raw: Mapping, key: str) -> int:
    value = raw[key]
    # bool is an int subclass; true/false as a count is always a typo.
    if type(value) is not int:
        raise BadCommand(f"{key!r} must be a whole number, got {quote(value)} in {quote(raw)}")
    return value


def _faces(raw: Mapping, key: str) -> tuple[str, ...]:
    value = raw[key]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BadCommand(f"{key!r} must be a list of faces ({', '.join(DICE_FACES)}), got {quote(value)}")
    bad = [v for v in value if v not in DICE_FACES]
    if bad:
        raise BadCommand(f"{key!r} has {quote(bad[0])}, which is not a die face; faces are {', '.join(DICE_FACES)}")
    return tuple(value)


@dataclass(frozen=True)
class Command:
    """Base of all commands; `name` is the JSON `cmd` value."""

    name: ClassVar[str] = ""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"cmd": self.name}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None:
                continue
            if isinstance(value, tuple):
                value = list(value)
            if isinstance(value, Mapping):
                value = dict(value)
            out[f.name] = value
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> "Command":
        return parse_command(raw)


@dataclass(frozen=True)
class NewGame(Command):
    name: ClassVar[str] = "new_game"
    game: str
    players: tuple[str, ...]
    variant: str | None = None
    rules: Mapping[str, str] | None = field(default=None, hash=False)

    @classmethod
    def _parse(cls, raw):
        players = raw["players"]
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise BadCommand(f"'players' must be a list of names in seating order, got {quote(players)}")
        names = tuple(p.strip() for p in players)
        if any(not n for n in names):
            raise BadCommand(f"player names must not be empty, got {quote(players)}")
        folded = [n.casefold() for n in names]
        dupes = sorted({n for n, f in zip(names, folded) if folded.count(f) > 1})
        if dupes:
            raise BadCommand(f"player names must be unique (ignoring case); {quote(dupes[0])} is there twice in {quote(players)}")
        rules = raw.get("rules")
        if rules is not None and (
            not isinstance(rules, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in rules.items())
        ):
            raise BadCommand(f"'rules' must be an object of named options, got {quote(rules)}")
        variant = _str(raw, "variant") if "variant" in raw else None
        return cls(_str(raw, "game", choices=GAMES), names, variant, rules)


@dataclass(frozen=True)
class Roll(Command):
    name: ClassVar[str] = "roll"
    faces: tuple[str, ...]
    reroll: tuple[str, ...] | None = None

    @classmethod
    def _parse(cls, raw):
        faces = _faces(raw, "faces")
        reroll = _faces(raw, "reroll") if "reroll" in raw else None
        return cls(faces, reroll)


@dataclass(frozen=True)
class Stop(Command):
    name: ClassVar[str] = "stop"


@dataclass(frozen=True)
class Flip(Command):
    name: ClassVar[str] = "flip"
    result: str
    player: str | None = None

    @classmethod
    def _parse(cls, raw):
        player = _str(raw, "player") if "player" in raw else None
        return cls(_str(raw, "result", choices=FLOWER_KINDS), player)


@dataclass(frozen=True)
class Choose(Command):
    name: ClassVar[str] = "choose"
    player: str

    @classmethod
    def _parse(cls, raw):
        return cls(_str(raw, "player"))


@dataclass(frozen=True)
class Undo(Command):
    name: ClassVar[str] = "undo"


@dataclass(frozen=True)
class Kill(Command):
    name: ClassVar[str] = "kill"
    player: str
    count: int = 1

    @classmethod
    def _parse(cls, raw):
        count = _int(raw, "count") if "count" in raw else 1
        if count < 1:
            raise BadCommand(f"'count' must be at least 1, got {count} in {quote(raw)}")
        return cls(_str(raw, "player"), count)


@dataclass(frozen=True)
class CollectLock(Command):
    name: ClassVar[str] = "collect_lock"
    player: str
    lock: str

    @classmethod
    def _parse(cls, raw):
        return cls(_str(raw, "player"), _str(raw, "lock", choices=LOCKS))


@dataclass(frozen=True)
class _PlayerDelta(Command):
    """A change to one player's count (the Zoo's life and bullets)."""

    player: str
    delta: int

    @classmethod
    def _parse(cls, raw):
        return cls(_str(raw, "player"), _int(raw, "delta"))


@dataclass(frozen=True)
class Life(_PlayerDelta):
    name: ClassVar[str] = "life"


@dataclass(frozen=True)
class Bullets(_PlayerDelta):
    name: ClassVar[str] = "bullets"


@dataclass(frozen=True)
class AnimalsCleared(Command):
    name: ClassVar[str] = "animals_cleared"


COMMAND_TYPES: Mapping[str, type[Command]] = {
    c.name: c for c in (NewGame, Roll, Stop, Flip, Choose, Undo, Kill, CollectLock, Life, Bullets, AnimalsCleared)
}


def house_rule(cmd: NewGame, key: str, choices: tuple[str, ...], game: str) -> str:
    """The one house-rule option a game offers, from `new_game`'s "rules" (the first choice by default)."""
    rules = dict(cmd.rules or {})
    unknown = [k for k in rules if k != key]
    if unknown:
        raise BadCommand(f"unknown rule option {quote(unknown[0])} in {quote(cmd.to_dict())}; {game}'s only house rule is {key}")
    value = rules.get(key, choices[0])
    if value not in choices:
        raise BadCommand(f"{key} must be {' or '.join(choices)}, got {quote(value)}")
    return value


@functools.cache
def _keys(cls: type[Command]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(required, optional) keys of a command type."""
    required = tuple(f.name for f in fields(cls) if f.default is MISSING)
    optional = tuple(f.name for f in fields(cls) if f.default is not MISSING)
    return required, optional


def read_json(text: str | bytes | bytearray) -> Any:
    """A command's JSON text as Python values, or BadCommand quoting the text."""
    try:
        return json.loads(text)
    except (ValueError, UnicodeDecodeError) as exc:
        shown = text if isinstance(text, str) else bytes(text).decode("utf-8", "replace")
        raise BadCommand(f"not JSON: {quote(shown)} ({exc})") from None


def parse_command(raw: Mapping[str, Any] | str | bytes | Command) -> Command:
    """Turn a JSON object (or its text) into a Command, or raise BadCommand naming what was wrong."""
    if isinstance(raw, Command):
        return raw
    if isinstance(raw, (str, bytes, bytearray)):
        raw = read_json(raw)
    if not isinstance(raw, Mapping):
        raise BadCommand(f"a command must be a JSON object like {{\"cmd\": \"stop\"}}, got {quote(raw)}")
    name = raw.get("cmd")
    if not isinstance(name, str) or name not in COMMAND_TYPES:
        what = "has no 'cmd'" if "cmd" not in raw else f"has unknown cmd {quote(name)}"
        raise BadCommand(f"{quote(raw)} {what}; commands are {', '.join(COMMAND_TYPES)}")
    cls = COMMAND_TYPES[name]
    required, optional = _keys(cls)
    unknown = [k for k in raw if k != "cmd" and k not in required and k not in optional]
    if unknown:
        allowed = ", ".join(("cmd",) + required + optional)
        raise BadCommand(f"unknown key {quote(unknown[0])} in {quote(raw)}; a {name} takes {allowed}")
    missing = [k for k in required if k not in raw]
    if missing:
        raise BadCommand(f"{quote(raw)} is missing {quote(missing[0])}; a {name} takes {', '.join(('cmd',) + required + optional)}")
    parse = getattr(cls, "_parse", None)
    return parse(raw) if parse else cls()
