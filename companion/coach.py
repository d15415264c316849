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
say what may be rolled again. The part that depends only on the faces (which
choice leads where, with what chance) is built once per `faces` and kept; a
state then costs a few small matrix products.
"""

from __future__ import annotations

import functools
import math
from itertools import product
from typing import Iterable

import numpy as np

from .coaching import DEFAULT_DICE, face_chances
from .commands import DICE_FACES
from .zombee import FLOWERS, VARIANTS
from .zombee_dice import DICE, HONEY_FOR_A_DROP, MAX_ROLLS, can_roll_again, reroll_choices, set_aside

TIE = 1e-12  # values closer than this are a tie: the earlier option (stopping first) wins

Counts = tuple[int, int, int, int]  # how many bee, honey, zzz, zombee
Chances = tuple[float, ...]  # the chance of bee, honey, zzz, zombee on one die


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
FIGURES = np.array([[c[1] >= HONEY_FOR_A_DROP, c[3], c[0]] for c in FINAL], dtype=float)


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


class Tree:
    """Where each choice leads for one set of face chances; independent of the game's state.

    A "last decision" is (set aside, latest roll) before roll 3: each option's row
    is the chance of every final class. An earlier decision's option leads, with
    some chance, to a last decision (then its best option) or straight to a final class.
    """

    def __init__(self, p: Chances):
        self.p = p
        self._rolls = {k: roll_chances(k, p) for k in range(DICE + 1)}
        rows, starts, self.last_index = [], [], {}
        for kept_size in range(DICE):
            for kept in multisets(kept_size):
                for last in multisets(DICE - kept_size):
                    if not can_roll_again(faces_of(kept), faces_of(last)):
                        continue
                    self.last_index[(kept, last)] = len(starts)
                    starts.append(len(rows))
                    rows += [self._row(kept, last, r) for r in self.options(kept, last)]
        self.rows = np.array(rows)  # every option of every last decision x final class
        self.row_figures = self.rows @ FIGURES  # these do not depend on the game's state
        self.starts = np.array(starts)
        self.state_of_row = np.repeat(np.arange(len(starts)), np.diff(np.append(self.starts, len(rows))))
        self._early: dict[tuple[Counts, Counts], np.ndarray] = {}
        nothing = (0, 0, 0, 0)
        for first in multisets(DICE):  # every first roll: built now, so no state waits for it later
            if can_roll_again([], faces_of(first)):
                self.early(nothing, first)

    def options(self, kept: Counts, last: Counts) -> list[list[str]]:
        return options(kept, last)

    def aside(self, kept: Counts, last: Counts, reroll: list[str]) -> Counts:
        return counts(set_aside(faces_of(kept), faces_of(last), tuple(reroll)))

    def _row(self, kept: Counts, last: Counts, reroll: list[str]) -> np.ndarray:
        """Chance of each final class when `reroll` is rolled for the last time (or stopping)."""
        row = np.zeros(len(FINAL))
        if not reroll:
            row[FINAL_INDEX[add(kept, last)]] = 1.0
            return row
        aside = self.aside(kept, last, reroll)
        for c, chance in self._rolls[len(reroll)]:
            row[FINAL_INDEX[add(aside, c)]] += chance
        return row

    def early(self, kept: Counts, last: Counts) -> np.ndarray:
        """For a decision with two rolls left: option x (last decisions, then final classes)."""
        key = (kept, last)
        if key not in self._early:
            n = len(self.starts)
            options = self.options(kept, last)
            matrix = np.zeros((len(options), n + len(FINAL)))
            for i, reroll in enumerate(options):
                if not reroll:
                    matrix[i, n + FINAL_INDEX[add(kept, last)]] = 1.0
                    continue
                aside = self.aside(kept, last, reroll)
                for c, chance in self._rolls[len(reroll)]:
                    if can_roll_again(faces_of(aside), faces_of(c)):
                        matrix[i, self.last_index[(aside, c)]] += chance
                    else:
                        matrix[i, n + FINAL_INDEX[add(aside, c)]] += chance
            self._early[key] = matrix
        return self._early[key]

    def figures(self, kept: Counts, last: Counts, rolls: int, worth: np.ndarray) -> np.ndarray:
        """Option x (value, p_three_honey, own_flips, others_flips) for a decision after roll `rolls`."""
        # Matrix-vector products only: a matrix-matrix product may start BLAS threads, whose
        # start-up costs more than the sums themselves on a busy two-core Pi.
        values = self.rows @ worth
        if rolls == MAX_ROLLS - 1:
            start = self.starts[self.last_index[(kept, last)]]
            end = start + len(self.options(kept, last))
            return np.column_stack([values[start:end], self.row_figures[start:end]])
        best = self._best_rows(values)
        early = self.early(kept, last)
        later = np.column_stack([np.append(values[best], worth), np.vstack([self.row_figures[best], FIGURES])])
        return np.column_stack([early @ later[:, k] for k in range(later.shape[1])])

    def _best_rows(self, values: np.ndarray) -> np.ndarray:
        """Per last decision, its first option within TIE of the highest value."""
        top = np.maximum.reduceat(values, self.starts)
        good = values >= top[self.state_of_row] - TIE
        candidates = np.where(good, np.arange(len(values)), len(values))
        return np.minimum.reduceat(candidates, self.starts)


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


def worth(state: dict) -> np.ndarray:
    """`value` of each final class: my expected honey change minus the others' average."""
    me = state["active"]
    cap = VARIANTS[state["variant"]][1]
    mine = next(p for p in state["players"] if p["name"] == me)
    can_gain = mine["honey"] < cap and state["supply"]["yellow"] > 0
    rivals = [p["name"] for p in state["players"] if not p["eliminated"] and p["name"] != me]
    table = pay_chances(state)
    out = np.zeros(len(FINAL))
    for i, c in enumerate(FINAL):
        paid = table[(c[3], c[0])]
        gain = 1.0 if can_gain and c[1] >= HONEY_FOR_A_DROP else 0.0
        out[i] = gain - paid[me] + sum(paid[r] for r in rivals) / len(rivals)
    return out


def prepare(faces: dict[str, float]) -> None:
    tree(tuple(float(faces[f]) for f in DICE_FACES))


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
    table = t.figures(kept, last, state["rolls"], worth(state))
    values = table[:, 0]
    best = int(np.flatnonzero(values >= values.max() - TIE)[0])
    options = [{"reroll": list(reroll), "p_three_honey": float(row[1]), "own_flips": float(row[2]),
                "others_flips": float(row[3]), "value": float(row[0])}
               for reroll, row in zip(t.options(kept, last), table)]
    return {"faces": dict(zip(DICE_FACES, p)), "options": options, "best": best}
