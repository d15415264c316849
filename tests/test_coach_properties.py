"""Properties of the coach over random positions: one roll left is a plain enumeration; dice order is irrelevant."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_coach import as_dict, brute, position, worth_by_counts

from companion.coach import coach
from companion.zombee_dice import can_roll_again, reroll_choices

FACES = ("bee", "honey", "zzz", "zombee")
roll5 = st.lists(st.sampled_from(FACES), min_size=5, max_size=5)


@st.composite
def last_roll_positions(draw):
    """A position with one roll left: a first roll, then a legal second roll."""
    first = draw(roll5.filter(lambda r: can_roll_again([], r)))
    reroll = draw(st.sampled_from(reroll_choices([], first)))
    second = draw(st.lists(st.sampled_from(FACES), min_size=len(reroll), max_size=len(reroll)))
    players = draw(st.sampled_from([("Tom", "Mia"), ("Tom", "Mia", "Ann"), ("Tom", "Mia", "Ann", "Ben", "Eva")]))
    rules = draw(st.sampled_from([None, {"zombee_penalty": "active"}]))
    return position(first, reroll, second, players=players, rules=rules)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(last_roll_positions())
def test_with_one_roll_left_every_figure_is_a_one_roll_enumeration(e):
    s = e.state()
    if s["phase"] != "roll":
        return  # the second roll was all ZomBees: scored at once, no decision
    got = as_dict(coach(s))
    want = brute(s, s["kept"], s["last_roll"], s["rolls"], worth_by_counts(s))
    assert got.keys() == want.keys()
    for key in want:
        assert got[key] == pytest.approx(want[key], abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(roll5.filter(lambda r: can_roll_again([], r)), st.randoms(use_true_random=False))
def test_the_order_of_the_dice_does_not_matter(first, rng):
    s = position(first).state()
    shuffled = list(s["last_roll"])
    rng.shuffle(shuffled)
    assert coach({**s, "last_roll": shuffled}) == coach(s)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(last_roll_positions(), st.randoms(use_true_random=False))
def test_the_order_of_dice_set_aside_does_not_matter_either(e, rng):
    s = e.state()
    kept, last = list(s["kept"]), list(s["last_roll"])
    rng.shuffle(kept)
    rng.shuffle(last)
    assert coach({**s, "kept": kept, "last_roll": last}) == coach(s)
