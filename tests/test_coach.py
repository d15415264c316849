"""The coach's option list, figures and best choice, checked against the engine and brute force."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

import pytest

from companion.coach import TIE, coach, pay_chances, worth
from companion.coaching import DEFAULT_DICE, face_chances
from companion.engine import Engine
from companion.errors import IllegalCommand
from companion.zombee_dice import MAX_ROLLS, can_roll_again, reroll_choices, set_aside

FACES = ("bee", "honey", "zzz", "zombee")
P = face_chances(DEFAULT_DICE)


def position(first, reroll=None, second=None, players=("Tom", "Mia", "Ann"), rules=None, before=()):
    """An engine after a first roll (and, if given, a second roll picking up `reroll`)."""
    new = {"cmd": "new_game", "game": "zombee", "players": list(players)}
    if rules:
        new["rules"] = rules
    e = Engine(new)
    for cmd in before:
        e.apply(cmd)
    e.apply({"cmd": "roll", "faces": list(first)})
    if reroll is not None:
        e.apply({"cmd": "roll", "reroll": list(reroll), "faces": list(second)})
    return e


def engine_accepts(e: Engine, reroll) -> bool:
    try:
        Engine.apply(_copy(e), {"cmd": "roll", "reroll": list(reroll), "faces": list(reroll)})
    except IllegalCommand:
        return False
    return True


def _copy(e: Engine) -> Engine:
    from companion.engine import snapshot

    return snapshot(e)


def sub_multisets(faces):
    out = set()
    for n in range(1, len(faces) + 1):
        for combo in itertools.combinations(sorted(faces), n):
            out.add(tuple(sorted(combo, key=FACES.index)))
    return out


# --- brute force: every ordered outcome of every die, no shortcuts ---------------------------------


def brute(state, kept, last, rolls, final_worth, p=P):
    """{option: (value, p_three_honey, own_flips, others_flips)} by enumerating ordered die outcomes."""
    out = {}
    for reroll in [[]] + reroll_choices(kept, last):
        if not reroll:
            out[()] = final(kept + last, final_worth)
            continue
        aside = set_aside(kept, last, tuple(reroll))
        total = [0.0] * 4
        for faces in itertools.product(FACES, repeat=len(reroll)):
            chance = math.prod(p[f] for f in faces)
            if rolls + 1 == MAX_ROLLS or not can_roll_again(aside, list(faces)):
                figures = final(aside + list(faces), final_worth)
            else:
                later = brute(state, aside, list(faces), rolls + 1, final_worth, p)
                top = max(v[0] for v in later.values())
                figures = next(v for v in later.values() if v[0] >= top - TIE)
            total = [t + chance * f for t, f in zip(total, figures)]
        out[tuple(reroll)] = tuple(total)
    return out


def final(dice, final_worth):
    c = Counter(dice)
    return (final_worth(c), float(c["honey"] >= 3), float(c["zombee"]), float(c["bee"]))


def worth_by_counts(state):
    from companion.coach import FINAL_INDEX

    table = worth(state)
    return lambda c: table[FINAL_INDEX[(c["bee"], c["honey"], c["zzz"], c["zombee"])]]


def as_dict(c):
    return {tuple(o["reroll"]): (o["value"], o["p_three_honey"], o["own_flips"], o["others_flips"]) for o in c["options"]}


# --- the option list ---------------------------------------------------------------------------------


@pytest.mark.parametrize("first, reroll, second", [
    (["bee", "bee", "honey", "zzz", "zombee"], None, None),
    (["zombee", "zombee", "zombee", "zzz", "zzz"], None, None),
    (["zombee", "zombee", "zombee", "zzz", "zzz"], ["zzz", "zzz", "zombee", "zombee"], ["honey", "honey", "zzz", "zzz"]),
    (["zombee", "zombee", "bee", "zzz", "honey"], ["bee", "zzz", "honey"], ["zzz", "zzz", "zombee"]),
    (["honey", "honey", "honey", "bee", "zombee"], None, None),
])
def test_options_are_exactly_what_the_engine_accepts(first, reroll, second):
    e = position(first, reroll, second)
    c = coach(e.state())
    listed = [tuple(o["reroll"]) for o in c["options"]]
    assert listed[0] == ()
    assert len(listed) == len(set(listed)), "an option is listed twice"
    everything = sub_multisets(e.game.kept + e.game.last_roll)
    assert set(listed[1:]) == {r for r in everything if engine_accepts(e, r)}


def test_no_coach_without_a_reroll_decision():
    e = Engine({"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia"]})
    assert coach(e.state()) is None  # before the first roll
    e.apply({"cmd": "roll", "faces": ["bee"] * 5})
    e.apply({"cmd": "stop"})
    assert e.state()["phase"] == "flip" and coach(e.state()) is None
    e = position(["zombee"] * 5)  # all ZomBees: scored at once
    assert coach(e.state()) is None
    e = position(["bee", "bee", "honey", "zzz", "zombee"], ["bee"], ["bee"])
    e.apply({"cmd": "roll", "reroll": ["bee"], "faces": ["honey"]})  # the third roll ends the rolling
    assert coach(e.state()) is None


# --- figures against brute force ----------------------------------------------------------------------


@pytest.mark.parametrize("first, reroll, second", [
    (["bee", "bee", "honey", "zzz", "zombee"], ["bee", "zzz"], ["zzz", "honey"]),
    (["zombee", "zombee", "zombee", "zzz", "zzz"], ["zzz", "zzz", "zombee", "zombee"], ["honey", "honey", "zzz", "zzz"]),
    (["zombee", "zombee", "zombee", "zombee", "bee"], None, None),
    (["honey", "honey", "zzz", "zombee", "zombee"], None, None),
])
def test_figures_equal_brute_force(first, reroll, second):
    e = position(first, reroll, second)
    s = e.state()
    got = as_dict(coach(s))
    want = brute(s, s["kept"], s["last_roll"], s["rolls"], worth_by_counts(s))
    assert got.keys() == want.keys()
    for key in want:
        assert got[key] == pytest.approx(want[key], abs=1e-12), key


def test_one_flip_by_hand_with_two_players():
    # Tom flips once with 14 flowers face down (11 bees, 2 question marks, 1 ZomBee). A question
    # mark makes Tom name Mia (his only choice other than himself); Mia's question mark names Tom.
    s = position(["zombee", "zzz", "zzz", "zzz", "zzz"], players=("Tom", "Mia")).state()
    paid = pay_chances(s)[(1, 0)]
    tom = Fraction(1, 14) + Fraction(2, 14) * Fraction(1, 13) * Fraction(1, 12)
    mia = Fraction(2, 14) * Fraction(1, 13)
    assert paid["Tom"] == pytest.approx(float(tom), abs=1e-15)
    assert paid["Mia"] == pytest.approx(float(mia), abs=1e-15)
    stop = coach(s)["options"][0]
    assert stop["reroll"] == [] and stop["value"] == pytest.approx(float(-tom + mia), abs=1e-15)


def test_the_active_player_pays_for_every_zombee_with_that_house_rule():
    s = position(["bee", "zzz", "zzz", "zzz", "zzz"], players=("Tom", "Mia"), rules={"zombee_penalty": "active"}).state()
    paid = pay_chances(s)[(0, 1)]
    assert paid["Mia"] == 0.0
    assert paid["Tom"] == pytest.approx(1 / 14 + 2 / 14 * (1 / 13 + 1 / 13 * 1 / 12), abs=1e-15)


def test_honey_at_the_cap_is_worth_nothing():
    three_honey = ["honey", "honey", "honey", "zzz", "zzz"]
    below = coach(position(three_honey).state())["options"][0]
    assert below["p_three_honey"] == 1.0 and below["value"] == pytest.approx(1.0)
    # Tom takes a drop first (3 = the cap), then rolls three honey again in a later turn.
    turn = [{"cmd": "roll", "faces": three_honey}, {"cmd": "stop"}]
    others = [{"cmd": "roll", "faces": ["zzz"] * 5}, {"cmd": "stop"}] * 2
    s = position(three_honey, before=turn + others).state()
    assert s["players"][0]["honey"] == 3
    capped = coach(s)["options"][0]
    assert capped["p_three_honey"] == 1.0 and capped["value"] == pytest.approx(0.0)


def test_best_is_the_highest_value_and_stopping_wins_a_sure_drop():
    c = coach(position(["honey", "honey", "honey", "zzz", "zzz"]).state())
    assert c["best"] == 0
    c = coach(position(["bee", "bee", "honey", "zzz", "zombee"]).state())
    values = [o["value"] for o in c["options"]]
    assert values[c["best"]] == max(values)
    assert c["options"][c["best"]]["reroll"] == ["bee", "bee", "zzz", "zombee"]


def test_json_shape_and_plain_floats():
    c = coach(position(["bee", "bee", "honey", "zzz", "zombee"], ["bee", "zzz"], ["zzz", "honey"]).state())
    assert list(c) == ["faces", "options", "best"]
    assert c["faces"] == pytest.approx({"bee": 1 / 3, "honey": 1 / 6, "zzz": 1 / 6, "zombee": 1 / 3})
    for o in c["options"]:
        assert list(o) == ["reroll", "p_three_honey", "own_flips", "others_flips", "value"]
        assert all(type(o[k]) is float for k in list(o)[1:])
        assert o["reroll"] == sorted(o["reroll"], key=FACES.index)


def test_a_mix_of_dice_is_used_as_the_average_die():
    mix = [("bee", "bee", "honey", "zzz", "zzz", "zombee")] * 2 + [("bee", "bee", "honey", "zzz", "zombee", "zombee")] * 3
    faces = face_chances(mix)
    assert faces == pytest.approx({"bee": 1 / 3, "honey": 1 / 6, "zzz": 7 / 30, "zombee": 4 / 15})
    s = position(["bee", "bee", "honey", "zzz", "zombee"], ["bee", "zzz"], ["zzz", "honey"]).state()
    got = as_dict(coach(s, faces))
    want = brute(s, s["kept"], s["last_roll"], s["rolls"], worth_by_counts(s), faces)
    for key in want:
        assert got[key] == pytest.approx(want[key], abs=1e-12)
