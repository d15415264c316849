"""Statistics across every game in the log: players by name, their wins and what they did.

A player is recognised by name across games, with case and surrounding spaces
ignored ("ann " and "Ann" are one player, shown as the spelling used last).
Only finished games count. A command later taken back with `undo` counts for
nothing. Each game is replayed once through the engine (its events say who
turned which flower); the digest is kept per (game, commands so far), so a new
command replays only its own game, and a finished game never again.
"""

from __future__ import annotations

import csv
import io
import threading
from collections import defaultdict
from typing import Any

from .replay import replay_commands
from .gamelog import GameLog

ZOMBEE_FIELDS = ("honey_taken", "flowers_turned", "zombees_revealed", "rounds_won")
ZOO_FIELDS = ("kills", "locks", "deaths", "score")
CSV_COLUMNS = ("player", "games", "wins", "win_rate", "zombee_games", "honey_taken", "flowers_turned",
               "zombees_revealed", "rounds_won", "zoo_games", "kills", "locks", "deaths", "average_score")
FLIP_KINDS = ("flower_bee", "question", "zombee_revealed")


def player_key(name: str) -> str:
    return name.strip().casefold()


def digest(commands: list[dict], game_id: int, created: float | None) -> dict[str, Any]:
    """One game in a few numbers: who played, who won, per-player tallies, its first rolls."""
    replayed = replay_commands(commands)
    engine, _ = next(replayed)  # the new_game
    done: list[tuple[dict, list]] = []  # accepted commands still in effect, with their events
    for cmd, (engine, events) in zip(commands[1:], replayed):
        if cmd.get("cmd") == "undo":
            done.pop()
        else:
            done.append((cmd, events))
    state = engine.state()
    names = [p["name"] for p in state["players"]]
    tally: dict[str, dict[str, float]] = {n: defaultdict(float) for n in names}
    first_rolls = []
    for cmd, events in done:
        if state["game"] == "zombee":
            if cmd.get("cmd") == "roll" and cmd.get("reroll") is None:
                first_rolls.append(list(cmd["faces"]))
            for e in events:
                if e.kind in FLIP_KINDS and e.player in tally:
                    tally[e.player]["flowers_turned"] += 1
                if e.kind == "zombee_revealed" and e.player in tally:
                    tally[e.player]["zombees_revealed"] += 1
                if e.kind == "honey" and e.player in tally:
                    tally[e.player]["honey_taken"] += 1
                if e.kind in ("game_won", "tournament_over") and e.player in tally:
                    tally[e.player]["rounds_won"] += 1
        else:
            if cmd.get("cmd") == "kill":
                tally[cmd["player"]]["kills"] += cmd.get("count") or 1
            for e in events:
                if e.kind == "player_out" and e.player in tally:
                    tally[e.player]["deaths"] += 1
    if state["game"] == "zoo":
        winners = list(state["winners"])
        for p in state["players"]:
            tally[p["name"]]["locks"] = len(p["locks"])
            tally[p["name"]]["score"] = p["score"]
    else:
        winners = [state["winner"]] if state["winner"] else []
        for p in state["players"]:
            tally[p["name"]]["final_honey"] = p["honey"]
    return {"id": game_id, "game": state["game"], "variant": state.get("variant"), "created": created,
            "over": engine.is_over(), "players": names, "winners": winners,
            "tally": {n: dict(t) for n, t in tally.items()}, "first_rolls": first_rolls}


class GameStats:
    """Digests of the log's games, refreshed for the games that changed since the last look."""

    def __init__(self):
        self._lock = threading.Lock()
        self._digests: dict[int, tuple[int, dict]] = {}  # game id -> (commands seen, digest)
        self._version: tuple | None = None
        self._summary: dict | None = None

    def digests(self, log: GameLog) -> list[dict]:
        with self._lock:
            return self._refresh(log)[0]

    def summary(self, log: GameLog) -> dict[str, Any]:
        with self._lock:
            digests, version = self._refresh(log)
            if self._summary is None or self._version != version:
                self._summary, self._version = summarize(digests), version
            return self._summary

    def _refresh(self, log: GameLog) -> tuple[list[dict], tuple]:
        games = log.games()
        for g in games:
            seen = self._digests.get(g["id"])
            if seen is None or seen[0] != g["seq"]:
                commands = [r.command for r in log.records(g["id"])]
                self._digests[g["id"]] = (g["seq"], digest(commands, g["id"], g.get("created")))
        version = tuple((g["id"], g["seq"]) for g in games)
        return [self._digests[g["id"]][1] for g in games], version


def summarize(digests: list[dict]) -> dict[str, Any]:
    """Per player (by name, case and spaces ignored): games, wins, win rate and the games' own tallies."""
    finished = sorted((d for d in digests if d["over"]), key=lambda d: (d["created"] or 0, d["id"]))
    players: dict[str, dict[str, Any]] = {}
    zombee_games = 0
    for d in finished:
        zombee_games += d["game"] == "zombee"
        winners = {player_key(w) for w in d["winners"]}
        for name in d["players"]:
            key = player_key(name)
            p = players.setdefault(key, {"player": name, "games": 0, "wins": 0, "zombee_games": 0, "zoo_games": 0,
                                         **{f: 0 for f in ZOMBEE_FIELDS + ZOO_FIELDS}, "honey": []})
            p["player"] = name.strip()  # the latest spelling
            p["games"] += 1
            p["wins"] += key in winners
            t = d["tally"][name]
            p[d["game"] + "_games"] += 1
            for f in ZOMBEE_FIELDS if d["game"] == "zombee" else ZOO_FIELDS:
                p[f] += t.get(f, 0)
            if d["game"] == "zombee":
                p["honey"].append({"game_id": d["id"], "game": zombee_games, "time": d["created"],
                                   "honey_taken": t.get("honey_taken", 0), "total": p["honey_taken"]})
    rows = []
    for p in sorted(players.values(), key=lambda p: (-p["wins"], -p["games"], p["player"].casefold())):
        p["win_rate"] = p["wins"] / p["games"]
        p["average_score"] = p.pop("score") / p["zoo_games"] if p["zoo_games"] else None
        for f in ZOMBEE_FIELDS + ZOO_FIELDS[:-1]:
            p[f] = int(p[f])
        rows.append(p)
    return {"games": len(finished), "unfinished": len(digests) - len(finished),
            "zombee_games": sum(d["game"] == "zombee" for d in finished),
            "zoo_games": sum(d["game"] == "zoo" for d in finished), "players": rows}


def to_csv(summary: dict[str, Any]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for p in summary["players"]:
        # A name like "=SUM(...)" must stay a name when the file is opened in a spreadsheet.
        name = "'" + p["player"] if p["player"][:1] in ("=", "+", "-", "@") else p["player"]
        row = dict(p, player=name, win_rate=round(p["win_rate"], 4),
                   average_score="" if p["average_score"] is None else round(p["average_score"], 2))
        writer.writerow([row[c] for c in CSV_COLUMNS])
    return out.getvalue()


def describe(summary: dict[str, Any]) -> str:
    """The table for the terminal."""
    games = "1 finished game" if summary["games"] == 1 else f"{summary['games']} finished games"
    lines = [f"{games} ({summary['zombee_games']} ZomBee, {summary['zoo_games']} Zombie Zoo)"
             + (f"; {summary['unfinished']} unfinished not counted" if summary["unfinished"] else "")]
    if not summary["players"]:
        return lines[0]
    lines.append(f"{'player':<14}{'games':>6}{'wins':>6}{'rate':>7}  {'honey':>5}{'flips':>6}{'ZomB':>5}"
                 f"{'rnds':>5}  {'kills':>5}{'locks':>6}{'dead':>5}{'avg':>7}")
    for p in summary["players"]:
        avg = "-" if p["average_score"] is None else f"{p['average_score']:.1f}"
        lines.append(f"{p['player'][:13]:<14}{p['games']:>6}{p['wins']:>6}{p['win_rate']:>7.0%}  "
                     f"{p['honey_taken']:>5}{p['flowers_turned']:>6}{p['zombees_revealed']:>5}{p['rounds_won']:>5}  "
                     f"{p['kills']:>5}{p['locks']:>6}{p['deaths']:>5}{avg:>7}")
    return "\n".join(lines)
