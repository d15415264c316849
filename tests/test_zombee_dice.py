"""ZomBee's dice rules on their own: what may be picked up, what stays aside."""

from __future__ import annotations

import pytest

from companion.errors import IllegalCommand
from companion.zombee_dice import can_roll_again, check_reroll, legal_rerolls, ordered, set_aside


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
