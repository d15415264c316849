"""Past and unfinished games: list them, resume one, read one as a timeline, export it.

GET  /api/games                  every game, newest first, and which one is on the table
POST /api/games/<id>/resume      (PIN) make an unfinished game the current one again (through the Table)
GET  /api/games/<id>             one game: its line of the list and each accepted command with its events
GET  /api/games/<id>.jsonl       the game's commands as JSON lines (the format `companion import` reads)
GET  /history                    the history page (history.js)

The views never touch SQL: the game log's `games()`, `records()` and `export_jsonl()` do.
"""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify, render_template
from werkzeug.exceptions import BadRequest, NotFound, ServiceUnavailable

from companion import __version__
from companion.errors import IllegalCommand, UnknownGame
from companion.replay import replay_commands, standing

from .api import require_pin

bp = Blueprint("games", __name__)


def table():
    return current_app.extensions["companion"].table


def game_line(game_id: int) -> dict:
    for line in table().log.games():
        if line["id"] == game_id:
            return line
    raise NotFound(f"there is no game {game_id}")


@bp.get("/api/games")
def games():
    current = table().state()
    lines = sorted(table().log.games(), key=lambda g: g["id"], reverse=True)
    return jsonify(current=current["game_id"] if current else None, games=lines)


@bp.post("/api/games/<int:game_id>/resume")
def resume(game_id: int):
    require_pin()
    c = current_app.extensions["companion"]
    try:
        state = c.table.resume(game_id, "web", timeout=c.submit_timeout)
    except UnknownGame:
        raise NotFound(f"there is no game {game_id}") from None
    except IllegalCommand as exc:
        raise BadRequest(str(exc)) from None
    except TimeoutError:
        raise ServiceUnavailable("the table did not answer in time") from None
    return jsonify(state)


def timeline(records) -> list[dict]:
    """Each accepted command with the events it made, replayed through the engine (events are never
    stored), and whether it still stands (not an undo, nor taken back by one: the move an undo would
    take back now is the last that stands after the new game)."""
    commands = [r.command for r in records]
    return [{**r.to_dict(), "events": [e.to_dict() for e in events], "stands": stands}
            for r, (_, events), stands in zip(records, replay_commands(commands), standing(commands))]


@bp.get("/api/games/<int:game_id>")
def game(game_id: int):
    line = game_line(game_id)
    return jsonify(game=line, timeline=timeline(table().log.records(game_id)))


@bp.get("/api/games/<int:game_id>.jsonl")
def export(game_id: int):
    game_line(game_id)
    return Response(table().log.export_jsonl(game_id), mimetype="application/jsonl",
                    headers={"Content-Disposition": f'attachment; filename="game-{game_id}.jsonl"',
                             "Cache-Control": "no-store"})


@bp.get("/history")
def history_page():
    return render_template("history.html", version=__version__), 200, {"Cache-Control": "no-cache"}
