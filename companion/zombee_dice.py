"""ZomBee's dice rules: what may be picked up again, and what a finished roll is worth.

Kept apart from the turn flow so the camera and panel can ask the same yes/no
questions (`is_legal_reroll`) before they send a command.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable

from .commands import DICE_FACES, quote
from .errors import IllegalCommand

DICE = 5
MAX_ROLLS = 3
YELLOW = ("bee", "honey", "zzz")
HONEY_FOR_A_DROP = 3


def ordered(faces: Iterable[str]) -> list[str]:
    """Faces in the order the table reads them: bee, honey, zzz, zombee."""
    return sorted(faces, key=DICE_FACES.index)


def legal_rerolls(kept: Iterable[str], last_roll: Iterable[str]) -> dict[str, int]:
    """How many dice of each face may be picked up for the next roll.

    Yellow faces come only from the latest roll (what was set aside earlier stays
    aside). A ZomBee may come from any earlier roll but only rides along with a
    Zzz of the latest roll, one Zzz per ZomBee: the zombee count here is that bound.
    """
    last = Counter(last_roll)
    zombees_on_table = last["zombee"] + Counter(kept)["zombee"]
    picks = {face: last[face] for face in YELLOW}
    picks["zombee"] = min(zombees_on_table, last["zzz"])
    return picks


def can_roll_again(kept: Iterable[str], last_roll: Iterable[str]) -> bool:
    """False when every die of the latest roll is a ZomBee: nothing may be picked up."""
    return any(legal_rerolls(kept, last_roll)[face] for face in YELLOW)


def is_legal_reroll(kept: Iterable[str], last_roll: Iterable[str], reroll: Iterable[str]) -> bool:
    """May these faces be picked up for the next roll? (The same test `check_reroll` refuses with.)"""
    try:
        check_reroll(list(kept), list(last_roll), tuple(reroll), tuple(reroll))
    except IllegalCommand:
        return False
    return True


def reroll_choices(kept: Iterable[str], last_roll: Iterable[str]) -> list[list[str]]:
    """Every distinct legal pick-up for the next roll, as faces in table order; stopping ([]) not included.

    The bounds of `legal_rerolls` only narrow the search: each candidate is
    kept or dropped by `is_legal_reroll`, so the rule stays in `check_reroll`.
    """
    kept, last_roll = list(kept), list(last_roll)
    picks = legal_rerolls(kept, last_roll)
    out = []
    for bee in range(picks["bee"] + 1):
        for honey in range(picks["honey"] + 1):
            for zzz in range(picks["zzz"] + 1):
                for zombee in range(picks["zombee"] + 1):
                    reroll = ["bee"] * bee + ["honey"] * honey + ["zzz"] * zzz + ["zombee"] * zombee
                    if reroll and is_legal_reroll(kept, last_roll, reroll):
                        out.append(ordered(reroll))
    return sorted(out, key=lambda r: (len(r), [DICE_FACES.index(f) for f in r]))


def describe_picks(picks: dict[str, int]) -> str:
    parts = [f"{n} {face}" for face, n in picks.items() if n and face != "zombee"]
    if picks["zombee"]:
        parts.append(f"{picks['zombee']} zombee (each with a zzz)")
    return "up to " + ", ".join(parts) if parts else "nothing"


def check_reroll(kept: list[str], last_roll: list[str], reroll: tuple[str, ...], faces: tuple[str, ...]) -> None:
    """Refuse a later roll that picks up dice the rules keep aside."""
    picks = legal_rerolls(kept, last_roll)
    allowed = describe_picks(picks)
    if not reroll:
        raise IllegalCommand(f"'reroll' is empty; name the dice picked up again ({allowed}), or stop instead")
    if len(faces) != len(reroll):
        raise IllegalCommand(
            f"'reroll' {quote(list(reroll))} picks up {len(reroll)} dice but 'faces' {quote(list(faces))} shows "
            f"{len(faces)}; they must be the same dice"
        )
    wanted = Counter(reroll)
    for face in YELLOW:
        if wanted[face] > picks[face]:
            have = Counter(last_roll)[face]
            raise IllegalCommand(
                f"reroll {quote(list(reroll))} picks up {wanted[face]} {face} but the latest roll shows {have}; "
                f"a {face} set aside earlier stays aside. You may pick up {allowed}"
            )
    zombees, zzz = wanted["zombee"], wanted["zzz"]
    on_table = Counter(last_roll)["zombee"] + Counter(kept)["zombee"]
    if zombees > on_table:
        raise IllegalCommand(f"reroll {quote(list(reroll))} picks up {zombees} zombee but only {on_table} {'is' if on_table == 1 else 'are'} on the table. "
                             f"You may pick up {allowed}")
    if zombees > zzz:
        raise IllegalCommand(
            f"reroll {quote(list(reroll))} picks up {zombees} zombee with {zzz} zzz: a ZomBee is rolled again only "
            f"together with a Zzz of the latest roll, one Zzz each. You may pick up {allowed}"
        )


def set_aside(kept: list[str], last_roll: list[str], reroll: tuple[str, ...]) -> list[str]:
    """The dice left aside after picking up `reroll` (which check_reroll accepted)."""
    aside = Counter(kept) + Counter(last_roll)
    aside.subtract(Counter(reroll))
    return ordered(aside.elements())
