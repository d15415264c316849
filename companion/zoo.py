"""Zombies!!! 12: Zombie Zoo, as the companion keeps score of it.

The board, the pawns and the fights stay on the table; the companion tracks
what decides the game: each hero's life, bullets, kills and lock tokens, the
four cage locks and their automatic release, who is still alive, and the final
score. docs/zoo.md states the rules in plain words. Every command is checked
completely before anything changes, so a refusal leaves the game exactly as it
was (the Engine also works on a copy).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from . import zoo_combat
from .commands import (LOCKS, MAX_COUNT, MAX_DELTA, AnimalsCleared, Bullets, CollectLock, Command, Fight, Kill, Life,
                       LoseLife, NewGame, SpendBullets, house_rule, quote)
from .errors import IllegalCommand
from .events import N_, Event, phrase, render
from .legal import span
from .zoo_words import CAGE_ANIMALS, LOCK_NAMES, counted, joined, listed, points_said, timer_steps

MIN_PLAYERS, MAX_PLAYERS = 2, 6
MAX_LIFE = 5
START_BULLETS = 5
LOCK_POINTS = 5
SURVIVOR_POINTS = 5

# A lock on one of these sides is still on the board: it can be collected and it still steps.
ON_BOARD = ("60:00", "30:00")
LOCK_RELEASE_MODES = ("every_multiple", "first_time")
@dataclass
class Hero:
    """One player's pawn and everything in front of them on the table."""

    name: str
    life: int = MAX_LIFE
    bullets: int = START_BULLETS
    kills: int = 0
    locks: list[str] = field(default_factory=list)  # in the order collected
    alive: bool = True


class Zoo:
    """The Zombie Zoo rules: validate a command, then apply it and say what happened."""

    game = "zoo"

    def __init__(self, cmd: NewGame):
        given = quote(cmd.to_dict())
        if cmd.game != self.game:
            raise IllegalCommand(f"{given}: this is the Zombie Zoo engine; use \"game\": \"zoo\"")
        players = list(cmd.players)
        if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
            raise IllegalCommand(
                f"{given}: Zombie Zoo is for {MIN_PLAYERS} to {MAX_PLAYERS} players, "
                f"got {len(players)}; list 2 to 6 names in seating order"
            )
        if len(set(players)) != len(players):
            raise IllegalCommand(f"{given}: player names must be unique")
        if cmd.variant is not None:
            raise IllegalCommand(f"{given}: Zombie Zoo has no variants; leave out \"variant\"")
        mode = house_rule(cmd, "lock_release", LOCK_RELEASE_MODES, "Zombie Zoo")

        self.players = [Hero(name) for name in players]
        self.locks = {lock: "60:00" for lock in LOCKS}
        small_table = len(players) <= 4
        # The sheet: 2-4 players release at 6 kills and a 30:00 lock opens its cage;
        # 5-6 players release at 4 kills and a 30:00 lock takes its tile out of play.
        self.release_at = 6 if small_table else 4
        self.last_step = "open" if small_table else "removed"
        self.lock_release = mode
        self.ended_by: str | None = None  # "last_alive" or "animals_cleared"
        self.combat: zoo_combat.Combat | None = None  # the one open fight (zoo_combat)

    # ----- yes/no questions about the rules -----

    def is_over(self) -> bool:
        return self.ended_by is not None

    def living_players(self) -> list[str]:
        return [h.name for h in self.players if h.alive]

    def locks_on_board(self) -> list[str]:
        return [lock for lock, side in self.locks.items() if side in ON_BOARD]

    def can_kill(self, player: str) -> bool:
        return not self.is_over() and any(h.name == player and h.alive for h in self.players)

    def can_collect_lock(self, player: str, lock: str) -> bool:
        return self.can_kill(player) and self.locks.get(lock) in ON_BOARD

    def can_clear_animals(self) -> bool:
        return not self.is_over() and not self.locks_on_board()

    def most_lost(self, hero: Hero, what: str) -> int:
        """How much life or how many bullets `hero` may lose in one go (the last life waits for the bullets)."""
        if what == "bullets":
            return hero.bullets
        return hero.life if hero.bullets == 0 else hero.life - 1

    def legal(self) -> list[dict[str, Any]]:
        """Every command the game would take now, one per distinct choice (see companion.legal)."""
        if self.is_over():
            return []
        moves: list[dict[str, Any]] = []
        for hero in (h for h in self.players if h.alive):
            who = hero.name
            # the command's own bounds (MAX_COUNT, MAX_DELTA) are part of what would be accepted
            moves.append({"cmd": "kill", "player": who, "count": span(1, MAX_COUNT)})
            moves += [{"cmd": "collect_lock", "player": who, "lock": lock} for lock in self.locks_on_board()]
            for what in ("life", "bullets"):
                if self.most_lost(hero, what):
                    lowest = -min(self.most_lost(hero, what), MAX_DELTA)
                    moves.append({"cmd": what, "player": who, "delta": span(lowest, -1)})
                moves.append({"cmd": what, "player": who, "delta": span(1, MAX_DELTA)})  # gains above 5 life are capped
        moves += zoo_combat.moves(self)
        if self.can_clear_animals():
            moves.append({"cmd": "animals_cleared"})
        return moves

    def next_release_in(self) -> int | None:
        """Fewest kills any living player still needs to step the locks; None if nothing can step."""
        if self.is_over() or not self.locks_on_board():
            return None
        living = [h for h in self.players if h.alive]
        if self.lock_release == "every_multiple":
            return min(self.release_at - h.kills % self.release_at for h in living)
        # first_time: only players who have never reached the threshold can still step the locks.
        waiting = [self.release_at - h.kills for h in living if h.kills < self.release_at]
        return min(waiting) if waiting else None

    def score(self, player: str) -> int:
        hero = self.hero(player)
        bonus = SURVIVOR_POINTS if self.ended_by == "last_alive" and hero.alive else 0
        return hero.kills + LOCK_POINTS * len(hero.locks) + bonus

    def winners(self) -> list[str]:
        """The winner, or everyone sharing a tie, in seating order; empty while play goes on."""
        if not self.is_over():
            return []
        best = max((self.score(h.name), h.life) for h in self.players)
        return [h.name for h in self.players if (self.score(h.name), h.life) == best]

    def outcome(self) -> str:
        return render(**self.outcome_phrase())

    def outcome_phrase(self) -> dict:
        """outcome() before its values went in (events.phrase), so a page can say it in German."""
        if not self.is_over():
            top = max(self.score(h.name) for h in self.players)
            if top == 0:  # everyone on nothing is nobody leading
                return phrase(N_("Play goes on; nobody has scored yet."))
            leaders = [h.name for h in self.players if self.score(h.name) == top]
            template = (N_("Play goes on; {names} leads with {points}.") if len(leaders) == 1
                        else N_("Play goes on; {names} lead with {points}."))
            return phrase(template, names=joined(leaders), points=points_said(top))
        last = self.ended_by == "last_alive"
        winners = self.winners()
        points = points_said(self.score(winners[0]))
        if len(winners) > 1:
            return phrase(N_("{names} share the win with {points} each, level on life too (one hero is left "
                             "alive).") if last else
                          N_("{names} share the win with {points} each, level on life too (game ended once the "
                             "Zombie Gorillas and Monkeys were cleared)."), names=joined(winners), points=points)
        tied = [h.name for h in self.players if self.score(h.name) == points["args"]["n"] and h.name != winners[0]]
        if tied:
            return phrase(N_("{name} wins with {points}, ahead of {tied} on life left (one hero is left "
                             "alive).") if last else
                          N_("{name} wins with {points}, ahead of {tied} on life left (game ended once the Zombie "
                             "Gorillas and Monkeys were cleared)."), name=winners[0], points=points, tied=joined(tied))
        return phrase(N_("{name} wins with {points} (one hero is left alive).") if last else
                      N_("{name} wins with {points} (game ended once the Zombie Gorillas and Monkeys were cleared)."),
                      name=winners[0], points=points)

    # ----- commands -----

    def apply(self, cmd: Command) -> list[Event]:
        handlers = {
            Kill: self._kill,
            CollectLock: self._collect_lock,
            Life: self._life,
            Bullets: self._bullets,
            Fight: lambda c: self._fought(c, zoo_combat.fight(self, c)),
            SpendBullets: lambda c: self._fought(c, zoo_combat.spend_bullets(self, c)),
            LoseLife: lambda c: self._fought(c, zoo_combat.lose_life(self, c)),
            AnimalsCleared: self._animals_cleared,
        }
        handler = handlers.get(type(cmd))
        if handler is None:
            raise IllegalCommand(
                f"{quote(cmd.to_dict())} is not a Zombie Zoo command; "
                "a Zoo game takes kill, collect_lock, life, bullets, fight, spend_bullets, lose_life, animals_cleared and undo"
            )
        return handler(cmd)

    def _fought(self, cmd: Command, result: zoo_combat.Result) -> list[Event]:
        """A combat command's events, and what its fight came to scored: a zombie killed is a kill (the
        release clock and the score follow), a last life lost puts the hero out."""
        events, outcome = result
        if outcome == zoo_combat.KILLED:
            return events + self._kill(Kill(cmd.player, 1))
        if outcome == zoo_combat.OUT:
            return events + self._knock_out(self.hero(cmd.player))
        return events

    def _kill(self, cmd: Kill) -> list[Event]:
        hero = self.living_hero(cmd.player, cmd, "take kills")
        before = hero.kills
        hero.kills += cmd.count
        self._end_fight(hero)  # the zombie in the hero's fight is the one taken
        events = [(Event.said("kill", "{name} killed 1 Zombie ({kills} in all).", hero.name, name=hero.name, kills=hero.kills)
                  if cmd.count == 1 else
                  Event.said("kill", "{name} killed {count} Zombies ({kills} in all).", hero.name, name=hero.name,
                            count=cmd.count, kills=hero.kills))]
        for reached in self._thresholds_reached(before, hero.kills):
            if not self.locks_on_board():
                break  # every lock has left the board: later thresholds step nothing
            events += self._step_locks(hero, reached)
        return events

    def _thresholds_reached(self, before: int, after: int) -> range:
        """The kill totals, passed on the way from `before` to `after`, that step the locks.

        A range, not a list: its size and cost do not grow with the kill count, and the
        caller stops after the two steps that take every lock off the board.
        """
        t = self.release_at
        if self.lock_release == "first_time":
            # A living player's kills only grow, so crossing the threshold now is their first time.
            return range(t, t + 1) if before < t <= after else range(0)
        return range((before // t + 1) * t, after // t * t + 1, t)

    def _step_locks(self, hero: Hero, reached: int) -> list[Event]:
        moving = self.locks_on_board()
        if not moving:
            return []  # every lock is already collected, open or removed: nothing left to step
        steps, timers = [], []
        for lock in moving:
            before = self.locks[lock]
            after = "30:00" if before == "60:00" else self.last_step
            self.locks[lock] = after
            if after == "open":
                steps.append(phrase("{lock} opens (fill its cage with {animals})", lock=phrase(LOCK_NAMES[lock]),
                                    animals=phrase(CAGE_ANIMALS[lock])))
            elif after == "removed":
                steps.append(phrase("{lock} is removed (take its tile out of play)", lock=phrase(LOCK_NAMES[lock])))
            else:
                timers.append((lock, before, after))
        steps += timer_steps(timers, len(moving))
        return [Event.said("locks_advanced", "{name} reached {kills} kills, so the release clock runs: {steps}.",
                          hero.name, name=hero.name, kills=reached, steps=steps)] + self._if_last_lock_gone()

    def _collect_lock(self, cmd: CollectLock) -> list[Event]:
        hero = self.living_hero(cmd.player, cmd, "collect locks")
        side = self.locks[cmd.lock]
        if side not in ON_BOARD:
            owner = next((h.name for h in self.players if cmd.lock in h.locks), None)
            gone = {"open": "gone and its cage is open", "removed": "gone with its tile"}
            where = f"already collected by {owner}" if owner else gone[side]
            raise IllegalCommand(
                f"{quote(cmd.to_dict())}: the {LOCK_NAMES[cmd.lock]} lock is {where}; "
                f"locks still on the board: {listed(self.locks_on_board())}"
            )
        self.locks[cmd.lock] = "collected"
        hero.locks.append(cmd.lock)
        return [Event.said("lock_collected", "{name} collected the {lock} lock at {side} ({points} points); "
                          "its tile leaves play and the move ends.", hero.name, name=hero.name,
                          lock=phrase(LOCK_NAMES[cmd.lock]), side=side, points=LOCK_POINTS)] + self._if_last_lock_gone()

    def _if_last_lock_gone(self) -> list[Event]:
        if self.locks_on_board():
            return []
        return [Event.said("last_lock", "No lock is left on the board: play on until one player is left "
                          "or every Zombie Gorilla and Monkey is off the board.")]

    def _life(self, cmd: Life) -> list[Event]:
        given = quote(cmd.to_dict())
        if cmd.delta == 0:
            raise IllegalCommand(f"{given}: a delta of 0 changes nothing; gain with a positive delta, lose with a negative one")
        hero = self.living_hero(cmd.player, cmd, "gain or lose life")
        after, most = hero.life + cmd.delta, self.most_lost(hero, "life")
        if after < 0 and not hero.bullets:
            raise IllegalCommand(f"{given}: {hero.name} has {hero.life} life, so can lose at most {hero.life}")
        if -cmd.delta > most:  # also a loss past 0: with bullets left the most is one short of the life, not all of it
            # ("can lose at most 0 of 1 life" said it of a hero on the last life)
            until = (f"{hero.name} cannot lose that last life until then" if most == 0 else
                     f"until then {hero.name} can lose at most {most} of {hero.life} life")
            raise IllegalCommand(
                f"{given}: bullets are spent before the last life, and {hero.name} still has "
                f"{counted(hero.bullets, 'bullet')}; {until}. Spend them first "
                f"(e.g. {{\"cmd\":\"bullets\",\"player\":\"{hero.name}\",\"delta\":-{hero.bullets}}})"
            )
        if cmd.delta > 0:
            hero.life = min(after, MAX_LIFE)  # nobody holds more than the five life they start with
            if after > MAX_LIFE:
                return [Event.said("life", "{name} gained life: {life} now (no more than 5).", hero.name,
                                  name=hero.name, life=hero.life)]
            return [Event.said("life", "{name} gained life: {life} now.", hero.name, name=hero.name, life=hero.life)]
        hero.life = after
        events = [Event.said("life", "{name} lost {lost} life: {life} left.", hero.name, name=hero.name,
                            lost=-cmd.delta, life=hero.life)]
        if hero.life == 0:
            events += self._knock_out(hero)
        return events

    def _knock_out(self, hero: Hero) -> list[Event]:
        discard = hero.kills // 2  # half the kills, rounded down, go back
        hero.kills -= discard
        hero.alive = False
        self._end_fight(hero)
        template = (N_("{name} is out of the game: discards {discard} of {all} kills and keeps {kills}; their "
                       "kills and locks still count.") if discard + hero.kills else
                    N_("{name} is out of the game, with no kills to give up; their locks still count."))  # "0 of 0"
        events = [Event.said("player_out", template, hero.name, name=hero.name, discard=discard,
                             all=discard + hero.kills, kills=hero.kills)]
        if len(self.living_players()) == 1:
            events += self._end("last_alive")
        return events

    def _end_fight(self, hero: Hero) -> None:
        if self.combat is not None and self.combat.player == hero.name:
            self.combat = None

    def _bullets(self, cmd: Bullets) -> list[Event]:
        given = quote(cmd.to_dict())
        if cmd.delta == 0:
            raise IllegalCommand(f"{given}: a delta of 0 changes nothing; gain with a positive delta, spend with a negative one")
        hero = self.living_hero(cmd.player, cmd, "gain or spend bullets")
        if -cmd.delta > self.most_lost(hero, "bullets"):
            raise IllegalCommand(
                f"{given}: {hero.name} has {counted(hero.bullets, 'bullet')}, so can spend at most {hero.bullets}"
            )
        hero.bullets += cmd.delta
        template = {(True, True): N_("{name} gained 1 bullet: {bullets} now."),
                    (True, False): N_("{name} gained {count} bullets: {bullets} now."),
                    (False, True): N_("{name} spent 1 bullet: {bullets} now."),
                    (False, False): N_("{name} spent {count} bullets: {bullets} now.")}[cmd.delta > 0,
                                                                                         abs(cmd.delta) == 1]
        return [Event.said("bullets", template, hero.name, name=hero.name, count=abs(cmd.delta), bullets=hero.bullets)]

    def _animals_cleared(self, cmd: AnimalsCleared) -> list[Event]:
        left = self.locks_on_board()
        if left:
            names = ", ".join(LOCK_NAMES[lock] for lock in left)
            raise IllegalCommand(
                f"{quote(cmd.to_dict())}: clearing the animals ends the game only once every lock is "
                f"collected, open or removed; still on the board: {names}"
            )
        return [Event.said("animals_cleared", "Every Zombie Gorilla and Monkey is off the board.")] + self._end("animals_cleared")

    def _end(self, how: str) -> list[Event]:
        self.ended_by = how
        winners = self.winners()
        return [Event.said("game_over", "Game over: {outcome}", winners[0] if len(winners) == 1 else None,
                          outcome=self.outcome_phrase())]

    # ----- players -----

    def hero(self, name: str) -> Hero:
        """The named player, living or out, or a refusal listing the players."""
        for hero in self.players:
            if hero.name == name:
                return hero
        raise IllegalCommand(f"no player {quote(name)}; players are {listed([h.name for h in self.players])}")

    def living_hero(self, name: str, cmd: Command, doing: str) -> Hero:
        """The named living player, or a refusal that lists who could be meant."""
        given = quote(cmd.to_dict())
        try:
            hero = self.hero(name)
        except IllegalCommand:
            # Names match exactly (as in ZomBee); only hint at a case slip, never guess.
            near = [h.name for h in self.players if h.name.casefold() == name.strip().casefold()]
            hint = f" (did you mean {quote(near[0])}?)" if near else ""
            raise IllegalCommand(
                f"{given}: no player {quote(name)}{hint}; players are {listed([h.name for h in self.players])}"
            ) from None
        if not hero.alive:
            raise IllegalCommand(
                f"{given}: {hero.name} is out of the game and cannot {doing}; "
                f"living players: {listed(self.living_players())}"
            )
        return hero

    # ----- state -----

    def to_json(self) -> dict[str, Any]:
        winners = self.winners()
        return {
            "game": self.game,
            "players": [
                {
                    "name": h.name,
                    "life": h.life,
                    "bullets": h.bullets,
                    "kills": h.kills,
                    "locks": list(h.locks),
                    "alive": h.alive,
                    "score": self.score(h.name),
                }
                for h in self.players
            ],
            "locks": dict(self.locks),
            "release_at": self.release_at,
            "next_release_in": self.next_release_in(),
            "fight": None if self.combat is None else self.combat.to_json(),
            "phase": "game_over" if self.is_over() else "play",
            "winners": winners,
            # Added for adapters: the same answers in the same shape as ZomBee's.
            "over": self.is_over(),
            "winner": winners[0] if len(winners) == 1 else None,  # None too when the win is shared
            "legal": self.legal(),
        }
