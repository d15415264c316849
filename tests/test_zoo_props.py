"""Property tests: random Zombie Zoo games, legal and not, keep the rules' invariants.

Each step draws a command (sometimes an illegal one), works out from the state
alone whether the rules allow it, and checks the Engine agreed; accepted commands
must change the state only as the rules say, and undo must give back the exact
state from before.
"""

from __future__ import annotations

import copy

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from companion.commands import LOCKS
from companion.engine import Engine
from companion.errors import IllegalCommand

NAMES = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"]
ON_BOARD = ("60:00", "30:00")
# How far along its one-way road each lock side is; collected, open and removed are all ends.
RANK = {"60:00": 0, "30:00": 1, "open": 2, "removed": 2, "collected": 2}


KINDS = ("kill", "kill", "collect_lock", "life", "life", "life", "bullets", "bullets", "bullets", "animals_cleared", "undo",
         "fight", "fight", "fight", "spend_bullets", "lose_life", "lose_life")
# One step is four small numbers; they are turned into a command below. Drawing plain
# integers keeps hypothesis fast (a few seconds for all examples) and still shrinks well.
# Kills, life and bullets are listed more than once so that games reach their end more often.
STEP = st.tuples(st.integers(0, len(KINDS) - 1), st.integers(0, 6), st.integers(0, 15), st.integers(0, 3))


def command(step: tuple[int, int, int, int], names: list[str], fight: dict | None = None) -> dict:
    kind, seat, number, lock = step
    name = KINDS[kind]
    if name in ("animals_cleared", "undo"):
        return {"cmd": name}
    player = (names + ["Zed"])[seat % (len(names) + 1)]  # Zed is never at the table
    if fight and seat < 4:
        player = fight["player"]  # mostly the hero in the open fight, so fights run to their end
    if name == "fight":
        return {"cmd": name, "player": player} if lock == 0 else {"cmd": name, "player": player, "roll": number % 6 + 1}
    if name == "spend_bullets":
        return {"cmd": name, "player": player, "count": number % 4 + 1}
    if name == "lose_life":
        return {"cmd": name, "player": player}
    if name == "kill":
        return {"cmd": name, "player": player, "count": number % 7 + 1}
    if name == "collect_lock":
        return {"cmd": name, "player": player, "lock": LOCKS[lock]}
    return {"cmd": name, "player": player, "delta": number % 8 - 5}  # -5 to 2: losses win out


def players(state: dict) -> dict[str, dict]:
    return {p["name"]: p for p in state["players"]}


def allowed(state: dict, cmd: dict, can_undo: bool) -> bool:
    """Whether the rules accept `cmd` in `state`, worked out from the public state only."""
    if cmd["cmd"] == "undo":
        return can_undo
    if state["phase"] == "game_over":
        return False
    on_board = [lock for lock, side in state["locks"].items() if side in ON_BOARD]
    if cmd["cmd"] == "animals_cleared":
        return not on_board
    p = players(state).get(cmd["player"])
    if p is None or not p["alive"]:
        return False
    if cmd["cmd"] == "kill":
        return True
    fight = state["fight"]
    if cmd["cmd"] == "fight" and "roll" not in cmd:
        return fight is None
    if cmd["cmd"] in ("fight", "spend_bullets", "lose_life"):
        if fight is None or fight["player"] != p["name"]:
            return False
        if cmd["cmd"] == "fight":
            return fight["roll"] is None
        if fight["roll"] is None:
            return False
        needs = 4 - fight["roll"]
        if cmd["cmd"] == "spend_bullets":
            return needs <= cmd["count"] <= p["bullets"]
        return p["life"] > 1 or p["bullets"] < needs
    if cmd["cmd"] == "collect_lock":
        return cmd["lock"] in on_board
    if cmd["delta"] == 0:
        return False
    if cmd["cmd"] == "bullets":
        return p["bullets"] + cmd["delta"] >= 0
    after = p["life"] + cmd["delta"]
    return after > 0 or (after == 0 and p["bullets"] == 0)


def expected_steps(state: dict, cmd: dict, mode: str) -> int:
    t = state["release_at"]
    old = players(state)[cmd["player"]]["kills"]
    new = old + cmd["count"]
    if mode == "first_time":
        return 1 if old < t <= new else 0
    return new // t - old // t


def combat_kill(before: dict, after: dict, cmd: dict) -> dict | None:
    """The kill a fight's command amounts to (a roll of 4-6, or bullets enough), checked as `kill` is; else None."""
    name = cmd.get("player")
    if cmd["cmd"] == "fight" and cmd.get("roll", 0) >= 4 or cmd["cmd"] == "spend_bullets":
        assert after["fight"] is None
        if cmd["cmd"] == "spend_bullets":
            assert players(after)[name]["bullets"] == players(before)[name]["bullets"] - cmd["count"]
        return {"cmd": "kill", "player": name, "count": 1}
    if cmd["cmd"] == "fight" and "roll" in cmd:
        assert after["fight"] == {**before["fight"], "roll": cmd["roll"], "needs": 4 - cmd["roll"],
                                  "rolls": before["fight"]["rolls"] + [cmd["roll"]]}
    if cmd["cmd"] == "lose_life":
        assert players(after)[name]["life"] == players(before)[name]["life"] - 1
        assert after["fight"] is None if players(after)[name]["life"] == 0 else after["fight"]["roll"] is None
    return None


def stepped(side: str, steps: int, last: str) -> str:
    for _ in range(steps):
        side = {"60:00": "30:00", "30:00": last}.get(side, side)
    return side


def check_invariants(state: dict, ended_by_animals: bool) -> None:
    living = [p for p in state["players"] if p["alive"]]
    over = state["phase"] == "game_over"
    assert over == (len(living) == 1 or ended_by_animals)
    owned = [lock for p in state["players"] for lock in p["locks"]]
    assert len(owned) == len(set(owned))
    assert sorted(owned) == sorted(lock for lock, side in state["locks"].items() if side == "collected")
    for p in state["players"]:
        assert 0 <= p["life"] <= 5 and p["bullets"] >= 0 and p["kills"] >= 0
        assert p["alive"] == (p["life"] > 0)
        bonus = 5 if over and p["alive"] and len(living) == 1 else 0
        assert p["score"] == p["kills"] + 5 * len(p["locks"]) + bonus
    if over:
        best = max((p["score"], p["life"]) for p in state["players"])
        assert state["winners"] == [p["name"] for p in state["players"] if (p["score"], p["life"]) == best]
        assert state["next_release_in"] is None
    else:
        assert state["winners"] == []
        if not any(side in ON_BOARD for side in state["locks"].values()):
            assert state["next_release_in"] is None


class Table:
    """An Engine plus what the checks remember: the states undo must give back."""

    def __init__(self, count: int, mode: str):
        self.names = NAMES[:count]
        self.mode = mode
        self.last = "open" if count <= 4 else "removed"
        self.e = Engine({"cmd": "new_game", "game": "zoo", "players": self.names, "rules": {"lock_release": mode}})
        self.earlier: list[tuple[dict, bool]] = []  # (state, ended_by_animals) before each accepted command
        self.ended_by_animals = False

    def play(self, cmd: dict) -> bool:
        """Apply `cmd`, check the Engine judged it as the rules say and changed only what they allow."""
        before = copy.deepcopy(self.e.state())
        legal = allowed(before, cmd, bool(self.earlier))
        try:
            self.e.apply(cmd)
        except IllegalCommand:
            assert not legal, f"refused a legal {cmd} in {before}"
            assert self.e.state() == before
            return False
        assert legal, f"accepted an illegal {cmd} in {before}"
        after = self.e.state()
        if cmd["cmd"] == "undo":
            want, self.ended_by_animals = self.earlier.pop()
            assert after == want
            return True
        self.earlier.append((before, self.ended_by_animals))
        self.ended_by_animals = cmd["cmd"] == "animals_cleared"

        for lock in LOCKS:
            assert RANK[after["locks"][lock]] >= RANK[before["locks"][lock]]
            if before["locks"][lock] not in ON_BOARD:
                assert after["locks"][lock] == before["locks"][lock]  # ends never move again
        killed = combat_kill(before, after, cmd)
        if killed:
            cmd = killed
        if cmd["cmd"] == "kill":
            n = expected_steps(before, cmd, self.mode)
            assert after["locks"] == {k: stepped(v, n, self.last) for k, v in before["locks"].items()}
            if before["next_release_in"] is None or cmd["count"] < before["next_release_in"]:
                assert after["locks"] == before["locks"]
            assert players(after)[cmd["player"]]["kills"] == players(before)[cmd["player"]]["kills"] + cmd["count"]
        elif cmd["cmd"] in ("life", "lose_life") and players(after)[cmd["player"]]["life"] == 0:
            kept = players(before)[cmd["player"]]["kills"]
            assert players(after)[cmd["player"]]["kills"] == kept - kept // 2
        check_invariants(after, self.ended_by_animals)
        return True


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(2, 6),
    st.sampled_from(["every_multiple", "first_time"]),
    st.lists(STEP, min_size=10, max_size=120),
    st.booleans(),
)
def test_random_games_keep_the_invariants(count, mode, steps, fight_to_the_end):
    t = Table(count, mode)
    assert t.e.state()["release_at"] == (6 if count <= 4 else 4)
    for step in steps:
        t.play(command(step, t.names, t.e.state()["fight"]))

    if fight_to_the_end and not t.e.is_over():
        # Random steps rarely kill enough heroes, so half the games are played out:
        # everyone but the last living player spends their bullets, then their life.
        for p in [p for p in t.e.state()["players"] if p["alive"]][:-1]:
            if p["bullets"]:
                assert t.play({"cmd": "bullets", "player": p["name"], "delta": -p["bullets"]})
            assert t.play({"cmd": "life", "player": p["name"], "delta": -p["life"]})
        assert t.e.is_over() and len(t.e.game.living_players()) == 1

    # Visible with --hypothesis-show-statistics: how often games reach each kind of end.
    final = t.e.state()
    event(f"phase {final['phase']}" + (" (animals cleared)" if t.ended_by_animals else ""))
    event(f"locks {sorted(set(final['locks'].values()))}")

    # Undo all the way back reaches the set-up table, one exact state at a time.
    while t.earlier:
        want, _ = t.earlier.pop()
        t.e.apply({"cmd": "undo"})
        assert t.e.state() == want
    assert t.e.state()["locks"] == dict.fromkeys(LOCKS, "60:00")
