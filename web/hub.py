"""The phones' event streams: each one its own Table subscription, under a cap.

There is no copying thread: a phone's stream reads its Table subscription
directly, and the subscription's first message is the state as it stood when the
phone connected. A phone that stops reading (its queue fills up) is ended rather
than allowed to hold messages for ever; its stream closes and the page
reconnects. The number of open streams is capped: `open_stream` returns None
past the cap and the view answers 503.
"""

from __future__ import annotations

import json
import threading
from typing import Any, Iterator


def sse(event: str | None, data: Any) -> str:
    """One Server-Sent Event; `data` is sent as compact JSON on one line."""
    head = f"event: {event}\n" if event else ""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # half a character (a file name not in UTF-8, say): as \u escapes, or
            text = json.dumps(data, separators=(",", ":"))  # writing it ended every phone's stream
    return head + "data: " + text + "\n\n"


class Stream:
    """One phone's slot under the cap, and the Table subscription its response reads."""

    def __init__(self, hub: "Hub", subscription: Any):
        self.hub = hub
        self.subscription = subscription

    @property
    def closed(self) -> bool:
        return self.subscription.closed

    @property
    def fell_behind(self) -> bool:
        """Ended because its phone stopped reading and a whole queue of messages waited for it."""
        return self.subscription.overflowed

    def get(self, timeout: float) -> dict | None:
        return self.subscription.get(timeout)

    def end(self) -> None:
        """Ask the reader to finish (the hub is closing)."""
        self.subscription.end()

    def close(self) -> None:
        """Unsubscribe and release the slot; safe to call more than once."""
        self.subscription.close()
        self.hub.remove(self)


class Hub:
    def __init__(self, table: Any, *, max_streams: int = 60, queue_size: int = 256):
        self.table = table
        self.max_streams = max_streams
        self.queue_size = queue_size
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._streams: set[Stream] = set()
        self._closed = False

    def open_stream(self) -> Stream | None:
        """A new phone's stream, or None when the cap is reached (or the hub is closed)."""
        with self._lock:
            if self._closed or len(self._streams) >= self.max_streams:
                return None
            stream = Stream(self, self.table.subscribe(backlog=self.queue_size, end_when_full=True))
            self._streams.add(stream)
            self._changed.notify_all()
            return stream

    def remove(self, stream: Stream) -> None:
        with self._lock:
            self._streams.discard(stream)
            self._changed.notify_all()

    def wait_count(self, n: int, timeout: float) -> bool:
        """Wait until exactly `n` streams are open (for tests and the benchmark)."""
        with self._changed:
            return self._changed.wait_for(lambda: len(self._streams) == n, timeout)

    def count(self) -> int:
        with self._lock:
            return len(self._streams)

    def close(self) -> None:
        """End every stream and open no more (call before stopping the server)."""
        with self._lock:
            self._closed = True
            streams = list(self._streams)
            self._streams.clear()
            self._changed.notify_all()
        for stream in streams:
            stream.end()


EVENTS = ("state", "refused", "notice")  # the Table's message types, sent as SSE event names


def messages(stream: Stream, heartbeat_s: float, disconnected=None, shown=lambda state: state) -> Iterator[str]:
    """The text of one phone's event stream: a comment at once, the state, then updates.

    `disconnected` is waitress's `waitress.client_disconnected` callable when available;
    `shown(state)` adds what is computed only for showing (the coach), in this phone's thread.
    """
    try:
        yield ": connected\n\nretry: 2000\n\n"
        while True:
            message = stream.get(timeout=heartbeat_s)
            if message is None:
                if stream.closed or (disconnected is not None and disconnected()):
                    return
                yield ": heartbeat\n\n"
                continue
            kind = message.get("type") if isinstance(message, dict) else None
            if kind == "state":
                yield sse("state", {**{k: v for k, v in message.items() if k != "type"},
                                    "state": shown(message.get("state"))})
            elif kind in EVENTS:
                yield sse(kind, {k: v for k, v in message.items() if k != "type"})
    finally:
        stream.close()
