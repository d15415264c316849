"""The override PIN: a Bearer token compared in constant time, with a lockout.

No cookies and no sessions: a phone sends `Authorization: Bearer <PIN>` with each
override, so a page on another site cannot make a phone send one (no CSRF).
After `max_failures` wrong PINs from one address within `window_s`, that address
gets 429 for `lockout_s`, whatever it sends. Many addresses guessing at once are
throttled too: after `overall_failures` wrong PINs from anywhere within
`overall_window_s`, the table weighs at most one PIN every `slow_s` from an address
that has not shown the right PIN before (429 with Retry-After meanwhile); phones
that already did keep their way in. The clock is injectable for tests.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import OrderedDict, deque
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
                 overall_failures: int = 20, overall_window_s: float = 300.0, slow_s: float = 5.0,
                 clock: Callable[[], float] = time.monotonic, max_addresses: int = 4096):
        self.max_failures = max_failures
        self.window_s = window_s
        self.lockout_s = lockout_s
        self.overall_window_s = overall_window_s
        self.slow_s = slow_s
        self.clock = clock
        self.max_addresses = max_addresses
        self._lock = threading.Lock()
        self._failures: dict[str, deque] = {}
        self._locked_until: dict[str, float] = {}
        self._overall: deque = deque(maxlen=max(1, overall_failures))  # the latest wrong PINs, any address
        self._next_slow_try = float("-inf")
        self._known: OrderedDict[str, None] = OrderedDict()  # addresses that showed the right PIN

    def retry_after(self, address: str) -> float:
        """Seconds this address must still wait; 0 when it may try."""
        now = self.clock()
        with self._lock:
            until = self._locked_until.get(address)
            if until is not None and now >= until:
                del self._locked_until[address]
                self._failures.pop(address, None)
                until = None
            if until is not None:
                return until - now
            if address not in self._known and self._crowded(now) and now < self._next_slow_try:
                return self._next_slow_try - now
            return 0.0

    def _crowded(self, now: float) -> bool:
        """Whether wrong PINs from everywhere filled the overall allowance within its window."""
        full = len(self._overall) == self._overall.maxlen
        return full and now - self._overall[0] <= self.overall_window_s

    def failed(self, address: str) -> None:
        now = self.clock()
        with self._lock:
            self._overall.append(now)
            if self._crowded(now):
                self._next_slow_try = now + self.slow_s  # the whole table's next guess waits
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
            self._known[address] = None
            self._known.move_to_end(address)
            if len(self._known) > self.max_addresses:
                self._known.popitem(last=False)

    def known(self, address: str) -> bool:
        """Whether this address has shown the right PIN (its connections are kept: web.patience)."""
        with self._lock:
            return address in self._known

    def _prune(self, now: float) -> None:
        for addr in [a for a, t in self._failures.items() if not t or now - t[-1] > self.window_s]:
            del self._failures[addr]
        for addr in [a for a, until in self._locked_until.items() if now >= until]:
            del self._locked_until[addr]
        if len(self._failures) >= self.max_addresses:  # still full: forget the oldest half
            for addr in list(self._failures)[: self.max_addresses // 2]:
                del self._failures[addr]
