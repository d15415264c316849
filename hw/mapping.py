"""What a button press means: a table from buttons to commands, looked up in what is legal.

`decide(button, state, highlight)` never touches the game and knows none of its
rules: whom Select steps through, which locks Lock offers and which player a
flower belongs to all come from the `legal` moves the engine published (see
companion.legal). It returns a `Decision`: the command to post, a new panel
highlight (Select and Lock only move the panel's own highlight), a local action
(Roll asks the dice reader), or a refusal for a press that makes no command.

A press that maps to a command is always posted, legal or not: the engine
refuses with its own reason, which reaches the phone page, and a stale cached
state can never block a legal move. Commands never change the highlight:
`reconcile` adjusts it once the engine has published the result.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping

from companion.events import N_, phrase, render
from companion.legal import of_kind

from .pins import BUTTONS

FLOWER_BUTTONS = {"Bee": "bee", "Question": "question", "ZomBee": "zombee"}
ZOO_BUTTONS = ("Kill", "Life -", "Bullet -", "Lock")
ZOMBEE_BUTTONS = ("Bee", "Question", "ZomBee", "Stop")
# The Zoo's buttons that act on the highlighted player: their command, and the refusal without one.
ZOO_COMMANDS = {
    "Kill": ({"cmd": "kill", "count": 1}, N_("press {select} to pick whose kill first")),
    "Life -": ({"cmd": "life", "delta": -1}, N_("press {select} to pick who loses a life first")),
    "Bullet -": ({"cmd": "bullets", "delta": -1}, N_("press {select} to pick who spends a bullet first")),
}
NO_GAME = N_("no game is under way; start one on the phone page")


@dataclass(frozen=True)
class Highlight:
    """The panel's own selection (never part of the game): a player, and in Zoo a lock."""

    player: str | None = None
    lock: str | None = None


NOTHING = Highlight()


@dataclass(frozen=True)
class Decision:
    command: dict[str, Any] | None = None
    refusal: str | None = None  # why the press makes no command (then nothing is posted)
    words: dict[str, Any] | None = None  # the refusal before its values went in (events.phrase): a page's language
    highlight: Highlight | None = None  # the new highlight; None leaves it as it is
    action: str | None = None  # a local action: "roll_requested"

    @property
    def refused_here(self) -> bool:
        """Refused by the panel itself: nothing will be posted."""
        return self.command is None and self.refusal is not None


def _legal(state: Mapping | None) -> list:
    return list((state or {}).get("legal") or [])


def _distinct(values) -> list:
    return list(dict.fromkeys(values))


def candidates(state: Mapping | None) -> list[str]:
    """Whom Select steps through: those a ZomBee choice may name, else whoever a Zoo move names.

    In the order the engine lists them (for a ZomBee choice: clockwise after the chooser).
    """
    legal = _legal(state)
    chosen = [entry["player"] for entry in of_kind(legal, "choose")]
    if chosen or (state or {}).get("game") == "zombee":
        return chosen
    return _distinct(entry["player"] for entry in legal if "player" in entry)


def locks_on_board(state: Mapping | None) -> list[str]:
    """The locks someone could collect now, in the order the engine lists them."""
    return _distinct(entry["lock"] for entry in of_kind(_legal(state), "collect_lock"))


def _step(items: list[str], current: str | None) -> str | None:
    if not items:
        return None
    if current not in items:
        return items[0]
    return items[(items.index(current) + 1) % len(items)]


def reconcile(highlight: Highlight, state: Mapping | None, previous: Mapping | None = None) -> Highlight:
    """Keep the highlight meaningful for a newly published state.

    A new game clears it; in ZomBee it only lives while a choice is pending; in
    Zoo a lock nobody can collect any more is dropped (the player stays
    highlighted, even once dead, so the next Kill for them is refused by the
    engine, visibly).
    """
    if not state:
        return NOTHING
    if previous is None or previous.get("game_id") != state.get("game_id") or previous.get("game") != state.get("game"):
        highlight = NOTHING
    if state.get("game") == "zombee":
        return highlight if highlight.player in candidates(state) else NOTHING
    if highlight.player is not None and highlight.player not in [p.get("name") for p in state.get("players") or []]:
        highlight = replace(highlight, player=None)
    if highlight.lock is not None and highlight.lock not in locks_on_board(state):
        highlight = replace(highlight, lock=None)
    return highlight


def _refused(template: str, **args: Any) -> Decision:
    """A refusal in English and, like an engine's event, as its template and values, so a page says it in
    its own language; a button's name is a phrase, so the page names the button as it labels it."""
    buttons = {key: phrase(name) for key, name in (("select", "Select"), ("ok", "OK"), ("lock", "Lock"),
                                                    ("undo", "Undo")) if "{" + key + "}" in template}
    words = phrase(template, **buttons, **args)
    return Decision(refusal=render(words["template"], words["args"]), words=words)


def _wrong_game(button: str, state: Mapping) -> Decision:
    if button in ZOO_BUTTONS:
        return _refused(N_("{button} is a Zombie Zoo button; this is a ZomBee game"), button=phrase(button))
    return _refused(N_("{button} is a ZomBee button; this is a Zombie Zoo game"), button=phrase(button))


def _over(state: Mapping) -> Decision | None:
    """The refusal for a press that makes no command once the game is over."""
    if not state.get("over"):
        return None
    winners = state.get("winners") or []
    if not winners:
        return _refused(N_("the game is over; only {undo} is accepted"))
    return _refused(N_("the game is over ({names} won); only {undo} is accepted"), names=list(winners))


def decide(button: str, state: Mapping | None, highlight: Highlight = NOTHING) -> Decision:
    """The meaning of one (debounced) press of `button`; for Undo, of a completed hold."""
    if button not in BUTTONS:
        raise ValueError(f"unknown button {button!r}; buttons are {', '.join(BUTTONS)}")
    if button == "Roll":
        return Decision(action="roll_requested")
    if button == "Undo":
        return Decision(command={"cmd": "undo"})
    if not state:
        # Posted all the same: a game may have started since the panel last heard.
        if button in FLOWER_BUTTONS:
            return Decision(command={"cmd": "flip", "result": FLOWER_BUTTONS[button]})
        if button == "Stop":
            return Decision(command={"cmd": "stop"})
        return _refused(NO_GAME)
    game = state.get("game")
    if (game == "zoo" and button in ZOMBEE_BUTTONS) or (game == "zombee" and button in ZOO_BUTTONS):
        return _wrong_game(button, state)
    if game == "zombee":
        return _zombee(button, state, highlight)
    if game == "zoo":
        return _zoo(button, state, highlight)
    return Decision(refusal=f"the panel does not know the game {game!r}")


# ----- ZomBee -----

def _zombee(button: str, state: Mapping, highlight: Highlight) -> Decision:
    legal = _legal(state)
    if button in FLOWER_BUTTONS:
        cmd = {"cmd": "flip", "result": FLOWER_BUTTONS[button]}
        flips = of_kind(legal, "flip")
        if flips:
            cmd["player"] = flips[0]["player"]  # the flower of the player the seat LED shows, never the next one's
        return Decision(command=cmd)
    if button == "Stop":
        return Decision(command={"cmd": "stop"})
    names = candidates(state)
    if button == "Select":
        if not names:
            return _over(state) or _refused(N_("{select} picks who flips after a question mark; no choice is pending"))
        return Decision(highlight=replace(highlight, player=_step(names, highlight.player)))
    if button == "OK":
        if not names:
            return _over(state) or _refused(N_("{ok} confirms a choice; none is pending"))
        if highlight.player is None:
            return _refused(N_("{name} must pick who flips the extra flower: press {select} until their seat lights, "
                               "then {ok}"), name=state.get("pending"))
        return Decision(command={"cmd": "choose", "player": highlight.player})
    return _refused(N_("{button} does nothing in ZomBee"), button=phrase(button))


# ----- Zombie Zoo -----

def _zoo(button: str, state: Mapping, highlight: Highlight) -> Decision:
    if button == "Select":
        names = candidates(state)
        if not names:
            return _over(state) or _refused(N_("nobody is left alive to select"))
        return Decision(highlight=replace(highlight, player=_step(names, highlight.player)))
    if button == "Lock":
        locks = locks_on_board(state)
        if not locks:
            return _over(state) or _refused(N_("no lock is left on the board to collect"))
        return Decision(highlight=replace(highlight, lock=_step(locks, highlight.lock)))
    name = highlight.player
    fight = _fight(button, state)
    if fight is not None:
        return fight
    if button in ZOO_COMMANDS:
        cmd, unpicked = ZOO_COMMANDS[button]
        if name is None:
            return _refused(unpicked)
        return Decision(command={**cmd, "player": name})
    if button == "OK":
        if name is None:
            return _refused(N_("press {select} to pick who fights or collects a lock first"))
        if highlight.lock is None:
            return Decision(command={"cmd": "fight", "player": name})  # a hero and no lock: that hero fights
        return Decision(command={"cmd": "collect_lock", "player": name, "lock": highlight.lock})
    return _refused(N_("{button} does nothing in Zombie Zoo"), button=phrase(button))


def _fight(button: str, state: Mapping) -> Decision | None:
    """After a fight's roll of 1-3, Bullet - spends the bullets that bring it to 4 and Life - loses a life to
    roll again, for the hero fighting (docs/panel.md). None: the press means what it means outside a fight."""
    legal = _legal(state)
    fight = state.get("fight")
    if not fight or fight.get("roll") is None or button not in ("Bullet -", "Life -"):
        return None
    if button == "Life -":
        return Decision(command={"cmd": "lose_life", "player": fight["player"]})
    spend = of_kind(legal, "spend_bullets")
    count = spend[0]["count"]["min"] if spend else 4 - fight["roll"]  # refused by the engine, with its reason
    return Decision(command={"cmd": "spend_bullets", "player": fight["player"], "count": count})
