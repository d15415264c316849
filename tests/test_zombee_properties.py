"""Random legal ZomBee games played to the end, with the invariants checked after every command."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.commands import parse_command
from companion.engine import Engine
from companion.errors import IllegalCommand
from companion.simulate import random_zombee_command, random_zombee_game
from companion.zombee import ZomBee

NAMES = ["Tom", "Mia", "Ann", "Ben", "Eva"]
CAP = {"standard": 3, "tournament": 2}
START = {"standard": 2, "tournament": 1}
DIES = [
    ("bee", "bee", "honey", "zzz", "zombee", "zombee"),  # the simulator's default
    ("bee", "honey", "honey", "honey", "zzz", "zombee"),  # honey-heavy: reaches the cap and the empty box
    ("bee", "bee", "bee", "zzz", "zzz", "zombee"),  # bee-heavy: long flip chains, many face-up flowers
]


def check_invariants(s: dict, variant: str) -> None:
    players = s["players"]
    held = sum(p["honey"] for p in players)
    assert held + s["supply"]["yellow"] == 15 and s["supply"]["yellow"] >= 0
    for p in players:
        assert 0 <= p["honey"] <= CAP[variant]
        assert p["eliminated"] == (p["honey"] == 0)
        if variant == "standard":
            assert p["green"] == 0
    greens = sum(p["green"] for p in players)
    assert s["supply"]["green"] == max(0, 5 - greens) >= 0
    assert greens == (len(s["game_winners"]) if variant == "tournament" else 0)

    f = s["flowers"]
    assert 0 <= f["bee"] <= 11 and 0 <= f["question"] <= 2
    assert f["face_down"] == 14 - f["bee"] - f["question"] >= 1
    assert s["odds"]["zombee_next_flip"] == 1 / f["face_down"]

    dice = s["kept"] + s["last_roll"]
    assert len(dice) <= 5 and 0 <= s["rolls"] <= 3
    assert len(dice) == (5 if s["rolls"] else 0)

    living = [p["name"] for p in players if not p["eliminated"]]
    over = s["phase"] in ("game_over", "tournament_over")
    if over:
        assert s["active"] is None and s["pending"] is None
        assert len(living) == 1 and s["winner"] is not None
        if variant == "standard":
            assert s["phase"] == "game_over" and s["winner"] == living[0] and s["game_winners"] == [s["winner"]]
        else:
            assert s["phase"] == "tournament_over" and s["winner"] == s["game_winners"][-1]
            assert [p["name"] for p in players if p["green"] >= 2] == [s["winner"]]
    else:
        assert s["phase"] in ("roll", "flip", "choose")
        assert len(living) >= 2 and s["winner"] is None
        assert s["active"] in living and s["pending"] in living  # eliminated players never act
        if s["phase"] == "roll" and s["rolls"] == 0:
            assert s["pending"] == s["active"]
        if variant == "tournament":
            assert all(p["green"] < 2 for p in players)


def play(seed: int, n: int, variant: str, penalty: str, die, stop_chance: float) -> dict:
    rng = random.Random(seed)
    new = {"cmd": "new_game", "game": "zombee", "players": NAMES[:n], "variant": variant,
           "rules": {"zombee_penalty": penalty}}
    e = Engine(new)
    s = e.state()
    check_invariants(s, variant)
    assert all(p["honey"] == START[variant] for p in s["players"])
    commands = 0
    while not e.is_over():
        cmd = random_zombee_command(e.game, rng, die, stop_chance)
        e.apply(cmd)
        after = e.state()
        check_invariants(after, variant)
        e.apply({"cmd": "undo"})
        assert e.state() == s  # undo gives back exactly the state before the command
        e.apply(cmd)
        assert e.state() == after
        s = after
        commands += 1
        assert commands < 20_000
    return s


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 5),
    variant=st.sampled_from(["standard", "tournament"]),
    penalty=st.sampled_from(["revealer", "active"]),
    die=st.sampled_from(DIES),
    stop_chance=st.sampled_from([0.0, 0.3, 0.9]),
)
def test_random_games_keep_every_invariant(seed, n, variant, penalty, die, stop_chance):
    play(seed, n, variant, penalty, die, stop_chance)


@settings(max_examples=1200, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 5),
    variant=st.sampled_from(["standard", "tournament"]),
    penalty=st.sampled_from(["revealer", "active"]),
    die=st.sampled_from(DIES),
)
def test_thousands_of_games_end_with_exactly_one_winner(seed, n, variant, penalty, die):
    # Straight on the rules object (no Engine snapshots), so thousands of games fit in seconds;
    # the simulator only sends legal commands, so nothing is ever half-applied.
    rng = random.Random(seed)
    game = ZomBee(parse_command({"cmd": "new_game", "game": "zombee", "players": NAMES[:n], "variant": variant,
                                 "rules": {"zombee_penalty": penalty}}))
    commands = 0
    while not game.is_over():
        game.apply(parse_command(random_zombee_command(game, rng, die)))
        check_invariants(game.to_json(), variant)
        commands += 1
        assert commands < 20_000
    s = game.to_json()
    living = [p["name"] for p in s["players"] if not p["eliminated"]]
    assert len(living) == 1
    assert s["winner"] == (living[0] if variant == "standard" else s["game_winners"][-1])


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 5))
def test_undo_back_to_the_start(seed, n):
    log = random_zombee_game(seed, players=n, variant="tournament", undo_chance=0.2, max_commands=150)
    e = Engine(log[0])
    start = e.state()
    for cmd in log[1:]:
        e.apply(cmd)
        check_invariants(e.state(), "tournament")
    while e.can_undo():
        e.apply({"cmd": "undo"})
    assert e.state() == start


# --- an independent model of the contract, compared command by command -------------------------

FACE_ORDER = ["bee", "honey", "zzz", "zombee"]


class Model:
    """The contract's rules written out again, separately from companion.zombee, to compare against."""

    def __init__(self, names, variant, penalty):
        self.names, self.variant, self.penalty = list(names), variant, penalty
        self.start, self.cap = (2, 3) if variant == "standard" else (1, 2)
        n = len(names)
        self.honey, self.green, self.out = [self.start] * n, [0] * n, [False] * n
        self.winners, self.winner, self.over = [], None, None
        self.new_round(0)

    def new_round(self, starter):
        self.up = {"bee": 0, "question": 0}
        self.reset(starter)

    def reset(self, active):
        self.active, self.phase, self.rolls, self.kept, self.last = active, "roll", 0, [], []
        self.queue, self.chooser = [], None

    def next_living(self, seat):
        n = len(self.names)
        return next((seat + k) % n for k in range(1, n + 1) if not self.out[(seat + k) % n])

    def supply(self):
        return 15 - sum(self.honey)

    # legality, straight from the contract
    def legal(self, c) -> bool:
        if self.over:
            return False
        kind = c["cmd"]
        if kind == "roll":
            if self.phase != "roll":
                return False
            faces, reroll = c["faces"], c.get("reroll")
            if self.rolls == 0:
                return reroll is None and len(faces) == 5
            if not reroll or len(reroll) != len(faces):
                return False
            want, last = Counter(reroll), Counter(self.last)
            if any(want[f] > last[f] for f in ("bee", "honey", "zzz")):
                return False
            return want["zombee"] <= want["zzz"] and want["zombee"] <= Counter(self.kept + self.last)["zombee"]
        if kind == "stop":
            return self.phase == "roll" and self.rolls > 0
        if kind == "flip":
            if self.phase != "flip":
                return False
            if "player" in c and c["player"] != self.names[self.queue[0]]:
                return False
            limit = {"bee": 11, "question": 2, "zombee": 1}[c["result"]]
            return c["result"] == "zombee" or self.up[c["result"]] < limit
        if kind == "choose":
            if self.phase != "choose" or c["player"] not in self.names:
                return False
            seat = self.names.index(c["player"])
            return not self.out[seat] and (seat != self.chooser or seat == self.active)
        return False

    def apply(self, c):
        kind = c["cmd"]
        if kind == "roll":
            if self.rolls:
                rest = Counter(self.kept + self.last)
                rest.subtract(Counter(c["reroll"]))
                self.kept = sorted(rest.elements(), key=FACE_ORDER.index)
            self.last = sorted(c["faces"], key=FACE_ORDER.index)
            self.rolls += 1
            if self.rolls == 3 or all(f == "zombee" for f in self.last):
                self.evaluate()
        elif kind == "stop":
            self.evaluate()
        elif kind == "flip":
            self.flip(c["result"])
        else:
            self.queue.insert(0, self.names.index(c["player"]))
            self.phase, self.chooser = "flip", None

    def evaluate(self):
        dice = Counter(self.kept + self.last)
        a = self.active
        if dice["honey"] >= 3 and self.honey[a] < self.cap and self.supply() > 0:
            self.honey[a] += 1
        others, seat = [], a
        while len(others) < dice["bee"]:
            seat = self.next_living(seat)
            if seat != a:
                others.append(seat)
        self.queue = [a] * dice["zombee"] + others
        if self.queue:
            self.phase = "flip"
        else:
            self.reset(self.next_living(a))

    def flip(self, result):
        who = self.queue.pop(0)
        if result == "zombee":
            payer = who if self.penalty == "revealer" else self.active
            self.honey[payer] -= 1
            self.out[payer] = self.honey[payer] == 0
            living = [i for i in range(len(self.names)) if not self.out[i]]
            if len(living) == 1:
                self.win(living[0], payer)
            else:
                self.new_round(self.next_living(payer) if self.out[payer] else payer)
            return
        self.up[result] += 1
        if result == "question":
            self.phase, self.chooser = "choose", who
        elif not self.queue:
            self.reset(self.next_living(self.active))

    def win(self, w, loser):
        self.winners.append(self.names[w])
        if self.variant == "tournament":
            self.green[w] += 1
            if self.green[w] < 2:
                self.honey, self.out = [1] * len(self.names), [False] * len(self.names)
                self.new_round(loser)
                return
        self.over, self.winner = ("game_over" if self.variant == "standard" else "tournament_over"), w
        self.new_round(None)

    def state(self):
        over = self.over is not None
        pending = None if over else {"roll": self.active, "flip": (self.queue or [None])[0],
                                     "choose": self.chooser}[self.phase]
        name = lambda s: None if s is None else self.names[s]  # noqa: E731
        face_down = 14 - self.up["bee"] - self.up["question"]
        return {
            "game": "zombee", "variant": self.variant, "rules": {"zombee_penalty": self.penalty},
            "players": [{"name": n, "honey": h, "green": g, "eliminated": o}
                        for n, h, g, o in zip(self.names, self.honey, self.green, self.out)],
            "active": name(self.active), "phase": self.over or self.phase, "pending": name(pending),
            "owed": [] if over else [name(s) for s in self.queue],
            "rolls": self.rolls, "kept": list(self.kept), "last_roll": list(self.last),
            "flowers": {"face_down": face_down, **self.up},
            "supply": {"yellow": self.supply(), "green": max(0, 5 - sum(self.green))},
            "winner": name(self.winner), "game_winners": list(self.winners),
            "odds": {"zombee_next_flip": 1 / face_down},
        }


def without_answers(state: dict) -> dict:
    """The state without what the engine adds for adapters (tests/test_legal.py checks those)."""
    return {k: v for k, v in state.items() if k not in ("over", "winners", "legal", "can_undo")}


def junk_command(rng: random.Random, names) -> dict:
    """A random command that is often illegal: wrong phase, wrong dice, wrong flower, wrong player."""
    faces = lambda k: [rng.choice(FACE_ORDER) for _ in range(k)]  # noqa: E731
    kind = rng.choice(["roll", "roll", "stop", "flip", "choose"])
    if kind == "roll":
        n = rng.choice([1, 2, 3, 4, 5, 5, 6])
        c = {"cmd": "roll", "faces": faces(n)}
        if rng.random() < 0.7:
            c["reroll"] = faces(n if rng.random() < 0.8 else rng.randint(0, 5))
        return c
    if kind == "stop":
        return {"cmd": "stop"}
    if kind == "flip":
        c = {"cmd": "flip", "result": rng.choice(["bee", "question", "zombee"])}
        if rng.random() < 0.4:
            c["player"] = rng.choice(names)
        return c
    return {"cmd": "choose", "player": rng.choice(names + ["Zed"])}


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 5),
    variant=st.sampled_from(["standard", "tournament"]),
    penalty=st.sampled_from(["revealer", "active"]),
    die=st.sampled_from(DIES),
)
def test_engine_agrees_with_an_independent_model(seed, n, variant, penalty, die):
    rng = random.Random(seed)
    names = NAMES[:n]
    e = Engine({"cmd": "new_game", "game": "zombee", "players": names, "variant": variant,
                "rules": {"zombee_penalty": penalty}})
    model = Model(names, variant, penalty)
    assert without_answers(e.state()) == model.state()
    for _ in range(1500):
        if e.is_over():
            break
        cmd = junk_command(rng, names) if rng.random() < 0.4 else random_zombee_command(e.game, rng, die)
        before = e.state()
        try:
            e.apply(cmd)
            accepted = True
        except IllegalCommand:
            accepted = False
            assert e.state() == before
        assert accepted == model.legal(cmd), (cmd, before)
        if accepted:
            model.apply(cmd)
        assert without_answers(e.state()) == model.state(), cmd
        assert e.state()["over"] == (model.over is not None)
    if e.is_over():
        for cmd in (junk_command(rng, names) for _ in range(5)):
            assert not model.legal(cmd)
            try:
                e.apply(cmd)
                raise AssertionError(f"accepted {cmd} after the end")
            except IllegalCommand:
                pass
