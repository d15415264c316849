"""Zombie Zoo rules, each rule and each refusal, tested through the Engine."""

from __future__ import annotations

import copy
import json
import pathlib

import pytest

from companion.engine import Engine
from companion.errors import BadCommand, IllegalCommand
from companion.events import ALARM_KINDS

ROOT = pathlib.Path(__file__).resolve().parent.parent
THREE = ["Ann", "Ben", "Cat"]
FIVE = ["Ann", "Ben", "Cat", "Dan", "Eve"]
ALL_60 = {"tiger_trail": "60:00", "lions_den": "60:00", "hyena_hideout": "60:00", "polar_bears": "60:00"}
ALL_30 = dict.fromkeys(ALL_60, "30:00")


def zoo(players=THREE, **rules) -> Engine:
    cmd = {"cmd": "new_game", "game": "zoo", "players": list(players)}
    if rules:
        cmd["rules"] = rules
    return Engine(cmd)


def hero(e: Engine, name: str) -> dict:
    return next(p for p in e.state()["players"] if p["name"] == name)


def kinds(events) -> list[str]:
    return [ev.kind for ev in events]


def run(e: Engine, *commands) -> list:
    events = []
    for cmd in commands:
        events += e.apply(cmd)
    return events


def kill(name, count=1):
    return {"cmd": "kill", "player": name, "count": count}


def life(name, delta):
    return {"cmd": "life", "player": name, "delta": delta}


def bullets(name, delta):
    return {"cmd": "bullets", "player": name, "delta": delta}


def collect(name, lock):
    return {"cmd": "collect_lock", "player": name, "lock": lock}


def knock_out(e: Engine, name: str):
    """Spend all of a player's bullets, then their life, the way the sheet says to."""
    p = hero(e, name)
    cmds = ([bullets(name, -p["bullets"])] if p["bullets"] else []) + [life(name, -p["life"])]
    return run(e, *cmds)


def refused(e: Engine, cmd, *fragments, error=IllegalCommand) -> str:
    """Apply a command that must be refused; check the message and that nothing changed."""
    before = copy.deepcopy(e.state())
    seq = e.seq
    with pytest.raises(error) as info:
        e.apply(cmd)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message
    assert e.state() == before and e.seq == seq
    return message


# ----- setup -----

def test_new_game_state_matches_the_contract():
    assert zoo().state() == {
        "game": "zoo",
        "players": [
            {"name": n, "life": 5, "bullets": 5, "kills": 0, "locks": [], "alive": True, "score": 0} for n in THREE
        ],
        "locks": ALL_60,
        "release_at": 6,
        "next_release_in": 6,
        "fight": None,
        "phase": "play",
        "winners": [],
        "over": False,
        "winner": None,
        "legal": [
            move
            for n in THREE
            for move in [{"cmd": "kill", "player": n, "count": {"min": 1, "max": 100}}]
            + [{"cmd": "collect_lock", "player": n, "lock": lock} for lock in ALL_60]
            + [{"cmd": "life", "player": n, "delta": {"min": -4, "max": -1}},
               {"cmd": "life", "player": n, "delta": {"min": 1, "max": 100}},
               {"cmd": "bullets", "player": n, "delta": {"min": -5, "max": -1}},
               {"cmd": "bullets", "player": n, "delta": {"min": 1, "max": 100}}]
        ] + [{"cmd": "fight", "player": n} for n in THREE],
        "can_undo": False,
    }


@pytest.mark.parametrize("count, release_at", [(2, 6), (3, 6), (4, 6), (5, 4), (6, 4)])
def test_release_threshold_follows_the_player_count(count, release_at):
    e = zoo([f"P{i}" for i in range(count)])
    assert e.state()["release_at"] == release_at
    assert e.state()["next_release_in"] == release_at


@pytest.mark.parametrize("players", [["Ann"], [], ["A", "B", "C", "D", "E", "F", "G"]])
def test_player_count_outside_2_to_6_is_refused(players):
    with pytest.raises(IllegalCommand) as info:
        zoo(players)
    message = str(info.value)
    assert "2 to 6 players" in message and f"got {len(players)}" in message
    assert json.dumps(players, separators=(",", ":")) in message  # the input is quoted back


def test_duplicate_names_are_refused():
    with pytest.raises(BadCommand, match="unique"):
        zoo(["Ann", "ann"])


def test_names_are_trimmed_and_matched_exactly():
    e = zoo([" Ann ", "Ben"])
    assert hero(e, "Ann")["name"] == "Ann"
    refused(e, kill("ann"), 'no player "ann"', 'did you mean "Ann"', "players are Ann, Ben")
    refused(e, kill("Zed"), 'no player "Zed"', "players are Ann, Ben")


def test_variant_and_unknown_rule_options_are_refused():
    with pytest.raises(IllegalCommand, match="no variants"):
        Engine({"cmd": "new_game", "game": "zoo", "players": THREE, "variant": "hard"})
    with pytest.raises(IllegalCommand, match="unknown rule option"):
        zoo(lock_releases="first_time")
    with pytest.raises(IllegalCommand, match="every_multiple or first_time"):
        zoo(lock_release="sometimes")


def test_zombee_commands_are_refused_in_a_zoo_game():
    e = zoo()
    refused(e, {"cmd": "stop"}, "not a Zombie Zoo command", "kill, collect_lock")


def test_a_second_new_game_is_refused():
    refused(zoo(), {"cmd": "new_game", "game": "zoo", "players": THREE}, "one game")


# ----- kills and the release clock -----

def test_kills_add_up_and_score_a_point_each():
    e = zoo()
    assert kinds(e.apply({"cmd": "kill", "player": "Ann"})) == ["kill"]
    e.apply(kill("Ann", 3))
    assert hero(e, "Ann")["kills"] == 4 and hero(e, "Ann")["score"] == 4
    assert e.state()["next_release_in"] == 2


def test_kill_count_below_one_is_refused():
    refused(zoo(), kill("Ann", 0), "from 1 to 100", error=BadCommand)
    refused(zoo(), kill("Ann", -2), "from 1 to 100", error=BadCommand)


def test_reaching_six_kills_steps_every_lock_once_with_three_players():
    e = zoo()
    e.apply(kill("Ann", 5))
    e.apply(kill("Ben", 5))
    assert e.state()["locks"] == ALL_60  # the threshold counts one player's kills, not the table's
    events = e.apply(kill("Ann"))
    assert kinds(events) == ["kill", "locks_advanced"]
    assert events[1].player == "Ann" and "6 kills" in events[1].text
    assert e.state()["locks"] == ALL_30
    assert e.state()["next_release_in"] == 1  # Ben is one short of his 6


def test_every_multiple_steps_again_and_one_kill_command_can_step_twice():
    e = zoo()
    events = e.apply(kill("Ann", 12))
    assert kinds(events) == ["kill", "locks_advanced", "locks_advanced", "last_lock"]
    assert e.state()["locks"] == dict.fromkeys(ALL_60, "open")
    assert e.state()["next_release_in"] is None


def test_second_multiple_opens_cages_with_two_to_four_players():
    e = zoo(["Ann", "Ben"])
    e.apply(kill("Ann", 6))
    events = e.apply(kill("Ben", 6))
    assert "opens" in events[1].text and "Zombie Tigers" in events[1].text
    assert set(e.state()["locks"].values()) == {"open"}


def test_five_players_release_at_four_and_remove_tiles():
    e = zoo(FIVE)
    e.apply(kill("Eve", 3))
    assert e.state()["locks"] == ALL_60
    e.apply(kill("Eve"))
    assert e.state()["locks"] == ALL_30
    assert e.state()["next_release_in"] == 4
    events = e.apply(kill("Dan", 4))
    assert "removed" in events[1].text
    assert set(e.state()["locks"].values()) == {"removed"}


def test_collected_lock_never_moves_and_kills_past_the_last_step_are_fine():
    e = zoo()
    e.apply(collect("Cat", "polar_bears"))
    e.apply(kill("Ann", 6))
    assert e.state()["locks"] == {**ALL_30, "polar_bears": "collected"}
    e.apply(kill("Ann", 6))
    assert e.state()["locks"] == {**dict.fromkeys(ALL_60, "open"), "polar_bears": "collected"}
    assert kinds(e.apply(kill("Ann", 6))) == ["kill"]  # 18 kills: nothing is left to step
    assert hero(e, "Ann")["kills"] == 18


def test_next_release_in_counts_only_living_players():
    e = zoo()
    run(e, kill("Ann", 5), kill("Ben", 2))
    assert e.state()["next_release_in"] == 1
    knock_out(e, "Ann")  # keeps 3 of 5 kills, but the dead take no more kills
    assert e.state()["next_release_in"] == 4


# ----- the first_time option -----

def test_first_time_steps_once_per_player_and_ignores_later_multiples():
    e = zoo(lock_release="first_time")
    events = e.apply(kill("Ann", 13))
    assert kinds(events) == ["kill", "locks_advanced"]
    assert e.state()["locks"] == ALL_30
    assert kinds(e.apply(kill("Ann", 6))) == ["kill"]
    assert e.state()["next_release_in"] == 6  # Ben and Cat have not reached it yet
    e.apply(kill("Ben", 4))
    assert e.state()["next_release_in"] == 2
    assert kinds(e.apply(kill("Ben", 2))) == ["kill", "locks_advanced", "last_lock"]
    assert set(e.state()["locks"].values()) == {"open"}
    assert e.state()["next_release_in"] is None


def test_first_time_a_player_standing_on_the_threshold_does_not_step_again():
    e = zoo(lock_release="first_time")
    e.apply(kill("Ann", 6))
    assert kinds(e.apply(kill("Ann"))) == ["kill"]
    assert e.state()["locks"] == ALL_30


def test_first_time_next_release_in_skips_players_who_reached_it_and_the_dead():
    e = zoo(["Ann", "Ben", "Cat", "Dan"], lock_release="first_time")
    run(e, kill("Ann", 7), kill("Ben", 5), kill("Cat", 2))
    assert e.state()["next_release_in"] == 1  # Ben; Ann has reached it already
    knock_out(e, "Ben")
    assert e.state()["next_release_in"] == 4  # Cat; Ben is out
    assert e.state()["locks"] == ALL_30


# ----- lock tokens -----

def test_collecting_locks_scores_five_each_in_the_order_collected():
    e = zoo()
    events = e.apply(collect("Ben", "lions_den"))
    assert kinds(events) == ["lock_collected"] and events[0].player == "Ben"
    e.apply(kill("Ann", 6))
    e.apply(collect("Ben", "tiger_trail"))  # at 30:00 it can still be taken
    assert hero(e, "Ben")["locks"] == ["lions_den", "tiger_trail"]
    assert hero(e, "Ben")["score"] == 10
    assert e.state()["locks"] == {**ALL_30, "lions_den": "collected", "tiger_trail": "collected"}


def test_collecting_a_lock_off_the_board_is_refused():
    e = zoo(["Ann", "Ben"])
    e.apply(collect("Ben", "lions_den"))
    refused(e, collect("Ann", "lions_den"), "already collected by Ben", "still on the board: tiger_trail")
    e.apply(kill("Ann", 12))
    refused(e, collect("Ann", "tiger_trail"), "cage is open")
    f = zoo(FIVE)
    f.apply(kill("Ann", 8))
    refused(f, collect("Ann", "tiger_trail"), "gone with its tile", "still on the board: none")


def test_unknown_lock_name_is_refused():
    refused(zoo(), collect("Ann", "monkey_island"), "tiger_trail, lions_den", error=BadCommand)


def test_taking_the_last_lock_says_how_the_game_can_now_end():
    e = zoo()
    e.apply(kill("Ann", 6))
    run(e, collect("Ann", "tiger_trail"), collect("Ben", "lions_den"), collect("Cat", "hyena_hideout"))
    events = e.apply(collect("Ann", "polar_bears"))
    assert kinds(events) == ["lock_collected", "last_lock"]
    assert e.state()["next_release_in"] is None and e.state()["phase"] == "play"


# ----- life and bullets -----

def test_life_goes_down_and_up_but_never_above_five():
    e = zoo()
    e.apply(life("Ann", -3))
    assert hero(e, "Ann")["life"] == 2
    e.apply(life("Ann", 2))
    assert hero(e, "Ann")["life"] == 4
    e.apply(life("Ann", 4))
    assert hero(e, "Ann")["life"] == 5
    assert kinds(e.apply(life("Ann", 1))) == ["life"]  # a gain at full life stops at 5
    assert hero(e, "Ann")["life"] == 5


def test_bullets_have_no_upper_limit():
    e = zoo()
    run(e, bullets("Cat", 20), bullets("Cat", -4))
    assert hero(e, "Cat")["bullets"] == 21


@pytest.mark.parametrize("command, most", [("life", "at most 4 of 5 life"), ("bullets", "at most 5")])
def test_zero_delta_and_going_below_zero_are_refused(command, most):
    e = zoo()
    refused(e, {"cmd": command, "player": "Ann", "delta": 0}, "delta of 0")
    refused(e, {"cmd": command, "player": "Ann", "delta": -6}, most)  # the last life waits for the 5 bullets
    refused(e, {"cmd": command, "player": "Ann", "delta": "1"}, "whole number", error=BadCommand)


def test_bullets_are_spent_before_the_last_life():
    e = zoo()
    e.apply(life("Ann", -4))
    refused(e, life("Ann", -1), "bullets are spent before the last life", "5 bullets")
    refused(zoo(), life("Ben", -5), "bullets are spent before the last life")
    e.apply(bullets("Ann", -4))
    refused(e, life("Ann", -1), "still has 1 bullet;")
    run(e, bullets("Ann", -1), life("Ann", -1))
    assert not hero(e, "Ann")["alive"]


def test_a_loss_past_zero_with_bullets_left_names_the_loss_that_is_allowed():
    # Ann: 3 life, 5 bullets. Told "can lose at most 3", a player sent -3 and was refused again.
    e = zoo()
    e.apply(life("Ann", -2))
    message = refused(e, life("Ann", -5), '"delta":-5', "bullets are spent before the last life", "at most 2 of 3 life")
    assert "at most 3" not in message
    assert {"cmd": "life", "player": "Ann", "delta": {"min": -2, "max": -1}} in e.state()["legal"]
    e.apply(bullets("Ann", -5))
    refused(e, life("Ann", -5), "Ann has 3 life, so can lose at most 3")  # no bullets: all of it may go
    # on the last life with bullets left, none may go ("can lose at most 0 of 1 life")
    e.apply(life("Ann", -2))
    e.apply(bullets("Ann", 2))
    message = refused(e, life("Ann", -1), "Ann cannot lose that last life until then", "Spend them first")
    assert "at most 0" not in message


# ----- death -----

def test_death_discards_half_the_kills_rounded_down():
    e = zoo()
    run(e, kill("Ann", 7), collect("Ann", "tiger_trail"))
    events = knock_out(e, "Ann")
    assert kinds(events)[-2:] == ["life", "player_out"]
    assert "player_out" in ALARM_KINDS
    ann = hero(e, "Ann")
    assert (ann["kills"], ann["alive"], ann["life"], ann["score"]) == (4, False, 0, 9)
    assert e.state()["phase"] == "play"


def test_a_hero_out_with_no_kills_gives_up_none_in_words():
    e = zoo()
    out = knock_out(e, "Ann")[-1]
    assert out.kind == "player_out" and "0 of 0" not in out.text
    assert out.text == "Ann is out of the game, with no kills to give up; their locks still count."


@pytest.mark.parametrize("cmd, doing", [
    (kill("Ann"), "take kills"),
    (collect("Ann", "lions_den"), "collect locks"),
    (life("Ann", 1), "gain or lose life"),
    (bullets("Ann", 3), "gain or spend bullets"),
])
def test_the_dead_take_no_more_kills_locks_life_or_bullets(cmd, doing):
    e = zoo()
    knock_out(e, "Ann")
    refused(e, cmd, f"Ann is out of the game and cannot {doing}", "living players: Ben, Cat")


def test_two_player_death_ends_the_game_with_the_survivor_bonus():
    e = zoo(["Ann", "Ben"])
    run(e, kill("Ben", 3), collect("Ben", "lions_den"), kill("Ann", 2))
    events = knock_out(e, "Ben")
    assert kinds(events)[-2:] == ["player_out", "game_over"]
    state = e.state()
    assert state["phase"] == "game_over" and state["next_release_in"] is None
    assert [p["score"] for p in state["players"]] == [2 + 5, 2 + 5]  # Ben keeps 2 of 3 kills
    assert state["winners"] == ["Ann"]  # tie on points; Ann has more life
    assert "ahead of Ben on life left" in e.game.outcome()


def test_a_hero_out_of_the_game_who_wins_on_kills_is_not_called_the_last_one_alive():
    e = zoo(["Ann", "Ben"])
    run(e, kill("Ann", 20))
    knock_out(e, "Ann")  # Ann keeps half her kills, 10, and still beats Ben's 5 as the survivor
    assert e.is_over() and e.state()["winners"] == ["Ann"]
    # it read "Ann wins with 10 points (game ended as the last one alive)", with Ben the one alive
    assert e.game.outcome() == "Ann wins with 10 points (one hero is left alive)."


def test_last_alive_of_three_ends_the_game():
    e = zoo()
    knock_out(e, "Ben")
    assert not e.is_over()
    knock_out(e, "Ann")
    assert e.is_over() and e.state()["winners"] == ["Cat"] and hero(e, "Cat")["score"] == 5


# ----- the end by clearing the animals -----

def test_animals_cleared_is_refused_while_a_lock_is_on_the_board():
    e = zoo()
    e.apply(kill("Ann", 6))
    e.apply(collect("Ann", "tiger_trail"))
    refused(e, {"cmd": "animals_cleared"}, "still on the board: Lions' Den, Hyena Hideout, Polar Bears")


def test_animals_cleared_ends_the_game_without_a_survivor_bonus():
    e = zoo()
    run(e, collect("Cat", "hyena_hideout"), kill("Ann", 12))
    events = e.apply({"cmd": "animals_cleared"})
    assert kinds(events) == ["animals_cleared", "game_over"]
    state = e.state()
    assert [p["score"] for p in state["players"]] == [12, 0, 5]
    assert state["winners"] == ["Ann"] and state["phase"] == "game_over"
    assert "Gorillas and Monkeys" in e.game.outcome()


def test_a_full_tie_is_shared_in_seating_order():
    e = zoo()
    run(e, kill("Cat", 12), kill("Ann", 7), kill("Ann", 5))
    e.apply({"cmd": "animals_cleared"})
    assert e.state()["winners"] == ["Ann", "Cat"]
    assert e.game.outcome().startswith("Ann and Cat share the win with 12 points each")


def test_after_the_game_only_undo_is_accepted():
    e = zoo(["Ann", "Ben"])
    knock_out(e, "Ben")
    for cmd in (kill("Ann"), life("Ann", -1), bullets("Ann", 1), {"cmd": "animals_cleared"}):
        message = refused(e, cmd, "the game is over: Ann wins with", "(one hero is left alive); only undo")
        assert ".)" not in message  # the outcome's own sentence in brackets read "(… alive).)"
    e.apply({"cmd": "undo"})
    assert not e.is_over() and hero(e, "Ben")["alive"] and hero(e, "Ben")["bullets"] == 0


# ----- undo -----

def test_undo_across_a_lock_step_restores_the_exact_state():
    e = zoo()
    e.apply(kill("Ann", 5))
    before = copy.deepcopy(e.state())
    e.apply(kill("Ann", 8))
    assert e.state()["locks"] == dict.fromkeys(ALL_60, "open")
    assert kinds(e.apply({"cmd": "undo"})) == ["undo"]
    assert e.state() == before
    e.apply(kill("Ann"))
    assert e.state()["locks"] == ALL_30


def test_undo_across_a_death_restores_kills_and_life():
    e = zoo()
    run(e, kill("Ben", 9), bullets("Ben", -5), life("Ben", -4))
    before = copy.deepcopy(e.state())
    e.apply(life("Ben", -1))
    assert hero(e, "Ben")["kills"] == 5
    e.apply({"cmd": "undo"})
    assert e.state() == before and hero(e, "Ben")["kills"] == 9
    e.apply(kill("Ben", 3))  # alive again, so the 12th kill steps the locks a second time
    assert set(e.state()["locks"].values()) == {"open"}


# ----- the yes/no questions -----

def test_rule_questions():
    e = zoo()
    g = e.game
    assert g.outcome() == "Play goes on; nobody has scored yet."  # not "Ann, Ben and Cat lead with 0 points"
    assert g.living_players() == THREE and g.can_kill("Ann") and not g.can_kill("Zed")
    assert g.locks_on_board() == list(ALL_60) and g.next_release_in() == 6
    assert g.can_collect_lock("Ann", "tiger_trail") and not g.can_clear_animals()
    knock_out(e, "Ann")
    g = e.game
    assert g.living_players() == ["Ben", "Cat"] and not g.can_kill("Ann")
    e.apply(kill("Ben", 12))
    g = e.game
    assert g.locks_on_board() == [] and g.can_clear_animals() and not g.can_collect_lock("Ben", "tiger_trail")
    assert g.outcome().startswith("Play goes on; Ben leads with 12 points")


# ----- a whole game, and the example log -----

def test_a_full_four_player_game_from_setup_to_score():
    e = zoo(["Ann", "Ben", "Cat", "Dan"])
    seen = run(
        e,
        kill("Ann", 2), collect("Ben", "tiger_trail"), kill("Cat", 4), life("Dan", -2),
        kill("Ann", 4),                      # Ann reaches 6: the three locks left go to 30:00
        bullets("Dan", -3), collect("Cat", "hyena_hideout"), kill("Dan", 5),
        kill("Cat", 2),                      # Cat reaches 6: lions_den and polar_bears open
        bullets("Dan", -2), life("Dan", -3), # Dan is out with 5 kills, keeps 3
        bullets("Ben", 2), kill("Ben", 3), life("Ann", -2), life("Ann", 1),
        {"cmd": "animals_cleared"},
    )
    assert kinds(seen).count("locks_advanced") == 2 and kinds(seen).count("player_out") == 1
    assert kinds(seen)[-1] == "game_over"
    state = e.state()
    assert state["locks"] == {"tiger_trail": "collected", "lions_den": "open", "hyena_hideout": "collected",
                              "polar_bears": "open"}
    assert [(p["name"], p["kills"], p["locks"], p["life"], p["score"], p["alive"]) for p in state["players"]] == [
        ("Ann", 6, [], 4, 6, True),
        ("Ben", 3, ["tiger_trail"], 5, 8, True),
        ("Cat", 6, ["hyena_hideout"], 5, 11, True),
        ("Dan", 3, [], 0, 3, False),
    ]
    assert state["winners"] == ["Cat"] and state["phase"] == "game_over"


def test_the_example_game_log_plays_to_the_end():
    lines = (ROOT / "examples" / "zoo-game.jsonl").read_text().splitlines()
    commands = [json.loads(line) for line in lines if line.strip()]
    e = Engine(commands[0])
    seen = []
    for cmd in commands[1:]:
        seen += kinds(e.apply(cmd))
    assert e.is_over() and e.state()["game"] == "zoo"
    assert {"locks_advanced", "player_out", "lock_collected", "game_over"} <= set(seen)


def test_the_example_replays_through_the_command_line(capsys, tmp_path):
    from companion.cli import main

    example = ROOT / "examples" / "zoo-game.jsonl"
    assert main(["replay", str(example), "--json"]) == 0
    state = json.loads(capsys.readouterr().out)
    assert state["phase"] == "game_over" and state["winners"] == ["Ben"]
    bad = tmp_path / "bad.jsonl"
    lines = example.read_text().splitlines()[:3] + ['{"cmd":"life","player":"Cat","delta":-5}']
    bad.write_text("\n".join(lines) + "\n")
    assert main(["replay", str(bad), "--json"]) == 2
    assert "line 4: " in capsys.readouterr().err
