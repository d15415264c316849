"""What waitress answers by itself, before Flask sees a request: made JSON, and shared fairly.

Waitress answers malformed HTTP (a bad request line, headers too large, a broken
chunk) with its own plain-text error from `ErrorTask`; `JSONErrorTask` writes the
same status as `{"error": "..."}` instead. `FairChannel` caps the connections one
address may hold open at once (requests still arriving, kept-alive connections,
event streams): past the cap a connection gets a JSON 503 and is closed, so one
device cannot use up the server's connection limit and starve every phone.
Loopback (the machine itself, or a proxy on it) is not capped by default.
It also holds each connection to `web.patience`: a request that does not arrive
whole in time is answered 408 (or, when nothing of it came, the connection is
closed quietly), and when the server is full the longest-waiting connections make
room for the new one. An event stream whose phone stopped reading is hung up
(`hang_up`, given to the app as `environ["companion.hang_up"]`).
"""

from __future__ import annotations

import json
from typing import Any, Callable, Iterable

from waitress.channel import HTTPChannel
from waitress.task import ErrorTask, WSGITask

from .fair import PerAddress
from .patience import STRANGER, Arrival, Patience, make_room

MAX_CONNECTIONS_PER_ADDRESS = 12  # a phone's browser opens about 6 per site, plus its event stream
# Connections taken from the listen queue per turn of the server's loop (waitress: 1). A turn looks at
# every open connection, so with a crowd reconnecting behind it a phone waited about a second for its turn.
ACCEPTS_PER_TURN = 32
UNCAPPED = ("127.0.0.1", "::1")

_HEADERS = [("Content-Type", "application/json"), ("X-Content-Type-Options", "nosniff"),
            ("Cache-Control", "no-store")]


def error_body(status: int, reason: str, detail: str = "") -> bytes:
    detail = " ".join(detail.split())  # waitress's detail may span lines
    text = f"{reason.lower()}: {detail}" if detail else reason.lower()
    return json.dumps({"error": text}).encode("utf-8")


class JSONErrorTask(ErrorTask):
    """Waitress's own error responses (400, 413, 431, 500...), as JSON like every other error."""

    def execute(self):
        e = self.request.error
        body = error_body(e.code, e.reason, e.body)
        self.status = f"{e.code} {e.reason}"
        self.response_headers.extend(_HEADERS)
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)


class FairTask(WSGITask):
    """A request's task whose app can hang up its connection (a stream whose phone fell behind)."""

    def get_environment(self):
        environ = super().get_environment()
        environ["companion.hang_up"] = self.channel.hang_up
        return environ


class AddressCounts(PerAddress):
    """Open connections per address, shared by the channels of one server."""

    def __init__(self, cap: int = MAX_CONNECTIONS_PER_ADDRESS, uncapped: Iterable[str] = UNCAPPED):
        super().__init__()
        self.cap = cap
        self.uncapped = frozenset(uncapped)

    def admit(self, address: str) -> bool:
        """Count a new connection; False when the address already holds its share."""
        with self._lock:
            self._open[address] += 1
            return address in self.uncapped or self._open[address] <= self.cap


class FairChannel(HTTPChannel):
    error_task_class = JSONErrorTask
    task_class = FairTask
    _arrival: Arrival | None = None
    _over_cap: int | None = None
    _answered = False  # an answer of our own (503, 408) is on its way and the connection then closes

    def __init__(self, server: Any, sock: Any, addr: Any, adj: Any, map: Any = None):
        self.address = addr[0] if isinstance(addr, tuple) and addr else str(addr)
        counts: AddressCounts | None = getattr(server, "address_counts", None)
        self._counts = counts
        admitted = counts is None or counts.admit(self.address)
        super().__init__(server, sock, addr, adj, map)
        server.accepted = getattr(server, "accepted", 0) + 1
        # refused when its first bytes arrive, not at once: closing with the client's request unread
        # sends a reset, which can reach the client before the 503 does (seen as "connection reset")
        self._over_cap = None if admitted else counts.cap
        patience: Patience | None = getattr(server, "patience", None)
        self._arrival = Arrival(patience) if patience is not None else None
        if self._arrival is not None:
            self._make_room()

    # --- a request owed in time (web.patience) ---------------------------------------------------------

    def arrival_if_waiting(self) -> Arrival | None:
        """This connection's Arrival while it waits for a request (what make_room may close)."""
        if self._arrival is None or self.requests or self.total_outbufs_len or self.will_close:
            return None
        return self._arrival

    def _make_room(self) -> None:
        """At the connection limit, close the longest-waiting others so the server keeps accepting
        (closed at once, in the server's loop: the count must drop before it looks again)."""
        excess = len(self._map) - (self.adj.connection_limit - 1)
        if excess <= 0:
            return
        standing = getattr(self.server, "standing", None) or (lambda address: STRANGER)
        others = [c for c in self._map.values() if isinstance(c, FairChannel) and c is not self]
        for victim in make_room(others, excess, standing):
            victim.handle_close()

    def readable(self) -> bool:
        arrival = self._arrival
        if arrival is not None and not (self.will_close or self.close_when_flushed):
            if self.requests or self.total_outbufs_len:
                arrival.answering()
            else:
                arrival.waiting()
                if arrival.overdue():
                    self._time_out()
                    return False
        return super().readable()

    def _time_out(self) -> None:
        if self.request is None:  # nothing of a request came: close as an idle connection is
            self.will_close = True  # writable() now, and handle_write closes it
            return
        self._answer_and_close(408, "Request Timeout",
                               "the request did not arrive in time; send it again", retry_after=1)

    def service(self) -> None:
        try:
            super().service()
        finally:
            if self._arrival is not None:
                self._arrival.answered()

    def hang_up(self) -> None:
        """Close this connection from any thread (done in the server's loop); its task's next
        write raises ClientDisconnected, so a stream's generator ends and its slot is freed."""
        def now() -> None:
            if self._fileno is not None:
                self.handle_close()
        try:
            self.server.trigger.pull_trigger(now)
        except OSError:  # the server's loop closed its trigger: it is closing every connection itself
            pass

    def received(self, data: bytes) -> bool:
        if self._over_cap is not None:
            if not self._answered:
                self._refuse(self._over_cap)
            return False
        taken = super().received(data)
        partial = self.request
        if self._arrival is not None and partial is not None and partial.headers_finished:
            self._arrival.headers_done(self.adj.max_request_body_size if partial.chunked
                                       else partial.content_length)
        return taken

    def _refuse(self, cap: int) -> None:
        """Answer 503 and close: the request is never parsed, no thread is used."""
        self._answer_and_close(503, "Service Unavailable",
                               f"this device already holds {cap} open connections to the companion; "
                               "close a page or try again shortly", retry_after=5)

    def _answer_and_close(self, status: int, reason: str, detail: str, retry_after: int) -> None:
        body = error_body(status, reason, detail)
        head = [f"HTTP/1.1 {status} {reason}", "Connection: close", f"Retry-After: {retry_after}",
                f"Content-Length: {len(body)}", *(f"{k}: {v}" for k, v in _HEADERS)]
        payload = ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body
        with self.outbuf_lock:
            self.outbufs[-1].append(payload)
            self.current_outbuf_count += len(payload)
            self.total_outbufs_len += len(payload)
        self.close_when_flushed = True  # readable() is False from now on: nothing more is read
        self._answered = True

    def handle_close(self) -> None:
        if self._answered:
            self._drain()
        super().handle_close()

    def _drain(self) -> None:
        """Read what the refused client already sent: closing with unread data would send a
        reset, and the client could lose the 503 before reading it."""
        try:
            self.socket.setblocking(False)
            for _ in range(64):
                if not self.socket.recv(65536):
                    break
        except OSError:
            pass

    def del_channel(self, map: Any = None) -> None:
        counted = self._fileno is not None and self._counts is not None
        super().del_channel(map)
        if counted:
            self._counts.release(self.address)
            self._counts = None  # released once, however often waitress closes


def make_fair(server: Any, cap: int = MAX_CONNECTIONS_PER_ADDRESS, uncapped: Iterable[str] = UNCAPPED,
              patience: Patience | None = None, standing: Callable[[str], int] | None = None) -> Any:
    """Give a server made by `waitress.create_server` JSON errors, per-address connection caps and
    requests owed in time (`patience`, default Patience()); `standing(address)` says whose waiting
    connections are kept when room is made (web.patience.make_room)."""
    targets = [server] if hasattr(server, "channel_class") else \
        [s for s in server.map.values() if hasattr(s, "channel_class")]  # one per listen address
    counts = AddressCounts(cap, uncapped)
    for s in targets:
        s.channel_class = FairChannel
        s.address_counts = counts
        s.patience = patience or Patience()
        s.standing = standing
        s.handle_accept = _accepting_more(s)
    return server


def _accepting_more(server: Any) -> Callable[[], None]:
    """The server's handle_accept, taking up to ACCEPTS_PER_TURN waiting connections a turn."""
    one = server.handle_accept

    def handle_accept() -> None:
        for _ in range(ACCEPTS_PER_TURN):
            before = getattr(server, "accepted", 0)
            one()
            if server.accepted == before or len(server._map) >= server.adj.connection_limit:
                return  # none was waiting, or the server is full of connections none of which may go
    return handle_accept
