"""Helpers for the panel tests: a clock that only moves when told, and a mock pin factory (not installed)."""

from __future__ import annotations

import threading

from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin


class FakeClock:
    """A monotonic clock for debounce and hold tests: `advance(seconds)` moves it."""

    def __init__(self, start: float = 1000.0):
        self._now = start
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> float:
        if seconds < 0:
            raise ValueError("a monotonic clock never goes back")
        with self._lock:
            self._now += seconds
            return self._now


def install_mock_factory() -> MockFactory:
    """Make a PWM-capable MockFactory gpiozero's default and return it; call
    `factory.reset()` (or `release_mock_factory`) afterwards so no pin stays reserved."""
    factory = MockFactory(pin_class=MockPWMPin)
    Device.pin_factory = factory
    return factory


def release_mock_factory(factory: MockFactory) -> None:
    factory.reset()
    if Device.pin_factory is factory:
        Device.pin_factory = None
