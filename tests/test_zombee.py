"""ZomBee rules, each rule and each refusal, tested through the Engine.

Every expected value here was worked out by hand from the contract and the
rulebook, not copied from the engine's output.
"""

from __future__ import annotations

import json

import pytest

from companion.engine import Engine
from companion.errors import IllegalCommand

THREE = ["Tom", "Mia", "Ann"]
FIVE = ["Tom", "Mia", "Ann", "Ben", "Eva"]
ZZZ5 = ["zzz"] * 5


def zombee(players=THREE, variant=None, **rules) -> Engine:
    cmd = {"cmd": "new_game", "game": "zombee", "players": list(players)}
    if variant:
        cmd["variant"] = variant
    if rules:
        cmd["rules"] = rules
    return Engine(cmd)


def run(e: Engine, *commands) -> list:
    events = []
    for cmd in commands:
        if isinstance(cmd, str):
            cmd = {"cmd": cmd}
        events += e.apply(cmd)
    return events


def roll(*faces, reroll=None) -> dict:
    cmd = {"cmd": "roll", "faces": list(faces)}
    if reroll is not None:
        cmd["reroll"] = list(reroll)
    return cmd


def flip(result, player=None) -> dict:
    cmd = {"cmd": "flip", "result": result}
    if player is not None:
        cmd["player"] = player
    return cmd


def choose(player) -> dict:
    return {"cmd": "choose", "player": player}


def honey(e: Engine) -> dict:
    return {p["name"]: p["honey"] for p in e.state()["players"]}


def out(e: Engine) -> dict:
    return {p["name"]: p["eliminated"] for p in e.state()["players"]}


def greens(e: Engine) -> dict:
    return {p["name"]: p["green"] for p in e.state()["players"]}


def refused(e: Engine, cmd, *words: str) -> str:
    """The command is refused, the message names each of `words`, and nothing changed."""
    before = json.dumps(e.state())
    could_undo = e.can_undo()
    with pytest.raises(IllegalCommand) as info:
        e.apply(cmd)
    message = str(info.value)
    for word in words:
        assert word in message, (word, message)
    assert json.dumps(e.state()) == before
    assert e.can_undo() == could_undo
    return message


def pass_turn(e: Engine) -> None:
    """The active player rolls only Zzz and stops: nothing happens, the turn passes."""
    run(e, roll(*ZZZ5), "stop")


def lose(e: Engine) -> None:
    """The active player rolls five ZomBees (evaluated at once) and reveals the ZomBee flower."""
    run(e, roll(*["zombee"] * 5), flip("zombee"))


def flips_owed(e: Engine) -> list[str]:
    """Flip bees until the turn passes, returning who flipped, in order."""
    who = []
    while e.state()["phase"] == "flip":
        who.append(e.state()["pending"])
        e.apply(flip("bee"))
    return who


# --- setting up ------------------------------------------------------------------


def test_a_new_standard_game_shows_every_field():
    s = zombee().state()
    assert s == {
        "game": "zombee",
        "variant": "standard",
        "rules": {"zombee_penalty": "revealer"},
        "players": [{"name": n, "honey": 2, "green": 0, "eliminated": False} for n in THREE],
        "active": "Tom",
        "phase": "roll",
        "pending": "Tom",
        "owed": [],
        "rolls": 0,
        "kept": [],
        "last_roll": [],
        "flowers": {"face_down": 14, "bee": 0, "question": 0},
        "supply": {"yellow": 15 - 3 * 2, "green": 5},
        "winner": None,
        "game_winners": [],
        "odds": {"zombee_next_flip": 1 / 14},
        "over": False,
        "winners": [],
        "legal": [{"cmd": "roll"}],
        "can_undo": False,
    }


def test_the_state_lists_the_flowers_still_owed_in_order():
    e = zombee()
    run(e, roll("zombee", "bee", "bee", "zzz", "honey"), "stop")
    assert e.state()["owed"] == ["Tom", "Mia", "Ann"]  # the ZomBee face first, then the bees clockwise
    e.apply(flip("bee"))
    assert e.state()["owed"] == ["Mia", "Ann"] and e.state()["pending"] == "Mia"


def test_a_tournament_starts_everyone_with_one_honey():
    s = zombee(FIVE, variant="tournament").state()
    assert s["variant"] == "tournament"
    assert [p["honey"] for p in s["players"]] == [1] * 5
    assert s["supply"] == {"yellow": 10, "green": 5}


def test_the_first_listed_player_starts():
    s = zombee(["Mia", "Tom"]).state()
    assert s["active"] == s["pending"] == "Mia"


@pytest.mark.parametrize("players", [["Tom"], ["A", "B", "C", "D", "E", "F"]])
def test_two_to_five_players(players):
    with pytest.raises(IllegalCommand, match="2 to 5"):
        zombee(players)


def test_unknown_variant_is_refused():
    with pytest.raises(IllegalCommand, match="variant"):
        zombee(variant="speed")


def test_names_are_trimmed():
    s = zombee(["  Tom ", "Mia\t"]).state()
    assert [p["name"] for p in s["players"]] == ["Tom", "Mia"]


@pytest.mark.parametrize("players", [["Tom", "tom"], ["Tom", " TOM "], ["Ann", "Mia", "ANN"]])
def test_names_are_unique_ignoring_case(players):
    with pytest.raises(IllegalCommand, match="unique"):
        zombee(players)


@pytest.mark.parametrize("players", [["Tom", ""], ["Tom", "   "]])
def test_empty_names_are_refused(players):
    with pytest.raises(IllegalCommand, match="empty"):
        zombee(players)


def test_unknown_house_rule_and_bad_penalty_are_refused():
    with pytest.raises(IllegalCommand, match="zombee_penalty"):
        zombee(zombee_penalties="active")
    with pytest.raises(IllegalCommand, match="revealer or active"):
        zombee(zombee_penalty="everyone")


def test_the_default_penalty_is_the_revealer():
    explicit = zombee(zombee_penalty="revealer")
    default = zombee()
    for e in (explicit, default):
        run(e, roll("bee", "zzz", "zzz", "zzz", "zzz"), "stop", flip("zombee"))  # Mia reveals on Tom's turn
        assert honey(e) == {"Tom": 2, "Mia": 1, "Ann": 2}


# --- rolling --------------------------------------------------------------------------


def test_first_roll_with_reroll_is_refused():
    e = zombee()
    refused(e, roll("bee", "bee", "bee", "bee", "bee", reroll=["bee"] * 5), "reroll")
    refused(e, roll("bee", "bee", "bee", "bee", "bee", reroll=[]), "reroll")


@pytest.mark.parametrize("n", [0, 4, 6])
def test_first_roll_shows_five_dice(n):
    refused(zombee(), roll(*["bee"] * n), "5", str(n))


def test_the_flowers_owed_are_counted_in_words_one_or_many():
    e = zombee()
    flips = [ev.text for ev in run(e, roll("bee", "zzz", "zzz", "zzz", "zzz"), "stop") if ev.kind == "flips"]
    assert flips == ["1 flower to turn over: Mia."]  # it read "1 flowers to turn over: Mia."
    run(e, flip("bee"))
    flips = [ev.text for ev in run(e, roll("bee", "bee", "zzz", "zzz", "zzz"), "stop") if ev.kind == "flips"]
    assert flips == ["2 flowers to turn over: Ann, Tom."]


def test_stop_before_rolling_is_refused():
    refused(zombee(), {"cmd": "stop"}, "stop", "roll")


def test_a_later_roll_without_reroll_is_refused():
    e = zombee()
    run(e, roll("bee", "bee", "honey", "zzz", "zzz"))
    refused(e, roll("bee", "bee"), "reroll")


def test_roll_refusals_quote_the_input_and_say_what_may_be_picked_up():
    # These four said what was wrong but not what would be allowed (docs/zombee.md, "Commands and the log").
    e = zombee()
    refused(e, {"cmd": "stop"}, '{"cmd":"stop"}', "has not rolled yet", "all 5 dice")
    run(e, roll("bee", "bee", "honey", "zzz", "zombee"))
    picks = "up to 2 bee, 1 honey, 1 zzz, 1 zombee (each with a zzz)"
    refused(e, roll("bee", "bee"), '{"cmd":"roll","faces":["bee","bee"]}', "'reroll'", picks, "or stop")
    refused(e, roll("bee", reroll=["bee", "bee"]), '["bee","bee"]', '["bee"]', "same dice")
    refused(e, roll("bee", "bee", "bee", reroll=["zzz", "zombee", "zombee"]), "only 1 is on the table", picks)


def test_an_empty_reroll_is_refused():
    e = zombee()
    run(e, roll("bee", "bee", "honey", "zzz", "zzz"))
    refused(e, roll(reroll=[]), "empty")


def test_reroll_and_faces_must_be_the_same_length():
    e = zombee()
    run(e, roll("bee", "bee", "honey", "zzz", "zzz"))
    refused(e, roll("bee", reroll=["bee", "bee"]), "2", "1")
    refused(e, roll("bee", "bee", "bee", reroll=["bee", "bee"]), "2", "3")


def test_dice_set_aside_stay_aside():
    e = zombee()
    run(e, roll("bee", "honey", "honey", "zzz", "zzz"), roll("bee", "bee", reroll=["zzz", "zzz"]))
    s = e.state()
    assert s["kept"] == ["bee", "honey", "honey"] and s["last_roll"] == ["bee", "bee"] and s["rolls"] == 2
    refused(e, roll("bee", reroll=["honey"]), "honey", "set aside")  # honey came from the first roll
    refused(e, roll("bee", "bee", "bee", reroll=["bee", "bee", "bee"]), "bee")  # only 2 bees in the latest roll
    run(e, roll("honey", "honey", reroll=["bee", "bee"]))
    s = e.state()
    assert s["kept"] == ["bee", "honey", "honey"] and s["last_roll"] == ["honey", "honey"]
    assert s["rolls"] == 3


def test_picking_up_more_of_a_face_than_the_latest_roll_shows_is_refused():
    e = zombee()
    run(e, roll("bee", "honey", "honey", "zzz", "zzz"))
    refused(e, roll("bee", "bee", reroll=["bee", "bee"]), "bee")
    refused(e, roll("zzz", "zzz", "zzz", reroll=["zzz", "zzz", "zzz"]), "zzz")


def test_a_zombee_is_picked_up_only_with_a_zzz():
    e = zombee()
    run(e, roll("zombee", "zombee", "zzz", "bee", "honey"))
    refused(e, roll("bee", reroll=["zombee"]), "zzz")
    refused(e, roll("bee", "bee", "bee", reroll=["zombee", "zombee", "zzz"]), "zzz")  # one Zzz per ZomBee
    refused(e, roll("bee", "bee", reroll=["zombee", "bee"]), "zzz")  # a bee is no Zzz
    run(e, roll("bee", "bee", reroll=["zombee", "zzz"]))
    s = e.state()
    assert s["kept"] == ["bee", "honey", "zombee"] and s["last_roll"] == ["bee", "bee"]


def test_a_zombee_needs_a_zzz_of_the_latest_roll_not_an_earlier_one():
    e = zombee()
    run(e, roll("zombee", "zzz", "bee", "bee", "bee"), roll("honey", reroll=["bee"]))
    # The Zzz of the first roll is set aside now; the latest roll shows no Zzz.
    refused(e, roll("bee", "bee", reroll=["zzz", "zombee"]), "zzz")
    refused(e, roll("bee", "bee", reroll=["honey", "zombee"]), "zzz")


def test_a_zombee_from_an_earlier_roll_rides_with_a_new_zzz():
    e = zombee()
    run(e, roll("zombee", "bee", "bee", "bee", "bee"), roll("zzz", "bee", "bee", "bee", reroll=["bee"] * 4))
    assert e.state()["kept"] == ["zombee"]
    run(e, roll("honey", "honey", reroll=["zzz", "zombee"]))
    s = e.state()
    # All five dice: bee bee bee (aside) + honey honey; the ZomBee went back into the roll.
    assert s["kept"] == ["bee", "bee", "bee"] and s["last_roll"] == ["honey", "honey"]


def test_more_zombees_than_are_on_the_table_is_refused():
    e = zombee()
    run(e, roll("zzz", "zzz", "bee", "bee", "zombee"))
    refused(e, roll("bee", "bee", "bee", "bee", reroll=["zzz", "zzz", "zombee", "zombee"]), "zombee")


def test_faces_are_shown_in_table_order():
    e = zombee()
    run(e, roll("zombee", "zzz", "honey", "bee", "zzz"))
    assert e.state()["last_roll"] == ["bee", "honey", "zzz", "zzz", "zombee"]
    assert e.state()["kept"] == []


def test_the_third_roll_starts_the_evaluation():
    e = zombee()
    run(e, roll("bee", "zzz", "zzz", "zzz", "zzz"), roll("zzz", reroll=["zzz"]), roll("bee", reroll=["zzz"]))
    s = e.state()
    assert s["rolls"] == 3 and s["phase"] == "flip"
    assert s["kept"] == ["bee", "zzz", "zzz", "zzz"] and s["last_roll"] == ["bee"]
    assert flips_owed(e) == ["Mia", "Ann"]
    assert e.state()["active"] == "Mia"


def test_no_fourth_roll():
    e = zombee()
    run(e, roll(*ZZZ5), roll(*ZZZ5, reroll=ZZZ5), roll(*ZZZ5, reroll=ZZZ5))
    s = e.state()  # only Zzz: nothing to evaluate, the turn has passed
    assert s["active"] == "Mia" and s["rolls"] == 0


def test_evaluation_starts_when_no_die_may_be_rolled_again():
    e = zombee()
    run(e, roll("zombee", "zombee", "zombee", "zzz", "bee"), roll("zombee", reroll=["bee"]))
    s = e.state()
    # Latest roll is a lone ZomBee with no Zzz beside it: nothing may be picked up.
    assert s["phase"] == "flip" and s["rolls"] == 2 and s["pending"] == "Tom"
    assert s["kept"] == ["zzz", "zombee", "zombee", "zombee"] and s["last_roll"] == ["zombee"]
    assert flips_owed(e) == ["Tom"] * 4


def test_five_zombees_on_the_first_roll_are_evaluated_at_once():
    e = zombee()
    run(e, roll(*["zombee"] * 5))
    s = e.state()
    assert s["phase"] == "flip" and s["rolls"] == 1
    refused(e, {"cmd": "stop"}, "flip")
    refused(e, roll("bee", reroll=["zombee"]), "flip")
    assert flips_owed(e) == ["Tom"] * 5


def test_stop_after_a_roll_evaluates():
    e = zombee()
    run(e, roll("bee", "bee", "honey", "zzz", "zombee"), "stop")
    s = e.state()
    assert s["phase"] == "flip" and s["pending"] == "Tom" and s["rolls"] == 1
    assert s["last_roll"] == ["bee", "bee", "honey", "zzz", "zombee"]


def test_rolling_is_refused_while_flowers_are_owed():
    e = zombee()
    run(e, roll("bee", "zzz", "zzz", "zzz", "zzz"), "stop")
    refused(e, roll(*ZZZ5), "Mia", "flip")
    refused(e, choose("Ann"), "flip")


# --- evaluating --------------------------------------------------------------------------


def test_zzz_counts_for_nothing():
    e = zombee()
    before = e.state()
    pass_turn(e)
    s = e.state()
    assert s["players"] == before["players"] and s["flowers"] == before["flowers"]
    assert s["active"] == s["pending"] == "Mia" and s["phase"] == "roll"
    assert s["rolls"] == 0 and s["kept"] == [] and s["last_roll"] == []


@pytest.mark.parametrize("honeys, gain", [(2, 0), (3, 1), (4, 1), (5, 1)])
def test_three_or_more_honey_give_one_honey(honeys, gain):
    e = zombee()
    run(e, roll(*(["honey"] * honeys + ["zzz"] * (5 - honeys))), "stop")
    assert honey(e) == {"Tom": 2 + gain, "Mia": 2, "Ann": 2}
    assert e.state()["supply"]["yellow"] == 9 - gain


def test_honey_counts_dice_from_every_roll():
    e = zombee()
    run(e, roll("honey", "honey", "zzz", "zzz", "zzz"), roll("honey", "zzz", "zzz", reroll=["zzz"] * 3), "stop")
    assert honey(e)["Tom"] == 3


def test_honey_stops_at_the_cap():
    e = zombee(["Tom", "Mia"])
    run(e, roll(*["honey"] * 5), "stop")  # Tom 3
    pass_turn(e)  # Mia
    run(e, roll(*["honey"] * 5), "stop")  # Tom at the cap: forfeited
    assert honey(e) == {"Tom": 3, "Mia": 2}
    assert e.state()["supply"]["yellow"] == 10


def test_tournament_cap_is_two():
    e = zombee(["Tom", "Mia"], variant="tournament")
    run(e, roll(*["honey"] * 5), "stop")
    assert honey(e) == {"Tom": 2, "Mia": 1}
    pass_turn(e)
    run(e, roll(*["honey"] * 5), "stop")
    assert honey(e) == {"Tom": 2, "Mia": 1}
    assert e.state()["supply"]["yellow"] == 12


def test_the_supply_runs_down_to_zero_and_never_below():
    e = zombee(FIVE)
    for _ in range(5):
        run(e, roll(*["honey"] * 3, "zzz", "zzz"), "stop")
    assert honey(e) == dict.fromkeys(FIVE, 3)
    assert e.state()["supply"]["yellow"] == 0
    run(e, roll(*["honey"] * 3, "zzz", "zzz"), "stop")
    assert honey(e) == dict.fromkeys(FIVE, 3)
    assert e.state()["supply"]["yellow"] == 0


def test_an_empty_box_gives_no_honey(monkeypatch):
    # With 5 seats and a cap of 3 the box only empties when everyone is capped,
    # so shrink the box to check the empty-box rule on its own.
    import companion.zombee as zb

    monkeypatch.setattr(zb, "HONEY_IN_BOX", 6)
    e = zombee()
    assert e.state()["supply"]["yellow"] == 0
    run(e, roll(*["honey"] * 3, "zzz", "zzz"), "stop")
    assert honey(e) == {"Tom": 2, "Mia": 2, "Ann": 2}
    assert e.state()["supply"]["yellow"] == 0
    assert e.state()["active"] == "Mia"
    lose(e)  # Mia pays a drop back: the box has one again
    run(e, roll(*["honey"] * 3, "zzz", "zzz"), "stop")
    assert honey(e) == {"Tom": 2, "Mia": 2, "Ann": 2}


def test_green_zombees_come_first_then_bees_clockwise():
    e = zombee()
    run(e, roll("zombee", "bee", "bee", "zzz", "zzz"), "stop")
    assert flips_owed(e) == ["Tom", "Mia", "Ann"]


def test_bees_wrap_round_the_other_players():
    e = zombee()
    run(e, roll("bee", "bee", "bee", "bee", "zzz"), "stop")
    assert flips_owed(e) == ["Mia", "Ann", "Mia", "Ann"]


def test_bees_start_at_the_active_players_left_and_skip_them():
    e = zombee(["Tom", "Mia", "Ann", "Ben"])
    pass_turn(e)
    pass_turn(e)  # Ann is active
    run(e, roll("bee", "bee", "bee", "bee", "bee"), "stop")
    assert flips_owed(e) == ["Ben", "Tom", "Mia", "Ben", "Tom"]
    assert e.state()["active"] == "Ben"


def test_two_players_all_bees_go_to_the_other():
    e = zombee(["Tom", "Mia"])
    run(e, roll(*["bee"] * 5), "stop")
    assert flips_owed(e) == ["Mia"] * 5


def test_bees_and_turns_skip_eliminated_players():
    e = zombee(["Tom", "Mia", "Ann", "Ben"])
    pass_turn(e)
    pass_turn(e)
    lose(e)
    assert e.state()["active"] == "Ann" and honey(e)["Ann"] == 1
    lose(e)
    s = e.state()
    assert out(e) == {"Tom": False, "Mia": False, "Ann": True, "Ben": False}
    assert s["active"] == s["pending"] == "Ben"  # Ann's left-hand neighbour
    pass_turn(e)
    pass_turn(e)
    assert e.state()["active"] == "Mia"
    run(e, roll(*["bee"] * 5), "stop")
    assert flips_owed(e) == ["Ben", "Tom", "Ben", "Tom", "Ben"]
    assert e.state()["active"] == "Ben"  # Ann's seat is skipped
    run(e, roll(*["bee"] * 5), "stop")
    assert flips_owed(e) == ["Tom", "Mia", "Tom", "Mia", "Tom"]


def test_flip_refused_in_roll_phase():
    refused(zombee(), flip("bee"), "Tom", "roll")


# --- flowers -------------------------------------------------------------------------------


def test_revealed_flowers_stay_face_up_across_turns():
    e = zombee()
    run(e, roll("bee", "bee", "zzz", "zzz", "zzz"), "stop", flip("bee"), flip("question"), choose("Tom"))
    run(e, flip("bee"))
    s = e.state()
    assert s["flowers"] == {"face_down": 11, "bee": 2, "question": 1}
    assert s["active"] == "Mia"
    assert s["odds"]["zombee_next_flip"] == 1 / 11
    pass_turn(e)
    assert e.state()["flowers"] == {"face_down": 11, "bee": 2, "question": 1}


def test_a_twelfth_bee_is_refused():
    e = zombee(["Tom", "Mia"])
    run(e, roll(*["bee"] * 5), "stop")
    flips_owed(e)
    run(e, roll(*["bee"] * 5), "stop")
    flips_owed(e)
    run(e, roll("bee", "zzz", "zzz", "zzz", "zzz"), "stop")
    flips_owed(e)
    s = e.state()
    assert s["flowers"] == {"face_down": 3, "bee": 11, "question": 0}
    assert s["odds"]["zombee_next_flip"] == 1 / 3
    run(e, roll("bee", "zzz", "zzz", "zzz", "zzz"), "stop")  # Mia's bee: Tom flips
    msg = refused(e, flip("bee"), "bee", "face up")
    assert "question" in msg and "zombee" in msg  # what would have been legal


def test_a_third_question_mark_is_refused():
    e = zombee()
    run(e, roll("bee", "bee", "bee", "zzz", "zzz"), "stop")
    run(e, flip("question"), choose("Ann"), flip("question"), choose("Tom"), flip("bee"))
    assert e.state()["flowers"] == {"face_down": 11, "bee": 1, "question": 2}
    msg = refused(e, flip("question"), "question", "face up")
    assert "bee" in msg and "zombee" in msg


def test_only_the_zombee_may_be_left():
    # 11 bees and 2 question marks up: the last flower can only be the ZomBee.
    e = zombee(["Tom", "Mia"])
    run(e, roll(*["bee"] * 5), "stop")
    run(e, flip("question"), choose("Tom"), flip("question"), choose("Mia"))
    flips_owed(e)  # Mia flipped the Tom-chosen extra, then her bees
    s = e.state()
    assert s["flowers"] == {"face_down": 7, "bee": 5, "question": 2}
    run(e, roll(*["bee"] * 5), "stop")
    flips_owed(e)
    run(e, roll("bee", "zzz", "zzz", "zzz", "zzz"), "stop")
    flips_owed(e)
    assert e.state()["flowers"] == {"face_down": 1, "bee": 11, "question": 2}
    assert e.state()["odds"]["zombee_next_flip"] == 1.0
    run(e, roll("bee", "zzz", "zzz", "zzz", "zzz"), "stop")
    refused(e, flip("bee"), "zombee")
    refused(e, flip("question"), "zombee")
    run(e, flip("zombee"))
    assert e.state()["flowers"] == {"face_down": 14, "bee": 0, "question": 0}


def test_flip_naming_the_wrong_player_is_refused():
    e = zombee()
    run(e, roll("bee", "bee", "zzz", "zzz", "zzz"), "stop")
    refused(e, flip("bee", player="Ann"), "Mia", "Ann")
    refused(e, flip("bee", player="Tom"), "Mia", "Tom")
    run(e, flip("bee", player="Mia"))
    assert e.state()["pending"] == "Ann"


# --- question marks ---------------------------------------------------------------------------


def test_question_mark_revealer_chooses_and_the_chosen_flips_at_once():
    e = zombee()
    run(e, roll("bee", "bee", "zzz", "zzz", "zzz"), "stop", flip("question"))
    s = e.state()
    assert s["phase"] == "choose" and s["pending"] == "Mia" and s["active"] == "Tom"
    refused(e, choose("Mia"), "Mia", "themselves")
    refused(e, flip("bee"), "choose")
    refused(e, roll(*ZZZ5), "choose")
    refused(e, choose("Zed"), "Zed")
    run(e, choose("Tom"))  # the active player may be chosen
    s = e.state()
    assert s["phase"] == "flip" and s["pending"] == "Tom"
    assert flips_owed(e) == ["Tom", "Ann"]  # then the remaining flips go on in order


def test_the_active_player_may_choose_themselves():
    e = zombee()
    run(e, roll("zombee", "zombee", "zzz", "zzz", "zzz"), "stop", flip("question"))
    assert e.state()["pending"] == "Tom"
    run(e, choose("Tom"))
    assert flips_owed(e) == ["Tom", "Tom"]


def test_choose_is_needed_even_with_one_candidate():
    e = zombee(["Tom", "Mia"])
    run(e, roll("bee", "zzz", "zzz", "zzz", "zzz"), "stop", flip("question"))
    s = e.state()
    assert s["phase"] == "choose" and s["pending"] == "Mia"
    refused(e, flip("bee"), "choose", "Tom")
    refused(e, choose("Mia"), "themselves", "Tom")
    run(e, choose("Tom"), flip("bee"))
    assert e.state()["active"] == "Mia"


def test_eliminated_players_cannot_be_chosen():
    e = zombee(["Tom", "Mia", "Ann"])
    lose(e)
    lose(e)  # Tom out, Mia starts
    assert e.state()["active"] == "Mia"
    run(e, roll("zombee", "zzz", "zzz", "zzz", "zzz"), "stop", flip("question"))
    refused(e, choose("Tom"), "Tom", "cannot be chosen")
    run(e, choose("Ann"), flip("bee"))
    assert e.state()["active"] == "Ann"


def test_choose_refusals_quote_the_input_and_say_whom_the_chooser_may_name():
    # An unknown name read 'no player is called "Zed"; players are Tom, Mia, Ann', Tom included, whom Mia may not name.
    e = zombee()
    run(e, roll("bee", "zzz", "zzz", "zzz", "zzz"), "stop", flip("question"))  # Mia turns a question mark
    refused(e, choose("Zed"), '{"cmd":"choose","player":"Zed"}', '"Zed" is not a player', "Mia may choose Tom, Ann")
    refused(e, choose("Mia"), '{"cmd":"choose","player":"Mia"}', "cannot choose themselves", "Mia may choose Tom, Ann")
    run(e, choose("Ann"))
    refused(e, flip("bee", "Mia"), '{"cmd":"flip","result":"bee","player":"Mia"}', "it is Ann's flower")


def test_question_mark_chains():
    e = zombee()
    run(e, roll("zombee", "bee", "zzz", "zzz", "zzz"), "stop")  # owed: Tom, then Mia
    run(e, flip("question"), choose("Ann"))
    assert e.state()["pending"] == "Ann"
    run(e, flip("question"))
    s = e.state()
    assert s["phase"] == "choose" and s["pending"] == "Ann"
    refused(e, choose("Ann"), "themselves")
    run(e, choose("Mia"))
    assert flips_owed(e) == ["Mia", "Mia"]  # the extra flip, then Mia's own bee flip
    s = e.state()
    assert s["flowers"] == {"face_down": 10, "bee": 2, "question": 2}
    assert s["active"] == "Mia"


# --- the ZomBee flower -----------------------------------------------------------------------


def test_zombee_revealer_pays_and_starts_a_new_round_at_once():
    e = zombee()
    run(e, roll("bee", "bee", "zzz", "zzz", "zzz"), "stop", flip("bee"), flip("zombee"))
    s = e.state()
    assert honey(e) == {"Tom": 2, "Mia": 2, "Ann": 1}
    assert s["active"] == s["pending"] == "Ann"
    assert s["phase"] == "roll" and s["rolls"] == 0 and s["kept"] == [] and s["last_roll"] == []
    assert s["flowers"] == {"face_down": 14, "bee": 0, "question": 0}
    assert s["supply"]["yellow"] == 10
    assert s["odds"]["zombee_next_flip"] == 1 / 14


def test_zombee_drops_the_pending_flips():
    e = zombee()
    run(e, roll("zombee", "zombee", "bee", "bee", "zzz"), "stop", flip("zombee"))
    s = e.state()
    assert honey(e) == {"Tom": 1, "Mia": 2, "Ann": 2}
    assert s["phase"] == "roll" and s["active"] == "Tom" and s["rolls"] == 0
    refused(e, flip("bee"), "roll")


def test_zombee_from_an_extra_flip_is_paid_by_who_revealed_it():
    e = zombee()
    run(e, roll("bee", "zzz", "zzz", "zzz", "zzz"), "stop", flip("question"), choose("Ann"), flip("zombee"))
    assert honey(e) == {"Tom": 2, "Mia": 2, "Ann": 1}
    assert e.state()["active"] == "Ann"


def test_active_penalty_makes_the_active_player_pay_and_start():
    e = zombee(zombee_penalty="active")
    run(e, roll("bee", "bee", "zzz", "zzz", "zzz"), "stop", flip("zombee"))  # Mia reveals
    s = e.state()
    assert honey(e) == {"Tom": 1, "Mia": 2, "Ann": 2}
    assert s["active"] == s["pending"] == "Tom"
    assert s["flowers"]["face_down"] == 14


def test_active_penalty_eliminated_active_player_passes_the_start_left():
    e = zombee(zombee_penalty="active")
    run(e, roll("bee", "zzz", "zzz", "zzz", "zzz"), "stop", flip("zombee"))  # Tom 1
    run(e, roll("bee", "bee", "zzz", "zzz", "zzz"), "stop", flip("bee"), flip("zombee"))  # Ann reveals, Tom pays
    s = e.state()
    assert honey(e) == {"Tom": 0, "Mia": 2, "Ann": 2}
    assert out(e) == {"Tom": True, "Mia": False, "Ann": False}
    assert s["active"] == s["pending"] == "Mia"


def test_eliminated_revealer_passes_the_start_to_the_next_living_player():
    e = zombee(["Tom", "Mia", "Ann"])
    pass_turn(e)  # Mia
    lose(e)
    lose(e)  # Mia out: Ann starts
    s = e.state()
    assert out(e) == {"Tom": False, "Mia": True, "Ann": False}
    assert s["active"] == s["pending"] == "Ann"
    lose(e)
    lose(e)  # Ann out: next living clockwise from Ann is Tom, and Tom is the last one
    s = e.state()
    assert s["phase"] == "game_over" and s["winner"] == "Tom"


def test_eliminated_starter_wraps_past_eliminated_seats():
    e = zombee(["Tom", "Mia", "Ann", "Ben"])
    pass_turn(e)
    lose(e)
    lose(e)  # Mia out, Ann starts
    pass_turn(e)  # Ben
    lose(e)
    lose(e)  # Ben out; left of Ben is Tom
    assert e.state()["active"] == "Tom"
    pass_turn(e)  # skips Mia
    assert e.state()["active"] == "Ann"


# --- end of the game ------------------------------------------------------------------------------


def test_standard_game_over():
    e = zombee(["Tom", "Mia"])
    lose(e)
    lose(e)
    s = e.state()
    assert s["phase"] == "game_over"
    assert s["winner"] == "Mia" and s["game_winners"] == ["Mia"]
    assert s["active"] is None and s["pending"] is None
    assert honey(e) == {"Tom": 0, "Mia": 2} and out(e) == {"Tom": True, "Mia": False}
    assert s["supply"] == {"yellow": 13, "green": 5}
    for cmd in (roll(*ZZZ5), {"cmd": "stop"}, flip("bee"), choose("Mia")):
        refused(e, cmd, "over", "undo")
    run(e, "undo")
    s = e.state()
    assert s["phase"] == "flip" and s["pending"] == "Tom" and honey(e) == {"Tom": 1, "Mia": 2}


def test_game_over_by_active_penalty():
    e = zombee(["Tom", "Mia"], zombee_penalty="active")
    run(e, roll("bee", "zzz", "zzz", "zzz", "zzz"), "stop", flip("zombee"))  # Mia reveals, Tom pays
    run(e, roll("bee", "zzz", "zzz", "zzz", "zzz"), "stop", flip("zombee"))
    s = e.state()
    assert s["phase"] == "game_over" and s["winner"] == "Mia" and honey(e) == {"Tom": 0, "Mia": 2}


# --- the tournament ------------------------------------------------------------------------------


def test_tournament_game_win_starts_a_new_game_at_once():
    e = zombee(THREE, variant="tournament")
    lose(e)  # Tom out, Mia starts
    assert e.state()["active"] == "Mia"
    run(e, roll("bee", "honey", "zzz", "zzz", "zzz"), "stop", flip("question"))
    refused(e, choose("Tom"), "cannot be chosen")  # Tom is out
    run(e, choose("Mia"))
    assert e.state()["pending"] == "Mia"
    run(e, flip("bee"))
    assert e.state()["active"] == "Ann"
    lose(e)  # Ann (active) out: Mia wins game 1; Ann lost the last honey
    s = e.state()
    assert s["phase"] == "roll"
    assert s["game_winners"] == ["Mia"] and s["winner"] is None
    assert greens(e) == {"Tom": 0, "Mia": 1, "Ann": 0}
    assert honey(e) == {"Tom": 1, "Mia": 1, "Ann": 1}
    assert out(e) == {"Tom": False, "Mia": False, "Ann": False}
    assert s["flowers"] == {"face_down": 14, "bee": 0, "question": 0}
    assert s["active"] == s["pending"] == "Ann"
    assert s["rolls"] == 0 and s["kept"] == [] and s["last_roll"] == []
    assert s["supply"] == {"yellow": 12, "green": 4}


def test_tournament_second_win_ends_it():
    e = zombee(["Tom", "Mia"], variant="tournament")
    lose(e)
    s = e.state()
    assert s["game_winners"] == ["Mia"] and s["active"] == "Tom" and s["phase"] == "roll"
    lose(e)
    s = e.state()
    assert s["phase"] == "tournament_over"
    assert s["winner"] == "Mia" and s["game_winners"] == ["Mia", "Mia"]
    assert greens(e) == {"Tom": 0, "Mia": 2}
    assert s["active"] is None and s["pending"] is None
    assert s["supply"]["green"] == 3
    refused(e, roll(*ZZZ5), "over", "undo")
    run(e, "undo")
    assert e.state()["phase"] == "flip" and greens(e) == {"Tom": 0, "Mia": 1}


def test_tournament_one_win_each_is_not_over():
    e = zombee(["Tom", "Mia"], variant="tournament")
    lose(e)  # Mia wins, Tom starts
    pass_turn(e)  # Mia
    lose(e)  # Tom wins, Mia starts
    s = e.state()
    assert s["phase"] == "roll" and s["game_winners"] == ["Mia", "Tom"] and s["winner"] is None
    assert greens(e) == {"Tom": 1, "Mia": 1} and s["active"] == "Mia"


def test_tournament_loser_of_the_last_honey_starts_with_active_penalty():
    e = zombee(["Tom", "Mia", "Ann"], variant="tournament", zombee_penalty="active")
    run(e, roll("bee", "zzz", "zzz", "zzz", "zzz"), "stop", flip("zombee"))  # Mia reveals, Tom pays: out
    assert e.state()["active"] == "Mia"
    run(e, roll("bee", "zzz", "zzz", "zzz", "zzz"), "stop", flip("zombee"))  # Ann reveals, Mia pays: out
    s = e.state()
    assert s["game_winners"] == ["Ann"] and s["active"] == "Mia"


def test_tournament_green_supply_empties_and_a_win_still_counts():
    e = zombee(FIVE, variant="tournament")
    # Each game the starter loses their one honey, then the next living player
    # clockwise, four times: the player seated just before the starter is left
    # and wins, and the fourth to lose (three seats after the starter) starts the
    # next game. Seats: Tom 0, Mia 1, Ann 2, Ben 3, Eva 4; first starter Tom.
    expected = [("Eva", "Ben"), ("Ann", "Mia"), ("Tom", "Eva"), ("Ben", "Ann"), ("Mia", "Tom")]
    for game, (winner, starter) in enumerate(expected, start=1):
        for _ in range(4):
            lose(e)
        s = e.state()
        assert s["game_winners"][-1] == winner and len(s["game_winners"]) == game
        assert s["active"] == starter and s["phase"] == "roll"
        assert s["supply"]["green"] == 5 - game
    assert greens(e) == dict.fromkeys(FIVE, 1)
    for _ in range(4):
        lose(e)
    s = e.state()
    assert s["phase"] == "tournament_over" and s["winner"] == "Eva"
    assert s["supply"]["green"] == 0
    assert greens(e)["Eva"] == 2
    assert s["game_winners"] == ["Eva", "Ann", "Tom", "Ben", "Mia", "Eva"]
    # a move after it says the tournament was won, not only a game ("the game is over (Eva won)")
    refused(e, {"cmd": "roll", "faces": ["bee"] * 5}, "Eva won a second game, and the tournament", "only undo")


# --- odds -------------------------------------------------------------------------------------------


def test_odds_are_exactly_one_over_face_down():
    e = zombee(["Tom", "Mia"])
    run(e, roll(*["bee"] * 5), "stop")
    for k in range(5):
        assert e.state()["odds"]["zombee_next_flip"] == 1 / (14 - k)
        e.apply(flip("bee"))
    assert e.state()["odds"]["zombee_next_flip"] == 1 / 9
    assert type(e.state()["odds"]["zombee_next_flip"]) is float


# --- undo ---------------------------------------------------------------------------------------------


def test_undo_steps_back_to_the_start_and_no_further():
    e = zombee()
    states = [json.dumps(e.state())]
    for cmd in (roll("bee", "bee", "zzz", "zzz", "zombee"), roll("honey", "bee", reroll=["bee", "bee"]),
                "stop", flip("question"), choose("Ann"), flip("bee"), flip("zombee")):
        run(e, cmd)
        states.append(json.dumps(e.state()))
    assert len(set(states)) == len(states)
    while len(states) > 1:
        states.pop()
        run(e, "undo")
        assert json.dumps(e.state()) == states[-1]
    refused(e, {"cmd": "undo"}, "new_game")


def test_undo_is_not_itself_undone():
    e = zombee()
    start = json.dumps(e.state())
    run(e, roll(*ZZZ5))
    after_one = json.dumps(e.state())
    run(e, "stop", "undo")
    assert json.dumps(e.state()) == after_one
    run(e, "undo")
    assert json.dumps(e.state()) == start


def test_a_second_new_game_is_refused():
    e = zombee()
    refused(e, {"cmd": "new_game", "game": "zombee", "players": ["A", "B"]}, "one game")
