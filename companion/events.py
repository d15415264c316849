"""Events: what happened when a command was applied, in the games' own words.

The engine returns them so the phone page can tell the story ("Mia turned over
the ZomBee") and the panel can beep; they are never stored, since replaying the
commands makes them again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping


@dataclass(frozen=True)
class Event:
    kind: str
    text: str
    player: str | None = None
    # The text before its values went in, and the values: a page shows the same sentence in
    # another language by translating the template (the key of web/translations) and filling
    # it in again. A value that is a list of phrases is joined with "; ", of plain values ", ".
    template: str | None = None
    args: Mapping[str, Any] | None = None

    @classmethod
    def said(cls, kind: str, template: str, player: str | None = None, **args: Any) -> "Event":
        """Event.said("honey", "{name} takes a honey drop ({honey} now).", name, name=name, honey=2)."""
        return cls(kind, render(template, args), player, template, args)

    def to_dict(self) -> dict[str, Any]:
        out = {"kind": self.kind, "text": self.text, "player": self.player}
        if self.template is not None:
            out["template"], out["args"] = self.template, dict(self.args or {})
        return out

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> "Event":
        return cls(kind=raw["kind"], text=raw["text"], player=raw.get("player"), template=raw.get("template"),
                   args=raw.get("args"))


def N_(message: str) -> str:
    """Mark a template for the translators (pybabel extract, babel.cfg) where it is not a literal
    argument of Event.said or phrase."""
    return message


def phrase(template: str, **args: Any) -> dict[str, Any]:
    """A part of an event's sentence that is translated on its own (one lock's step, say)."""
    return {"template": template, "args": args}


def worded(template: str, **args: Any) -> dict[str, Any]:
    """A notice's words (Table.notify(kind, **worded(...))): its English `text`, and the template
    and values a page translates, as an event's."""
    return {"text": render(template, args), "template": template, "args": args}


def render(template: str, args: Mapping[str, Any]) -> str:
    return template.format(**{key: _text(value) for key, value in args.items()})


def _text(value: Any) -> str:
    if isinstance(value, Mapping):
        return render(value["template"], value["args"])
    if isinstance(value, (list, tuple)):
        joiner = "; " if value and isinstance(value[0], Mapping) else ", "
        return joiner.join(_text(item) for item in value)
    return str(value)


# Kinds that deserve the buzzer's long beep.
ALARM_KINDS = frozenset({"zombee_revealed", "game_over", "tournament_over", "player_out"})
