"""The PIN check and the wrong-PIN limiter on their own (web/auth.py), with the clock in the test's hand."""

from __future__ import annotations

import pytest

from web.auth import Limiter, bearer, random_pin


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def limiter(clock, **kw):
    settings = {"max_failures": 5, "window_s": 300.0, "lockout_s": 120.0, "overall_failures": 1000,
                "overall_window_s": 300.0, "slow_s": 5.0, **kw}
    return Limiter(clock=clock, **settings)


def fail(lim, address, times):
    for _ in range(times):
        lim.failed(address)


# --- the PIN itself -------------------------------------------------------------------------------


def test_a_new_pin_has_the_digits_asked_for_and_spans_them_all():
    pins = [random_pin() for _ in range(400)]
    assert all(len(p) == 6 and p.isdigit() for p in pins)
    assert len(random_pin(8)) == 8 and random_pin(8).isdigit()
    assert len(set(pins)) > 390  # a million choices: repeats are rare
    assert max(int(p) for p in pins) > 500_000 and min(int(p) for p in pins) < 500_000


@pytest.mark.parametrize("header, token", [
    ("Bearer 246813", "246813"), ("bearer 246813", "246813"), ("BEARER  246813 ", "246813"),
    ("  Bearer 246813", "246813"), (None, None), ("", None), ("Bearer", None), ("Bearer   ", None),
    ("Basic 246813", None), ("246813", None), ("Bearer246813", None),
])
def test_the_token_is_taken_only_from_a_bearer_header(header, token):
    assert bearer(header) == token


# --- one address ---------------------------------------------------------------------------------


def test_the_fifth_wrong_pin_locks_the_address_for_exactly_the_lockout():
    clock = Clock()
    lim = limiter(clock)
    fail(lim, "a", 4)
    assert lim.retry_after("a") == 0
    fail(lim, "a", 1)
    assert lim.retry_after("a") == 120
    clock.now += 119
    assert lim.retry_after("a") == 1 and lim.retry_after("b") == 0  # others are not held up
    clock.now += 1
    assert lim.retry_after("a") == 0  # the lockout is over at its last second
    fail(lim, "a", 4)  # and the wrong PINs before it are forgotten: five more to lock again
    assert lim.retry_after("a") == 0
    fail(lim, "a", 1)
    assert lim.retry_after("a") == 120


@pytest.mark.parametrize("later, locked", [(300.0, True), (300.5, False)])
def test_wrong_pins_older_than_the_window_no_longer_count(later, locked):
    clock = Clock()
    lim = limiter(clock)
    fail(lim, "a", 4)
    clock.now += later
    fail(lim, "a", 1)
    assert (lim.retry_after("a") > 0) is locked


def test_the_right_pin_forgets_the_wrong_ones_before_it():
    clock = Clock()
    lim = limiter(clock)
    fail(lim, "a", 4)
    lim.succeeded("a")
    fail(lim, "a", 4)
    assert lim.retry_after("a") == 0
    fail(lim, "a", 1)
    assert lim.retry_after("a") == 120


# --- the whole table ------------------------------------------------------------------------------


def test_wrong_pins_from_everywhere_slow_newcomers_not_known_phones():
    clock = Clock()
    lim = limiter(clock, overall_failures=3, overall_window_s=60.0)
    lim.succeeded("known")
    fail(lim, "x", 1)
    fail(lim, "y", 1)
    assert lim.retry_after("new") == 0  # two wrong PINs: not yet a crowd
    fail(lim, "z", 1)
    assert lim.retry_after("new") == 5 and lim.retry_after("known") == 0
    clock.now += 4
    assert lim.retry_after("new") == 1
    clock.now += 1
    assert lim.retry_after("new") == 0  # one more PIN may be weighed now


@pytest.mark.parametrize("later, slowed", [(60.0, True), (60.5, False)])
def test_the_crowd_is_counted_within_its_window_only(later, slowed):
    clock = Clock()
    lim = limiter(clock, overall_failures=3, overall_window_s=60.0)
    fail(lim, "x", 1)
    clock.now += 30
    fail(lim, "y", 1)
    clock.now += later - 30
    fail(lim, "z", 1)  # the third wrong PIN, `later` seconds after the first (not the second)
    assert (lim.retry_after("new") > 0) is slowed


# --- memory ---------------------------------------------------------------------------------------


def test_a_full_table_of_addresses_forgets_the_oldest_half_when_none_is_quiet():
    clock = Clock()
    lim = limiter(clock, max_addresses=4, window_s=10.0)
    for address in ("a", "b", "c", "d"):
        fail(lim, address, 4)
    clock.now += 1
    fail(lim, "e", 1)  # none is quiet yet: the oldest half (a, b) is forgotten
    assert list(lim._failures) == ["c", "d", "e"]
    fail(lim, "c", 1)
    assert lim.retry_after("c") == 120  # the others keep their count
    fail(lim, "a", 1)
    assert lim.retry_after("a") == 0


@pytest.mark.parametrize("quiet_for, kept", [(10.0, ["c", "d", "e"]), (10.5, ["a", "b", "e"])])
def test_a_full_table_forgets_the_addresses_quiet_for_longer_than_the_window_before_any_other(quiet_for, kept):
    clock = Clock()
    lim = limiter(clock, max_addresses=4, window_s=10.0)
    for address in ("a", "b", "c", "d"):
        fail(lim, address, 1)
    clock.now += 5
    fail(lim, "a", 3)  # a and b, first seen, are busy again; c and d stay quiet
    fail(lim, "b", 3)
    clock.now += quiet_for - 5
    fail(lim, "e", 1)
    # quiet past the window: c and d go; otherwise none is quiet and the oldest half (a, b) goes
    assert list(lim._failures) == kept


def test_the_documented_policy_is_the_default():
    clock = Clock()
    lim = Limiter(clock=clock)
    assert (lim.max_failures, lim.window_s, lim.lockout_s, lim._overall.maxlen, lim.overall_window_s,
            lim.slow_s, lim.max_addresses) == (5, 300.0, 120.0, 20, 300.0, 5.0, 4096)


def test_expired_lockouts_are_dropped_when_the_table_is_full():
    clock = Clock()
    lim = limiter(clock, max_addresses=2, window_s=10.0, lockout_s=5.0)
    fail(lim, "a", 5)  # locked until +5
    fail(lim, "b", 1)
    clock.now += 20
    fail(lim, "c", 1)
    assert "a" not in lim._locked_until and set(lim._failures) == {"c"}


def test_phones_that_showed_the_pin_are_remembered_up_to_the_bound_most_recent_kept():
    clock = Clock()
    lim = limiter(clock, overall_failures=1, max_addresses=2)
    for address in ("a", "b", "a", "c"):  # b is the least recently seen: forgotten
        lim.succeeded(address)
    fail(lim, "x", 1)  # a crowd of one: newcomers wait
    assert [lim.retry_after(a) > 0 for a in ("a", "b", "c")] == [False, True, False]
