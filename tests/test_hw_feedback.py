"""LED and buzzer patterns as pure functions of published states and messages."""

from __future__ import annotations

from companion.engine import Engine
from hw.feedback import BLINK, FAST, OFF, ON, camera_notice, look, seat_modes, sound_for, status_mode
from hw.mapping import Highlight


def state(game, players, *commands):
    e = Engine({"cmd": "new_game", "game": game, "players": list(players)})
    for c in commands:
        e.apply(c)
    return {**e.state(), "game_id": 1, "seq": e.seq}


ROLL = {"cmd": "roll", "faces": ["bee", "zzz", "zzz", "honey", "honey"]}


def test_no_game_all_seats_dark_and_status_ready():
    assert look(None) .seats == (OFF,) * 6 and look(None).status == ON


def test_zombee_pending_players_seat_is_lit():
    s = state("zombee", ["Tom", "Mia", "Ann"])
    assert seat_modes(s) == (ON, OFF, OFF, OFF, OFF, OFF)
    s = state("zombee", ["Tom", "Mia", "Ann"], ROLL, {"cmd": "stop"})
    assert seat_modes(s)[:3] == (OFF, ON, OFF)  # Mia must turn over a flower


def test_zombee_choice_blinks_the_chooser_and_lights_the_highlight():
    s = state("zombee", ["Tom", "Mia", "Ann"], ROLL, {"cmd": "stop"}, {"cmd": "flip", "result": "question"})
    assert seat_modes(s)[:3] == (OFF, BLINK, OFF)
    assert seat_modes(s, Highlight(player="Ann"))[:3] == (OFF, BLINK, ON)


def test_zoo_lights_the_highlighted_player_and_blinks_while_a_lock_is_picked():
    s = state("zoo", ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"])
    assert seat_modes(s) == (OFF,) * 6
    assert seat_modes(s, Highlight(player="Fay")) == (OFF,) * 5 + (ON,)
    assert seat_modes(s, Highlight(player="Ben", lock="lions_den"))[1] == BLINK


def test_game_over_lights_the_winner():
    s = state("zoo", ["Ann", "Ben"], {"cmd": "kill", "player": "Ben"}, {"cmd": "bullets", "player": "Ann", "delta": -5},
              {"cmd": "life", "player": "Ann", "delta": -5})
    assert s["phase"] == "game_over"
    assert seat_modes(s, Highlight(player="Ann"))[:2] == (OFF, ON)


def test_status_priorities():
    assert status_mode() == ON
    assert status_mode(settling=True) == BLINK
    assert status_mode(refusing=True, settling=True) == FAST
    assert status_mode(camera_lost=True) == FAST


def test_sounds_for_messages():
    accepted = {"type": "state", "source": "panel", "events": [{"kind": "flower_bee", "text": "", "player": "Mia"}]}
    assert sound_for(accepted) == "short"
    assert sound_for({**accepted, "source": "web"}) is None
    for kind in ("zombee_revealed", "game_over", "tournament_over"):
        assert sound_for({**accepted, "source": "camera", "events": [{"kind": kind, "text": ""}]}) == "long"
    assert sound_for({"type": "refused", "source": "panel", "error": "no"}) == "refused"
    assert sound_for({"type": "refused", "source": "web", "error": "no"}) is None
    assert sound_for({"type": "notice", "kind": "camera", "status": "lost"}) is None


def test_camera_and_dice_notices():
    assert camera_notice({"kind": "camera", "status": "lost"}, False, False) == (True, False)
    assert camera_notice({"kind": "camera", "text": "The camera is offline."}, True, False) == (True, False)
    assert camera_notice({"kind": "camera", "status": "ok"}, True, False) == (False, False)
    assert camera_notice({"kind": "dice", "status": "settling"}, False, False) == (False, True)
    assert camera_notice({"kind": "dice", "status": "still"}, False, True) == (False, False)
    assert camera_notice({"kind": "restart"}, True, True) == (True, True)
