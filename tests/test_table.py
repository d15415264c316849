import threading
import time

import pytest

from companion.errors import IllegalCommand
from companion.gamelog import GameLog
from companion.table import Table

NEW = {"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia"]}


def test_submit_returns_the_new_state_with_game_id_and_seq(table):
    state = table.submit(NEW, "web")
    assert state["game"] == "zombee" and state["seq"] == 1 and state["game_id"] == 1
    assert table.state() == state


def test_no_game_yet_means_no_state(table):
    assert table.state() is None
    with pytest.raises(IllegalCommand, match="no game"):
        table.submit({"cmd": "stop"}, "web")


def test_refusal_raises_for_the_submitter_and_is_published_to_everyone(table):
    table.submit(NEW, "web")
    with table.subscribe() as sub:
        assert sub.get(2)["initial"]
        with pytest.raises(IllegalCommand, match="not rolled yet"):
            table.submit({"cmd": "stop"}, "web")
        msg = sub.get(timeout=2)
    assert msg["type"] == "refused" and "not rolled yet" in msg["error"] and msg["source"] == "web"
    assert table.state()["seq"] == 1


def test_posted_commands_are_applied_in_order_and_published_with_events(table):
    table.submit(NEW, "web")
    with table.subscribe() as sub:
        assert sub.get(2)["initial"]
        table.post({"cmd": "roll", "faces": ["zombee"] * 5}, "camera")
        table.post({"cmd": "flip", "result": "bee"}, "panel")
        first, second = sub.get(2), sub.get(2)
    assert first["type"] == second["type"] == "state"
    assert first["source"] == "camera" and second["source"] == "panel"
    assert any(e["kind"] == "flips" for e in first["events"])
    assert second["state"]["seq"] == 3


def test_malformed_posted_command_is_refused_with_the_reason(table):
    table.submit(NEW, "web")
    with table.subscribe() as sub:
        assert sub.get(2)["initial"]
        table.post("{not json", "panel")
        msg = sub.get(2)
    assert msg["type"] == "refused" and "not JSON" in msg["error"]


def test_notices_are_published_in_order(table):
    with table.subscribe() as sub:
        assert sub.get(2)["initial"]
        table.notify("camera", online=False)
        got = sub.get(2)
        assert got.pop("time") == pytest.approx(time.time(), abs=60)  # when, by the companion's clock
        assert got == {"type": "notice", "kind": "camera", "online": False}


def test_closed_subscription_gets_nothing_more(table):
    sub = table.subscribe()
    assert sub.get(2)["initial"]
    sub.close()
    assert table.subscriber_count() == 0
    table.notify("camera", online=True)
    assert sub.get(timeout=0.05) is None


def test_a_subscription_starts_with_the_current_state(table):
    with table.subscribe() as sub:
        assert sub.get(2) == {"type": "state", "state": None, "events": [], "source": None, "initial": True}
    state = table.submit(NEW, "web")
    with table.subscribe() as sub:
        assert sub.get(2)["state"] == state == table.state()


def test_subscribing_while_commands_flow_sees_every_state_exactly_once(table):
    table.submit(NEW, "web")
    watch = table.subscribe()
    subs = []
    for _ in range(20):
        table.post({"cmd": "roll", "faces": ["bee"] * 5}, "camera")
        table.post({"cmd": "undo"}, "web")
    # Each time a state is published, subscribe again: the engine thread is busy with the next command.
    while (message := watch.get(2)) is not None and message["state"]["seq"] < 41:
        subs.append(table.subscribe())
    last = table.submit({"cmd": "roll", "faces": ["bee"] * 5}, "camera")["seq"]
    assert len(subs) == 40
    for sub in subs:
        seqs = []
        while not seqs or seqs[-1] < last:
            message = sub.get(2)
            assert message is not None and message["type"] == "state"
            assert message.get("initial", False) == (not seqs)  # the state it began with, then updates
            seqs.append(message["state"]["seq"])
        assert seqs == list(range(seqs[0], last + 1))  # no state twice, none missing
        sub.close()
    watch.close()


def test_many_writers_one_consistent_game(table):
    table.submit(NEW, "web")
    table.submit({"cmd": "roll", "faces": ["bee"] * 5}, "web")
    errors = []

    def hammer():
        for _ in range(50):
            try:
                table.submit({"cmd": "undo"}, "web")
                table.submit({"cmd": "roll", "reroll": ["bee"], "faces": ["bee"]}, "web")
            except IllegalCommand as exc:
                errors.append(exc)

    threads = [threading.Thread(target=hammer) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # Every accepted command is in the log, and replaying the log gives the live state.
    records = table.records()
    assert records[-1]["seq"] == table.state()["seq"] == len(records)
    timeline = table.timeline()
    assert timeline[-1]["state"] == {k: v for k, v in table.state().items() if k not in ("game_id", "seq")}


def test_restart_continues_the_unfinished_game(tmp_path):
    path = tmp_path / "t.sqlite"
    with GameLog(path) as log:
        t = Table(log).start()
        t.submit(NEW, "web")
        before = t.submit({"cmd": "roll", "faces": ["bee"] * 5}, "camera")
        t.stop()
    with GameLog(path) as log:
        assert Table(log).state() == before


def test_a_bug_while_resuming_is_an_error_for_the_asker_and_the_table_keeps_playing(table, monkeypatch):
    # any error but the companion's own ended the engine thread: every later command timed out
    from companion.errors import CompanionError

    table.submit(NEW, "web")
    broken = table.log.engine

    def engine(game_id):
        if game_id == 7:
            raise KeyError("a bug")
        return broken(game_id)

    monkeypatch.setattr(table.log, "engine", engine)
    with pytest.raises(CompanionError, match="internal error while resuming game 7"):
        table.resume(7, "web", timeout=2)
    assert table.submit({"cmd": "roll", "faces": ["bee"] * 5}, "web", timeout=2)["rolls"] == 1


def test_the_chart_leaves_out_a_move_taken_back(tmp_path):
    # A kill taken back drew a spike: Tim rose to 9 and fell back to 0 on the score chart.
    with GameLog(tmp_path / "t.sqlite") as log:
        t = Table(log).start()
        t.submit({"cmd": "new_game", "game": "zoo", "players": ["Tim", "Eve"]}, "web")
        t.submit({"cmd": "kill", "player": "Tim", "count": 9}, "web")
        t.submit({"cmd": "undo"}, "web")
        t.submit({"cmd": "kill", "player": "Eve", "count": 2}, "web")
        timeline = t.timeline()
        t.stop()
    assert [p["seq"] for p in timeline] == [1, 4]  # the game, and Eve's kills: not Tim's 9 nor the undo
    assert [[h["kills"] for h in p["state"]["players"]] for p in timeline] == [[0, 0], [0, 2]]


def _reopened(path) -> int | None:
    """The game a companion started on this file comes back to (its Table, as after a power cut)."""
    with GameLog(path) as log:
        return Table(log).game_id


def test_after_a_power_cut_the_table_comes_back_to_the_game_it_was_playing(tmp_path):
    # It came back to the newest game: moves of a resumed older game went on into the wrong one.
    path = tmp_path / "t.sqlite"
    zoo = {"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"]}
    with GameLog(path) as log, Table(log) as t:
        first = t.submit(zoo, "web")["game_id"]
        second = t.submit({**zoo, "players": ["Xu", "Yo"]}, "web")["game_id"]
        t.resume(first, "web")
        t.submit({"cmd": "kill", "player": "Ann"}, "web")
    assert _reopened(path) == first
    with GameLog(path) as log, Table(log) as t:
        assert t.state()["players"][0]["kills"] == 1
        t.resume(second, "web")  # resumed, and the power went before any move
    assert _reopened(path) == second
    with GameLog(path) as log, Table(log) as t:
        third = t.submit({**zoo, "players": ["Kim", "Lu"]}, "web")["game_id"]
    assert _reopened(path) == third
