"""The chart's data: one number per player after each accepted command that still stands (a move
taken back leaves it with its undo: Table.timeline).

ZomBee charts honey per player; Zombie Zoo charts score. The page draws it as
inline SVG and appends a point for every new state it receives (same rule, in
static/chart.js).
"""

from __future__ import annotations

from typing import Any


def value(game: str | None, player: dict) -> float:
    if game == "zoo":
        return player.get("score") or 0
    return player.get("honey") or 0


def chart(timeline: list[dict[str, Any]], now: dict | None) -> dict[str, Any]:
    if now is None:
        return {"game_id": None, "game": None, "players": [], "points": []}
    game = now.get("game")
    names = [p.get("name") for p in now.get("players", [])]
    points = []
    for entry in timeline:
        state = entry.get("state") or {}
        by_name = {p.get("name"): value(game, p) for p in state.get("players", [])}
        points.append({
            "seq": entry.get("seq"),
            "time": entry.get("time"),
            "active": state.get("active"),
            "values": [by_name.get(n, 0) for n in names],
        })
    return {"game_id": now.get("game_id"), "game": game, "players": names, "points": points}
