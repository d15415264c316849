import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from companion.errors import GameLogError, IllegalCommand, UnknownGame
from companion.gamelog import GameLog
from companion.replay import RefusedLine
from companion.simulate import random_zombee_game

NEW = {"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia", "Ann"]}
FIRST_ROLL = {"cmd": "roll", "faces": ["bee", "bee", "honey", "zzz", "zombee"]}


@pytest.fixture
def db(tmp_path):
    return tmp_path / "games.sqlite"


def test_accepted_commands_survive_reopening(db):
    with GameLog(db) as log:
        applied = log.apply(None, NEW, "cli")
        log.apply(applied.game_id, FIRST_ROLL, "camera")
        log.apply(applied.game_id, {"cmd": "stop"}, "panel")
        before = log.engine(applied.game_id).state()
    with GameLog(db) as log:
        assert log.engine(applied.game_id).state() == before
        assert [r.source for r in log.records(applied.game_id)] == ["cli", "camera", "panel"]
        assert [r.seq for r in log.records(applied.game_id)] == [1, 2, 3]


def test_refused_command_is_not_stored(db):
    with GameLog(db) as log:
        gid = log.apply(None, NEW, "cli").game_id
        with pytest.raises(IllegalCommand, match="not rolled yet"):
            log.apply(gid, {"cmd": "stop"}, "panel")
    with GameLog(db) as log:
        assert len(log.records(gid)) == 1
        assert log.engine(gid).seq == 1


def test_undo_is_logged_and_history_never_rewritten(db):
    with GameLog(db) as log:
        gid = log.apply(None, NEW, "cli").game_id
        log.apply(gid, FIRST_ROLL, "cli")
        log.apply(gid, {"cmd": "undo"}, "web")
        assert log.engine(gid).state()["rolls"] == 0
    with GameLog(db) as log:
        assert [r.command["cmd"] for r in log.records(gid)] == ["new_game", "roll", "undo"]
        assert log.engine(gid).state()["rolls"] == 0


def test_new_game_starts_a_new_record_and_the_old_one_stays(db):
    with GameLog(db) as log:
        first = log.apply(None, NEW, "cli").game_id
        log.apply(first, FIRST_ROLL, "cli")
        second = log.apply(first, {**NEW, "players": ["A", "B"]}, "web").game_id
        assert second != first
        assert [g["id"] for g in log.games()] == [first, second]
        assert log.engine(first).state()["rolls"] == 1
        assert log.latest_id() == second


def test_import_then_export_gives_the_same_commands(db, tmp_path):
    commands = random_zombee_game(7, players=4)
    text = "".join(json.dumps(c) + "\n" for c in commands)
    with GameLog(db) as log:
        gid = log.import_jsonl(text.splitlines())
        exported = [json.loads(line) for line in log.export_jsonl(gid).splitlines()]
    assert exported == commands


def test_import_keeps_commands_as_given_even_with_defaults_left_out(db):
    lines = [json.dumps({"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"]}),
             json.dumps({"cmd": "kill", "player": "Ann"})]
    with GameLog(db) as log:
        gid = log.import_jsonl(lines)
        assert log.export_jsonl(gid).splitlines() == lines


def test_import_is_refused_whole_with_its_line(db):
    lines = [json.dumps(NEW), "", json.dumps(FIRST_ROLL), json.dumps({"cmd": "flip", "result": "bee"})]
    with GameLog(db) as log:
        with pytest.raises(RefusedLine) as info:
            log.import_jsonl(lines)
        assert info.value.line == 4
        assert log.games() == []


def test_unknown_game_id_names_the_known_ones(db):
    with GameLog(db) as log:
        log.apply(None, NEW, "cli")
        with pytest.raises(UnknownGame, match="games: 1"):
            log.engine(42)


def test_commands_need_a_game(db):
    with GameLog(db) as log:
        with pytest.raises(IllegalCommand, match="no game is under way"):
            log.apply(None, FIRST_ROLL, "cli")


def test_corrupt_file_is_a_clear_error_not_an_empty_game(db):
    with GameLog(db) as log:
        log.apply(None, NEW, "cli")
    data = bytearray(db.read_bytes())
    data[:100] = b"\x00" * 100  # header gone, as after a torn write
    db.write_bytes(bytes(data))
    with pytest.raises(GameLogError, match="damaged|not a database"):
        GameLog(db)


def test_truncated_file_is_refused(db):
    db.write_bytes(b"")
    with pytest.raises(GameLogError, match="empty file"):
        GameLog(db)


def test_foreign_sqlite_database_is_refused(db):
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE recipes (name TEXT)")
    con.commit()
    con.close()
    with pytest.raises(GameLogError, match="not a table companion game log"):
        GameLog(db)


def test_a_stored_command_the_rules_refuse_is_reported_with_its_game(db):
    with GameLog(db) as log:
        gid = log.apply(None, NEW, "cli").game_id
    con = sqlite3.connect(db)
    con.execute("INSERT INTO commands VALUES (?, 2, 0, 'cli', ?)", (gid, json.dumps({"cmd": "stop"})))
    con.commit()
    con.close()
    with pytest.raises(GameLogError, match=f"game {gid} .* cannot be replayed: line 2"):
        GameLog(db)


def test_a_gap_in_the_sequence_is_reported(db):
    with GameLog(db) as log:
        gid = log.apply(None, NEW, "cli").game_id
        log.apply(gid, FIRST_ROLL, "cli")
        log.apply(gid, {"cmd": "stop"}, "cli")
    con = sqlite3.connect(db)
    con.execute("DELETE FROM commands WHERE seq = 2")
    con.commit()
    con.close()
    with pytest.raises(GameLogError, match="missing commands"):
        GameLog(db)


def test_times_come_from_the_injected_clock(db):
    ticks = iter([100.0, 101.5, 103.0])
    with GameLog(db, clock=lambda: next(ticks)) as log:
        gid = log.apply(None, NEW, "cli").game_id
        log.apply(gid, FIRST_ROLL, "cli")
        assert [r.time for r in log.records(gid)] == [100.0, 101.5]


def _cut_power(db, to):
    """The log's files as a power cut leaves them, copied to `to` while the log is still open: the
    moves since the last checkpoint are only in the write-ahead file."""
    for suffix in ("", "-wal"):
        shutil.copyfile(f"{db}{suffix}", f"{to}{suffix}")


def test_a_damaged_write_ahead_file_is_copied_before_sqlite_takes_it_for_empty(db, tmp_path):
    # SQLite read such a file as empty: the game vanished without a word, and a clean stop deleted it
    cut = tmp_path / "cut.sqlite"
    with GameLog(db) as log:
        gid = log.apply(None, NEW, "cli").game_id
        log.apply(gid, FIRST_ROLL, "cli")
        _cut_power(db, cut)
    with GameLog(cut) as log:  # whole: the moves come back, nothing is copied
        assert log.kept_aside is None and log.engine(gid).state()["rolls"] == 1
    with GameLog(db) as log:
        log.apply(gid, {"cmd": "stop"}, "cli")
        _cut_power(db, cut)
    wal = Path(f"{cut}-wal")
    damaged = bytearray(wal.read_bytes())
    damaged[16:24] = b"XXXXXXXX"  # the header's salts: its checksum no longer holds
    wal.write_bytes(bytes(damaged))
    with GameLog(cut, clock=lambda: 0.0) as log:
        assert log.kept_aside is not None and log.kept_aside.read_bytes() == bytes(damaged)
        assert log.kept_aside.name.startswith("cut.sqlite-wal.damaged-")


# --- what a reader of the log, the file or the export sees ----------------------------------------------


@pytest.mark.parametrize("gid", [2**63, -2**63 - 1, 2**63 - 1, -2**63, 10**30, "1"])
def test_any_game_id_out_of_sqlites_range_or_not_an_integer_is_an_unknown_game(db, gid):
    """A game id typed by hand past SQLite's 64-bit integers was an OverflowError: a traceback."""
    with GameLog(db) as log:
        log.apply(None, NEW, "cli")
        for ask in (log.engine, log.records):
            with pytest.raises(UnknownGame):
                ask(gid)


def test_a_new_game_is_its_first_command_and_the_log_says_when_it_is_closed(db):
    log = GameLog(db)
    assert not log.closed
    applied = log.apply(None, NEW, "cli")
    assert applied.seq == 1 and [r.seq for r in log.records(applied.game_id)] == [1]
    log.close()
    assert log.closed


def test_names_are_stored_and_exported_as_typed(db):
    """The export and the file itself are read by people (`sqlite3 games.sqlite`): no \\u escapes."""
    zoe = {"cmd": "new_game", "game": "zoo", "players": ["Zoë", "Bjørn"]}
    with GameLog(db) as log:
        gid = log.apply(None, zoe, "cli").game_id
        log.apply(gid, {"cmd": "kill", "player": "Zoë"}, "cli")
        gid2 = log.import_jsonl([json.dumps(zoe, ensure_ascii=False)])
        assert "Zoë" in log.export_jsonl(gid) and "\\u" not in log.export_jsonl(gid)
    stored = [c for (c,) in sqlite3.connect(db).execute("SELECT command FROM commands")]
    assert len(stored) == 3 and all("\\u" not in c for c in stored) and sum("Zoë" in c for c in stored) == 3
    assert gid2 != gid


def test_a_stored_record_cannot_be_changed_by_whoever_reads_it(db):
    with GameLog(db) as log:
        gid = log.apply(None, NEW, "cli").game_id
        record = log.records(gid)[0]
        with pytest.raises(AttributeError):
            record.seq = 2
