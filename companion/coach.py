"""The ZomBee coach: what each legal choice of dice to roll again is worth, exactly.

The figures are exact expectations (every roll outcome enumerated, no
sampling) under these assumptions, also written out in the README:

* every die shows each face with the chances in `faces` (the average of the
  five dice of the settings: a picked-up die is of unknown type);
* later choices in the turn are the best ones by `value`;
* a face-down flower is equally likely to be any of the face-down flowers;
* whoever turns a question mark names, at random, one of the players they may
  name other than themselves.

Only the rules' own questions (`reroll_choices`, `can_roll_again`, `set_aside`)
say what may be rolled again. Standard library only: where a choice leads with a
last roll depends only on the dice it sets aside (stopping is one of the 56
endings, rolling again one of 70 sets of dice kept), so the chances of those
126 "roll-outs" are built once per `faces` and kept; a state then costs about a
thousand products for their values and a pass over the decisions it can reach.
"""

from __future__ import annotations

import functools
import math
import operator
from itertools import product
from typing import Iterable, Sequence

from .commands import DICE_FACES
from .zombee import FLOWERS, VARIANTS
from .zombee_dice import DICE, HONEY_FOR_A_DROP, MAX_ROLLS, can_roll_again, reroll_choices, set_aside

# Each die: 2 bee, 2 ZomBee, 1 Zzz, 1 honey (a published description of the dice); the settings may
# say otherwise (coaching.py)
DEFAULT_DIE = ("bee", "bee", "honey", "zzz", "zombee", "zombee")
DEFAULT_DICE = (DEFAULT_DIE,) * DICE

TIE = 1e-12  # values closer than this are a tie: the earlier option (stopping first) wins

Counts = tuple[int, int, int, int]  # how many bee, honey, zzz, zombee
Chances = tuple[float, ...]  # the chance of bee, honey, zzz, zombee on one die
Figures = tuple[float, float, float]  # p_three_honey, own_flips, others_flips
Decision = tuple[Counts, Counts]  # (set aside, latest roll)


def counts(faces: Iterable[str]) -> Counts:
    faces = list(faces)
    return tuple(faces.count(f) for f in DICE_FACES)  # type: ignore[return-value]


def faces_of(c: Counts) -> list[str]:
    return [f for f, n in zip(DICE_FACES, c) for _ in range(n)]


def multisets(size: int) -> list[Counts]:
    return [c for c in product(range(size + 1), repeat=4) if sum(c) == size]


FINAL = multisets(DICE)  # the 56 ways five dice can end a turn
FINAL_INDEX = {c: i for i, c in enumerate(FINAL)}
# Per final class: three or more honey, ZomBee faces (own flips), bee faces (others' flips).
FIGURES: tuple[Figures, ...] = tuple((float(c[1] >= HONEY_FOR_A_DROP), float(c[3]), float(c[0])) for c in FINAL)
# A roll-out: stopping with final class i (index i), or keeping ASIDE[j] and rolling the rest (56 + j).
ASIDE = [a for size in range(DICE) for a in multisets(size)]
ASIDE_INDEX = {a: len(FINAL) + j for j, a in enumerate(ASIDE)}


def roll_chances(size: int, p: Chances) -> list[tuple[Counts, float]]:
    """Each multiset `size` dice can show, with its chance (multinomial)."""
    out = []
    for c in multisets(size):
        ways = math.factorial(size) // math.prod(math.factorial(n) for n in c)
        chance = ways * math.prod(q ** n for q, n in zip(p, c))
        if chance > 0:
            out.append((c, chance))
    return out


def add(a: Counts, b: Counts) -> Counts:
    return tuple(x + y for x, y in zip(a, b))  # type: ignore[return-value]


@functools.lru_cache(maxsize=2048)
def options(kept: Counts, last: Counts) -> list[list[str]]:
    """Stopping first, then every legal pick-up (as the rules list them)."""
    return [[]] + reroll_choices(faces_of(kept), faces_of(last))


@functools.lru_cache(maxsize=2048)
def roll_outs(kept: Counts, last: Counts) -> tuple[int, ...]:
    """The roll-out of each option of a decision, in the order of `options`."""
    return tuple(ASIDE_INDEX[counts(set_aside(faces_of(kept), faces_of(last), tuple(reroll)))] if reroll
                 else FINAL_INDEX[add(kept, last)] for reroll in options(kept, last))


@functools.lru_cache(maxsize=1)
def last_decisions() -> dict[Decision, tuple[int, ...]]:
    """Every decision with one roll left (any dice set aside, any latest roll), with its options' roll-outs.

    Independent of the faces and of the game's state: built once (about 0.1 s).
    """
    return {(kept, last): roll_outs(kept, last)
            for kept_size in range(DICE) for kept in multisets(kept_size) for last in multisets(DICE - kept_size)
            if can_roll_again(faces_of(kept), faces_of(last))}


class Tree:
    """Where each roll-out leads for one set of face chances; independent of the game's state.

    For roll-out r, each outcome of its roll: `finals[r]` its final class, `then[r]` the decision
    it leaves when the dice may still be rolled again (else None), `chances[r]` its chance.
    `figures[r]` is what r scores (chance of three honey, own and others' flips) as the last roll.
    """

    def __init__(self, p: Chances):
        self.p = p
        decisions = last_decisions()
        self.option_rows = sum(map(len, decisions.values()))  # options of all decisions with one roll left
        rolls = {k: roll_chances(k, p) for k in range(1, DICE + 1)}
        self.finals: list[tuple[int, ...]] = [(i,) for i in range(len(FINAL))]
        self.then: list[tuple[Decision | None, ...]] = [(None,)] * len(FINAL)
        self.chances: list[tuple[float, ...]] = [(1.0,)] * len(FINAL)
        for aside in ASIDE:
            outcomes = rolls[DICE - sum(aside)]
            self.finals.append(tuple(FINAL_INDEX[add(aside, c)] for c, _ in outcomes))
            self.then.append(tuple((aside, c) if (aside, c) in decisions else None for c, _ in outcomes))
            self.chances.append(tuple(chance for _, chance in outcomes))
        self.figures: list[Figures] = [tuple(self.value(r, column) for column in zip(*FIGURES))  # type: ignore[misc]
                                       for r in range(len(self.finals))]

    def value(self, r: int, worth: Sequence[float]) -> float:
        """The expectation of `worth` (one number per final class) over roll-out r's outcomes."""
        return sum(map(operator.mul, self.chances[r], map(worth.__getitem__, self.finals[r])))

    def table(self, kept: Counts, last: Counts, rolls: int, worth: list[float]) -> list[tuple[float, ...]]:
        """Option x (value, p_three_honey, own_flips, others_flips) for a decision after roll `rolls`."""
        if rolls == MAX_ROLLS - 1:
            return [(self.value(r, worth),) + self.figures[r] for r in roll_outs(kept, last)]
        values = [self.value(r, worth) for r in range(len(self.finals))]
        decisions = last_decisions()
        best: dict[Decision, tuple[float, ...]] = {}
        out = []
        for r in roll_outs(kept, last):
            later = []  # per outcome: the figures of the final class, or of the best choice then
            for i, then in zip(self.finals[r], self.then[r]):
                if then is None:
                    later.append((worth[i],) + FIGURES[i])
                    continue
                if then not in best:
                    best[then] = self._best(decisions[then], values)
                later.append(best[then])
            out.append(tuple(sum(map(operator.mul, self.chances[r], column)) for column in zip(*later)))
        return out

    def _best(self, outs: tuple[int, ...], values: list[float]) -> tuple[float, ...]:
        """The figures of a decision's first option within TIE of its highest value."""
        top = max(map(values.__getitem__, outs))
        r = next(r for r in outs if values[r] >= top - TIE)
        return (values[r],) + self.figures[r]


@functools.lru_cache(maxsize=8)
def tree(p: Chances) -> Tree:
    return Tree(p)


def pay_chances(state: dict) -> dict[tuple[int, int], dict[str, float]]:
    """For each (ZomBee faces, bee faces) scored: the chance that each player gives back a honey drop.

    The ZomBee faces are flips for the active player, then the bee faces flips
    for the others clockwise. A flip shows the ZomBee with chance 1/(face-down
    flowers); that ends the round. A question mark adds one flip, first in line,
    for a player named at random among those its turner may name other than themselves.
    """
    names = [p["name"] for p in state["players"]]
    living = tuple(i for i, p in enumerate(state["players"]) if not p["eliminated"])
    active = names.index(state["active"])
    others = [s for s in ((active + k) % len(names) for k in range(1, len(names))) if s in living]
    penalty_active = (state.get("rules") or {}).get("zombee_penalty", "revealer") == "active"
    f = state["flowers"]
    table = _Flips(len(names), active, penalty_active, living)
    out = {}
    for zombees in range(DICE + 1):
        for bees in range(DICE + 1 - zombees):
            queue = (active,) * zombees + tuple(others[k % len(others)] for k in range(bees))
            paid = table.paid(queue, FLOWERS["bee"] - f["bee"], FLOWERS["question"] - f["question"])
            out[(zombees, bees)] = dict(zip(names, paid))
    return out


class _Flips:
    """The flips of one turn, memoised. (A plain object, not a recursive closure: no reference
    cycle is left behind, so the garbage collector never has to pause a page to find it.)"""

    def __init__(self, players: int, active: int, penalty_active: bool, living: tuple[int, ...]):
        self.players, self.active, self.penalty_active, self.living = players, active, penalty_active, living
        self.memo: dict[tuple, tuple[float, ...]] = {}

    def paid(self, queue: tuple[int, ...], bees_down: int, questions_down: int) -> tuple[float, ...]:
        key = (queue, bees_down, questions_down)
        if key in self.memo:
            return self.memo[key]
        paid = [0.0] * self.players
        if queue:
            n = bees_down + questions_down + 1
            turner, rest = queue[0], queue[1:]
            paid[self.active if self.penalty_active else turner] += 1 / n
            if bees_down:
                for seat, q in enumerate(self.paid(rest, bees_down - 1, questions_down)):
                    paid[seat] += q * bees_down / n
            if questions_down:
                named = [s for s in self.living if s != turner]
                for who in named:
                    for seat, q in enumerate(self.paid((who,) + rest, bees_down, questions_down - 1)):
                        paid[seat] += q * questions_down / n / len(named)
        self.memo[key] = result = tuple(paid)
        return result


def worth(state: dict) -> list[float]:
    """`value` of each final class: my expected honey change minus the others' average."""
    me = state["active"]
    cap = VARIANTS[state["variant"]][1]
    mine = next(p for p in state["players"] if p["name"] == me)
    can_gain = mine["honey"] < cap and state["supply"]["yellow"] > 0
    rivals = [p["name"] for p in state["players"] if not p["eliminated"] and p["name"] != me]
    table = pay_chances(state)
    out = []
    for c in FINAL:
        paid = table[(c[3], c[0])]
        gain = 1.0 if can_gain and c[1] >= HONEY_FOR_A_DROP else 0.0
        out.append(gain - paid[me] + sum(paid[r] for r in rivals) / len(rivals))
    return out


def prepare(faces: dict[str, float]) -> None:
    tree(tuple(float(faces[f]) for f in DICE_FACES))


def face_chances(dice: Sequence[Sequence[str]]) -> dict[str, float]:
    """The chance of each face on one die of unknown type: the average over the dice."""
    return {f: sum(d.count(f) / len(d) for d in dice) / len(dice) for f in DICE_FACES}


def has_decision(state: dict | None) -> bool:
    return (bool(state) and state.get("game") == "zombee" and state.get("phase") == "roll"
            and 1 <= state.get("rolls", 0) < MAX_ROLLS and can_roll_again(state["kept"], state["last_roll"]))


def coach(state: dict | None, faces: dict[str, float] | None = None) -> dict | None:
    """The coach for a ZomBee state: every legal choice now with its figures, and the best; None if no choice."""
    if not has_decision(state):
        return None
    chances = faces or face_chances(DEFAULT_DICE)
    p = tuple(float(chances[f]) for f in DICE_FACES)
    t = tree(p)
    kept, last = counts(state["kept"]), counts(state["last_roll"])
    table = t.table(kept, last, state["rolls"], worth(state))
    top = max(row[0] for row in table)
    best = next(i for i, row in enumerate(table) if row[0] >= top - TIE)
    choices = [{"reroll": list(reroll), "p_three_honey": row[1], "own_flips": row[2],
                "others_flips": row[3], "value": row[0]}
               for reroll, row in zip(options(kept, last), table)]
    return {"faces": dict(zip(DICE_FACES, p)), "options": choices, "best": best}
