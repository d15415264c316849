"""Random legal play, for property tests, benchmarks and demo games.

Nothing here decides rules: it only picks among the moves the engine's own
questions (`legal_rerolls`, `choosable`, the face-down flowers) say are legal.
"""

from __future__ import annotations

import random
from collections import Counter

from .engine import Engine
from .zombee import FLOWERS, ZomBee
from .zombee_dice import legal_rerolls

# How many faces of each kind one die has is printed differently in different
# descriptions of the game, so it is a setting; this is the companion's default.
DIE = ("bee", "bee", "honey", "zzz", "zombee", "zombee")


def roll_dice(rng: random.Random, count: int, die: tuple[str, ...] = DIE) -> list[str]:
    return [rng.choice(die) for _ in range(count)]


def random_zombee_command(game: ZomBee, rng: random.Random, die: tuple[str, ...] = DIE, stop_chance: float = 0.3) -> dict:
    """One legal command for the ZomBee game as it stands."""
    if game.phase == "roll":
        if game.rolls == 0:
            return {"cmd": "roll", "faces": roll_dice(rng, 5, die)}
        if rng.random() < stop_chance:
            return {"cmd": "stop"}
        picks = legal_rerolls(game.kept, game.last_roll)
        pool = [f for f in ("bee", "honey", "zzz") for _ in range(picks[f])]
        reroll = Counter(rng.sample(pool, rng.randint(1, len(pool))))
        reroll["zombee"] = rng.randint(0, min(picks["zombee"], reroll["zzz"]))
        faces = list(reroll.elements())
        return {"cmd": "roll", "reroll": faces, "faces": roll_dice(rng, len(faces), die)}
    if game.phase == "flip":
        left = {k: FLOWERS[k] - game.face_up.get(k, 0) for k in FLOWERS}
        result = rng.choices(list(left), weights=list(left.values()))[0]
        return {"cmd": "flip", "result": result}
    if game.phase == "choose":
        return {"cmd": "choose", "player": game.players[rng.choice(game.choosable())].name}
    raise ValueError(f"the game is over ({game.outcome()}); no command is legal")


def random_zombee_game(seed: int, players: int = 3, variant: str = "standard", max_commands: int = 100_000,
                       undo_chance: float = 0.0) -> list[dict]:
    """A whole random legal game log (played to its end) as command dicts."""
    rng = random.Random(seed)
    names = ["Tom", "Mia", "Ann", "Ben", "Eva"][:players]
    log = [{"cmd": "new_game", "game": "zombee", "players": names, "variant": variant}]
    engine = Engine(log[0])
    while not engine.is_over() and len(log) < max_commands:
        if undo_chance and engine.can_undo() and rng.random() < undo_chance:
            cmd = {"cmd": "undo"}
        else:
            cmd = random_zombee_command(engine.game, rng)
        engine.apply(cmd)
        log.append(cmd)
    return log
