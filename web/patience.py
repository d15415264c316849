"""How long a request may take to arrive, and which waiting connections make room when the server is full.

Waitress ends only idle connections (after 120 s), and a device that sends its headers a
byte a second is never idle: 200 such connections filled the server's connection limit and
no phone got in while they dripped. So a connection owes its request in time:

- the headers within `headers_s` of the connection opening, or of its last answer being sent
  (a kept-alive connection that sends nothing is closed as quietly as one that never did);
- then the body within `body_s` plus one second per `body_rate` bytes it declares (a chunked
  body is allowed the largest body the server takes).

A connection past its time is closed and its slot freed (`web.wire.FairChannel`). And when the
connection limit is reached anyway, the connections still waiting for their request make room,
the longest-waiting first (`make_room`): those from addresses that hold an event stream only
after every other, and never those from an address that has shown the PIN. A connection whose
request is being answered (a stream, a command) is never one of them.
"""

from __future__ import annotations

import heapq
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Protocol

HEADERS_S = 5.0  # a phone's headers are one packet; Wi-Fi retries take a second or two
BODY_S = 5.0
BODY_RATE = 2048  # bytes a second: the largest body (16 KiB) in 8 s more

# How much an address's connections are kept when room must be made (see make_room).
STRANGER, STREAMING, KNOWN = 0, 1, 2


@dataclass(frozen=True)
class Patience:
    headers_s: float = HEADERS_S
    body_s: float = BODY_S
    body_rate: float = BODY_RATE
    clock: Callable[[], float] = field(default=time.monotonic, compare=False)


class Arrival:
    """When the request one connection owes must be whole (times are the patience's clock)."""

    def __init__(self, patience: Patience):
        self.patience = patience
        self.since: float | None = patience.clock()  # waiting for a request since; None while answering one
        self.headers_at: float | None = None
        self.length = 0

    def answering(self) -> None:
        """A request is being answered (or its answer sent): nothing is owed meanwhile."""
        self.since = None
        self.headers_at = None

    def waiting(self) -> None:
        """Nothing is being answered: the next request is owed from now, unless it already was."""
        if self.since is None:
            self.since = self.patience.clock()

    def answered(self) -> None:
        """The last answer was handed over: the next request is owed from now."""
        self.since = self.patience.clock()
        self.headers_at = None

    def headers_done(self, length: int) -> None:
        if self.since is not None and self.headers_at is None:
            self.headers_at = self.patience.clock()
            self.length = max(0, length)

    def due(self) -> float | None:
        """When the request must be whole; None while one is being answered."""
        if self.since is None:
            return None
        p = self.patience
        if self.headers_at is None:
            return self.since + p.headers_s
        return self.headers_at + p.body_s + self.length / p.body_rate

    def overdue(self) -> bool:
        due = self.due()
        return due is not None and self.patience.clock() >= due


class Waiting(Protocol):
    """A connection as make_room sees it."""

    address: str

    def arrival_if_waiting(self) -> Arrival | None: ...


def make_room(connections: Iterable[Waiting], count: int, standing: Callable[[str], int]) -> list[Waiting]:
    """The `count` connections to close so others can be accepted: waiting ones only, strangers
    before addresses holding a stream, the longest-waiting first, none from a KNOWN address."""
    if count <= 0:
        return []
    ranked = []
    for c in connections:
        arrival = c.arrival_if_waiting()
        if arrival is None or arrival.since is None:
            continue
        rank = standing(c.address)
        if rank < KNOWN:
            ranked.append((rank, arrival.since, id(c), c))
    return [r[3] for r in heapq.nsmallest(count, ranked, key=lambda r: r[:3])]
