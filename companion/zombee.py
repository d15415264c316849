"""ZomBee: the turn flow, flowers, honey and the tournament, as the companion enforces them.

docs/zombee.md states the rules in plain words; this module is their exact form.
Every `apply` validates the whole command before it changes anything (the
Engine also works on a copy, so a refusal can never leave half a change).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .commands import Choose, Command, Flip, NewGame, Roll, Stop, house_rule, quote
from .errors import IllegalCommand
from .events import N_, Event
from .zombee_dice import (DICE, HONEY_FOR_A_DROP, MAX_ROLLS, can_roll_again, check_reroll, describe_picks, legal_rerolls,
                          ordered, reroll_choices, set_aside)

HONEY_IN_BOX = 15
GREEN_IN_BOX = 5
FLOWERS = {"bee": 11, "question": 2, "zombee": 1}
FLOWER_COUNT = sum(FLOWERS.values())
VARIANTS = {"standard": (2, 3), "tournament": (1, 2)}  # variant: (starting honey, honey cap)
PENALTIES = ("revealer", "active")
GAMES_TO_WIN_TOURNAMENT = 2
MIN_PLAYERS, MAX_PLAYERS = 2, 5


@dataclass
class Player:
    name: str
    honey: int
    green: int = 0
    eliminated: bool = False


class ZomBee:
    game = "zombee"

    def __init__(self, cmd: NewGame):
        if not MIN_PLAYERS <= len(cmd.players) <= MAX_PLAYERS:
            raise IllegalCommand(f"ZomBee is for {MIN_PLAYERS} to {MAX_PLAYERS} players, got {len(cmd.players)}: "
                                 f"{quote(list(cmd.players))}")
        self.variant = cmd.variant or "standard"
        if self.variant not in VARIANTS:
            raise IllegalCommand(f"unknown variant {quote(self.variant)}; ZomBee variants are standard, tournament")
        self.penalty = house_rule(cmd, "zombee_penalty", PENALTIES, "ZomBee")
        self.start_honey, self.cap = VARIANTS[self.variant]
        self.players = [Player(name, self.start_honey) for name in cmd.players]
        self.game_winners: list[str] = []
        self.winner: int | None = None
        self._new_round(0)

    # --- the yes/no questions ------------------------------------------------

    def is_over(self) -> bool:
        return self.phase in ("game_over", "tournament_over")

    def outcome(self) -> str:
        if not self.is_over():
            return "under way"
        if self.phase == "tournament_over":  # "the game is over (Mia won)" hid that the tournament was won
            return f"{self.players[self.winner].name} won a second game, and the tournament"
        return f"{self.players[self.winner].name} won"

    def living(self) -> list[int]:
        return [i for i, p in enumerate(self.players) if not p.eliminated]

    def pending(self) -> int | None:
        """Seat of the player who must act now."""
        if self.is_over():
            return None
        if self.phase == "flip":
            return self.flips[0]
        if self.phase == "choose":
            return self.chooser
        return self.active

    def choosable(self) -> list[int]:
        """Who the player choosing after a question mark may name."""
        return [i for i in self.living() if i != self.chooser or self.chooser == self.active]

    def can_flip(self, kind: str) -> bool:
        """Whether a face-down flower can still be a `kind` (the ZomBee flower is always face down)."""
        return kind == "zombee" or self.face_up[kind] < FLOWERS[kind]

    def legal_flips(self) -> list[str]:
        """What the next flower turned over can still be."""
        return [kind for kind in FLOWERS if self.can_flip(kind)]

    def legal(self) -> list[dict]:
        """Every command the game would take now, one per distinct choice (see companion.legal)."""
        if self.is_over():
            return []
        if self.phase == "flip":
            who = self.players[self.flips[0]].name
            return [{"cmd": "flip", "result": kind, "player": who} for kind in self.legal_flips()]
        if self.phase == "choose":
            allowed = self.choosable()  # listed clockwise from the chooser, the order a panel steps through
            return [{"cmd": "choose", "player": self.players[i].name}
                    for i in self._clockwise_from(self.chooser) if i in allowed]
        if self.rolls == 0:
            return [{"cmd": "roll"}]
        return [{"cmd": "roll", "reroll": faces} for faces in reroll_choices(self.kept, self.last_roll)] + [{"cmd": "stop"}]

    def supply(self) -> int:
        return HONEY_IN_BOX - sum(p.honey for p in self.players)

    def face_down(self) -> int:
        return FLOWER_COUNT - sum(self.face_up.values())

    def zombee_odds(self) -> float:
        # The ZomBee flower is always face down while a round lasts (revealing it ends the round).
        return 1 / self.face_down()

    # --- applying commands -----------------------------------------------------

    def apply(self, cmd: Command) -> list[Event]:
        handler = {Roll: self._roll, Stop: self._stop, Flip: self._flip, Choose: self._choose}.get(type(cmd))
        if handler is None:
            raise IllegalCommand(f"{quote(cmd.to_dict())} is not a ZomBee command; ZomBee takes roll, stop, flip, choose, undo")
        return handler(cmd)

    def _expect(self, phase: str, cmd: Command) -> None:
        if self.phase == phase:
            return
        who = self.players[self.pending()].name
        wanted = {
            "roll": f"{who} is rolling: roll, or stop after at least one roll",
            "flip": f"{who} must turn over a flower: flip",
            "choose": f"{who} revealed a question mark and must choose who flips: choose one of "
            + ", ".join(self.players[i].name for i in self.choosable()),
        }[self.phase]
        raise IllegalCommand(f"{quote(cmd.to_dict())} is not possible now; {wanted}")

    def _roll(self, cmd: Roll) -> list[Event]:
        self._expect("roll", cmd)
        who = self.players[self.active].name
        if self.rolls == 0:
            if cmd.reroll is not None:
                raise IllegalCommand(f"{who}'s first roll uses all five dice; leave out 'reroll' in {quote(cmd.to_dict())}")
            if len(cmd.faces) != DICE:
                raise IllegalCommand(f"a first roll shows all {DICE} dice, got {len(cmd.faces)} in {quote(cmd.to_dict())}")
            kept: list[str] = []
        else:
            if cmd.reroll is None:
                # say which dice may go (as every refused reroll does), not only that 'reroll' is missing
                picks = describe_picks(legal_rerolls(self.kept, self.last_roll))
                raise IllegalCommand(f"{quote(cmd.to_dict())}: roll {self.rolls + 1} must say which dice were picked up "
                                     f"again in 'reroll' ({picks}), or stop instead")
            check_reroll(self.kept, self.last_roll, cmd.reroll, cmd.faces)
            kept = set_aside(self.kept, self.last_roll, cmd.reroll)
        self.kept, self.last_roll = kept, ordered(cmd.faces)
        self.rolls += 1
        events = [Event.said("roll", "{name} rolled {faces} (roll {roll} of {rolls}).", who, name=who,
                             faces=list(self.last_roll), roll=self.rolls, rolls=MAX_ROLLS)]
        if self.rolls == MAX_ROLLS or not can_roll_again(self.kept, self.last_roll):
            events += self._evaluate()
        return events

    def _stop(self, cmd: Stop) -> list[Event]:
        self._expect("roll", cmd)
        if self.rolls == 0:
            raise IllegalCommand(f"{quote(cmd.to_dict())}: {self.players[self.active].name} has not rolled yet; stop comes "
                                 f"after at least one roll, and the first roll throws all {DICE} dice (roll without 'reroll')")
        return [Event.said("stop", "{name} stopped rolling.", self.players[self.active].name,
                          name=self.players[self.active].name)] + self._evaluate()

    def _evaluate(self) -> list[Event]:
        """Score all five dice in the rulebook's order: Zzz, honey, green ZomBees, yellow bees."""
        dice = Counter(self.kept + self.last_roll)
        me = self.players[self.active]
        events = []
        if dice["honey"] >= HONEY_FOR_A_DROP:
            if me.honey >= self.cap:
                events.append(Event.said("honey_forfeited", "{name} already holds {cap} honey; the drop is forfeited.", me.name,
                                        name=me.name, cap=self.cap))
            elif self.supply() == 0:
                events.append(Event.said("honey_forfeited", "The box has no honey left to give.", me.name))
            else:
                me.honey += 1
                events.append(Event.said("honey", "{name} takes a honey drop ({honey} now).", me.name, name=me.name, honey=me.honey))
        others = [i for i in self._clockwise_from(self.active) if i != self.active]
        self.flips = [self.active] * dice["zombee"] + [others[k % len(others)] for k in range(dice["bee"])]
        if self.flips:
            self.phase = "flip"
            # one flower is said in the singular ("1 flowers to turn over" read wrong on the page)
            template = (N_("1 flower to turn over: {names}.") if len(self.flips) == 1
                        else N_("{count} flowers to turn over: {names}."))
            events.append(Event.said("flips", template, me.name, count=len(self.flips),
                                    names=", ".join(self.players[i].name for i in self.flips)))
            return events
        return events + self._pass_turn()

    def _flip(self, cmd: Flip) -> list[Event]:
        self._expect("flip", cmd)
        seat = self.flips[0]
        who = self.players[seat].name
        if cmd.player is not None and cmd.player != who:
            raise IllegalCommand(f"{quote(cmd.to_dict())}: it is {who}'s flower to turn over, not {quote(cmd.player)}'s")
        if not self.can_flip(cmd.result):
            left = ", ".join(self.legal_flips())
            raise IllegalCommand(
                f"{quote(cmd.to_dict())}: a {cmd.result} cannot be under the face-down flowers: all {FLOWERS[cmd.result]} are face up already; "
                f"the flower can only be: {left}"
            )
        self.flips.pop(0)
        if cmd.result == "zombee":
            return self._zombee_revealed(seat)
        self.face_up[cmd.result] += 1
        if cmd.result == "question":
            self.phase, self.chooser = "choose", seat
            return [Event.said("question", "{name} turned over a question mark and chooses who flips next.", who, name=who)]
        events = [Event.said("flower_bee", "{name} turned over a bee.", who, name=who)]
        if not self.flips:
            events += self._pass_turn()
        return events

    def _choose(self, cmd: Choose) -> list[Event]:
        self._expect("choose", cmd)
        allowed = self.choosable()
        seat = next((i for i, p in enumerate(self.players) if p.name == cmd.player), None)
        if seat not in allowed:  # an unknown name too is answered with whom the chooser may name
            names = ", ".join(self.players[i].name for i in allowed)
            why = ("is not a player" if seat is None else "cannot choose themselves" if seat == self.chooser
                   else "is out of the game and cannot be chosen")
            raise IllegalCommand(
                f"{quote(cmd.to_dict())}: {quote(cmd.player)} {why}; {self.players[self.chooser].name} may choose {names}"
            )
        self.flips.insert(0, seat)
        self.phase, self.chooser = "flip", None
        return [Event.said("chosen", "{name} must turn over an extra flower.", cmd.player, name=cmd.player)]

    def _zombee_revealed(self, revealer: int) -> list[Event]:
        payer = self.active if self.penalty == "active" else revealer
        p = self.players[payer]
        p.honey -= 1
        events = [Event.said("zombee_revealed", "{name} turned over the ZomBee! {payer} gives back a honey drop "
                            "({honey} left).", self.players[revealer].name, name=self.players[revealer].name,
                            payer=p.name, honey=p.honey)]
        if p.honey == 0:
            p.eliminated = True
            events.append(Event.said("player_out", "{name} has no honey left and is out.", p.name, name=p.name))
        living = self.living()
        if len(living) == 1:
            return events + self._game_won(living[0], payer)
        starter = payer if not p.eliminated else self._next_living(payer)
        self._new_round(starter)
        return events + [Event.said("round", "New round: all flowers face down, {name} starts.",
                                   self.players[starter].name, name=self.players[starter].name)]

    def _game_won(self, seat: int, loser: int) -> list[Event]:
        w = self.players[seat]
        self.game_winners.append(w.name)
        if self.variant == "standard":
            self._finish("game_over", seat)
            return [Event.said("game_over", "{name} is the last with honey and wins!", w.name, name=w.name)]
        w.green += 1  # counted even when the box has no green drop left
        if w.green >= GAMES_TO_WIN_TOURNAMENT:
            self._finish("tournament_over", seat)
            return [Event.said("tournament_over", "{name} wins a second game and the tournament!", w.name, name=w.name)]
        for p in self.players:
            p.honey, p.eliminated = self.start_honey, False
        self._new_round(loser)
        return [Event.said("game_won", "{name} wins game {game} and takes a green drop. New game: {starter} starts.",
                          w.name, name=w.name, game=len(self.game_winners), starter=self.players[loser].name)]

    def _finish(self, phase: str, seat: int) -> None:
        self._new_round(None)
        self.phase, self.winner = phase, seat

    # --- turn and round bookkeeping -------------------------------------------

    def _pass_turn(self) -> list[Event]:
        nxt = self._next_living(self.active)
        self._reset_turn(nxt)
        return [Event.said("turn", "{name}'s turn to roll.", self.players[nxt].name, name=self.players[nxt].name)]

    def _new_round(self, starter: int | None) -> None:
        self.face_up = {"bee": 0, "question": 0}
        self._reset_turn(starter)

    def _reset_turn(self, active: int | None) -> None:
        self.active, self.phase = active, "roll"
        self.rolls, self.kept, self.last_roll = 0, [], []
        self.flips: list[int] = []
        self.chooser: int | None = None

    def _clockwise_from(self, seat: int) -> list[int]:
        n = len(self.players)
        return [(seat + k) % n for k in range(1, n + 1) if not self.players[(seat + k) % n].eliminated]

    def _next_living(self, seat: int) -> int:
        return self._clockwise_from(seat)[0]

    # --- the public state --------------------------------------------------------

    def to_json(self) -> dict:
        name = lambda seat: None if seat is None else self.players[seat].name  # noqa: E731
        return {
            "game": "zombee",
            "variant": self.variant,
            "rules": {"zombee_penalty": self.penalty},  # the coach needs to know who pays for a ZomBee
            "players": [{"name": p.name, "honey": p.honey, "green": p.green, "eliminated": p.eliminated}
                        for p in self.players],
            "active": name(self.active),
            "phase": self.phase,
            "pending": name(self.pending()),
            "owed": [self.players[seat].name for seat in self.flips],  # the flowers still to turn, in order
            "rolls": self.rolls,
            "kept": list(self.kept),
            "last_roll": list(self.last_roll),
            "flowers": {"face_down": self.face_down(), **self.face_up},
            "supply": {"yellow": self.supply(), "green": max(0, GREEN_IN_BOX - sum(p.green for p in self.players))},
            "winner": name(self.winner),
            "game_winners": list(self.game_winners),
            "odds": {"zombee_next_flip": self.zombee_odds()},
            # Added for adapters: the same answers in the same shape as the Zoo's.
            "over": self.is_over(),
            "winners": [] if self.winner is None else [name(self.winner)],
            "legal": self.legal(),
        }
