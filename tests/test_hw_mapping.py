"""Press -> command, as a pure function of states the real engines publish."""

from __future__ import annotations

import pytest

from companion.engine import Engine
from companion.errors import IllegalCommand
from hw.mapping import NOTHING, Highlight, candidates, decide, locks_on_board, reconcile
from hw.pins import BUTTONS


def zombee(*commands, players=("Tom", "Mia", "Ann")) -> Engine:
    e = Engine({"cmd": "new_game", "game": "zombee", "players": list(players)})
    for c in commands:
        e.apply(c)
    return e


def zoo(*commands, players=("Ann", "Ben", "Cat")) -> Engine:
    e = Engine({"cmd": "new_game", "game": "zoo", "players": list(players)})
    for c in commands:
        e.apply(c)
    return e


ROLL_ONE_BEE = {"cmd": "roll", "faces": ["bee", "zzz", "zzz", "honey", "honey"]}
STOP = {"cmd": "stop"}


def published(e: Engine, game_id=1) -> dict:
    return {**e.state(), "game_id": game_id, "seq": e.seq}


def accepted(e: Engine, decision) -> None:
    """The command a decision posts is one the engine takes."""
    assert decision.command is not None and decision.refusal is None, decision
    e.apply(decision.command)


def refused_by_engine(e: Engine, decision) -> str:
    """The press is posted (the panel predicts nothing) and the engine refuses it with its reason."""
    assert decision.command is not None and decision.refusal is None, decision
    before = e.state()
    with pytest.raises(IllegalCommand) as info:
        e.apply(decision.command)
    assert e.state() == before
    return str(info.value)


def in_choose_phase() -> Engine:
    """Tom rolled one bee and stopped; Mia turned over a question mark and must choose."""
    e = zombee(ROLL_ONE_BEE, STOP)
    e.apply({"cmd": "flip", "result": "question"})
    assert e.state()["phase"] == "choose" and e.state()["pending"] == "Mia"
    return e


# ----- ZomBee -----

@pytest.mark.parametrize("button, result", [("Bee", "bee"), ("Question", "question"), ("ZomBee", "zombee")])
def test_flower_buttons_flip_for_the_pending_player(button, result):
    e = zombee(ROLL_ONE_BEE, STOP)
    d = decide(button, published(e))
    assert d.command == {"cmd": "flip", "result": result, "player": "Mia"}
    accepted(e, d)


@pytest.mark.parametrize("button", ["Bee", "Question", "ZomBee"])
def test_flower_while_still_rolling_is_refused_with_a_reason(button):
    e = zombee()
    d = decide(button, published(e))
    assert "Tom is rolling" in refused_by_engine(e, d)


def test_stop_ends_the_rolling_after_a_roll_and_is_refused_before():
    e = zombee()
    d = decide("Stop", published(e))
    assert d.command == {"cmd": "stop"}
    assert "has not rolled yet" in refused_by_engine(e, d)
    e.apply(ROLL_ONE_BEE)
    accepted(e, decide("Stop", published(e)))
    assert e.state()["phase"] == "flip"
    d = decide("Stop", published(e))
    assert "Mia must turn over a flower" in refused_by_engine(e, d)


def test_select_steps_through_those_the_chooser_may_name_and_ok_confirms():
    e = in_choose_phase()
    state = published(e)
    assert candidates(state) == ["Ann", "Tom"]  # clockwise after Mia; Mia may not name herself
    h = decide("Select", state).highlight
    assert h == Highlight(player="Ann") and decide("Select", state).command is None
    h = decide("Select", state, h).highlight
    assert h.player == "Tom"
    assert decide("Select", state, h).highlight.player == "Ann"  # wraps around
    d = decide("OK", state, h)
    assert d.command == {"cmd": "choose", "player": "Tom"}
    accepted(e, d)
    assert e.state()["pending"] == "Tom" and e.state()["phase"] == "flip"


def test_ok_without_a_highlight_and_flowers_during_a_choice_are_refused():
    state = published(in_choose_phase())
    d = decide("OK", state)
    assert d.refused_here and "press Select" in d.refusal
    assert "must choose who flips" in refused_by_engine(in_choose_phase(), decide("Bee", state))


def test_select_and_ok_outside_a_choice_are_refused_here():
    state = published(zombee())
    for button in ("Select", "OK"):
        d = decide(button, state)
        assert d.refused_here and "no choice is pending" in d.refusal or "none is pending" in d.refusal


def test_undo_is_always_posted_and_roll_is_a_local_action():
    e = zombee(ROLL_ONE_BEE)
    accepted(e, decide("Undo", published(e)))
    assert e.state()["rolls"] == 0
    assert decide("Roll", published(e)).action == "roll_requested"
    assert decide("Roll", None).action == "roll_requested"


@pytest.mark.parametrize("button", ["Kill", "Life -", "Bullet -", "Lock"])
def test_zoo_buttons_in_a_zombee_game_are_refused_here(button):
    d = decide(button, published(zombee()))
    assert d.refused_here and "Zombie Zoo button" in d.refusal


def test_after_game_over_only_undo_does_anything():
    e = zombee(players=("Tom", "Mia"))
    # Tom rolls two ZomBees and must flip both; the first is the ZomBee flower twice over.
    for _ in range(2):
        e.apply({"cmd": "roll", "faces": ["zombee", "zombee", "zzz", "zzz", "honey"]})
        e.apply(STOP)
        e.apply({"cmd": "flip", "result": "zombee"})
    assert e.state()["phase"] == "game_over"
    state = published(e)
    assert "game is over" in refused_by_engine(e, decide("Bee", state))
    assert "game is over (Mia won)" in decide("Select", state).refusal
    accepted(e, decide("Undo", state))


# ----- Zombie Zoo -----

def test_zoo_buttons_need_a_selected_player_first():
    state = published(zoo())
    for button in ("Kill", "Life -", "Bullet -", "OK"):
        d = decide(button, state)
        assert d.refused_here and "press Select" in d.refusal


def test_select_steps_through_living_players_and_the_zoo_buttons_act_on_them():
    e = zoo()
    h = decide("Select", published(e)).highlight
    assert h.player == "Ann"
    h = decide("Select", published(e), h).highlight
    assert h.player == "Ben"
    d = decide("Kill", published(e), h)
    assert d.command == {"cmd": "kill", "player": "Ben", "count": 1}
    accepted(e, d)
    accepted(e, decide("Bullet -", published(e), h))
    accepted(e, decide("Life -", published(e), h))
    ben = e.state()["players"][1]
    assert (ben["kills"], ben["bullets"], ben["life"]) == (1, 4, 4)


def test_lock_steps_through_locks_on_the_board_and_ok_collects_it():
    e = zoo({"cmd": "collect_lock", "player": "Cat", "lock": "tiger_trail"})
    state = published(e)
    assert locks_on_board(state) == ["lions_den", "hyena_hideout", "polar_bears"]
    h = decide("Lock", state, Highlight(player="Ann")).highlight
    assert h == Highlight(player="Ann", lock="lions_den")
    h = decide("Lock", state, h).highlight
    assert h.lock == "hyena_hideout"
    d = decide("OK", state, h)
    assert d.command == {"cmd": "collect_lock", "player": "Ann", "lock": "hyena_hideout"}
    accepted(e, d)
    assert reconcile(h, published(e), state) == Highlight(player="Ann")  # the collected lock left the board
    assert decide("OK", published(e), Highlight(player="Ann")).command == {"cmd": "fight", "player": "Ann"}


def test_kill_for_a_dead_player_is_refused():
    e = zoo({"cmd": "bullets", "player": "Ann", "delta": -5}, {"cmd": "life", "player": "Ann", "delta": -5})
    state = published(e)
    h = Highlight(player="Ann")
    assert reconcile(h, state, state) == h  # a dead player stays highlighted ...
    d = decide("Kill", state, h)
    assert "out of the game" in refused_by_engine(e, d)  # ... so the engine's refusal reaches the phone
    assert "Ann" not in [decide("Select", state, Highlight(player=n)).highlight.player for n in ("Ben", "Cat")]


def test_life_minus_before_the_bullets_are_spent_is_refused_by_the_engine():
    e = zoo({"cmd": "life", "player": "Ann", "delta": -4})
    d = decide("Life -", published(e), Highlight(player="Ann"))
    assert "bullets are spent before the last life" in refused_by_engine(e, d)


def test_ok_with_a_hero_and_no_lock_opens_a_fight_for_that_hero():
    e = zoo()
    assert "press Select to pick who fights or collects a lock" in decide("OK", published(e)).refusal
    d = decide("OK", published(e), Highlight(player="Ben"))
    assert d.command == {"cmd": "fight", "player": "Ben"}
    accepted(e, d)
    assert "already fighting" in refused_by_engine(e, decide("OK", published(e), Highlight(player="Ben")))


def test_after_a_low_roll_bullet_and_life_buttons_make_the_fight_s_choice_for_the_fighter():
    e = zoo({"cmd": "fight", "player": "Ann"}, {"cmd": "fight", "player": "Ann", "roll": 2})
    h = Highlight(player="Cat")  # whoever is highlighted, the choice is the fighter's
    assert decide("Bullet -", published(e), h).command == {"cmd": "spend_bullets", "player": "Ann", "count": 2}
    d = decide("Life -", published(e), h)
    assert d.command == {"cmd": "lose_life", "player": "Ann"}
    accepted(e, d)
    # waiting for the next roll: the buttons mean what they mean outside a fight again
    assert decide("Life -", published(e), h).command == {"cmd": "life", "player": "Cat", "delta": -1}
    e.apply({"cmd": "fight", "player": "Ann", "roll": 3})
    accepted(e, decide("Bullet -", published(e), h))
    ann = e.state()["players"][0]
    assert (ann["kills"], ann["bullets"], ann["life"], e.state()["fight"]) == (1, 4, 4, None)


def test_bullet_minus_without_bullets_enough_is_refused_by_the_engine_with_its_reason():
    e = zoo({"cmd": "bullets", "player": "Ann", "delta": -5}, {"cmd": "fight", "player": "Ann"},
            {"cmd": "fight", "player": "Ann", "roll": 1})
    assert "Ann has 0 bullets" in refused_by_engine(e, decide("Bullet -", published(e)))


@pytest.mark.parametrize("button", ["Bee", "Question", "ZomBee", "Stop"])
def test_zombee_buttons_in_a_zoo_game_are_refused_here(button):
    d = decide(button, published(zoo()))
    assert d.refused_here and "ZomBee button" in d.refusal


def test_select_and_lock_step_through_what_the_engine_lists():
    e = zoo({"cmd": "bullets", "player": "Ann", "delta": -5}, {"cmd": "life", "player": "Ann", "delta": -5})
    state = published(e)
    assert candidates(state) == ["Ben", "Cat"]  # Ann is dead: no move names her
    only = {**state, "legal": [{"cmd": "collect_lock", "player": "Cat", "lock": "polar_bears"}]}
    assert candidates(only) == ["Cat"] and locks_on_board(only) == ["polar_bears"]
    assert decide("Lock", only, Highlight(player="Ben")).highlight == Highlight(player="Ben", lock="polar_bears")


def test_only_the_zombee_flower_left_is_the_engine_s_to_say():
    e = zombee(players=("Tom", "Mia"))
    e.game.face_up = {"bee": 11, "question": 2}  # every other flower is face up
    e.apply(ROLL_ONE_BEE)
    e.apply(STOP)
    state = published(e)
    assert [m["result"] for m in state["legal"]] == ["zombee"]
    assert "can only be: zombee" in refused_by_engine(e, decide("Bee", state))
    accepted(e, decide("ZomBee", state))


# ----- no game, unknown buttons, highlights across states -----

def test_without_a_game_commands_are_still_posted_for_the_engine_to_refuse():
    assert decide("Bee", None).command == {"cmd": "flip", "result": "bee"}
    assert not decide("Bee", None).refused_here
    assert decide("Kill", None).refused_here and "no game" in decide("Kill", None).refusal


def test_every_button_has_a_meaning_in_both_games():
    for state in (published(zombee()), published(zoo()), None):
        for button in BUTTONS:
            d = decide(button, state, NOTHING)
            assert d.command or d.refusal or d.highlight or d.action
    with pytest.raises(ValueError, match="unknown button"):
        decide("Fire", None)


def test_a_new_game_clears_the_highlight():
    state = published(zoo())
    h = Highlight(player="Ann", lock="lions_den")
    assert reconcile(h, state, state) == h
    assert reconcile(h, {**state, "game_id": 2}, state) == NOTHING
    assert reconcile(h, None, state) == NOTHING
    assert reconcile(Highlight(player="Tom"), published(zombee()), published(zombee())) == NOTHING
