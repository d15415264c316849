"""The override PIN: a Bearer token compared in constant time, with a lockout.

No cookies and no sessions: a phone sends `Authorization: Bearer <PIN>` with each
override, so a page on another site cannot make a phone send one (no CSRF).
After `max_failures` wrong PINs from one address within `window_s`, that address
gets 429 for `lockout_s`, whatever it sends. The clock is injectable for tests.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import deque
from typing import Callable


def random_pin(digits: int = 6) -> str:
    return f"{secrets.randbelow(10 ** digits):0{digits}d}"


def bearer(header: str | None) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, or None."""
    if not header:
        return None
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def pin_matches(given: str | None, pin: str | None) -> bool:
    if not given or not pin:
        return False
    return hmac.compare_digest(given.encode("utf-8"), pin.encode("utf-8"))


class Limiter:
    """Counts wrong PINs per address; bounded in memory."""

    def __init__(self, *, max_failures: int = 5, window_s: float = 300.0, lockout_s: float = 120.0,
                 clock: Callable[[], float] = time.monotonic, max_addresses: int = 4096):
        self.max_failures = max_failures
        self.window_s = window_s
        self.lockout_s = lockout_s
        self.clock = clock
        self.max_addresses = max_addresses
        self._lock = threading.Lock()
        self._failures: dict[str, deque] = {}
        self._locked_until: dict[str, float] = {}

    def retry_after(self, address: str) -> float:
        """Seconds this address must still wait; 0 when it may try."""
        now = self.clock()
        with self._lock:
            until = self._locked_until.get(address)
            if until is None:
                return 0.0
            if now >= until:
                del self._locked_until[address]
                self._failures.pop(address, None)
                return 0.0
            return until - now

    def failed(self, address: str) -> None:
        now = self.clock()
        with self._lock:
            if len(self._failures) >= self.max_addresses and address not in self._failures:
                self._prune(now)
            times = self._failures.setdefault(address, deque())
            times.append(now)
            while times and now - times[0] > self.window_s:
                times.popleft()
            if len(times) >= self.max_failures:
                self._locked_until[address] = now + self.lockout_s
                times.clear()

    def succeeded(self, address: str) -> None:
        with self._lock:
            self._failures.pop(address, None)

    def _prune(self, now: float) -> None:
        for addr in [a for a, t in self._failures.items() if not t or now - t[-1] > self.window_s]:
            del self._failures[addr]
        for addr in [a for a, until in self._locked_until.items() if now >= until]:
            del self._locked_until[addr]
        if len(self._failures) >= self.max_addresses:  # still full: forget the oldest half
            for addr in list(self._failures)[: self.max_addresses // 2]:
                del self._failures[addr]
