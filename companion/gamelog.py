"""The game log on disk: every accepted command, in SQLite, committed before it is acknowledged.

The history is append-only (an undo is logged like any command), so a game's
state is rebuilt by replaying it, and a power cut can lose at most a command
that was never acknowledged. Opening replays only the games still under way:
the file records when a game ends (in the same transaction as its last
command), and a finished game is replayed when someone asks for it.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from .commands import NewGame, parse_command
from .engine import Engine
from .errors import CompanionError, GameLogError, IllegalCommand, StoreError, UnknownGame
from .events import Event
from .logfile import SCHEMA_VERSION, keep_damaged_wal, open_file
from .replay import replay_lines

__all__ = ["Applied", "GameLog", "Record", "SCHEMA_VERSION"]
FINISHED_KEPT = 16  # finished games kept in memory after they were asked for (each is a few hundred kB)


@dataclass(frozen=True)
class Record:
    """One accepted command as stored."""

    game_id: int
    seq: int
    time: float
    source: str
    command: dict

    def to_dict(self) -> dict[str, Any]:
        return {"seq": self.seq, "time": self.time, "source": self.source, "command": self.command}


@dataclass(frozen=True)
class Applied:
    """What `GameLog.apply` did: the game, its new sequence number, the events and the new state."""

    game_id: int
    seq: int
    events: tuple[Event, ...]
    state: dict
    time: float = 0.0  # when it was stored (the log's clock: the Pi's, which a phone's may not match)


class GameLog:
    """All games of one SQLite file: those under way in memory, finished ones read when asked for.

    `readonly=True` opens an existing file with a read-only connection and replays
    nothing until a game is asked for; `apply` and `import_jsonl` are then refused.
    A writer creates a missing file (and its folder).
    """

    def __init__(self, path: str | os.PathLike, *, clock: Callable[[], float] = time.time, readonly: bool = False):
        self.path = Path(path)
        self.readonly = readonly
        self.closed = False  # set by close(): a reader still busy at shutdown knows why it failed
        self._clock = clock
        self._lock = threading.RLock()
        self._engines: dict[int, Engine] = {}  # games under way, and every game changed since opening
        self._finished: OrderedDict[int, Engine] = OrderedDict()  # finished games asked for lately
        # a write-ahead log SQLite would take for empty, copied first (logfile.keep_damaged_wal)
        self.kept_aside = None if readonly else self._keep_damaged_wal()
        self._db, self._version = open_file(self.path, readonly=readonly)
        try:
            if not readonly:
                self._replay_unfinished()
        except BaseException:
            self._db.close()
            raise

    # --- opening -----------------------------------------------------------------

    def _keep_damaged_wal(self) -> Path | None:
        try:
            return keep_damaged_wal(self.path, self._clock)
        except OSError as exc:  # the copy is all that is left of those moves: not opened without it
            raise GameLogError(f"the write-ahead log beside {self.path} is damaged and no copy of it could be "
                               f"kept ({exc.strerror or exc}); it was left as it was") from None

    def _damaged(self, exc: sqlite3.DatabaseError) -> GameLogError:
        return GameLogError(f"the game log {self.path} is damaged: {exc}")

    def _replay_unfinished(self) -> None:
        """Replay the games not known to be over; note in the file what the replay found out."""
        try:
            games = self._db.execute("SELECT id, over FROM games WHERE over IS NOT 1 ORDER BY id").fetchall()
            rows = self._db.execute(
                "SELECT game_id, seq, command FROM commands WHERE game_id IN "
                "(SELECT id FROM games WHERE over IS NOT 1) ORDER BY game_id, seq").fetchall()
        except sqlite3.DatabaseError as exc:
            raise self._damaged(exc) from None
        by_game: dict[int, list[tuple[int, str]]] = {gid: [] for gid, _ in games}
        for gid, seq, text in rows:
            by_game.setdefault(gid, []).append((seq, text))
        learned = []
        for gid, over in games:
            engine = self._keep(gid, self._replay(gid, by_game.get(gid, [])))
            if over is None or bool(over) != engine.is_over():  # a game from format 1, or a flag gone stale
                learned.append((*self._status(engine), gid))
        if learned:
            try:
                with self._transaction():
                    self._db.executemany("UPDATE games SET over=?, summary=? WHERE id=?", learned)
            except sqlite3.Error as exc:
                raise GameLogError(f"cannot write to the game log {self.path}: {exc}") from None

    def _replay(self, gid: int, commands: list[tuple[int, str]]) -> Engine:
        if [seq for seq, _ in commands] != list(range(1, len(commands) + 1)) or not commands:
            raise GameLogError(f"game {gid} in {self.path} has missing commands (sequence numbers are not 1..n)")
        try:
            engine, _ = replay_lines(text for _, text in commands)
        except CompanionError as exc:
            raise GameLogError(f"game {gid} in {self.path} cannot be replayed: {exc}") from None
        return engine

    def _unknown(self, gid: Any) -> UnknownGame:
        return UnknownGame(f"no game {gid!r} in {self.path}; games: {self._known()}")

    def _read(self, gid: int) -> Engine:
        """Replay one game from the file; UnknownGame if the file has no such game."""
        if not _storable(gid):
            raise self._unknown(gid)
        try:
            known = self._db.execute("SELECT 1 FROM games WHERE id=?", (gid,)).fetchone()
            commands = self._db.execute("SELECT seq, command FROM commands WHERE game_id=? ORDER BY seq",
                                        (gid,)).fetchall() if known else []
        except sqlite3.DatabaseError as exc:
            raise self._damaged(exc) from None
        if not known:
            raise self._unknown(gid)
        return self._replay(gid, commands)

    def _keep(self, gid: int, engine: Engine) -> Engine:
        if engine.is_over() and gid not in self._engines:
            self._finished[gid] = engine
            self._finished.move_to_end(gid)
            while len(self._finished) > FINISHED_KEPT:
                self._finished.popitem(last=False)
        else:
            self._engines[gid] = engine
        return engine

    @staticmethod
    def _status(engine: Engine) -> tuple[int, str | None]:
        """The games row's over and summary columns for this game now."""
        if not engine.is_over():
            return 0, None
        state = engine.state()
        summary = {"players": [p["name"] for p in state["players"]], "seq": engine.seq, "phase": state["phase"],
                   "winners": state.get("winners") or []}
        return 1, json.dumps(summary, ensure_ascii=False)

    def _known(self) -> str:
        """The game ids in the file, as ranges: '1-40, 42'."""
        ids = self.game_ids()
        if not ids:
            return "none yet"
        runs: list[list[int]] = []
        for gid in ids:
            if runs and gid == runs[-1][1] + 1:
                runs[-1][1] = gid
            else:
                runs.append([gid, gid])
        return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)

    # --- reading ---------------------------------------------------------------------

    def _query(self, sql: str, params: tuple = ()) -> list[tuple]:
        with self._lock:
            try:
                return self._db.execute(sql, params).fetchall()
            except sqlite3.DatabaseError as exc:
                raise self._damaged(exc) from None

    def game_ids(self) -> list[int]:
        return [gid for (gid,) in self._query("SELECT id FROM games ORDER BY id")]

    def now(self) -> float:
        """The time by the log's clock (what it stores with each command)."""
        return self._clock()

    def latest_id(self) -> int | None:
        return self._query("SELECT max(id) FROM games")[0][0]

    def table_id(self) -> int | None:
        """The game the table played last: the game of the last command stored, or one resumed since
        (mark_resumed) when no command came after. After a power cut the companion comes back to it,
        not to the newest game: a game resumed and played on is the one the table is at."""
        last = self._query("SELECT game_id, rowid FROM commands ORDER BY rowid DESC LIMIT 1")
        if not last:
            return self.latest_id()
        row = self._query("SELECT value FROM meta WHERE key='resumed'")
        try:
            game, after = (int(v) for v in row[0][0].split()) if row else (None, None)
        except ValueError:  # not ours to trust: the last command decides
            game, after = None, None
        if game is not None and after >= last[0][1] and self._query("SELECT 1 FROM games WHERE id=?", (game,)):
            return game
        return last[0][0]

    def mark_resumed(self, game_id: int) -> None:
        """Note in the file that game_id is the table's game again (see table_id)."""
        with self._lock:
            self._writable()
            try:
                with self._transaction():
                    after = self._db.execute("SELECT max(rowid) FROM commands").fetchone()[0] or 0
                    self._db.execute("INSERT OR REPLACE INTO meta VALUES ('resumed', ?)", (f"{game_id} {after}",))
            except sqlite3.Error as exc:
                raise StoreError(f"could not note the resumed game in {self.path}: {exc}") from None

    def engine(self, game_id: int) -> Engine:
        """The game's engine: in memory if under way, else replayed from the file now."""
        with self._lock:
            engine = self._engines.get(game_id)
            if engine is None:
                engine = self._finished.get(game_id)
                if engine is None:
                    return self._keep(game_id, self._read(game_id))
                self._finished.move_to_end(game_id)
            return engine

    def games(self) -> list[dict[str, Any]]:
        """A line per game: id, game, players, created, commands so far, phase, over, winners, last (time)."""
        with self._lock:
            out = []
            for gid, game, created, over, summary, last in self._query(
                    f"SELECT id, game, created, {'over, summary' if self._version > 1 else 'NULL, NULL'}, "
                    "(SELECT MAX(time) FROM commands WHERE game_id=games.id) FROM games ORDER BY id"):
                engine = self._engines.get(gid) or self._finished.get(gid)
                if engine is None and summary is not None:
                    line = json.loads(summary)
                    out.append({"id": gid, "game": game, "players": line["players"], "created": created,
                                "seq": line["seq"], "phase": line["phase"], "over": bool(over),
                                "winners": line.get("winners"), "last": last})  # None: an older file
                    continue
                engine = engine or self.engine(gid)
                state = engine.state()
                out.append({"id": gid, "game": state["game"], "players": [p["name"] for p in state["players"]],
                            "created": created, "seq": engine.seq, "phase": state["phase"],
                            "over": engine.is_over(), "winners": state.get("winners") or [], "last": last})
            return out

    def records(self, game_id: int) -> list[Record]:
        with self._lock:
            if not _storable(game_id) or not self._query("SELECT 1 FROM games WHERE id=?", (game_id,)):
                raise self._unknown(game_id)
            rows = self._query("SELECT seq, time, source, command FROM commands WHERE game_id=? ORDER BY seq",
                               (game_id,))
        return [Record(game_id, seq, t, src, json.loads(cmd)) for seq, t, src, cmd in rows]

    def export_jsonl(self, game_id: int) -> str:
        return "".join(json.dumps(r.command, ensure_ascii=False) + "\n" for r in self.records(game_id))

    # --- writing ---------------------------------------------------------------------

    def _writable(self) -> None:
        if self.readonly:
            raise GameLogError(f"the game log {self.path} was opened read-only")

    def apply(self, game_id: int | None, command: Any, source: str) -> Applied:
        """Validate and apply one command, then commit it; a `new_game` starts a new game record.

        The Table passes the Command its edge parsed, stored as `cmd.to_dict()`; a dict (scripts,
        tests) is parsed here and stored as given."""
        cmd = parse_command(command)  # a no-op for a Command
        raw = command if isinstance(command, dict) else cmd.to_dict()
        with self._lock:
            self._writable()
            if isinstance(cmd, NewGame):
                engine = Engine(cmd)
                gid, now = self._insert_game(cmd.game, [(raw, source)], engine)
                self._engines[gid] = engine
                return Applied(gid, 1, (Event.said("new_game", "New {game} game: {names}.",
                                                                  game={"zoo": "Zombie Zoo"}.get(cmd.game, "ZomBee"),
                                                                  names=", ".join(cmd.players)),), engine.state(), now)
            if game_id is None:
                raise IllegalCommand("no game is under way; start one with new_game")
            engine = self.engine(game_id)
            was_over = engine.is_over()
            events = engine.apply(cmd)
            self._engines[game_id] = self._finished.pop(game_id, engine)  # changed: stays in memory
            try:
                now = self._insert(game_id, engine.seq, raw, source, engine if engine.is_over() != was_over else None)
            except sqlite3.Error as exc:
                # The command was applied in memory but not stored: rebuild from what is on disk.
                del self._engines[game_id]
                self._keep(game_id, self._read(game_id))
                raise StoreError(f"could not store the command in {self.path}: {exc}") from None
            return Applied(game_id, engine.seq, tuple(events), engine.state(), now)

    def import_jsonl(self, lines: Iterable[str], source: str = "import") -> int:
        """Store a whole game log as a new game; refused whole (with its line) if any line is refused."""
        self._writable()
        engine, accepted = replay_lines(lines)
        with self._lock:
            gid, _ = self._insert_game(engine.new_game.game, [(c, source) for c in accepted], engine)
            self._keep(gid, engine)
        return gid

    def _insert_game(self, game: str, commands: list[tuple[dict, str]], engine: Engine) -> tuple[int, float]:
        """(the new game's id, the time stored with it)."""
        now = self._clock()
        try:
            with self._transaction():
                gid = self._db.execute("INSERT INTO games (game, created, over, summary) VALUES (?, ?, ?, ?)",
                                       (game, now, *self._status(engine))).lastrowid
                self._db.executemany(
                    "INSERT INTO commands VALUES (?, ?, ?, ?, ?)",
                    [(gid, seq, now, src, json.dumps(c, ensure_ascii=False)) for seq, (c, src) in enumerate(commands, 1)],
                )
        except sqlite3.Error as exc:
            raise StoreError(f"could not store the game in {self.path}: {exc}") from None
        return gid, now

    def _insert(self, game_id: int, seq: int, raw: dict, source: str, ended: Engine | None) -> float:
        """Store one command (the time stored is returned); when it ends (or undoes the end of) the game,
        say so in the same transaction."""
        now = self._clock()
        with self._transaction():
            self._db.execute("INSERT INTO commands VALUES (?, ?, ?, ?, ?)",
                             (game_id, seq, now, source, json.dumps(raw, ensure_ascii=False)))
            if ended is not None:
                self._db.execute("UPDATE games SET over=?, summary=? WHERE id=?", (*self._status(ended), game_id))
        return now

    def _transaction(self):
        return _Transaction(self._db)

    def close(self) -> None:
        with self._lock:
            self._db.close()
            self.closed = True

    def __enter__(self) -> "GameLog":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _storable(gid: Any) -> bool:
    """Whether gid can be a game id at all. SQLite's integers are 64-bit: a larger one typed as a
    game id (`replay --db F 99999999999999999999`, a phone's resume) raised OverflowError, a
    traceback on the command line and a dead engine thread behind the page."""
    return isinstance(gid, int) and -2**63 <= gid < 2**63


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on error (autocommit mode connection)."""

    def __init__(self, db: sqlite3.Connection):
        self.db = db

    def __enter__(self):
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type, *_):
        if not exc_type:
            self.db.execute("COMMIT")
        elif self.db.in_transaction:  # SQLite already rolled back after e.g. "disk is full"
            self.db.execute("ROLLBACK")
