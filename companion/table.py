"""The table at runtime: one engine thread, the single writer of game state.

Camera readings, panel presses, phone overrides and the CLI all put commands on
one queue; the engine thread validates each, commits it to the game log and
then publishes the new state (or the refusal) to every subscriber: the phone
pages, the LEDs. Nothing else ever changes the game.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
from concurrent.futures import Future
from typing import Any

from .commands import Command, NewGame, parse_command, quote
from .errors import CompanionError
from .gamelog import GameLog
from .replay import iter_replay

SUBSCRIBER_BACKLOG = 256
logger = logging.getLogger(__name__)


class Subscription:
    """A subscriber's own queue of published messages."""

    def __init__(self, table: "Table"):
        self._table = table
        self._queue: queue.Queue = queue.Queue(maxsize=SUBSCRIBER_BACKLOG)
        self.closed = False

    def get(self, timeout: float | None = None) -> dict | None:
        """The next message, or None when `timeout` passes first."""
        try:
            return self._queue.get(timeout=timeout)
        except queue.Empty:
            return None

    def _put(self, message: dict) -> None:
        # A subscriber that stopped reading loses its oldest messages, never stalls the engine.
        while True:
            try:
                self._queue.put_nowait(message)
                return
            except queue.Full:
                try:
                    self._queue.get_nowait()
                except queue.Empty:
                    pass

    def close(self) -> None:
        self.closed = True
        self._table._unsubscribe(self)

    def __enter__(self) -> "Subscription":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class Table:
    def __init__(self, log: GameLog, *, game_id: int | None = None):
        self.log = log
        self.game_id = game_id if game_id is not None else log.latest_id()
        if self.game_id is not None:
            log.engine(self.game_id)  # an unknown id fails here, before the thread starts
        self._queue: queue.Queue = queue.Queue()
        self._subscribers: list[Subscription] = []
        self._sub_lock = threading.Lock()
        self._state = self._public_state()
        self._thread: threading.Thread | None = None

    # --- lifecycle -------------------------------------------------------------------

    def start(self) -> "Table":
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="engine", daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        if self._thread is not None:
            self._queue.put(("stop",))
            self._thread.join(timeout)
            self._thread = None

    def __enter__(self) -> "Table":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # --- inputs ---------------------------------------------------------------------------

    def submit(self, command: Any, source: str, timeout: float = 5.0) -> dict:
        """Apply a command and wait: the new state, or IllegalCommand with the reason."""
        future: Future = Future()
        self._queue.put(("command", command, source, future))
        return future.result(timeout)

    def post(self, command: Any, source: str) -> None:
        """Queue a command without waiting (for button and camera callbacks); refusals are published."""
        self._queue.put(("command", command, source, None))

    def notify(self, kind: str, **data: Any) -> None:
        """Publish a notice (camera offline, check the dice, restarted) in order with the game's messages."""
        self._queue.put(("notice", kind, data))

    def refuse(self, error: str, source: str, command: Any = None) -> None:
        """Publish a refusal decided before any command existed (a panel button with nothing to do)."""
        self._queue.put(("refusal", error, source, command))

    # --- outputs ----------------------------------------------------------------------------

    def state(self) -> dict | None:
        return self._state

    def subscribe(self) -> Subscription:
        sub = Subscription(self)
        with self._sub_lock:
            self._subscribers.append(sub)
        return sub

    def subscriber_count(self) -> int:
        with self._sub_lock:
            return len(self._subscribers)

    def records(self) -> list[dict]:
        return [] if self.game_id is None else [r.to_dict() for r in self.log.records(self.game_id)]

    def timeline(self) -> list[dict]:
        """The state after each accepted command of the current game, for the page's chart."""
        if self.game_id is None:
            return []
        records = self.log.records(self.game_id)
        replayed = iter_replay(json.dumps(r.command) for r in records)
        return [{"seq": r.seq, "time": r.time, "state": engine.state()} for r, (_, engine, _) in zip(records, replayed)]

    # --- the engine thread --------------------------------------------------------------------

    def _unsubscribe(self, sub: Subscription) -> None:
        with self._sub_lock:
            if sub in self._subscribers:
                self._subscribers.remove(sub)

    def _publish(self, message: dict) -> None:
        with self._sub_lock:
            subscribers = list(self._subscribers)
        for sub in subscribers:
            sub._put(message)

    def _public_state(self) -> dict | None:
        if self.game_id is None:
            return None
        engine = self.log.engine(self.game_id)
        return {**engine.state(), "game_id": self.game_id, "seq": engine.seq}

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item[0] == "stop":
                return
            if item[0] == "refusal":
                _, error, source, command = item
                self._publish({"type": "refused", "error": error, "source": source, "command": command})
                continue
            if item[0] == "notice":
                self._publish({"type": "notice", "kind": item[1], **item[2]})
                continue
            _, command, source, future = item
            try:
                self._apply(command, source, future)
            except Exception as exc:  # a bug must not kill the only writer
                logger.exception("internal error while applying %s", quote(command))
                reason = f"internal error while applying {quote(command)}; the server's log has the details"
                self._publish({"type": "refused", "error": reason, "source": source, "command": command})
                if future is not None and not future.done():
                    future.set_exception(CompanionError(reason))

    def _apply(self, command: Any, source: str, future: Future | None) -> None:
        try:
            cmd = parse_command(command)
            applied = self.log.apply(self.game_id, command if isinstance(command, dict) else cmd.to_dict(), source)
        except CompanionError as exc:
            shown = command.to_dict() if isinstance(command, Command) else command
            if not isinstance(shown, (dict, list, str, int, float, type(None))):
                shown = repr(shown)
            if exc.public is not None:  # the details name the machine: the server's log only
                logger.error("%s", exc)
            self._publish({"type": "refused", "error": exc.public or str(exc), "source": source, "command": shown})
            if future is not None:
                future.set_exception(exc)
            return
        if isinstance(cmd, NewGame) or applied.game_id != self.game_id:
            self.game_id = applied.game_id
        self._state = {**applied.state, "game_id": applied.game_id, "seq": applied.seq}
        self._publish({"type": "state", "state": self._state, "events": [e.to_dict() for e in applied.events],
                       "source": source, "command": cmd.to_dict()})
        if future is not None:
            future.set_result(self._state)
