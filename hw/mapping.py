"""What a button press means: a pure function of the published state.

`decide(button, state, highlight)` never touches the game. It returns a
`Decision`: the command to post (the engine has the last word on it), a reason
the rules will refuse it now, a new panel highlight (Select and Lock only move
the panel's own highlight), or a local action (Roll asks the dice reader).

When a press maps to a command the panel posts it even if `refusal` predicts a
refusal: the engine refuses with its own reason, which reaches the phone page,
and a stale cached state can never block a legal move. Only presses that make
no command at all (Kill in a ZomBee game, OK with nothing highlighted) are
refused by the panel itself. Commands never change the highlight: `reconcile`
adjusts it once the engine has published the result (a choice made, a lock gone).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping

from .pins import BUTTONS

FLOWER_BUTTONS = {"Bee": "bee", "Question": "question", "ZomBee": "zombee"}
ZOO_BUTTONS = ("Kill", "Life -", "Bullet -", "Lock")
ZOMBEE_BUTTONS = ("Bee", "Question", "ZomBee", "Stop")
ON_BOARD = ("60:00", "30:00")  # locks still on the board; "open", "removed" and "collected" are gone
NO_GAME = "no game is under way; start one on the phone page"


@dataclass(frozen=True)
class Highlight:
    """The panel's own selection (never part of the game): a player, and in Zoo a lock."""

    player: str | None = None
    lock: str | None = None


NOTHING = Highlight()


@dataclass(frozen=True)
class Decision:
    command: dict[str, Any] | None = None
    refusal: str | None = None  # predicted (with a command) or final (without one)
    highlight: Highlight | None = None  # the new highlight; None leaves it as it is
    action: str | None = None  # a local action: "roll_requested"

    @property
    def refused_here(self) -> bool:
        """Refused by the panel itself: nothing will be posted."""
        return self.command is None and self.refusal is not None


def _players(state: Mapping) -> list[Mapping]:
    return list(state.get("players") or [])


def living(state: Mapping | None) -> list[str]:
    """Names of the players still in, in seating order."""
    if not state:
        return []
    if state.get("game") == "zoo":
        return [p["name"] for p in _players(state) if p.get("alive", True)]
    return [p["name"] for p in _players(state) if not p.get("eliminated", False)]


def _player(state: Mapping, name: str | None) -> Mapping | None:
    return next((p for p in _players(state) if p["name"] == name), None)


def candidates(state: Mapping | None) -> list[str]:
    """Whom Select steps through: the living players, in ZomBee's choice those the chooser may name."""
    names = living(state)
    if state and state.get("game") == "zombee" and state.get("phase") == "choose":
        chooser, active = state.get("pending"), state.get("active")
        if chooser != active:
            names = [n for n in names if n != chooser]
        # start with the player after the chooser, clockwise
        seats = [p["name"] for p in _players(state)]
        if chooser in seats:
            start = seats.index(chooser)
            order = seats[start + 1:] + seats[:start + 1]
            names = [n for n in order if n in names]
    return names


def locks_on_board(state: Mapping | None) -> list[str]:
    if not state or state.get("game") != "zoo":
        return []
    return [lock for lock, status in (state.get("locks") or {}).items() if status in ON_BOARD]


def _step(items: list[str], current: str | None) -> str | None:
    if not items:
        return None
    if current not in items:
        return items[0]
    return items[(items.index(current) + 1) % len(items)]


def lock_label(lock: str) -> str:
    return lock.replace("_", " ")


def reconcile(highlight: Highlight, state: Mapping | None, previous: Mapping | None = None) -> Highlight:
    """Keep the highlight meaningful for a newly published state.

    A new game clears it; in ZomBee it only lives while a choice is pending; in
    Zoo a lock that left the board is dropped (the player stays highlighted, even
    once dead, so the next Kill for them is refused by the engine, visibly).
    """
    if not state:
        return NOTHING
    if previous is None or previous.get("game_id") != state.get("game_id") or previous.get("game") != state.get("game"):
        highlight = NOTHING
    if state.get("game") == "zombee":
        if state.get("phase") != "choose" or highlight.player not in candidates(state):
            return NOTHING
        return highlight
    if highlight.player is not None and _player(state, highlight.player) is None:
        highlight = replace(highlight, player=None)
    if highlight.lock is not None and highlight.lock not in locks_on_board(state):
        highlight = replace(highlight, lock=None)
    return highlight


def _wrong_game(button: str, state: Mapping) -> str:
    if button in ZOO_BUTTONS:
        return f"{button} is a Zombie Zoo button; this is a ZomBee game"
    return f"{button} is a ZomBee button; this is a Zombie Zoo game"


def decide(button: str, state: Mapping | None, highlight: Highlight = NOTHING) -> Decision:
    """The meaning of one (debounced) press of `button`; for Undo, of a completed hold."""
    if button not in BUTTONS:
        raise ValueError(f"unknown button {button!r}; buttons are {', '.join(BUTTONS)}")
    if button == "Roll":
        return Decision(action="roll_requested")
    if button == "Undo":
        return Decision(command={"cmd": "undo"}, refusal=None if state else NO_GAME)
    if not state:
        if button in FLOWER_BUTTONS:
            return Decision(command={"cmd": "flip", "result": FLOWER_BUTTONS[button]}, refusal=NO_GAME)
        if button == "Stop":
            return Decision(command={"cmd": "stop"}, refusal=NO_GAME)
        return Decision(refusal=NO_GAME)
    game = state.get("game")
    if (game == "zoo" and button in ZOMBEE_BUTTONS) or (game == "zombee" and button in ZOO_BUTTONS):
        return Decision(refusal=_wrong_game(button, state))
    if game == "zombee":
        return _zombee(button, state, highlight)
    if game == "zoo":
        return _zoo(button, state, highlight)
    return Decision(refusal=f"the panel does not know the game {game!r}")


# ----- ZomBee -----

def _zombee_over(state: Mapping) -> str | None:
    if state.get("phase") in ("game_over", "tournament_over"):
        return f"the game is over ({state.get('winner')} won); only Undo is accepted"
    return None


def _zombee(button: str, state: Mapping, highlight: Highlight) -> Decision:
    phase, who = state.get("phase"), state.get("pending")
    over = _zombee_over(state)
    if button in FLOWER_BUTTONS:
        cmd = {"cmd": "flip", "result": FLOWER_BUTTONS[button]}
        if phase == "flip" and who:
            cmd["player"] = who  # the flower of the player the seat LED shows, never the next one's
        why = over or {
            "roll": f"{who} is still rolling; flip buttons work once the dice are evaluated",
            "choose": f"{who} must first choose who flips the extra flower (Select, then OK)",
        }.get(phase)
        if phase == "flip" and button != "ZomBee" and (state.get("flowers") or {}).get("face_down", 1) <= 1:
            why = f"only the ZomBee flower is still face down; {who}'s flower must be the ZomBee"
        return Decision(command=cmd, refusal=why)
    if button == "Stop":
        why = over
        if phase == "roll" and not state.get("rolls"):
            why = f"{who} has not rolled yet; Stop ends the rolling after at least one roll"
        elif phase in ("flip", "choose"):
            why = f"{state.get('active')}'s dice are already evaluated; Stop only ends the rolling early"
        return Decision(command={"cmd": "stop"}, refusal=why)
    if button == "Select":
        if phase != "choose":
            return Decision(refusal=over or (f"Select picks who flips after a question mark; "
                                             f"no choice is pending ({who} must {_doing(phase)})"))
        return Decision(highlight=replace(highlight, player=_step(candidates(state), highlight.player)))
    if button == "OK":
        if phase != "choose":
            return Decision(refusal=over or f"OK confirms a choice; none is pending ({who} must {_doing(phase)})")
        if highlight.player is None:
            return Decision(refusal=f"{who} must pick who flips the extra flower: "
                                    "press Select until their seat lights, then OK")
        return Decision(command={"cmd": "choose", "player": highlight.player})
    return Decision(refusal=f"{button} does nothing in ZomBee")


def _doing(phase: str | None) -> str:
    return {"roll": "roll or stop", "flip": "turn over a flower"}.get(phase, "act")


# ----- Zombie Zoo -----

def _zoo(button: str, state: Mapping, highlight: Highlight) -> Decision:
    over = "the game is over; only Undo is accepted" if state.get("phase") == "game_over" else None
    if button == "Select":
        names = living(state)
        if not names:
            return Decision(refusal=over or "nobody is left alive to select")
        return Decision(highlight=replace(highlight, player=_step(names, highlight.player)))
    if button == "Lock":
        locks = locks_on_board(state)
        if not locks:
            return Decision(refusal=over or "no lock is left on the board to collect")
        return Decision(highlight=replace(highlight, lock=_step(locks, highlight.lock)))
    name = highlight.player
    if name is None:
        what = {"Kill": "whose kill", "Life -": "who loses a life", "Bullet -": "who spends a bullet",
                "OK": "who collects the lock"}.get(button, "a player")
        return Decision(refusal=f"press Select to pick {what} first")
    p = _player(state, name) or {}
    dead = None if p.get("alive", True) else f"{name} is dead"
    if button == "Kill":
        return Decision(command={"cmd": "kill", "player": name, "count": 1},
                        refusal=over or (dead and f"{dead}; the dead take no more kills"))
    if button == "Life -":
        why = over or (dead and f"{dead}; there is no life left to lose")
        if not why and p.get("life") == 1 and p.get("bullets", 0) > 0:
            why = f"{name} must spend every bullet (Bullet -) before the last life"
        return Decision(command={"cmd": "life", "player": name, "delta": -1}, refusal=why)
    if button == "Bullet -":
        why = over or (dead and f"{dead}") or (None if p.get("bullets", 1) > 0 else f"{name} has no bullets left")
        return Decision(command={"cmd": "bullets", "player": name, "delta": -1}, refusal=why)
    if button == "OK":
        if highlight.lock is None:
            return Decision(refusal=f"press Lock to pick the lock {name} collects, then OK")
        return Decision(command={"cmd": "collect_lock", "player": name, "lock": highlight.lock},
                        refusal=over or dead)
    return Decision(refusal=f"{button} does nothing in Zombie Zoo")
