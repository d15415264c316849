"""Commands: the one language every input speaks.

Camera readings, panel presses, phone overrides, the CLI and replayed logs all
become these small frozen dataclasses. `parse_command` turns a JSON object (or a
JSON text) into one, refusing anything malformed with a message that quotes the
input and says what would have been well-formed.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, Callable, ClassVar, Mapping

from .errors import BadCommand, NotJSON

DICE_FACES = ("bee", "honey", "zzz", "zombee")
FLOWER_KINDS = ("bee", "question", "zombee")
LOCKS = ("tiger_trail", "lions_den", "hyena_hideout", "polar_bears")
GAMES = ("zombee", "zoo")

# Bounds on what one command may carry (the README's "Limits" table). Each is far above
# what a game needs and keeps every command constant in time and memory.
MAX_COMMAND_CHARS = 16 * 1024  # one command's JSON text (the web's body limit too)
MAX_NESTING = 3  # an object holding a list is 2 deep; nothing a command needs goes deeper
MAX_NUMBER_CHARS = 20  # digits (and sign, point, exponent) of one JSON number
MAX_NAME_CHARS = 40  # a player's name, a variant, a rule option or its value
MAX_PLAYERS = 12  # names in new_game (each game then says its own range: ZomBee 2-5, Zoo 2-6)
MAX_RULES = 4  # house-rule options in new_game
MAX_FACES = 10  # faces in roll's faces or reroll (a ZomBee roll has 5 dice)
MAX_COUNT = 100  # kills in one kill command
MAX_DELTA = 100  # life or bullets gained or lost in one command (either sign)
DIE_SIDES = 6  # the Zoo's combat die is an ordinary d6


def quote(value: Any) -> str:
    """Render the user's input compactly for an error message."""
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        try:
            text = repr(value)
        except (ValueError, RecursionError):  # an int past Python's 4300-digit limit, a cycle
            text = f"<a {type(value).__name__} too large to show>"
    return text if len(text) <= 200 else text[:197] + "..."


_BRACKETS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _nesting(text: str) -> int:
    """How deep the arrays and objects of a JSON text go (brackets inside strings do not count)."""
    if text.count("[") + text.count("{") <= MAX_NESTING:
        return 0  # too few brackets to go too deep: the usual case costs two C-speed counts
    depth = deepest = 0
    for match in _BRACKETS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif token in "]}":
            depth -= 1
    return deepest


def _number(kind: Callable[[str], Any]) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        if len(text) > MAX_NUMBER_CHARS:
            raise BadCommand(f"the number {text[:20]}... has {len(text)} characters; "
                             f"a command's numbers have at most {MAX_NUMBER_CHARS}")
        return kind(text)
    return parse


def _no_constant(name: str) -> Any:
    raise BadCommand(f"{name} is not a number JSON allows; send a finite number")


def _once_each(pairs: list[tuple[str, Any]]) -> dict:
    """A JSON object whose keys are all different, or BadCommand naming the first key given again."""
    obj = dict(pairs)
    if len(obj) < len(pairs):
        first: dict[str, Any] = {}
        for key, value in pairs:
            if key in first:
                raise BadCommand(f"{quote(key)} is given twice ({quote(first[key])}, then {quote(value)}) "
                                 f"in one object; give each key once")
            first[key] = value
    return obj


def load_json(text: str | bytes | bytearray, *, repeated_keys: bool = False) -> Any:
    """Decode one command's JSON text within the bounds above, or raise BadCommand.

    Python's json module recurses once per level and turns any number into an int
    however long, so depth and number length are checked first: a crafted line is
    a one-line refusal, never a RecursionError or a second spent converting digits.
    Text that is not JSON at all raises NotJSON (a BadCommand). A key given twice
    in one object is refused (json keeps the last in silence, so {"cmd":"kill",
    "cmd":"undo"} would be an undo); `repeated_keys=True` keeps the last, for game
    logs accepted before this check.
    """
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise NotJSON(f"not JSON: {quote(bytes(text[:200]).decode('utf-8', 'replace'))} ({exc})") from None
    if len(text) > MAX_COMMAND_CHARS:
        raise BadCommand(f"a command of {len(text)} characters ({quote(text[:100])}) is too long; "
                         f"a command has at most {MAX_COMMAND_CHARS}")
    deepest = _nesting(text)
    if deepest > MAX_NESTING:
        raise BadCommand(f"{quote(text[:60])} nests {deepest} levels deep; a command nests at most {MAX_NESTING}")
    try:
        value = json.loads(text, parse_int=_number(int), parse_float=_number(float), parse_constant=_no_constant,
                           object_pairs_hook=None if repeated_keys else _once_each)
    except BadCommand:
        raise
    except (ValueError, RecursionError) as exc:
        raise NotJSON(f"not JSON: {quote(text)} ({exc})") from None
    try:  # a \ud800 escape alone is half a character: stored, or sent to the phones, it failed (a 500,
        # and every live page cut off)
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise BadCommand(f"{quote(text[:100])} holds half of a character (a lone \\ud800-\\udfff escape); "
                         "send whole characters") from None
    return value


def _name(raw: Mapping, key: str, value: str) -> str:
    if len(value) > MAX_NAME_CHARS:
        raise BadCommand(f"{key!r} is {len(value)} characters long ({quote(value)}); "
                         f"at most {MAX_NAME_CHARS} are allowed")
    if not value.isprintable() and any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 for c in value):
        raise BadCommand(f"{key!r} holds a control character ({quote(value)}); use letters, digits and spaces")
    return value


def _str(raw: Mapping, key: str, *, choices: tuple[str, ...] | None = None) -> str:
    value = raw[key]
    if not isinstance(value, str):
        raise BadCommand(f"{key!r} must be a string, got {quote(value)} in {quote(raw)}")
    if choices is not None and value not in choices:
        raise BadCommand(f"{key!r} must be one of {', '.join(choices)}; got {quote(value)} in {quote(raw)}")
    return _name(raw, key, value)


def _int(raw: Mapping, key: str, low: int, high: int) -> int:
    value = raw[key]
    # bool is an int subclass; true/false as a count is always a typo.
    if type(value) is not int:
        raise BadCommand(f"{key!r} must be a whole number, got {quote(value)} in {quote(raw)}")
    if not low <= value <= high:
        raise BadCommand(f"{key!r} must be from {low} to {high}, got {quote(value)} in {quote(raw)}")
    return value


def _faces(raw: Mapping, key: str) -> tuple[str, ...]:
    value = raw[key]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BadCommand(f"{key!r} must be a list of faces ({', '.join(DICE_FACES)}), got {quote(value)}")
    if len(value) > MAX_FACES:
        raise BadCommand(f"{key!r} lists {len(value)} faces; a roll shows at most {MAX_FACES} (got {quote(value)})")
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
        if len(players) > MAX_PLAYERS:
            raise BadCommand(f"'players' lists {len(players)} names; no game seats more than {MAX_PLAYERS} "
                             f"(got {quote(players)})")
        names = tuple(p.strip() for p in players)
        if any(not n for n in names):
            raise BadCommand(f"player names must not be empty, got {quote(players)}")
        for n in names:
            _name(raw, "players", n)
        folded = [n.casefold() for n in names]
        dupes = sorted({n for n, f in zip(names, folded) if folded.count(f) > 1})
        if dupes:
            raise BadCommand(f"player names must be unique (ignoring case); {quote(dupes[0])} is there twice in {quote(players)}")
        rules = raw.get("rules")
        if rules is not None and (
            not isinstance(rules, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in rules.items())
        ):
            raise BadCommand(f"'rules' must be an object of named options, got {quote(rules)}")
        if rules is not None:
            if len(rules) > MAX_RULES:
                raise BadCommand(f"'rules' has {len(rules)} options; at most {MAX_RULES} (got {quote(rules)})")
            for k, v in rules.items():
                _name(rules, "rules", k)
                _name(rules, "rules", v)
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
        count = _int(raw, "count", 1, MAX_COUNT) if "count" in raw else 1
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
        return cls(_str(raw, "player"), _int(raw, "delta", -MAX_DELTA, MAX_DELTA))


@dataclass(frozen=True)
class Life(_PlayerDelta):
    name: ClassVar[str] = "life"


@dataclass(frozen=True)
class Bullets(_PlayerDelta):
    name: ClassVar[str] = "bullets"


@dataclass(frozen=True)
class Fight(Command):
    """A Zoo hero's combat: without `roll` it opens the fight, with it the die rolled in the open fight."""

    name: ClassVar[str] = "fight"
    player: str
    roll: int | None = None

    @classmethod
    def _parse(cls, raw):
        roll = _int(raw, "roll", 1, DIE_SIDES) if "roll" in raw else None
        return cls(_str(raw, "player"), roll)


@dataclass(frozen=True)
class SpendBullets(Command):
    """Bullets added to a fight's roll of 1-3, enough to bring it to 4."""

    name: ClassVar[str] = "spend_bullets"
    player: str
    count: int

    @classmethod
    def _parse(cls, raw):
        return cls(_str(raw, "player"), _int(raw, "count", 1, MAX_COUNT))


@dataclass(frozen=True)
class LoseLife(Command):
    """A fight's roll of 1-3 paid for with one life; the hero rolls again."""

    name: ClassVar[str] = "lose_life"
    player: str

    @classmethod
    def _parse(cls, raw):
        return cls(_str(raw, "player"))


@dataclass(frozen=True)
class AnimalsCleared(Command):
    name: ClassVar[str] = "animals_cleared"


COMMAND_TYPES: Mapping[str, type[Command]] = {
    c.name: c for c in (NewGame, Roll, Stop, Flip, Choose, Undo, Kill, CollectLock, Life, Bullets,
                      Fight, SpendBullets, LoseLife, AnimalsCleared)
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


def parse_command(raw: Mapping[str, Any] | str | bytes | Command) -> Command:
    """Turn a JSON object (or its text) into a Command, or raise BadCommand naming what was wrong."""
    if isinstance(raw, Command):
        return raw
    if isinstance(raw, (str, bytes, bytearray)):
        raw = load_json(raw)
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
        raise BadCommand(f"unknown key {quote(unknown[0])} in {quote(raw)}; the {name} command takes {allowed}")
    missing = [k for k in required if k not in raw]
    if missing:
        raise BadCommand(f"{quote(raw)} is missing {quote(missing[0])}; "
                         f"the {name} command takes {', '.join(('cmd',) + required + optional)}")
    parse = getattr(cls, "_parse", None)
    return parse(raw) if parse else cls()
