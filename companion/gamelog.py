"""The game log on disk: every accepted command, in SQLite, committed before it is acknowledged.

The history is append-only (an undo is logged like any command), so opening the
database rebuilds every game's state by replaying it, and a power cut can lose
at most a command that was never acknowledged.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from .commands import NewGame, parse_command
from .engine import Engine
from .errors import CompanionError, GameLogError, IllegalCommand, StoreError, UnknownGame
from .events import Event
from .replay import replay_lines

SCHEMA_VERSION = "1"
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS commands (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    time REAL NOT NULL,
    source TEXT NOT NULL,
    command TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
"""


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


class GameLog:
    """All games of one SQLite file, each rebuilt in memory by replay at open."""

    def __init__(self, path: str | os.PathLike, *, clock: Callable[[], float] = time.time):
        self.path = Path(path)
        self._clock = clock
        self._lock = threading.RLock()
        self._engines: dict[int, Engine] = {}
        self._db = self._connect()
        try:
            self._replay_all()
        except BaseException:
            self._db.close()
            raise

    # --- opening -----------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        existed = self.path.exists()
        if existed and self.path.stat().st_size == 0 and not Path(f"{self.path}-wal").exists():
            raise GameLogError(f"{self.path} is an empty file, not a game log (a torn write?); move it away to start afresh")
        if not existed:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        except sqlite3.Error as exc:
            raise GameLogError(f"cannot open the game log {self.path}: {exc}") from None
        try:
            db.execute("PRAGMA journal_mode=WAL")
            # FULL: each acknowledged command is on the card before we say so, even if the power goes.
            db.execute("PRAGMA synchronous=FULL")
            check = db.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise GameLogError(f"the game log {self.path} is damaged: {check}")
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if existed and tables and "meta" not in tables:
                raise GameLogError(f"{self.path} is an SQLite database but not a table companion game log")
            db.executescript(SCHEMA)
            version = db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
            if version is None:
                db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (SCHEMA_VERSION,))
            elif version[0] != SCHEMA_VERSION:
                raise GameLogError(f"{self.path} has game log format {version[0]}; this companion reads {SCHEMA_VERSION}")
        except sqlite3.DatabaseError as exc:
            db.close()
            raise GameLogError(f"the game log {self.path} is damaged or not a database: {exc}") from None
        except BaseException:
            db.close()
            raise
        return db

    def _replay_all(self) -> None:
        try:
            games = self._db.execute("SELECT id FROM games ORDER BY id").fetchall()
            rows = self._db.execute("SELECT game_id, seq, command FROM commands ORDER BY game_id, seq").fetchall()
        except sqlite3.DatabaseError as exc:
            raise GameLogError(f"the game log {self.path} is damaged: {exc}") from None
        by_game: dict[int, list[tuple[int, str]]] = {gid: [] for (gid,) in games}
        for gid, seq, text in rows:
            by_game.setdefault(gid, []).append((seq, text))
        for gid, commands in by_game.items():
            if [seq for seq, _ in commands] != list(range(1, len(commands) + 1)):
                raise GameLogError(f"game {gid} in {self.path} has missing commands (sequence numbers are not 1..n)")
            try:
                engine, _ = replay_lines(text for _, text in commands)
            except CompanionError as exc:
                raise GameLogError(f"game {gid} in {self.path} cannot be replayed: {exc}") from None
            self._engines[gid] = engine

    # --- reading ---------------------------------------------------------------------

    def game_ids(self) -> list[int]:
        with self._lock:
            return sorted(self._engines)

    def latest_id(self) -> int | None:
        ids = self.game_ids()
        return ids[-1] if ids else None

    def engine(self, game_id: int) -> Engine:
        with self._lock:
            try:
                return self._engines[game_id]
            except KeyError:
                known = ", ".join(map(str, sorted(self._engines))) or "none yet"
                raise UnknownGame(f"no game {game_id!r} in {self.path}; games: {known}") from None

    def games(self) -> list[dict[str, Any]]:
        """A line per game: id, game, players, created, commands so far, phase."""
        with self._lock:
            created = dict(self._db.execute("SELECT id, created FROM games").fetchall())
            out = []
            for gid, engine in sorted(self._engines.items()):
                state = engine.state()
                out.append({"id": gid, "game": state["game"], "players": [p["name"] for p in state["players"]],
                            "created": created.get(gid), "seq": engine.seq, "phase": state["phase"],
                            "over": engine.is_over()})
            return out

    def records(self, game_id: int) -> list[Record]:
        self.engine(game_id)
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, time, source, command FROM commands WHERE game_id=? ORDER BY seq", (game_id,)
            ).fetchall()
        return [Record(game_id, seq, t, src, json.loads(cmd)) for seq, t, src, cmd in rows]

    def export_jsonl(self, game_id: int) -> str:
        return "".join(json.dumps(r.command, ensure_ascii=False) + "\n" for r in self.records(game_id))

    # --- writing ---------------------------------------------------------------------

    def apply(self, game_id: int | None, command: Any, source: str) -> Applied:
        """Validate and apply one command, then commit it; a `new_game` starts a new game record.

        The Table passes the Command its edge parsed, stored as `cmd.to_dict()`; a dict (scripts,
        tests) is parsed here and stored as given."""
        cmd = parse_command(command)  # a no-op for a Command
        raw = command if isinstance(command, dict) else cmd.to_dict()
        with self._lock:
            if isinstance(cmd, NewGame):
                engine = Engine(cmd)
                gid = self._insert_game(cmd.game, [(raw, source)])
                self._engines[gid] = engine
                return Applied(gid, 1, (Event("new_game", f"New {cmd.game} game: {', '.join(cmd.players)}."),), engine.state())
            if game_id is None:
                raise IllegalCommand("no game is under way; start one with new_game")
            engine = self.engine(game_id)
            events = engine.apply(cmd)
            try:
                self._insert(game_id, engine.seq, raw, source)
            except sqlite3.Error as exc:
                # The command was applied in memory but not stored: rebuild from what is on disk.
                self._engines[game_id], _ = replay_lines(json.dumps(r.command) for r in self.records(game_id))
                raise StoreError(f"could not store the command in {self.path}: {exc}") from None
            return Applied(game_id, engine.seq, tuple(events), engine.state())

    def import_jsonl(self, lines: Iterable[str], source: str = "import") -> int:
        """Store a whole game log as a new game; refused whole (with its line) if any line is refused."""
        engine, accepted = replay_lines(lines)
        with self._lock:
            gid = self._insert_game(engine.new_game.game, [(c, source) for c in accepted])
            self._engines[gid] = engine
        return gid

    def _insert_game(self, game: str, commands: list[tuple[dict, str]]) -> int:
        now = self._clock()
        try:
            with self._transaction():
                gid = self._db.execute("INSERT INTO games (game, created) VALUES (?, ?)", (game, now)).lastrowid
                self._db.executemany(
                    "INSERT INTO commands VALUES (?, ?, ?, ?, ?)",
                    [(gid, seq, now, src, json.dumps(c, ensure_ascii=False)) for seq, (c, src) in enumerate(commands, 1)],
                )
        except sqlite3.Error as exc:
            raise StoreError(f"could not store the game in {self.path}: {exc}") from None
        return gid

    def _insert(self, game_id: int, seq: int, raw: dict, source: str) -> None:
        with self._transaction():
            self._db.execute("INSERT INTO commands VALUES (?, ?, ?, ?, ?)",
                             (game_id, seq, self._clock(), source, json.dumps(raw, ensure_ascii=False)))

    def _transaction(self):
        return _Transaction(self._db)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> "GameLog":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


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
