"""Fair shares of the event streams: a per-address cap, and slots of vanished phones freed fast.

Each open stream holds a waitress thread, so one device opening many would leave
none for the other phones. `StreamShares.admit` caps streams per address
(loopback, the machine itself, is not capped by default). A phone that walks out
of Wi-Fi range never says goodbye: waitress notices the closed socket
(`waitress.client_disconnected`, thanks to `channel_request_lookahead=1`), and one
watcher thread checks every open stream at `poll_s` and ends the ones whose phone
is gone, so their thread and slot come back within about `poll_s`, not a heartbeat
or two later. A phone that is still there but stopped reading fills its queue and
its stream ends (`Stream.fell_behind`), but the stream's thread waits in waitress
for room in the phone's output buffer; the watcher hangs up that connection too,
so the thread, the buffer and the slot come back.
"""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any, Callable, Iterable

MAX_STREAMS_PER_ADDRESS = 4
POLL_S = 0.5


class PerAddress:
    """How many of something (streams, connections) each address holds open, shared by threads."""

    def __init__(self):
        self._lock = threading.Lock()
        self._open: Counter[str] = Counter()

    def _drop(self, address: str) -> None:
        # the caller holds the lock
        self._open[address] -= 1
        if self._open[address] <= 0:
            del self._open[address]

    def release(self, address: str) -> None:
        with self._lock:
            self._drop(address)

    def count(self, address: str) -> int:
        with self._lock:
            return self._open.get(address, 0)


class StreamShares(PerAddress):
    def __init__(self, per_address: int = MAX_STREAMS_PER_ADDRESS, uncapped: Iterable[str] = (),
                 poll_s: float = POLL_S):
        super().__init__()
        self.per_address = per_address
        self.uncapped = frozenset(uncapped)
        self.poll_s = poll_s
        self._watched: dict[Any, tuple[Callable[[], bool], Callable[[], None] | None]] = {}
        self._watcher: threading.Thread | None = None
        self._stop = threading.Event()

    def admit(self, address: str) -> bool:
        """Take a stream slot for this address; False when it already has its share."""
        with self._lock:
            if address not in self.uncapped and self._open[address] >= self.per_address:
                return False
            self._open[address] += 1
            return True

    def release(self, address: str, stream: Any = None) -> None:
        with self._lock:
            self._watched.pop(stream, None)
            self._drop(address)

    def watch(self, stream: Any, disconnected: Callable[[], bool] | None,
              hang_up: Callable[[], None] | None = None) -> None:
        """End `stream` (its `end()`) as soon as `disconnected()` says its phone is gone, and
        `hang_up()` its connection once it fell behind (`stream.fell_behind`)."""
        if disconnected is None:
            return
        with self._lock:
            self._watched[stream] = (disconnected, hang_up)
            if self._watcher is None or not self._watcher.is_alive():
                self._stop.clear()
                self._watcher = threading.Thread(target=self._watch, name="web-streams", daemon=True)
                self._watcher.start()

    def check(self) -> int:
        """End every watched stream whose phone has gone or fell behind; how many were ended."""
        with self._lock:
            gone = [(s, hang_up) for s, (disconnected, hang_up) in self._watched.items()
                    if s.fell_behind or disconnected()]
            for stream, _ in gone:
                del self._watched[stream]
        for stream, hang_up in gone:
            stream.end()
            if stream.fell_behind and hang_up is not None:
                hang_up()
        return len(gone)

    def _watch(self) -> None:
        while not self._stop.wait(self.poll_s):
            self.check()
            with self._lock:
                if not self._watched:  # nothing to watch: the next stream starts a new watcher
                    self._watcher = None
                    return

    def close(self) -> None:
        self._stop.set()
