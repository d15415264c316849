"""The table at runtime: one engine thread, the single writer of game state.

Camera readings, panel presses, phone overrides and the CLI all put commands on
one queue; the engine thread validates each, commits it to the game log and
then publishes the new state (or the refusal) to every subscriber: the phone
pages, the LEDs. Nothing else ever changes the game.

A command arrives parsed (a `Command`; a dict or JSON text is parsed here, once)
and goes on typed into the game log and the engine.

Subscribing and reading the current state are one step: a subscription's first
message is the state as it stood when it began, and every later state follows
exactly once, so no subscriber compares sequence numbers.
"""

from __future__ import annotations

import logging
import queue
import threading
from concurrent.futures import Future
from typing import Any

from .commands import Command, NewGame, parse_command, quote
from .errors import CompanionError, GameLogError, IllegalCommand, MovedOn
from .gamelog import GameLog
from .replay import replay_commands, standing
from .notices import NoticeKind, check_status

SUBSCRIBER_BACKLOG = 256
logger = logging.getLogger(__name__)


class Subscription:
    """A subscriber's own queue of published messages; the first is the current state.

    A subscriber that stops reading never stalls the engine: when its queue is full it
    loses its oldest messages, or, with `end_when_full`, it is ended (a phone's stream
    then closes and the page reconnects for a fresh state).
    """

    def __init__(self, table: "Table", backlog: int, end_when_full: bool):
        self._table = table
        self._queue: queue.Queue = queue.Queue(maxsize=backlog)
        self._end_when_full = end_when_full
        self.closed = False
        self.overflowed = False  # ended because its reader fell a whole queue behind

    def get(self, timeout: float | None = None) -> dict | None:
        """The next message; None when `timeout` passes first, or at once once the subscription has ended."""
        try:
            message = self._queue.get(timeout=timeout)
        except queue.Empty:
            return None
        if message is _END:
            self._queue.put_nowait(_END)  # later calls return at once too
            return None
        return message

    def _put(self, message: dict) -> None:
        while not self.closed:
            try:
                self._queue.put_nowait(message)
                return
            except queue.Full:
                if self._end_when_full:
                    self.overflowed = True
                    self.end()
                    return
                try:
                    self._queue.get_nowait()
                except queue.Empty:
                    pass

    def end(self) -> None:
        """Stop delivering and wake the reader: its pending `get` returns None (safe to call twice)."""
        self.close()
        while True:  # make room for the end mark; what is unread no longer matters
            try:
                self._queue.put_nowait(_END)
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


_END = object()  # put in a subscription's queue when it ends


def moved_on(seen: tuple[int | None, int | None], where: tuple[int | None, int | None]) -> MovedOn:
    """The refusal of a command sent for (game_id, seq) `seen` when the table is at `where`."""
    now = "no game is under way" if where[0] is None else f"game {where[0]} is at move {where[1]}"
    was = "no game" if seen[0] is None else f"game {seen[0]} at move {seen[1]}"
    return MovedOn(f"the game moved on since this was sent (it was sent for {was}; {now}): nothing was "
                   "changed; look at the game again and send it again if it is still wanted")


class Table:
    def __init__(self, log: GameLog, *, game_id: int | None = None):
        self.log = log
        self.game_id = game_id if game_id is not None else log.table_id()
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

    def submit(self, command: Command | Any, source: str, timeout: float = 5.0,
               seen: tuple[int | None, int | None] | None = None) -> dict:
        """Apply a command and wait: the new state, or IllegalCommand with the reason.

        Adapters parse at their edge and pass a Command; a dict or JSON text is parsed on
        the engine thread (a malformed one is refused like an illegal one). seen: the (game_id,
        seq) the sender was looking at; when the table has moved on since, the command is refused
        (MovedOn, to the sender only) and nothing changes: two phones confirming Undo at once took
        back two moves."""
        future: Future = Future()
        self._queue.put(("command", command, source, future, seen))
        return future.result(timeout)

    def post(self, command: Command | Any, source: str) -> None:
        """Queue a command without waiting (for button and camera callbacks); refusals are published."""
        self._queue.put(("command", command, source, None, None))

    def resume(self, game_id: int, source: str, timeout: float = 5.0) -> dict:
        """Make an unfinished game of the log the current one again (on the engine thread, like a command).

        Every subscriber gets its state as a new state message with a `resumed` event; a finished
        or unknown game is refused (IllegalCommand / UnknownGame) and nothing changes."""
        future: Future = Future()
        self._queue.put(("resume", game_id, source, future))
        return future.result(timeout)

    def notify(self, kind: NoticeKind | str, **data: Any) -> None:
        """Publish a notice (camera offline, check the dice, restarted) in order with the game's messages.

        The kinds and their statuses are companion.notices; a status its kind lacks is a ValueError here."""
        check_status(kind, data)
        self._queue.put(("notice", kind, data))

    def refuse(self, error: str, source: str, command: Any = None, words: dict | None = None) -> None:
        """Publish a refusal decided before any command existed (a panel button with nothing to do);
        `words` is its template and values (events.phrase), which a page says in its own language."""
        self._queue.put(("refusal", error, source, command, words))

    # --- outputs ----------------------------------------------------------------------------

    def state(self) -> dict | None:
        return self._state

    def subscribe(self, *, backlog: int = SUBSCRIBER_BACKLOG, end_when_full: bool = False) -> Subscription:
        """A new subscription whose first message is the current state:
        `{"type": "state", "state": ..., "events": [], "source": None, "initial": True}`."""
        sub = Subscription(self, backlog, end_when_full)
        with self._sub_lock:  # the engine thread changes the state under the same lock
            sub._put({"type": "state", "state": self._state, "events": [], "source": None, "initial": True})
            self._subscribers.append(sub)
        return sub

    def subscriber_count(self) -> int:
        with self._sub_lock:
            return len(self._subscribers)

    def records(self) -> list[dict]:
        return [] if self.game_id is None else [r.to_dict() for r in self.log.records(self.game_id)]

    def timeline(self) -> list[dict]:
        """The state after each accepted command of the current game that still stands, for the page's
        chart: a move taken back goes with the undo that took it back (it drew a spike)."""
        if self.game_id is None:
            return []
        records = self.log.records(self.game_id)
        commands = [r.command for r in records]
        return [{"seq": r.seq, "time": r.time, "state": engine.state()}
                for r, (engine, _), kept in zip(records, replay_commands(commands), standing(commands)) if kept]

    # --- the engine thread --------------------------------------------------------------------

    def _unsubscribe(self, sub: Subscription) -> None:
        with self._sub_lock:
            if sub in self._subscribers:
                self._subscribers.remove(sub)

    def _publish(self, message: dict, state: dict | None = None) -> None:
        """Deliver to every subscriber; with `state`, it becomes the current state in the same step
        (so a subscription begun meanwhile has it either as its first message or as this one). Every
        message says when (`time`, the companion's clock; a stored move: the time stored with it)."""
        message.setdefault("time", self.log.now())
        with self._sub_lock:
            if state is not None:
                self._state = state
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
                _, error, source, command, words = item
                said = {"words": words} if words else {}
                self._publish({"type": "refused", "error": error, "source": source, "command": command, **said})
                continue
            if item[0] == "notice":
                self._publish({"type": "notice", "kind": item[1], **item[2]})
                continue
            if item[0] == "resume":
                try:
                    self._resume(*item[1:])
                except Exception as exc:  # as for a command below: a bug must not kill the only writer
                    logger.exception("internal error while resuming game %r", item[1])
                    if not item[3].done():
                        item[3].set_exception(CompanionError(f"internal error while resuming game {item[1]!r}; "
                                                             f"the server's log has the details ({type(exc).__name__})"))
                continue
            _, command, source, future, seen = item
            try:
                if seen is not None:  # the sender said what it saw: only for that state
                    where = self._where()
                    if seen != where:
                        future.set_exception(moved_on(seen, where))
                        continue
                self._apply(command, source, future)
            except Exception:  # a bug must not kill the only writer
                shown = command.to_dict() if isinstance(command, Command) else command
                logger.exception("internal error while applying %s", quote(shown))
                reason = f"internal error while applying {quote(shown)}; the server's log has the details"
                self._publish({"type": "refused", "error": reason, "source": source, "command": shown})
                if future is not None and not future.done():
                    future.set_exception(CompanionError(reason))

    def _where(self) -> tuple[int | None, int | None]:
        """(game_id, seq) of the table now."""
        return (self.game_id, None if self.game_id is None else self.log.engine(self.game_id).seq)

    def _resume(self, game_id: int, source: str, future: Future) -> None:
        try:
            engine = self.log.engine(game_id)
            if engine.is_over():
                raise IllegalCommand(f"game {game_id} is finished; only an unfinished game can be resumed")
        except CompanionError as exc:
            future.set_exception(exc)
            return
        try:
            self.log.mark_resumed(game_id)  # a power cut now comes back to this game, not the newest
        except GameLogError as exc:  # a full card: the game is resumed all the same, only not noted
            logger.error("%s", exc)
        self.game_id = game_id
        state = self._public_state()
        players = ", ".join(p["name"] for p in state["players"])
        event = {"kind": "resumed", "text": f"Game {game_id} ({players}) continues where it stood.", "player": None}
        self._publish({"type": "state", "state": state, "events": [event], "source": source,
                       "command": None}, state=state)
        future.set_result(state)

    def _apply(self, command: Command | Any, source: str, future: Future | None) -> None:
        try:
            cmd = parse_command(command)  # a no-op for a Command: the edge has parsed it
            applied = self.log.apply(self.game_id, cmd, source)
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
        state = {**applied.state, "game_id": applied.game_id, "seq": applied.seq}
        # `time`: when it was stored, by the companion's clock, which the chart and the history read; a
        # phone's clock hours off the Pi's (a Pi without network keeps no time) drew the chart in hours
        self._publish({"type": "state", "state": state, "events": [e.to_dict() for e in applied.events],
                       "source": source, "command": cmd.to_dict(), "time": applied.time}, state=state)
        if future is not None:
            future.set_result(state)
