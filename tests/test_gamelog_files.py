"""The game log's file: what opening it reads, writes and refuses; finished games read only when asked for."""

import hashlib
import json
import re
import sqlite3
import struct
import threading
from pathlib import Path

import pytest

from companion import logfile
from companion.errors import GameLogError, UnknownGame
from companion.gamelog import GameLog
from companion.simulate import random_zombee_game

NEW = {"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia"]}
ROLL = {"cmd": "roll", "faces": ["bee", "bee", "honey", "zzz", "zombee"]}


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def finished_game(seed=3):
    game = random_zombee_game(seed, players=2, variant="standard")
    return [json.dumps(c) for c in game]


def foreign(path):
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE recipes (name TEXT)")
    con.execute("INSERT INTO recipes VALUES ('soup')")
    con.commit()
    con.close()


def no_tables(path):
    con = sqlite3.connect(path)
    con.execute("PRAGMA user_version = 7")  # a valid SQLite file that holds no table
    con.close()


def text(path):
    path.write_text("shopping: bread, milk\n")


@pytest.mark.parametrize("make", [foreign, no_tables, text])
@pytest.mark.parametrize("readonly", [True, False])
def test_a_file_that_is_not_ours_is_refused_untouched(tmp_path, make, readonly):
    path = tmp_path / "other.db"
    make(path)
    before = digest(path)
    with pytest.raises(GameLogError, match="not a table companion game log") as info:
        GameLog(path, readonly=readonly)
    assert "\n" not in str(info.value)
    assert digest(path) == before  # not even switched to WAL
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.db"]


def test_reading_a_path_that_does_not_exist_creates_nothing(tmp_path):
    path = tmp_path / "sub" / "games.sqlite"
    with pytest.raises(GameLogError, match="there is no game log at"):
        GameLog(path, readonly=True)
    assert list(tmp_path.iterdir()) == []


def test_reading_never_changes_the_file(tmp_path):
    db = tmp_path / "g.sqlite"
    with GameLog(db) as log:
        gid = log.import_jsonl(finished_game())
        live = log.apply(None, NEW, "cli").game_id
    before = digest(db)
    with GameLog(db, readonly=True) as log:
        assert [g["id"] for g in log.games()] == [gid, live]
        assert log.engine(gid).is_over() and log.records(live)[0].command == NEW
        with pytest.raises(GameLogError, match="read-only"):
            log.apply(live, ROLL, "cli")
    assert digest(db) == before


def test_a_file_cut_short_is_one_line(tmp_path):
    db = tmp_path / "g.sqlite"
    with GameLog(db) as log:
        for seed in range(20):
            log.import_jsonl(finished_game(seed))
    data = db.read_bytes()
    db.write_bytes(data[: len(data) // 2])
    with pytest.raises(GameLogError, match="cut short") as info:
        GameLog(db, readonly=True)
    assert "\n" not in str(info.value)


def test_a_newer_format_is_refused_untouched(tmp_path):
    db = tmp_path / "g.sqlite"
    GameLog(db).close()
    con = sqlite3.connect(db)
    con.execute("UPDATE meta SET value='3' WHERE key='schema_version'")
    con.commit()
    con.close()
    before = digest(db)
    with pytest.raises(GameLogError, match="newer companion .*format 3"):
        GameLog(db)
    assert digest(db) == before


def test_opening_replays_only_the_games_under_way(tmp_path, monkeypatch):
    db = tmp_path / "g.sqlite"
    with GameLog(db) as log:
        done = [log.import_jsonl(finished_game(seed)) for seed in range(5)]
        live = log.apply(None, NEW, "cli").game_id
        log.apply(live, ROLL, "cli")
        final = log.engine(done[2]).state()
    replayed = []
    real = GameLog._replay
    monkeypatch.setattr(GameLog, "_replay", lambda self, gid, rows: replayed.append(gid) or real(self, gid, rows))
    with GameLog(db) as log:
        assert replayed == [live]
        assert [g["over"] for g in log.games()] == [True] * 5 + [False]  # listed without a replay
        assert replayed == [live]
        assert log.engine(done[2]).state() == final  # asked for: replayed now
        assert replayed == [live, done[2]]
        with pytest.raises(UnknownGame, match="games: 1-6$"):
            log.engine(99)


def test_undoing_the_last_move_reopens_a_finished_game(tmp_path):
    db = tmp_path / "g.sqlite"
    with GameLog(db) as log:
        gid = log.import_jsonl(finished_game())
        log.apply(gid, {"cmd": "undo"}, "web")
        assert not log.engine(gid).is_over()
    with GameLog(db) as log:
        assert not log.engine(gid).is_over()
        assert log.games()[0]["over"] is False


def test_a_format_1_file_is_upgraded_once_by_a_writer_and_read_as_it_is(tmp_path):
    db = tmp_path / "g.sqlite"
    with GameLog(db) as log:
        done = log.import_jsonl(finished_game())
        live = log.apply(None, NEW, "cli").game_id
        listing = log.games()
    con = sqlite3.connect(db)  # what the companion before format 2 wrote
    con.executescript("DROP INDEX games_not_over; ALTER TABLE games DROP COLUMN over; "
                      "ALTER TABLE games DROP COLUMN summary; UPDATE meta SET value='1' WHERE key='schema_version';")
    con.close()
    before = digest(db)
    with GameLog(db, readonly=True) as log:
        assert log.games() == listing
    assert digest(db) == before
    with GameLog(db) as log:
        assert log.games() == listing
    con = sqlite3.connect(db)
    assert con.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone() == ("2",)
    assert con.execute("SELECT id, over FROM games ORDER BY id").fetchall() == [(done, 1), (live, 0)]
    con.close()


def test_a_writer_cannot_create_a_log_where_a_folder_cannot_be(tmp_path):
    blocker = tmp_path / "afile"
    blocker.write_text("x")
    with pytest.raises(GameLogError, match="cannot create the game log .* is a file, not a folder"):
        GameLog(blocker / "g.sqlite")
    with pytest.raises(GameLogError, match="cannot create the game log"):
        GameLog("/proc/nonexistent/g.sqlite")


def test_a_writer_makes_only_the_default_data_folder(tmp_path, monkeypatch):
    from companion.paths import default_db_path

    # A typo in a given path made the missing folders and started an empty log there
    with pytest.raises(GameLogError, match=re.escape(f"the folder {tmp_path / 'typo' / 'dir'} does not exist")):
        GameLog(tmp_path / "typo" / "dir" / "g.sqlite")
    assert not (tmp_path / "typo").exists()
    # The companion's own data folder is made on first use, as it always was
    monkeypatch.delenv("COMPANION_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg" / "share"))
    with GameLog(default_db_path()) as log:
        assert log.path == tmp_path / "xdg" / "share" / "table-companion" / "games.sqlite" and log.path.exists()


def test_a_final_move_that_cannot_be_stored_leaves_the_game_under_way(tmp_path, monkeypatch):
    db = tmp_path / "g.sqlite"
    lines = finished_game()
    with GameLog(db) as log:
        gid = log.import_jsonl(lines[:-1])  # one move before the end
        real = log._db

        class FullDisk:
            def execute(self, sql, *args):
                if sql.startswith("INSERT INTO commands"):
                    raise sqlite3.OperationalError("database or disk is full")
                return real.execute(sql, *args)

            def __getattr__(self, name):
                return getattr(real, name)

        monkeypatch.setattr(log, "_db", FullDisk())
        with pytest.raises(GameLogError, match="could not store"):
            log.apply(gid, json.loads(lines[-1]), "panel")
        monkeypatch.setattr(log, "_db", real)
        assert not log.engine(gid).is_over()  # rebuilt from the file, not left as applied in memory
    with GameLog(db) as log:
        assert not log.engine(gid).is_over() and log.games()[0]["over"] is False
        log.apply(gid, json.loads(lines[-1]), "panel")
        assert log.engine(gid).is_over()
    with GameLog(db, readonly=True) as log:
        assert log.games()[0]["over"] is True


def live_settings(log: GameLog) -> tuple[str, int]:
    """(journal_mode, synchronous) of the writer's own connection, as SQLite itself reports them."""
    return (log._db.execute("PRAGMA journal_mode").fetchone()[0],
            log._db.execute("PRAGMA synchronous").fetchone()[0])


@pytest.mark.parametrize("existing", [False, True])
def test_a_power_cut_keeps_every_commit_the_writer_runs_write_ahead_with_a_sync_per_commit(tmp_path, existing):
    """WAL with synchronous=FULL (2) makes SQLite fsync the write-ahead log at every COMMIT, so a
    command is on the card when apply() returns; NORMAL (1) syncs only at checkpoints and lost a third
    of the acknowledged commands in a power-cut simulator, OFF (0) lost them all."""
    path = tmp_path / "g.sqlite"
    if existing:
        GameLog(path).close()
    with GameLog(path) as log:
        assert live_settings(log) == ("wal", 2)
        log.apply(None, NEW, "test")
        assert live_settings(log) == ("wal", 2)  # not a setting of the first statement only


# --- what the byte checks and the connection promise ----------------------------------------------------


def test_an_empty_file_beside_an_empty_write_ahead_log_is_refused(tmp_path):
    path = tmp_path / "g.sqlite"
    path.write_bytes(b"")
    (tmp_path / "g.sqlite-wal").write_bytes(b"")
    with pytest.raises(GameLogError, match="is an empty file"):
        GameLog(path, readonly=True)


def test_a_big_endian_write_ahead_log_is_whole_not_damaged(tmp_path):
    """SQLite on a big-endian machine writes the other magic number, with big-endian checksums."""
    path = tmp_path / "g.sqlite"
    head = struct.pack(">2I4I", logfile.WAL_MAGIC[1], 3007000, 4096, 0, 11, 22)
    head += struct.pack(">2I", *logfile._wal_checksum(head, True))
    Path(f"{path}-wal").write_bytes(head)
    assert logfile.keep_damaged_wal(path, lambda: 0.0) is None
    Path(f"{path}-wal").write_bytes(head[:-1] + bytes([head[-1] ^ 1]))
    assert logfile.keep_damaged_wal(path, lambda: 0.0) is not None


def test_a_log_with_64_kib_pages_opens_whole_and_is_refused_cut_short(tmp_path):
    path = tmp_path / "g.sqlite"
    with GameLog(path) as log:
        log.apply(None, NEW, "test")
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=DELETE")
    db.execute("PRAGMA page_size=65536")
    db.execute("VACUUM")
    db.close()
    assert path.read_bytes()[16:18] == b"\x00\x01"  # SQLite writes 65536 as 1
    with GameLog(path, readonly=True) as log:
        assert len(log.games()) == 1
    path.write_bytes(path.read_bytes()[:-100])
    with pytest.raises(GameLogError, match="is cut short"):
        GameLog(path, readonly=True)


def test_a_reader_in_a_folder_it_cannot_write_sees_the_moves_still_in_the_write_ahead_log(tmp_path, monkeypatch):
    path = tmp_path / "g.sqlite"
    writer = GameLog(path)
    try:
        gid = writer.apply(None, NEW, "test").game_id
        writer.apply(gid, ROLL, "test")
        monkeypatch.setattr(logfile.os, "access", lambda p, mode: False)  # as a folder we may not write
        with GameLog(path, readonly=True) as reader:
            assert len(reader.records(gid)) == 2
    finally:
        writer.close()
    with GameLog(path, readonly=True) as reader:  # the writer checkpointed: read as the file lies
        assert len(reader.records(gid)) == 2


def test_the_log_answers_from_any_thread(tmp_path):
    """The engine thread writes, the web's threads read: one connection serves them all."""
    with GameLog(tmp_path / "g.sqlite") as log:
        out = []
        reader = threading.Thread(target=lambda: out.append(log.apply(None, NEW, "test").game_id))
        reader.start()
        reader.join(30)
        assert out and len(log.records(out[0])) == 1


def test_integrity_problems_are_one_line_the_first_and_how_many_more():
    assert logfile._problems([("row 3  missing\nfrom index",)]) == "row 3 missing from index"
    assert logfile._problems([("a", 1), ("b", 2), ("c", 3)]) == "a (and 2 more problems)"


@pytest.mark.parametrize("version", ["x", "0", "-1", ""])
def test_a_meta_table_without_a_game_log_format_is_not_a_game_log(tmp_path, version):
    path = tmp_path / "g.sqlite"
    GameLog(path).close()
    db = sqlite3.connect(path)
    db.execute("UPDATE meta SET value=? WHERE key='schema_version'", (version,))
    db.commit()
    db.close()
    with pytest.raises(GameLogError, match="no game log format"):
        GameLog(path, readonly=True)


def test_a_log_is_created_where_the_file_system_has_no_hard_links(tmp_path, monkeypatch):
    def no_links(src, dst):
        raise OSError(1, "Operation not permitted")

    monkeypatch.setattr(logfile.os, "link", no_links)
    with GameLog(tmp_path / "g.sqlite") as log:
        log.apply(None, NEW, "test")
    assert [p.name for p in tmp_path.iterdir() if not p.name.startswith("g.sqlite")] == []


def test_a_reader_opened_before_a_writer_sees_the_moves_made_since(tmp_path):
    """`companion replay` or the statistics, left open while a game is played, read the new moves."""
    path = tmp_path / "g.sqlite"
    with GameLog(path) as log:
        gid = log.apply(None, NEW, "test").game_id
    with GameLog(path, readonly=True) as reader:
        assert len(reader.records(gid)) == 1
        with GameLog(path) as writer:
            writer.apply(gid, ROLL, "test")
            assert len(reader.records(gid)) == 2


def test_the_listing_after_reopening_names_the_winners_and_a_game_under_way_has_none_yet(tmp_path):
    path = tmp_path / "g.sqlite"
    with GameLog(path) as log:
        done = log.import_jsonl(finished_game())
        winners = log.engine(done).state()["winners"]
        under_way = log.apply(None, NEW, "test").game_id
        assert [g["winners"] for g in log.games()] == [winners, []]  # from the games in memory
    assert winners
    with GameLog(path) as log:  # the finished game is listed from its summary, not replayed
        listed = {g["id"]: g for g in log.games()}
        assert (listed[done]["over"], listed[done]["winners"]) == (True, winners)
        assert (listed[under_way]["over"], listed[under_way]["winners"]) == (False, [])


def test_game_ids_of_a_long_used_table_are_found(tmp_path):
    path = tmp_path / "g.sqlite"
    GameLog(path).close()
    db = sqlite3.connect(path)
    db.execute("INSERT INTO sqlite_sequence (name, seq) VALUES ('games', 4999)")
    db.commit()
    db.close()
    with GameLog(path) as log:
        gid = log.apply(None, NEW, "test").game_id
        assert gid == 5000 and log.engine(gid).seq == 1 and len(log.records(gid)) == 1
