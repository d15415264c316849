"""Debouncing a button from its raw edges, with an injected clock.

A mechanical contact bounces: one press shows as a burst of pressed/released
edges over a few milliseconds. `Debouncer` turns the burst back into one press:

- a pressed edge counts as a press only if the previous press has been released
  and the line had then been quiet (released, no edges) for `settle` seconds;
- a release counts only once the line has stayed released for `settle` seconds,
  so a bounce inside a press or a hold does not end it;
- deliberate repeats (press, release for more than `settle`, press) count each time;
- a hold reports once per press, when the press has lasted `hold_time`.

Presses are counted on their leading edge, so a button answers at once. The
class never reads a pin and never sleeps: the panel feeds it edges from
gpiozero callbacks and tests feed it edges and times directly.
"""

from __future__ import annotations

import time
from typing import Callable

DEFAULT_SETTLE = 0.030
HOLD_SLACK = 0.005  # gpiozero's hold timer and our clock may disagree by a hair


class Debouncer:
    def __init__(self, settle: float = DEFAULT_SETTLE, hold_time: float | None = None,
                 clock: Callable[[], float] = time.monotonic):
        if settle < 0:
            raise ValueError(f"settle must be 0 or more seconds, got {settle!r}")
        if hold_time is not None and hold_time <= 0:
            raise ValueError(f"hold_time must be more than 0 seconds, got {hold_time!r}")
        self.settle = settle
        self.hold_time = hold_time
        self.clock = clock
        self._raw = False  # the line as last reported: True = pressed
        self._last_edge: float | None = None  # time of the last raw edge
        self._down = False  # a counted press that has not been released yet
        self._pressed_at: float | None = None
        self._hold_done = False

    # --- feeding edges ---------------------------------------------------------

    def _settle_past(self, now: float) -> None:
        """Confirm a release once the line has stayed released for `settle`."""
        if self._down and not self._raw and self._quiet_for(now) >= self.settle:
            self._down = False

    def _quiet_for(self, now: float) -> float:
        return float("inf") if self._last_edge is None else now - self._last_edge

    def press_edge(self) -> bool:
        """The line went to pressed. True when this is a new press to act on."""
        now = self.clock()
        self._settle_past(now)
        new = not self._down and not self._raw and self._quiet_for(now) >= self.settle
        if not self._down and self._raw and self._quiet_for(now) >= self.settle:
            new = True  # a missed release edge; the line has been quiet long enough
        self._raw, self._last_edge = True, now
        if new:
            self._down, self._pressed_at, self._hold_done = True, now, False
        return new

    def release_edge(self) -> bool:
        """The line went to released. True when this release ends a press that has
        just reached `hold_time` and has not reported its hold yet (a hold is also
        recognised on release, for clocks that do not run in real time)."""
        now = self.clock()
        self._settle_past(now)
        held = self._hold_due(now)
        self._raw, self._last_edge = False, now
        if held:
            self._hold_done = True
        return held

    def poll_hold(self) -> bool:
        """Called by a hold timer while the line is pressed. True once per press, when
        it has lasted `hold_time`."""
        now = self.clock()
        if not self._raw:
            return False
        if self._hold_due(now + HOLD_SLACK):
            self._hold_done = True
            return True
        return False

    def _hold_due(self, now: float) -> bool:
        return (self.hold_time is not None and self._down and not self._hold_done
                and now - self._pressed_at >= self.hold_time)

    # --- reading -------------------------------------------------------------------

    @property
    def is_pressed(self) -> bool:
        """The debounced state: a counted press not yet confirmed released."""
        self._settle_past(self.clock())
        return self._down

    def quiet_needed(self) -> float:
        """Seconds the line must stay quiet before a press edge would count (0 when ready)."""
        if self._raw:
            return self.settle  # still pressed: it has to be let go first
        return max(0.0, self.settle - self._quiet_for(self.clock()))

    def held_for(self) -> float | None:
        """How long the current press has lasted, or None when not pressed."""
        if not self.is_pressed:
            return None
        return self.clock() - self._pressed_at
