"""ZomBee's dice rules on their own: what may be picked up, what stays aside."""

from __future__ import annotations

import itertools
import random

import pytest

from companion.errors import IllegalCommand
from companion.zombee_dice import (can_roll_again, check_reroll, is_legal_reroll, legal_rerolls, ordered, reroll_choices,
                                   set_aside)


def test_ordered_reads_bee_honey_zzz_zombee():
    assert ordered(["zombee", "zzz", "bee", "honey", "bee"]) == ["bee", "bee", "honey", "zzz", "zombee"]


def test_yellow_picks_come_only_from_the_latest_roll():
    picks = legal_rerolls(kept=["bee", "honey", "zzz"], last_roll=["bee", "zombee"])
    assert picks == {"bee": 1, "honey": 0, "zzz": 0, "zombee": 0}


def test_zombees_are_bounded_by_the_latest_zzz_and_the_zombees_on_the_table():
    assert legal_rerolls([], ["zombee", "zombee", "zombee", "zzz", "zzz"])["zombee"] == 2
    assert legal_rerolls(["zombee"], ["zzz", "zzz", "bee"])["zombee"] == 1  # ZomBee from an earlier roll
    assert legal_rerolls(["zzz", "zzz", "zombee"], ["bee", "bee"])["zombee"] == 0  # the Zzz are old


def test_can_roll_again_only_with_a_yellow_die_in_the_latest_roll():
    assert not can_roll_again(["zzz", "bee", "honey"], ["zombee", "zombee"])
    assert not can_roll_again([], ["zombee"] * 5)
    assert can_roll_again(["zombee"] * 4, ["zzz"])
    assert can_roll_again([], ["honey", "zombee", "zombee", "zombee", "zombee"])


@pytest.mark.parametrize("kept, last, reroll, faces, word", [
    ([], ["bee"] * 5, (), (), "empty"),
    ([], ["bee"] * 5, ("bee", "bee"), ("bee",), "same"),
    (["honey"], ["bee"] * 4, ("honey",), ("bee",), "honey"),
    ([], ["zombee", "zzz", "bee", "bee", "bee"], ("zombee",), ("bee",), "zzz"),
    ([], ["zombee", "zombee", "zzz", "bee", "bee"], ("zombee", "zombee", "zzz"), ("bee",) * 3, "zzz"),
    ([], ["zombee", "zzz", "zzz", "bee", "bee"], ("zombee", "zombee", "zzz", "zzz"), ("bee",) * 4, "zombee"),
])
def test_check_reroll_refusals(kept, last, reroll, faces, word):
    with pytest.raises(IllegalCommand) as info:
        check_reroll(kept, last, reroll, faces)
    assert word in str(info.value)


def test_set_aside_keeps_what_was_not_picked_up():
    kept = ["zombee"]
    last = ["honey", "honey", "honey", "zzz"]
    check_reroll(kept, last, ("zzz", "zombee"), ("bee", "bee"))
    assert set_aside(kept, last, ("zzz", "zombee")) == ["honey", "honey", "honey"]
    assert set_aside([], ["bee", "zzz", "zzz", "zombee", "zombee"], ("zzz", "zombee")) == ["bee", "zzz", "zombee"]


def allowed_by_the_rule(kept, last_roll, reroll) -> bool:
    try:
        check_reroll(list(kept), list(last_roll), tuple(reroll), tuple(reroll))
    except IllegalCommand:
        return False
    return True


@pytest.mark.parametrize("seed", range(12))
def test_the_pick_ups_offered_are_exactly_those_the_rule_allows(seed):
    """Every pick-up of up to five of each face, asked of check_reroll itself: the coach's and the
    phone's choices are all and only the ones it allows, stopping ([]) apart, in table order."""
    rng = random.Random(seed)
    faces = ("bee", "honey", "zzz", "zombee")
    kept = [rng.choice(faces) for _ in range(rng.randint(0, 4))]
    last_roll = [rng.choice(faces) for _ in range(5 - len(kept))]
    allowed = [ordered(r) for r in (
        ["bee"] * b + ["honey"] * h + ["zzz"] * z + ["zombee"] * zb
        for b, h, z, zb in itertools.product(range(6), repeat=4)) if r and allowed_by_the_rule(kept, last_roll, r)]
    choices = reroll_choices(kept, last_roll)
    assert sorted(choices) == sorted(allowed) and [] not in choices
    assert all(is_legal_reroll(kept, last_roll, r) for r in choices)
    assert not is_legal_reroll(kept, last_roll, ["bee"] * 6)
    assert can_roll_again(kept, last_roll) == bool(choices)


def test_some_positions_offer_many_pick_ups():
    choices = reroll_choices(["zombee"], ["bee", "honey", "zzz", "zzz"])
    assert len(choices) >= 5 and choices == sorted(choices, key=lambda r: (len(r), [("bee", "honey", "zzz", "zombee").index(f) for f in r]))
