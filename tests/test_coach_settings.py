"""The coach's settings (file, page with PIN, replay --config) and where the coach appears."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from companion.coaching import DEFAULT_DICE, Coaching
from companion.config import load_settings
from companion.errors import ConfigError
from web import create_app

ROOT = Path(__file__).resolve().parents[1]
PIN = "2468"
AUTH = {"Authorization": f"Bearer {PIN}"}
MIX = [["bee", "bee", "honey", "zzz", "zzz", "zombee"]] * 2 + [["bee", "bee", "honey", "zzz", "zombee", "zombee"]] * 3
START = [{"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia"]},
         {"cmd": "roll", "faces": ["bee", "bee", "honey", "zzz", "zombee"]}]


def test_defaults_are_tip_and_the_usual_dice():
    s = load_settings({})
    assert s.coach == "tip" and s.dice == DEFAULT_DICE


def test_the_file_sets_mode_and_dice():
    s = load_settings({"companion": {"coach": "full", "dice": MIX}})
    assert s.coach == "full" and s.dice[0] == ("bee", "bee", "honey", "zzz", "zzz", "zombee")


@pytest.mark.parametrize("table, words", [
    ({"coach": "loud"}, "coach in [companion] in the config file must be one of off, tip, full, got 'loud'"),
    ({"dice": MIX[:4]}, "must list the faces of each of the 5 dice"),
    ({"dice": MIX[:4] + [["bee"] * 5]}, "die 5 must be a list of its 6 faces"),
    ({"dice": MIX[:4] + [["bee"] * 5 + ["honeyy"]]}, "die 5 has an unknown face 'honeyy'"),
])
def test_bad_settings_are_refused_with_what_was_wrong(table, words):
    with pytest.raises(ConfigError, match=words.replace("[", r"\[").replace("]", r"\]")):
        load_settings({"companion": table})


def test_off_means_null(tmp_path):
    state = {"game": "zombee", "phase": "roll", "rolls": 1}
    assert Coaching("off").attach(state)["coach"] is None
    assert Coaching("tip").attach({"game": "zoo"}) == {"game": "zoo"}  # only ZomBee has a coach


def replay(path, *extra):
    done = subprocess.run([sys.executable, "-m", "companion.cli", "replay", str(path), "--json", *extra],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_replay_json_uses_the_defaults_unless_config_says_otherwise(tmp_path, monkeypatch):
    log = tmp_path / "game.jsonl"
    log.write_text("".join(json.dumps(c) + "\n" for c in START))
    config = tmp_path / "companion.toml"
    config.write_text('[companion]\ncoach = "full"\ndice = ' + json.dumps(MIX) + "\n")
    monkeypatch.setenv("COMPANION_CONFIG", str(config))  # the user's own file is not what replay reads
    plain = replay(log)["coach"]
    assert plain["faces"] == {"bee": 1 / 3, "honey": 1 / 6, "zzz": 1 / 6, "zombee": 1 / 3}
    mixed = replay(log, "--config", str(config))["coach"]
    assert mixed["faces"] == pytest.approx({"bee": 1 / 3, "honey": 1 / 6, "zzz": 7 / 30, "zombee": 4 / 15})
    assert [o["reroll"] for o in mixed["options"]] == [o["reroll"] for o in plain["options"]]
    config.write_text('[companion]\ncoach = "off"\n')
    assert replay(log, "--config", str(config))["coach"] is None


# --- on the page's API -------------------------------------------------------------------------------


@pytest.fixture
def client(table):
    app = create_app({"TABLE": table, "PIN": PIN, "COACH": "full", "DICE": MIX})
    yield app.test_client()
    app.extensions["companion"].hub.close()


def test_the_setting_is_read_freely_and_changed_only_with_the_pin(client, table):
    for cmd in START:
        table.submit(cmd, "cli")
    assert client.get("/api/coach").get_json()["mode"] == "full"
    assert client.get("/api/state").get_json()["coach"]["faces"]["zzz"] == pytest.approx(7 / 30)
    r = client.post("/api/coach", json={"mode": "off"})
    assert r.status_code == 401 and "PIN" in r.get_json()["error"]
    r = client.post("/api/coach", json={"mode": "loud"}, headers=AUTH)
    assert r.status_code == 400 and r.get_json()["error"] == 'mode must be one of off, tip, full, got "loud"'
    r = client.post("/api/coach", json={"volume": 3}, headers=AUTH)
    assert r.status_code == 400 and 'unknown key "volume"' in r.get_json()["error"]
    assert client.post("/api/coach", json={"mode": "off"}, headers=AUTH).get_json()["mode"] == "off"
    assert client.get("/api/state").get_json()["coach"] is None
    client.post("/api/coach", json={"mode": "tip"}, headers=AUTH)
    assert client.get("/api/state").get_json()["coach"]["best"] >= 0


def test_the_coach_can_use_the_observed_chances(client, table):
    for cmd in START:
        table.submit(cmd, "cli")
    r = client.post("/api/coach", json={"faces": "observed"}, headers=AUTH)
    assert r.status_code == 200 and r.get_json()["source"] == "observed"
    observed = {"bee": 0.4, "honey": 0.2, "zzz": 0.2, "zombee": 0.2}  # the one first roll so far
    assert r.get_json()["faces"] == pytest.approx(observed)
    assert client.get("/api/state").get_json()["coach"]["faces"] == pytest.approx(observed)
    stats = client.get("/api/dice-stats").get_json()
    assert stats["rolls"] == 1 and stats["faces"]["bee"]["assumed"] == pytest.approx(1 / 3)  # tested against the dice
    assert client.post("/api/coach", json={"faces": "settings"}, headers=AUTH).get_json()["source"] == "settings"


def test_no_observed_chances_without_rolls(client, table):
    table.submit(START[0], "cli")
    r = client.post("/api/coach", json={"faces": "observed"}, headers=AUTH)
    assert r.status_code == 400 and "no first rolls" in r.get_json()["error"]


def test_a_commands_answer_is_not_held_up_by_the_coach(client, table):
    table.submit(START[0], "cli")
    answer = client.post("/api/commands", json=START[1], headers=AUTH).get_json()
    assert "coach" not in answer  # computed when shown (/api/state, /events), never before the acknowledgement
    assert client.get("/api/state").get_json()["coach"] is not None


def test_stats_endpoints(client, table):
    for cmd in START:
        table.submit(cmd, "cli")
    assert client.get("/api/stats").get_json()["unfinished"] == 1
    r = client.get("/api/stats.csv")
    assert r.mimetype == "text/csv" and r.get_data(as_text=True).startswith("player,games,wins,win_rate")
    assert client.get("/stats").status_code == 200


def test_live_updates_carry_the_coach(table):
    from test_web_stream import next_event

    app = create_app({"TABLE": table, "PIN": PIN, "HEARTBEAT_S": 0.02})
    table.submit(START[0], "cli")
    r = app.test_client().get("/events")
    body = iter(r.response)
    assert next_event(body)[1]["state"]["coach"] is None
    table.submit(START[1], "camera")
    event, data = next_event(body)
    assert event == "state" and data["state"]["seq"] == 2
    assert data["state"]["coach"]["options"][data["state"]["coach"]["best"]]["reroll"] == ["bee", "bee", "zzz", "zombee"]
    r.close()
    app.extensions["companion"].hub.close()


def test_a_fault_in_the_coach_never_costs_the_state(monkeypatch, caplog):
    import companion.coach

    def broken(state, faces):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(companion.coach, "coach", broken)
    state = {"game": "zombee", "game_id": 1, "seq": 2, "phase": "roll", "rolls": 1}
    assert Coaching().attach(state) == {**state, "coach": None}
    assert "the coach failed for game 1 move 2" in caplog.text


def test_the_documented_example_is_what_replay_prints():
    doc = (ROOT / "docs" / "coach-and-stats.md").read_text()
    shown = json.loads("{" + doc.split("```json\n", 1)[1].split("```", 1)[0] + "}")["coach"]
    assert replay(ROOT / "examples" / "zombee-coach.jsonl")["coach"] == shown
