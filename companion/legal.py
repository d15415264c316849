"""The shape of `legal`, the list of moves a game publishes in its state, and how to read it.

Each entry is a command as a client would send it, with two abstractions so the
list stays short (one entry per distinct choice):

- a roll leaves out `faces` (what the dice show is up to the dice);
- a number the player chooses (a kill count, a life or bullet delta) is a range
  `{"min": a, "max": b}`, every whole number from a to b accepted, `b` None
  (JSON null) when there is no upper bound; a range never holds 0.

Adapters ask `allows(legal, command)` instead of knowing the rules.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

LEFT_OUT = ("faces",)  # keys a legal entry leaves out; any value the parser takes is fine


def span(low: int, high: int | None) -> dict[str, int | None]:
    """A range of accepted whole numbers, `high` None for no upper bound."""
    return {"min": low, "max": high}


def _fits(value: Any, wanted: Any) -> bool:
    if isinstance(wanted, Mapping) and "min" in wanted:
        if type(value) is not int:
            return False
        high = wanted["max"]
        return wanted["min"] <= value and (high is None or value <= high)
    if isinstance(wanted, list) and isinstance(value, (list, tuple)):
        return sorted(value) == sorted(wanted)  # a reroll is a multiset: the order does not matter
    return value == wanted


def matches(entry: Mapping[str, Any], command: Mapping[str, Any]) -> bool:
    """Whether `command` (a JSON dict) is the choice `entry` stands for."""
    keys = {k for k in command if k not in LEFT_OUT}
    if keys != set(entry):
        return False
    return all(_fits(command[k], entry[k]) for k in keys)


def allows(legal: Iterable[Mapping[str, Any]] | None, command: Mapping[str, Any]) -> bool:
    """Whether a command is among the published legal moves (`faces` aside).

    A command must give the keys its entry gives: a flip names its player, a kill
    its count. Undo is never listed: the state's `can_undo` answers for it.
    """
    return any(matches(entry, command) for entry in legal or ())


def of_kind(legal: Iterable[Mapping[str, Any]] | None, cmd: str) -> list[Mapping[str, Any]]:
    """The legal entries of one command kind, in the order published."""
    return [entry for entry in legal or () if entry.get("cmd") == cmd]
