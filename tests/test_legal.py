"""`legal` in the state: every move listed is accepted, every accepted move is listed.

Random games of both kinds, played with legal and illegal commands; at every step
each listed move is tried on a copy of the game, and each random command the game
accepts must be one of the listed moves (faces and number ranges aside).
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.commands import DICE_FACES, LOCKS, parse_command
from companion.engine import Engine, snapshot
from companion.errors import IllegalCommand
from companion.legal import allows
from companion.simulate import random_zombee_command

NAMES = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"]
BIG = 1000  # stands in for "no upper bound"


def accepts(engine: Engine, command: dict) -> bool:
    """Whether the game takes `command`, tried on a copy (the engine is left as it was)."""
    game = snapshot(engine.game)
    try:
        game.apply(parse_command(command))
    except IllegalCommand:
        return False
    return True


def with_faces(entry: dict, rng: random.Random) -> dict:
    """A listed roll made concrete: the dice show something, as many as are thrown."""
    if entry["cmd"] != "roll":
        return entry
    thrown = len(entry["reroll"]) if "reroll" in entry else 5
    return {**entry, "faces": [rng.choice(DICE_FACES) for _ in range(thrown)]}


def concrete(entry: dict) -> list[dict]:
    """Commands at the edges of each listed number range (and one inside it)."""
    ranges = {k: v for k, v in entry.items() if isinstance(v, dict)}
    if not ranges:
        return [entry]
    (key, r), = ranges.items()
    high = BIG if r["max"] is None else r["max"]
    return [{**entry, key: n} for n in sorted({r["min"], high, (r["min"] + high) // 2})]


def just_outside(entry: dict) -> list[dict]:
    """Commands one step beyond each listed range, where it has a bound (0 never counts as a change)."""
    ranges = {k: v for k, v in entry.items() if isinstance(v, dict)}
    out = []
    for key, r in ranges.items():
        for n in (r["min"] - 1, None if r["max"] is None else r["max"] + 1):
            if n is not None:
                out.append({**entry, key: n})
    return out


def check_legal(engine: Engine, rng: random.Random) -> None:
    state = engine.state()
    legal = state["legal"]
    assert state["over"] == engine.is_over() == (legal == [])
    assert state["can_undo"] == engine.can_undo()
    assert len({repr(sorted(e.items())) for e in legal}) == len(legal)  # one entry per distinct choice
    for entry in legal:
        assert "faces" not in entry
        for command in concrete(with_faces(entry, rng)):
            assert accepts(engine, command), (command, state)
        for command in just_outside(entry):
            if not allows(legal, command):
                assert not accepts(engine, command), (command, state)


def check_accepted_is_listed(engine: Engine, command: dict) -> None:
    state = engine.state()
    if command["cmd"] == "flip" and "player" not in command:
        command = {**command, "player": state["pending"]}  # a flip may leave its player to the engine
    assert allows(state["legal"], parse_command(command).to_dict()), (command, state)


# ----- ZomBee -----

def junk_zombee(rng: random.Random, names: list[str]) -> dict:
    kind = rng.choice(["roll", "roll", "roll", "stop", "flip", "choose"])
    if kind == "roll":
        reroll = None if rng.random() < 0.3 else [rng.choice(DICE_FACES) for _ in range(rng.randint(0, 5))]
        thrown = len(reroll) if reroll is not None and rng.random() < 0.9 else rng.choice([4, 5])
        c = {"cmd": "roll", "faces": [rng.choice(DICE_FACES) for _ in range(thrown)]}
        return c if reroll is None else {**c, "reroll": reroll}
    if kind == "flip":
        c = {"cmd": "flip", "result": rng.choice(["bee", "question", "zombee"])}
        return c if rng.random() < 0.5 else {**c, "player": rng.choice(names)}
    if kind == "choose":
        return {"cmd": "choose", "player": rng.choice(names)}
    return {"cmd": "stop"}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 5), variant=st.sampled_from(["standard", "tournament"]))
def test_zombee_lists_exactly_the_moves_it_accepts(seed, n, variant):
    rng = random.Random(seed)
    names = NAMES[:n]
    engine = Engine({"cmd": "new_game", "game": "zombee", "players": names, "variant": variant})
    for _ in range(400):
        check_legal(engine, rng)
        if engine.is_over():
            break
        command = junk_zombee(rng, names) if rng.random() < 0.5 else random_zombee_command(engine.game, rng)
        if accepts(engine, command):
            check_accepted_is_listed(engine, command)
            engine.apply(command)
        else:
            sent = parse_command(command).to_dict()
            thrown_right = sent["cmd"] != "roll" or len(sent["faces"]) == len(sent.get("reroll") or "") or (
                "reroll" not in sent and len(sent["faces"]) == 5)
            assert not (allows(engine.state()["legal"], sent) and thrown_right), (command, engine.state())
    if engine.is_over():
        state = engine.state()
        assert state["winners"] == [state["winner"]] and state["winner"] is not None


# ----- Zombie Zoo -----

def junk_zoo(rng: random.Random, names: list[str], fight: dict | None = None) -> dict:
    kind = rng.choice(["kill", "collect_lock", "life", "life", "life", "bullets", "bullets", "animals_cleared",
                       "fight", "fight", "fight", "spend_bullets", "lose_life", "lose_life"])
    if kind == "animals_cleared":
        return {"cmd": kind}
    player = rng.choice(names + ["Zed"])
    if fight and rng.random() < 0.7:
        player = fight["player"]  # mostly the hero in the open fight, so fights run to their end
    if kind == "fight":
        return {"cmd": kind, "player": player} if rng.random() < 0.3 else {"cmd": kind, "player": player,
                                                                          "roll": rng.randint(0, 7)}
    if kind == "spend_bullets":
        return {"cmd": kind, "player": player, "count": rng.randint(1, 4)}
    if kind == "lose_life":
        return {"cmd": kind, "player": player}
    if kind == "kill":
        return {"cmd": kind, "player": player, "count": rng.randint(1, 7)}
    if kind == "collect_lock":
        return {"cmd": kind, "player": player, "lock": rng.choice(LOCKS)}
    return {"cmd": kind, "player": player, "delta": rng.randint(-6, 2)}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 6), mode=st.sampled_from(["every_multiple", "first_time"]))
def test_zoo_lists_exactly_the_moves_it_accepts(seed, n, mode):
    rng = random.Random(seed)
    names = NAMES[:n]
    engine = Engine({"cmd": "new_game", "game": "zoo", "players": names, "rules": {"lock_release": mode}})
    for _ in range(100):
        check_legal(engine, rng)
        if engine.is_over():
            break
        command = junk_zoo(rng, names, engine.state()["fight"])
        if accepts(engine, command):
            check_accepted_is_listed(engine, command)
            engine.apply(command)
        else:
            assert not allows(engine.state()["legal"], command), (command, engine.state())
    state = engine.state()
    assert state["winners"] == engine.game.winners()
    assert state["winner"] == (state["winners"][0] if len(state["winners"]) == 1 else None)


def test_a_finished_game_lists_nothing_but_undo_is_still_possible():
    engine = Engine({"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"]})
    engine.apply({"cmd": "bullets", "player": "Ann", "delta": -5})
    assert allows(engine.state()["legal"], {"cmd": "life", "player": "Ann", "delta": -5})
    engine.apply({"cmd": "life", "player": "Ann", "delta": -5})
    state = engine.state()
    assert state["over"] and state["legal"] == [] and state["can_undo"]
    assert state["winner"] == "Ben" and state["winners"] == ["Ben"]
    engine.apply({"cmd": "undo"})
    assert not engine.state()["over"]


def test_the_last_life_waits_for_the_bullets():
    engine = Engine({"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"]})
    engine.apply({"cmd": "life", "player": "Ann", "delta": -4})
    life = [e for e in engine.state()["legal"] if e["cmd"] == "life" and e["player"] == "Ann"]
    assert life == [{"cmd": "life", "player": "Ann", "delta": {"min": 1, "max": 100}}]  # no loss left
