"""What waitress answers by itself, before Flask sees a request: made JSON, and shared fairly.

Waitress answers malformed HTTP (a bad request line, headers too large, a broken
chunk) with its own plain-text error from `ErrorTask`; `JSONErrorTask` writes the
same status as `{"error": "..."}` instead. `FairChannel` caps the connections one
address may hold open at once (requests still arriving, kept-alive connections,
event streams): past the cap a connection gets a JSON 503 and is closed, so one
device cannot use up the server's connection limit and starve every phone.
Loopback (the machine itself, or a proxy on it) is not capped by default.
"""

from __future__ import annotations

import json
from typing import Any, Iterable

from waitress.channel import HTTPChannel
from waitress.task import ErrorTask

from .fair import PerAddress

MAX_CONNECTIONS_PER_ADDRESS = 12  # a phone's browser opens about 6 per site, plus its event stream
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


class AddressCounts(PerAddress):
    """Open connections per address, shared by the channels of one server."""

    def __init__(self, cap: int = MAX_CONNECTIONS_PER_ADDRESS, uncapped: Iterable[str] = UNCAPPED):
        super().__init__()
        self.cap = cap
        self.uncapped = frozenset(uncapped)

    def admit(self, address: str) -> bool:
        """Count a new connection; False when the address already holds its share."""
        with self._lock:
            held = self._add(address)
            return address in self.uncapped or held <= self.cap


class FairChannel(HTTPChannel):
    error_task_class = JSONErrorTask

    def __init__(self, server: Any, sock: Any, addr: Any, adj: Any, map: Any = None):
        self._address = addr[0] if isinstance(addr, tuple) and addr else str(addr)
        counts: AddressCounts | None = getattr(server, "address_counts", None)
        self._counts = counts
        admitted = counts is None or counts.admit(self._address)
        super().__init__(server, sock, addr, adj, map)
        # refused when its first bytes arrive, not at once: closing with the client's request unread
        # sends a reset, which can reach the client before the 503 does (seen as "connection reset")
        self._over_cap = None if admitted else counts.cap

    def received(self, data: bytes) -> bool:
        if self._over_cap is None:
            return super().received(data)
        if not getattr(self, "_refused", False):
            self._refuse(self._over_cap)
        return False

    def _refuse(self, cap: int) -> None:
        """Answer 503 and close: the request is never parsed, no thread is used."""
        body = error_body(503, "Service Unavailable",
                          f"this device already holds {cap} open connections to the companion; "
                          "close a page or try again shortly")
        head = ["HTTP/1.1 503 Service Unavailable", "Connection: close", "Retry-After: 5",
                f"Content-Length: {len(body)}", *(f"{k}: {v}" for k, v in _HEADERS)]
        payload = ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body
        with self.outbuf_lock:
            self.outbufs[-1].append(payload)
            self.current_outbuf_count += len(payload)
            self.total_outbufs_len += len(payload)
        self.close_when_flushed = True  # readable() is False from now on: nothing more is read
        self._refused = True

    def handle_close(self) -> None:
        if getattr(self, "_refused", False):
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
            self._counts.release(self._address)
            self._counts = None  # released once, however often waitress closes


def make_fair(server: Any, cap: int = MAX_CONNECTIONS_PER_ADDRESS, uncapped: Iterable[str] = UNCAPPED) -> Any:
    """Give a server made by `waitress.create_server` JSON errors and per-address connection caps."""
    targets = [server] if hasattr(server, "channel_class") else \
        [s for s in server.map.values() if hasattr(s, "channel_class")]  # one per listen address
    counts = AddressCounts(cap, uncapped)
    for s in targets:
        s.channel_class = FairChannel
        s.address_counts = counts
    return server
