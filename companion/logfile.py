"""The game log's SQLite file: checked before it is touched, opened read-only to read, created whole.

Everything here runs before a game is replayed. A file that is not ours (a text
file, another program's database, an SQLite file with no tables), a file cut
short, or one written by a newer companion is refused with one line and left
exactly as it was: the checks read the header and then use a `mode=ro`
connection, and only a writer that passed them switches the file to WAL.
"""

from __future__ import annotations

import os
import secrets
import shutil
import sqlite3
import struct
import time
import urllib.parse
from pathlib import Path
from typing import Callable

from .errors import GameLogError
from .files import sync_folder
from .paths import data_dir

# Format 1: meta, games(id, game, created), commands. Format 2 adds to each game whether it is
# over (NULL: not known yet, as after the upgrade from 1) and, once it is, a summary for the
# listing, so opening replays only the games still under way.
SCHEMA_VERSION = 2
SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game TEXT NOT NULL,
    created REAL NOT NULL,
    over INTEGER,
    summary TEXT
);
CREATE TABLE commands (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    time REAL NOT NULL,
    source TEXT NOT NULL,
    command TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE INDEX games_not_over ON games(id) WHERE over IS NOT 1;
"""
UPGRADE_FROM_1 = (
    "ALTER TABLE games ADD COLUMN over INTEGER",
    "ALTER TABLE games ADD COLUMN summary TEXT",
    "CREATE INDEX games_not_over ON games(id) WHERE over IS NOT 1",
    "UPDATE meta SET value = '2' WHERE key = 'schema_version'",
)
SQLITE_MAGIC = b"SQLite format 3\x00"


def _wal_holds_data(path: Path) -> bool:
    try:
        return Path(f"{path}-wal").stat().st_size > 0
    except OSError:
        return False


WAL_MAGIC = (0x377F0682, 0x377F0683)  # SQLite's write-ahead log: checksums little- or big-endian
WAL_HEADER = 32


def _wal_checksum(data: bytes, big_endian: bool) -> tuple[int, int]:
    """SQLite's WAL checksum of data (a multiple of 8 bytes), as its file format gives it."""
    s0 = s1 = 0
    words = struct.unpack(f"{'>' if big_endian else '<'}{len(data) // 4}I", data)
    for x0, x1 in zip(words[0::2], words[1::2]):
        s0 = (s0 + x0 + s1) & 0xFFFFFFFF
        s1 = (s1 + x1 + s0) & 0xFFFFFFFF
    return s0, s1


def keep_damaged_wal(path: Path, clock: Callable[[], float]) -> Path | None:
    """A copy of the write-ahead log beside the game log when its header does not check out, made
    before SQLite opens the log (the copy's path; None when it is whole or absent). SQLite takes such
    a file for empty: the moves in it vanished without a word, and the next clean stop deleted it."""
    wal = Path(f"{path}-wal")
    try:
        with open(wal, "rb") as fh:
            header = fh.read(WAL_HEADER)
    except OSError:
        return None
    if len(header) < WAL_HEADER:
        return None  # shorter than a header, SQLite's own "nothing in it"
    magic, version = struct.unpack(">2I", header[:8])
    whole = magic in WAL_MAGIC and version == 3007000 and \
        _wal_checksum(header[:24], bool(magic & 1)) == struct.unpack(">2I", header[24:32])
    if whole:
        return None
    copy = wal.with_name(f"{wal.name}.damaged-{time.strftime('%Y%m%d-%H%M%S', time.localtime(clock()))}")
    shutil.copy2(wal, copy)
    return copy


def _check_bytes(path: Path) -> None:
    """What the file's first 100 bytes and its size say, before SQLite sees it."""
    if path.is_dir():
        raise GameLogError(f"{path} is a folder, not a game log")
    try:
        size = path.stat().st_size
        with open(path, "rb") as fh:
            header = fh.read(100)
    except OSError as exc:
        raise GameLogError(f"cannot read the game log {path}: {exc.strerror or exc}") from None
    if size == 0:
        if _wal_holds_data(path):
            return  # everything is still in the write-ahead log; SQLite reads it from there
        raise GameLogError(f"{path} is an empty file, not a game log (a torn write?); move it away to start afresh")
    if not header.startswith(SQLITE_MAGIC):
        raise GameLogError(f"{path} is not a table companion game log: it is not an SQLite database "
                           "(or its first bytes are damaged)")
    if len(header) < 100:
        raise GameLogError(f"the game log {path} is cut short: {size} bytes, less than an SQLite header")
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    # The page count in the header is only trusted when it was written with the change counter,
    # and only the main file is measured: pages still in the write-ahead log are not in it yet.
    trusted = header[92:96] == header[24:28] and pages > 0
    if trusted and not _wal_holds_data(path) and size < pages * page_size:
        raise GameLogError(f"the game log {path} is cut short: {size:,} bytes of the {pages * page_size:,} "
                           "its header promises (an unfinished copy or a damaged card?)")


def _connect(path: Path, mode: str) -> sqlite3.Connection:
    uri = f"file:{urllib.parse.quote(str(path.absolute()))}?mode={mode}"
    if mode == "ro" and not os.access(path.parent, os.W_OK) and not _wal_holds_data(path):
        # SQLite reads a WAL file through a -shm file it cannot make in a folder we may not write to.
        # With no write-ahead log there is no writer, and the file can be read as it lies.
        uri += "&immutable=1"
    try:
        return sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)
    except sqlite3.Error as exc:
        raise GameLogError(f"cannot open the game log {path}: {exc}") from None


def _problems(rows: list[tuple]) -> str:
    """Integrity check rows as one line: the first problem and how many more there are."""
    first = " ".join(str(rows[0][0]).split())
    return first if len(rows) == 1 else f"{first} (and {len(rows) - 1} more problems)"


def _inspect(db: sqlite3.Connection, path: Path) -> int:
    """The format of a file that passed the byte checks; refuses anything that is not a game log."""
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if not tables:
        raise GameLogError(f"{path} is an SQLite database with no tables, not a table companion game log; "
                           "it was left as it was")
    if "meta" not in tables:
        raise GameLogError(f"{path} is an SQLite database but not a table companion game log "
                           f"(it holds {', '.join(sorted(tables))})")
    row = db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    if row is None or not str(row[0]).isdigit() or int(row[0]) < 1:
        raise GameLogError(f"{path} is an SQLite database but not a table companion game log (no game log format)")
    version = int(row[0])
    if version > SCHEMA_VERSION:
        raise GameLogError(f"{path} was written by a newer companion (game log format {version}; this one reads "
                           f"formats 1 to {SCHEMA_VERSION}); update the companion to open it")
    missing = {"games", "commands"} - tables
    if missing:
        raise GameLogError(f"the game log {path} is damaged: table {', '.join(sorted(missing))} is missing")
    # Only the small tables are checked whole: the commands of a game are checked when they are read,
    # so opening costs the same with ten games or ten thousand.
    for table in ("meta", "games"):
        rows = db.execute(f"PRAGMA quick_check({table})").fetchall()
        if rows != [("ok",)]:
            raise GameLogError(f"the game log {path} is damaged: {_problems(rows)}")
    return version


def make_folder(path: Path) -> None:
    """The folder the game log at `path` goes in. Only the companion's own data folder is made (on first
    use): any other must exist already, as a typo in --db would start an empty log somewhere unexpected."""
    folder = path.parent
    if folder.is_dir():
        return
    if folder.exists():
        raise GameLogError(f"cannot create the game log {path}: {folder} is a file, not a folder")
    if folder.absolute() != data_dir().absolute():
        raise GameLogError(f"cannot create the game log {path}: the folder {folder} does not exist; "
                           "check the path, or make the folder first")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise GameLogError(f"cannot create the game log {path}: {folder} is a file, not a folder") from None
    except OSError as exc:
        raise GameLogError(f"cannot create the game log {path}: {exc.strerror or exc} "
                           f"({exc.filename or folder})") from None


def _create(path: Path) -> None:
    """A new, empty game log at `path`, made aside and linked into place whole."""
    make_folder(path)
    # Made under another name and linked into place whole, so the path never holds half a log.
    tmp = path.parent / f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.new"
    try:
        db = sqlite3.connect(tmp, isolation_level=None)
        try:
            db.executescript(f"BEGIN; {SCHEMA} INSERT INTO meta VALUES ('schema_version', '{SCHEMA_VERSION}'); COMMIT;")
            db.execute("PRAGMA journal_mode=WAL")
        finally:
            db.close()
        try:
            os.link(tmp, path)  # never over a log another process made meanwhile
        except FileExistsError:
            pass
        except OSError:
            if not path.exists():  # a file system without hard links (FAT)
                os.replace(tmp, path)
        sync_folder(path.parent)  # the new name on the card too, before a command goes into it
    except (OSError, sqlite3.Error) as exc:
        raise GameLogError(f"cannot create the game log {path}: {getattr(exc, 'strerror', None) or exc}") from None
    finally:
        for leftover in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm"), Path(f"{tmp}-journal")):
            try:
                leftover.unlink()
            except OSError:
                pass


def _upgrade(db: sqlite3.Connection) -> None:
    """Format 1 to 2 in one transaction (a writer that got there first has done it already)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        if db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0] == "1":
            for statement in UPGRADE_FROM_1:
                db.execute(statement)
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def open_file(path: Path, *, readonly: bool) -> tuple[sqlite3.Connection, int]:
    """A connection to the game log at `path` and its format, after every check.

    Read-only: the file must exist and is only ever opened with `mode=ro`. A writer
    creates a missing file; an existing one is checked read-only first, then opened
    for writing, put in WAL mode and upgraded to the current format.
    """
    if not path.exists():
        if readonly:
            raise GameLogError(f"there is no game log at {path} (`companion run`, `serve` or `log import` makes one)")
        _create(path)
    _check_bytes(path)
    db = _connect(path, "ro")
    try:
        version = _inspect(db, path)
        if readonly:
            return db, version
    except sqlite3.DatabaseError as exc:
        db.close()
        raise GameLogError(f"the game log {path} is damaged or not a database: {exc}") from None
    except BaseException:
        db.close()
        raise
    db.close()
    db = _connect(path, "rw")
    try:
        db.execute("PRAGMA journal_mode=WAL")
        # FULL: each acknowledged command is on the card before we say so, even if the power goes.
        db.execute("PRAGMA synchronous=FULL")
        if version == 1:
            _upgrade(db)
            version = SCHEMA_VERSION
    except sqlite3.Error as exc:
        db.close()
        raise GameLogError(f"cannot write to the game log {path}: {exc}") from None
    return db, version
