"""Zombie Zoo combat (the base game's): each rule and each refusal, through the Engine."""

from __future__ import annotations

import copy

import pytest

from companion.engine import Engine
from companion.errors import BadCommand, IllegalCommand

THREE = ["Ann", "Ben", "Cat"]


def zoo(players=THREE) -> Engine:
    return Engine({"cmd": "new_game", "game": "zoo", "players": list(players)})


def hero(e: Engine, name: str) -> dict:
    return next(p for p in e.state()["players"] if p["name"] == name)


def run(e: Engine, *commands) -> list:
    events = []
    for cmd in commands:
        events += e.apply(cmd)
    return events


def fight(name="Ann", roll=None) -> dict:
    return {"cmd": "fight", "player": name} if roll is None else {"cmd": "fight", "player": name, "roll": roll}


def spend(count, name="Ann") -> dict:
    return {"cmd": "spend_bullets", "player": name, "count": count}


def lose(name="Ann") -> dict:
    return {"cmd": "lose_life", "player": name}


def combat_moves(e: Engine) -> list[dict]:
    return [m for m in e.state()["legal"] if m["cmd"] in ("fight", "spend_bullets", "lose_life")]


def refused(e: Engine, cmd: dict, *words: str) -> str:
    before = copy.deepcopy(e.state())
    with pytest.raises(IllegalCommand) as err:
        e.apply(cmd)
    assert e.state() == before  # nothing changed
    for word in words:
        assert word in str(err.value)
    return str(err.value)


def test_a_fight_opens_for_one_hero_and_waits_for_the_die():
    e = zoo()
    events = run(e, fight())
    assert [ev.text for ev in events] == ["Ann fights a zombie: roll the die."]
    assert e.state()["fight"] == {"player": "Ann", "roll": None, "needs": None, "rolls": []}
    assert combat_moves(e) == [{"cmd": "fight", "player": "Ann", "roll": {"min": 1, "max": 6}}]


@pytest.mark.parametrize("roll", [4, 5, 6])
def test_four_five_or_six_kills_the_zombie_and_ends_the_fight(roll):
    e = zoo()
    events = run(e, fight(), fight(roll=roll))
    assert [ev.kind for ev in events][1:] == ["fight", "kill"]
    assert events[1].text == f"Ann rolled {roll}: the zombie is killed."
    ann = hero(e, "Ann")
    assert (ann["kills"], ann["score"], ann["life"], ann["bullets"]) == (1, 1, 5, 5)
    assert e.state()["fight"] is None
    assert combat_moves(e) == [fight(n) for n in THREE]  # anyone may open the next fight


@pytest.mark.parametrize("roll, needs", [(1, 3), (2, 2), (3, 1)])
def test_one_to_three_asks_for_bullets_or_a_life(roll, needs):
    e = zoo()
    events = run(e, fight(), fight(roll=roll))
    said = "1 bullet" if needs == 1 else f"{needs} bullets"
    assert events[-1].text == f"Ann rolled {roll}: spend {said} or lose a life and roll again."
    assert e.state()["fight"] == {"player": "Ann", "roll": roll, "needs": needs, "rolls": [roll]}
    assert combat_moves(e) == [spend({"min": needs, "max": 5}), lose()]
    assert hero(e, "Ann")["kills"] == 0


def test_bullets_that_reach_four_kill_and_are_spent():
    e = zoo()
    events = run(e, fight(), fight(roll=1), spend(3))
    assert events[-2].text == "Ann spent 3 bullets on the 1: the zombie is killed."
    ann = hero(e, "Ann")
    assert (ann["bullets"], ann["kills"], ann["life"]) == (2, 1, 5)
    assert e.state()["fight"] is None


def test_more_bullets_than_needed_may_be_spent():
    e = zoo()
    run(e, fight(), fight(roll=3), spend(2))
    assert hero(e, "Ann")["bullets"] == 3 and hero(e, "Ann")["kills"] == 1


def test_bullets_that_do_not_reach_four_are_refused_with_the_rule():
    e = zoo()
    run(e, fight(), fight(roll=1))
    refused(e, spend(2), "a zombie falls only at 4 or more", "brings the 1 to 3", "at least 3")


def test_bullets_the_hero_does_not_have_are_refused():
    e = zoo()
    run(e, {"cmd": "bullets", "player": "Ann", "delta": -4}, fight(), fight(roll=2))
    refused(e, spend(2), "Ann has 1 bullet, so can spend at most 1", "lose_life instead")
    assert combat_moves(e) == [lose()]  # one bullet cannot bring a 2 to 4


def test_losing_a_life_rolls_again_in_the_same_fight():
    e = zoo()
    events = run(e, fight(), fight(roll=2), lose())
    assert events[-1].text == "Ann lost a life (4 left): roll again."
    assert e.state()["fight"] == {"player": "Ann", "roll": None, "needs": None, "rolls": [2]}
    run(e, fight(roll=3), lose(), fight(roll=6))
    ann = hero(e, "Ann")
    assert (ann["life"], ann["bullets"], ann["kills"]) == (3, 5, 1)
    assert e.state()["fight"] is None


def test_a_hero_may_keep_bullets_and_lose_a_life_that_is_not_the_last():
    e = zoo()
    run(e, fight(), fight(roll=1), lose())  # five bullets held, one life lost: the companion's choice
    assert hero(e, "Ann")["life"] == 4 and hero(e, "Ann")["bullets"] == 5


def test_the_last_life_waits_for_bullets_that_can_reach_four():
    e = zoo()
    run(e, {"cmd": "life", "player": "Ann", "delta": -4}, fight(), fight(roll=2))
    assert e.state()["fight"]["needs"] == 2
    assert combat_moves(e) == [spend({"min": 2, "max": 5})]
    refused(e, lose(), "bullets are spent before the last life", '"count":2')
    run(e, spend(2))
    assert hero(e, "Ann")["life"] == 1 and hero(e, "Ann")["kills"] == 1


def test_the_last_life_goes_when_the_bullets_cannot_reach_four_and_half_the_kills_go_with_it():
    e = zoo()
    run(e, {"cmd": "kill", "player": "Ann", "count": 5}, {"cmd": "life", "player": "Ann", "delta": -4},
        {"cmd": "bullets", "player": "Ann", "delta": -4}, fight(), fight(roll=1))
    assert combat_moves(e) == [lose()]  # 1 bullet cannot bring a 1 to 4
    events = run(e, lose())
    assert [ev.kind for ev in events] == ["life", "player_out"]
    ann = hero(e, "Ann")
    assert (ann["alive"], ann["life"], ann["kills"], ann["bullets"]) == (False, 0, 3, 1)
    assert e.state()["fight"] is None


def test_the_last_life_lost_in_a_two_player_fight_ends_the_game():
    e = zoo(["Ann", "Ben"])
    run(e, {"cmd": "life", "player": "Ann", "delta": -4}, {"cmd": "bullets", "player": "Ann", "delta": -5},
        fight(), fight(roll=3))
    events = run(e, lose())
    assert [ev.kind for ev in events] == ["life", "player_out", "game_over"]
    assert e.state()["winner"] == "Ben"


def test_a_kill_in_a_fight_runs_the_release_clock_like_kill():
    e = zoo()
    run(e, {"cmd": "kill", "player": "Ann", "count": 5}, fight(), fight(roll=2))
    events = run(e, spend(2))
    assert [ev.kind for ev in events] == ["fight", "kill", "locks_advanced"]
    assert set(e.state()["locks"].values()) == {"30:00"}


def test_a_fight_for_a_hero_who_is_out_is_refused():
    e = zoo()
    run(e, {"cmd": "bullets", "player": "Ben", "delta": -5}, {"cmd": "life", "player": "Ben", "delta": -5})
    refused(e, fight("Ben"), "Ben is out of the game and cannot fight", "Ann, Cat")


@pytest.mark.parametrize("roll", [0, 7, -1, "3", 2.5, True])
def test_a_roll_outside_one_to_six_is_refused(roll):
    e = zoo()
    run(e, fight())
    with pytest.raises(BadCommand, match="roll"):
        e.apply({"cmd": "fight", "player": "Ann", "roll": roll})
    assert e.state()["fight"]["rolls"] == []


def test_a_second_roll_after_the_zombie_died_is_refused():
    e = zoo()
    run(e, fight(), fight(roll=5))
    refused(e, fight(roll=4), "no fight is open", '{"cmd":"fight","player":"Ann"}')
    refused(e, spend(1), "no fight is open")
    refused(e, lose(), "no fight is open")


def test_a_roll_before_choosing_is_refused():
    e = zoo()
    run(e, fight(), fight(roll=2))
    refused(e, fight(roll=5), "a roll of 1-3 is settled before the next roll", "at least 2")


def test_choices_without_a_waiting_roll_are_refused():
    e = zoo()
    run(e, fight())
    refused(e, spend(1), "no roll waits")
    refused(e, lose(), "no roll waits")


def test_one_fight_at_a_time():
    e = zoo()
    run(e, fight())
    refused(e, fight("Ben"), "Ben cannot fight yet", "Ann's fight is open")
    refused(e, fight("Ann"), "Ann is already fighting")
    refused(e, fight("Ben", 5), "Ben is not fighting")
    refused(e, spend(1, "Ben"), "Ben is not fighting")


def test_unknown_hero_gets_the_usual_refusal():
    refused(zoo(), fight("ann"), 'did you mean "Ann"?')


def test_kill_life_and_bullets_still_work_beside_a_fight():
    e = zoo()
    run(e, fight(), fight(roll=2), {"cmd": "bullets", "player": "Ann", "delta": -4})
    assert combat_moves(e) == [lose()]  # a card took bullets: the choice follows
    run(e, {"cmd": "kill", "player": "Ben"}, {"cmd": "life", "player": "Cat", "delta": -1})
    assert e.state()["fight"]["player"] == "Ann"
    run(e, {"cmd": "kill", "player": "Ann"})  # recorded by hand: the fight's zombie is taken
    assert e.state()["fight"] is None and hero(e, "Ann")["kills"] == 1


def test_a_hand_entered_loss_that_puts_the_fighter_out_ends_the_fight():
    e = zoo()
    run(e, fight(), {"cmd": "bullets", "player": "Ann", "delta": -5}, {"cmd": "life", "player": "Ann", "delta": -5})
    assert e.state()["fight"] is None
    assert combat_moves(e) == [fight("Ben"), fight("Cat")]


def test_undo_walks_a_fight_back_exactly():
    e = zoo()
    states = [copy.deepcopy(e.state())]
    for cmd in (fight(), fight(roll=1), lose(), fight(roll=3), spend(1)):
        e.apply(cmd)
        states.append(copy.deepcopy(e.state()))
    while len(states) > 1:
        states.pop()
        e.apply({"cmd": "undo"})
        assert e.state() == states[-1]


def test_commands_round_trip_through_json():
    from companion.commands import parse_command

    for cmd in (fight(), fight(roll=3), spend(2), lose()):
        assert parse_command(cmd).to_dict() == cmd
    with pytest.raises(BadCommand, match="count"):
        parse_command({"cmd": "spend_bullets", "player": "Ann", "count": 0})


def test_with_two_lives_left_a_hero_holding_bullets_enough_may_still_lose_one():
    e = zoo()
    run(e, {"cmd": "life", "player": "Ann", "delta": -3}, fight())
    events = run(e, fight(roll=2))
    assert events[-1].text == "Ann rolled 2: spend 2 bullets or lose a life and roll again."
    assert lose() in combat_moves(e)
    run(e, lose())  # not the last life: keeping the bullets is the hero's choice
    assert hero(e, "Ann")["life"] == 1 and e.state()["fight"]["roll"] is None


def test_the_last_life_waits_for_bullets_that_reach_four_exactly():
    e = zoo()
    run(e, {"cmd": "life", "player": "Ann", "delta": -4}, {"cmd": "bullets", "player": "Ann", "delta": -3}, fight())
    events = run(e, fight(roll=2))  # two bullets, and the 2 needs two
    assert events[-1].text == "Ann rolled 2: spend 2 bullets, as bullets go before the last life."
    assert combat_moves(e) == [spend({"min": 2, "max": 2})]
    refused(e, lose(), "bullets are spent before the last life")
    said = refused(e, spend(3), "has 2 bullets, so can spend at most 2")
    assert "lose_life" not in said  # the two bullets do reach four: losing the last life is no way out


def test_one_bullet_short_of_four_the_last_life_goes():
    e = zoo()
    run(e, {"cmd": "life", "player": "Ann", "delta": -4}, {"cmd": "bullets", "player": "Ann", "delta": -4}, fight())
    events = run(e, fight(roll=2))  # one bullet, and the 2 needs two
    assert events[-1].text == "Ann rolled 2, and bullets cannot bring it to 4: the last life is lost."
    assert combat_moves(e) == [lose()]
    assert "lose_life instead" in refused(e, spend(2), "has 1 bullet, so can spend at most 1")


def test_out_of_bullets_with_two_lives_left_one_is_lost_and_the_fight_goes_on():
    e = zoo()
    run(e, {"cmd": "life", "player": "Ann", "delta": -3}, {"cmd": "bullets", "player": "Ann", "delta": -5}, fight())
    events = run(e, fight(roll=1))
    assert events[-1].text == "Ann rolled 1, and bullets cannot bring it to 4: lose a life and roll again."
    run(e, lose())
    assert hero(e, "Ann")["alive"] and e.state()["fight"] == {"player": "Ann", "roll": None, "needs": None, "rolls": [1]}
