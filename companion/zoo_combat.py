"""Zombie Zoo combat, as the base Zombies!!! game fights: one die, 4 or more kills.

A fight is opened for one hero (`fight` without a roll: the page's or panel's
Fight button), then each die rolled in it is a `fight` with its `roll`. On 4-6
the zombie is killed (a kill, as `kill` records it: the release clock and the
score follow). On 1-3 the hero chooses: `spend_bullets`, each adding 1 to the
roll, to bring it to 4, or `lose_life` and roll again. Bullets go before the
last life. docs/zoo.md says it in plain words, with what the companion chose
where the rule sheets are silent. The Zoo engine calls these functions; each
checks everything before it changes anything, and answers with what the fight
came to (KILLED, OUT or None) for the Zoo to score: this module knows the
fight, the Zoo knows kills, locks and who is out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from .commands import DIE_SIDES, MAX_COUNT, Fight, LoseLife, SpendBullets, quote
from .errors import IllegalCommand
from .events import N_, Event
from .legal import span
from .zoo_words import bullets_said, counted

KILLS_ON = 4  # a roll of 4, 5 or 6 kills the zombie; bullets add 1 each to reach it
KILLED, OUT = "killed", "out"  # what a fight came to: the zombie taken, or the hero's last life lost


@dataclass
class Combat:
    """The one open fight: whose it is, its rolls so far, and the roll of 1-3 awaiting a choice."""

    player: str
    rolls: list[int] = field(default_factory=list)
    roll: int | None = None  # None while the next roll is awaited

    def needs(self) -> int | None:
        """Bullets that would bring the waiting roll to 4; None while a roll is awaited."""
        return None if self.roll is None else KILLS_ON - self.roll

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "roll": self.roll, "needs": self.needs(), "rolls": list(self.rolls)}


class Fighter(Protocol):
    """A hero as a fight sees one (the Zoo's Hero)."""

    name: str
    life: int
    bullets: int


class Table(Protocol):
    """What a fight asks of the game it is fought in (the Zoo): the open fight and its heroes."""

    combat: Combat | None

    def living_players(self) -> list[str]: ...

    def hero(self, name: str) -> Fighter: ...

    def living_hero(self, name: str, cmd: Any, doing: str) -> Fighter: ...


Result = tuple[list[Event], str | None]  # the fight's events, and KILLED, OUT or None


def may_lose_life(hero: Fighter, needs: int) -> bool:
    """The sheet's "bullets before the last life": the last life goes only when the bullets cannot reach 4."""
    return hero.life > 1 or hero.bullets < needs


def moves(zoo: Table) -> list[dict[str, Any]]:
    """The combat part of `legal`: open a fight, roll in it, or choose after a roll of 1-3."""
    combat = zoo.combat
    if combat is None:
        return [{"cmd": "fight", "player": name} for name in zoo.living_players()]
    if combat.roll is None:
        return [{"cmd": "fight", "player": combat.player, "roll": span(1, DIE_SIDES)}]
    hero, needs = zoo.hero(combat.player), combat.needs()
    out = []
    if hero.bullets >= needs:
        out.append({"cmd": "spend_bullets", "player": hero.name, "count": span(needs, min(hero.bullets, MAX_COUNT))})
    if may_lose_life(hero, needs):
        out.append({"cmd": "lose_life", "player": hero.name})
    return out


def _open(zoo: Table, cmd: Any, doing: str) -> tuple[Combat, Fighter]:
    """The open fight of `cmd`'s hero, or a refusal saying which fight there is (if any)."""
    given = quote(cmd.to_dict())
    hero = zoo.living_hero(cmd.player, cmd, doing)
    combat = zoo.combat
    if combat is None:
        raise IllegalCommand(f"{given}: no fight is open (a fight ends when its zombie is killed or its hero is "
                             f"out); open one first with {{\"cmd\":\"fight\",\"player\":\"{hero.name}\"}}")
    if combat.player != hero.name:
        raise IllegalCommand(f"{given}: {hero.name} is not fighting; {_where(combat)}")
    return combat, hero


def _where(combat: Combat) -> str:
    """Where the open fight stands, and what it takes next, for a refusal."""
    if combat.roll is None:
        return (f"{combat.player}'s fight is open and waits for a roll "
                f"({{\"cmd\":\"fight\",\"player\":\"{combat.player}\",\"roll\":1-6}})")
    return (f"{combat.player} rolled {combat.roll} and chooses first: spend_bullets "
            f"(at least {combat.needs()}) or lose_life")


def fight(zoo: Table, cmd: Fight) -> Result:
    if cmd.roll is None:
        return _start(zoo, cmd)
    combat, hero = _open(zoo, cmd, "fight")
    if combat.roll is not None:
        raise IllegalCommand(f"{quote(cmd.to_dict())}: a roll of 1-3 is settled before the next roll; {_where(combat)}")
    combat.rolls.append(cmd.roll)
    if cmd.roll >= KILLS_ON:
        return [Event.said("fight", "{name} rolled {roll}: the zombie is killed.", hero.name, name=hero.name,
                           roll=cmd.roll)], KILLED
    combat.roll = cmd.roll
    needs = combat.needs()
    if hero.bullets >= needs:
        template = (N_("{name} rolled {roll}: spend {bullets} or lose a life and roll again.") if hero.life > 1 else
                    N_("{name} rolled {roll}: spend {bullets}, as bullets go before the last life."))
    else:
        template = (N_("{name} rolled {roll}, and bullets cannot bring it to 4: lose a life and roll again.")
                    if hero.life > 1 else
                    N_("{name} rolled {roll}, and bullets cannot bring it to 4: the last life is lost."))
    return [Event.said("fight", template, hero.name, name=hero.name, roll=cmd.roll, bullets=bullets_said(needs))], None


def _start(zoo: Table, cmd: Fight) -> Result:
    hero = zoo.living_hero(cmd.player, cmd, "fight")
    if zoo.combat is not None:
        what = "is already fighting" if zoo.combat.player == hero.name else "cannot fight yet"
        raise IllegalCommand(f"{quote(cmd.to_dict())}: {hero.name} {what}: one fight at a time, and "
                             f"{_where(zoo.combat)}")
    zoo.combat = Combat(hero.name)
    return [Event.said("fight", "{name} fights a zombie: roll the die.", hero.name, name=hero.name)], None


def _after_roll(zoo: Table, cmd: Any, doing: str, rule: str) -> tuple[Combat, Fighter, str, int]:
    """(fight, hero, the command quoted, what the roll still needs) of a choice made after a roll of 1-3,
    or a refusal quoting rule when no roll waits for one."""
    combat, hero = _open(zoo, cmd, doing)
    given = quote(cmd.to_dict())
    if combat.roll is None:
        raise IllegalCommand(f"{given}: {rule}, and no roll waits; {_where(combat)}")
    return combat, hero, given, combat.needs()


def spend_bullets(zoo: Table, cmd: SpendBullets) -> Result:
    combat, hero, given, needs = _after_roll(zoo, cmd, "spend bullets", "bullets are added to a roll of 1-3")
    if cmd.count > hero.bullets:
        raise IllegalCommand(f"{given}: {hero.name} has {counted(hero.bullets, 'bullet')}, so can spend at most "
                             f"{hero.bullets}" + ("" if hero.bullets >= needs else "; lose_life instead"))
    if cmd.count < needs:
        raise IllegalCommand(f"{given}: each bullet adds 1 to the roll, and a zombie falls only at 4 or more: "
                             f"{cmd.count} brings the {combat.roll} to {combat.roll + cmd.count}, so spend at "
                             f"least {needs}")
    hero.bullets -= cmd.count
    return [Event.said("fight", "{name} spent {bullets} on the {roll}: the zombie is killed.", hero.name,
                       name=hero.name, bullets=bullets_said(cmd.count), roll=combat.roll)], KILLED


def lose_life(zoo: Table, cmd: LoseLife) -> Result:
    combat, hero, given, needs = _after_roll(zoo, cmd, "lose a life in a fight", "a life is lost for a roll of 1-3")
    if not may_lose_life(hero, needs):
        raise IllegalCommand(
            f"{given}: bullets are spent before the last life, and {hero.name}'s "
            f"{counted(hero.bullets, 'bullet')} can bring the {combat.roll} to 4; spend them first "
            f"({{\"cmd\":\"spend_bullets\",\"player\":\"{hero.name}\",\"count\":{needs}}})")
    hero.life -= 1
    combat.roll = None
    if hero.life:
        return [Event.said("life", "{name} lost a life ({life} left): roll again.", hero.name, name=hero.name,
                           life=hero.life)], None
    return [Event.said("life", "{name} lost the last life.", hero.name, name=hero.name)], OUT
