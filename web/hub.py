"""The event hub: one Table subscription fanned out to one queue per open phone.

A pump thread reads the Table's subscription and copies every message into each
phone's bounded queue. A phone that stops reading (its queue fills up) is dropped
rather than allowed to hold messages for ever; its stream ends and the page
reconnects. The number of open streams is capped: `open_stream` returns None past
the cap and the view answers 503.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
from typing import Any, Iterator

log = logging.getLogger(__name__)

_CLOSE = object()  # sentinel: end this stream now


def sse(event: str | None, data: Any) -> str:
    """One Server-Sent Event; `data` is sent as compact JSON on one line."""
    head = f"event: {event}\n" if event else ""
    return head + "data: " + json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n\n"


class Stream:
    """One phone's queue. The hub puts messages in; the phone's response reads them."""

    def __init__(self, hub: "Hub", size: int):
        self.hub = hub
        self.queue: queue.Queue = queue.Queue(maxsize=size)
        self.closed = False

    def put(self, message: Any) -> bool:
        try:
            self.queue.put_nowait(message)
            return True
        except queue.Full:
            return False

    def end(self) -> None:
        """Ask the reader to finish (the hub is closing or the phone fell behind)."""
        self.closed = True
        try:
            self.queue.put_nowait(_CLOSE)
        except queue.Full:
            pass  # the reader checks `closed` on its next wake-up

    def close(self) -> None:
        """Release the slot; safe to call more than once."""
        self.closed = True
        self.hub.remove(self)


class Hub:
    def __init__(self, table: Any, *, max_streams: int = 60, queue_size: int = 256, poll_s: float = 0.1):
        self.table = table
        self.max_streams = max_streams
        self.queue_size = queue_size
        self.poll_s = poll_s
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._streams: set[Stream] = set()
        self._sub = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()

    # --- streams ------------------------------------------------------------------

    def open_stream(self) -> Stream | None:
        """A new phone's queue, or None when the cap is reached (or the hub is closed)."""
        with self._lock:
            if self._stopping.is_set() or len(self._streams) >= self.max_streams:
                return None
            self._ensure_pump()
            stream = Stream(self, self.queue_size)
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

    # --- the pump -------------------------------------------------------------------

    def _ensure_pump(self) -> None:
        # Subscribe before the first phone reads the current state, so nothing
        # accepted in between is lost (duplicates are dropped by seq in `messages`).
        if self._thread is None:
            self._sub = self.table.subscribe()
            self._thread = threading.Thread(target=self._pump, name="web-hub", daemon=True)
            self._thread.start()

    def _pump(self) -> None:
        sub = self._sub
        try:
            while not self._stopping.is_set():
                message = sub.get(self.poll_s)
                if message is not None:
                    self.publish(message)
        except Exception:  # pragma: no cover - a Table failure must not go unseen
            log.exception("event hub stopped")
        finally:
            sub.close()

    def publish(self, message: Any) -> None:
        with self._lock:
            streams = list(self._streams)
        for stream in streams:
            if not stream.put(message):
                log.info("dropping a phone that stopped reading its events")
                stream.end()
                self.remove(stream)

    def close(self) -> None:
        """End every stream and stop the pump (call before stopping the server)."""
        self._stopping.set()
        with self._lock:
            streams = list(self._streams)
            self._streams.clear()
            self._changed.notify_all()
            thread = self._thread
        for stream in streams:
            stream.end()
        if thread is not None:
            thread.join(timeout=2 * self.poll_s + 1)


def _key(state: dict | None) -> tuple | None:
    if not isinstance(state, dict):
        return None
    return (state.get("game_id"), state.get("seq"))


def messages(stream: Stream, initial: dict | None, heartbeat_s: float, disconnected=None,
             shown=lambda state: state) -> Iterator[str]:
    """The text of one phone's event stream: a comment at once, the state, then updates.

    `disconnected` is waitress's `waitress.client_disconnected` callable when available;
    `shown(state)` adds what is computed only for showing (the coach), in this phone's thread.
    """
    try:
        yield ": connected\n\nretry: 2000\n\n"
        yield sse("state", {"state": shown(initial), "events": [], "source": None, "initial": True})
        sent = _key(initial)
        while not stream.closed:
            try:
                message = stream.queue.get(timeout=heartbeat_s)
            except queue.Empty:
                if disconnected is not None and disconnected():
                    return
                yield ": heartbeat\n\n"
                continue
            if message is _CLOSE:
                return
            kind = message.get("type") if isinstance(message, dict) else None
            if kind == "state":
                state = message.get("state")
                key = _key(state)
                # Already sent as the initial state (accepted while this phone connected).
                if sent is not None and key is not None and key[0] == sent[0] and key[1] <= sent[1]:
                    continue
                sent = key
                yield sse("state", {**{k: v for k, v in message.items() if k != "type"}, "state": shown(state)})
            elif kind == "refused":
                yield sse("refused", {k: v for k, v in message.items() if k != "type"})
            elif kind == "notice":
                yield sse("notice", {k: v for k, v in message.items() if k != "type"})
    finally:
        stream.close()
