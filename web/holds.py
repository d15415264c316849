"""Demo button holds that never keep a server thread waiting.

`/api/demo/press` with `hold_s` asks the (mock) panel to keep a button down for
that long. The panel's `press(button, hold_s)` waits out the hold itself, so a
press with a hold runs on its own small thread and the request is answered at
once. Each button is held by one press at a time (a second one is refused, as
a finger cannot press a button that is already down), so at most one thread per
button ever waits.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Callable

from companion.errors import CompanionError

log = logging.getLogger(__name__)
MAX_HOLD_S = 2.0  # the panel's longest hold (Undo) is 1 s


class ButtonHeld(CompanionError, ValueError):
    """A hold asked for a button that is still held down by the last press."""


class Holds:
    def __init__(self, press: Callable[[str, float], Any]):
        self.press = press
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._held: set[str] = set()

    def __call__(self, button: str, hold_s: float) -> None:
        if hold_s <= 0:
            self.press(button, 0.0)  # a tap: over in the panel's debounce time
            return
        with self._lock:
            if button in self._held:
                raise ButtonHeld(f"{button} is still held down by the last press; let it go first")
            self._held.add(button)
        threading.Thread(target=self._hold, args=(button, hold_s), name=f"demo-hold-{button}", daemon=True).start()

    def _hold(self, button: str, hold_s: float) -> None:
        try:
            self.press(button, hold_s)
        except Exception:  # the request was answered already: the log is where this can go
            log.exception("demo press of %s failed", button)
        finally:
            with self._idle:
                self._held.discard(button)
                self._idle.notify_all()

    def held(self) -> set[str]:
        with self._lock:
            return set(self._held)

    def wait_idle(self, timeout: float = 5.0) -> bool:
        """Wait until no button is held (for tests and shutdown)."""
        with self._idle:
            return self._idle.wait_for(lambda: not self._held, timeout)
