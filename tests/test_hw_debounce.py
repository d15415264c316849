"""The debouncer on its own: raw edges and an injected clock, no pins, no sleeping."""

from __future__ import annotations

import pytest

from hw.debounce import Debouncer
from support.hw import FakeClock

MS = 0.001


def feed(deb: Debouncer, clock: FakeClock, pattern):
    """Feed (milliseconds since the previous edge, level) pairs; return what counted."""
    out = []
    for gap_ms, pressed in pattern:
        clock.advance(gap_ms * MS)
        if pressed:
            out.append("press" if deb.press_edge() else None)
        else:
            out.append("hold" if deb.release_edge() else None)
    return [x for x in out if x]


def bouncy_press(gap=1):
    """A press that bounces four times before it settles pressed."""
    return [(0, True), (gap, False), (gap, True), (gap, False), (gap, True)]


def bouncy_release(gap=1):
    return [(0, False), (gap, True), (gap, False), (gap, True), (gap, False)]


@pytest.fixture
def clock():
    return FakeClock()


def test_a_bouncing_press_counts_once(clock):
    deb = Debouncer(clock=clock)
    assert feed(deb, clock, [(100, True)] + bouncy_press()[1:]) == ["press"]
    assert deb.is_pressed


def test_a_bouncing_release_gives_no_second_press(clock):
    deb = Debouncer(clock=clock)
    got = feed(deb, clock, [(100, True), (200, False), (1, True), (2, False), (1, True), (3, False)])
    assert got == ["press"]
    clock.advance(0.05)
    assert not deb.is_pressed


def test_bounce_during_a_long_press_and_release_is_one_press(clock):
    deb = Debouncer(clock=clock)
    pattern = [(100, True), (2, False), (2, True), (400, False), (2, True), (2, False)]
    assert feed(deb, clock, pattern) == ["press"]


def test_deliberate_repeats_count_each_time(clock):
    deb = Debouncer(clock=clock)
    # press 50 ms, released 40 ms (> 30 ms settle), five times: five presses
    pattern = [(40, True), (50, False)] * 5
    assert feed(deb, clock, pattern) == ["press"] * 5


def test_a_press_too_soon_after_a_release_is_a_bounce(clock):
    deb = Debouncer(clock=clock)
    assert feed(deb, clock, [(100, True), (50, False), (20, True), (50, False)]) == ["press"]
    # once the line has been quiet for the settle time, the next press counts
    assert feed(deb, clock, [(31, True), (50, False)]) == ["press"]


def test_settle_time_is_a_setting(clock):
    deb = Debouncer(settle=0.005, clock=clock)
    assert feed(deb, clock, [(100, True), (10, False), (10, True), (10, False)]) == ["press", "press"]
    with pytest.raises(ValueError):
        Debouncer(settle=-1)


def test_hold_reports_once_after_hold_time(clock):
    deb = Debouncer(hold_time=1.0, clock=clock)
    assert feed(deb, clock, [(100, True)]) == ["press"]
    clock.advance(0.5)
    assert not deb.poll_hold()
    clock.advance(0.6)
    assert deb.poll_hold()
    clock.advance(1.0)
    assert not deb.poll_hold()  # once per press, not a repeat
    assert feed(deb, clock, [(0, False)]) == []  # already reported; the release adds nothing


def test_hold_is_recognised_on_release_when_no_timer_polled(clock):
    deb = Debouncer(hold_time=1.0, clock=clock)
    assert feed(deb, clock, [(100, True), (1200, False)]) == ["press", "hold"]


def test_short_press_is_not_a_hold(clock):
    deb = Debouncer(hold_time=1.0, clock=clock)
    assert feed(deb, clock, [(100, True), (300, False)]) == ["press"]
    clock.advance(2.0)
    assert not deb.poll_hold()


def test_bounces_at_the_start_of_a_hold_do_not_restart_or_repeat_it(clock):
    deb = Debouncer(hold_time=1.0, clock=clock)
    got = feed(deb, clock, [(100, True), (2, False), (2, True), (2, False), (2, True)])
    assert got == ["press"]
    clock.advance(0.993)  # 1.001 s after the first edge
    assert deb.poll_hold()
    assert feed(deb, clock, [(10, False), (2, True), (2, False)]) == []


def test_released_button_has_no_hold_and_no_duration(clock):
    deb = Debouncer(hold_time=1.0, clock=clock)
    assert deb.held_for() is None and not deb.poll_hold()
    feed(deb, clock, [(100, True)])
    clock.advance(0.25)
    assert deb.held_for() == pytest.approx(0.25)


def test_quiet_needed_tells_how_long_until_a_press_counts(clock):
    deb = Debouncer(clock=clock)
    assert deb.quiet_needed() == 0
    feed(deb, clock, [(100, True), (50, False)])
    clock.advance(0.010)
    assert deb.quiet_needed() == pytest.approx(0.020)
    clock.advance(0.030)
    assert deb.quiet_needed() == 0
