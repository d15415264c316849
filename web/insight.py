"""The coach's setting, what the dice really do, and statistics across games.

GET  /api/coach        the coach's mode and the face chances it uses
POST /api/coach        (PIN) {"mode": "off"|"tip"|"full"} and/or {"faces": "observed"|"settings"}
GET  /api/dice-stats   counts, estimates, intervals and the chi-square test of first rolls
GET  /stats            the statistics page; /api/stats its figures; /api/stats.csv one row per player
"""

from __future__ import annotations

import logging
import os
import threading

from flask import Blueprint, Response, current_app, jsonify, render_template
from werkzeug.exceptions import BadRequest

from companion import __version__
from companion.coaching import MODES, face_chances
from companion.commands import quote
from companion.dice_stats import dice_stats
from companion.errors import ConfigError
from companion.stats import GameStats, to_csv

from .api import json_body, require_pin

bp = Blueprint("insight", __name__)
FACE_SOURCES = ("observed", "settings")
log = logging.getLogger(__name__)


def warm_up(app) -> threading.Thread:
    """Build the coach's tables and digest every game once in the background, so neither waits for a phone.

    With a thousand games that first pass replays them all (seconds); afterwards
    only a game that changed is replayed again.
    """
    stats = app.extensions.setdefault("game_stats", GameStats())
    gamelog = app.extensions["companion"].table.log

    coach = app.extensions["coaching"]

    def run():
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)  # after the table's own work
        except (AttributeError, OSError):
            pass
        try:
            coach.prepare()
            stats.summary(gamelog)
        except Exception:  # the page will try again when asked
            if not gamelog.closed:  # closed under it by a Ctrl-C: the companion is stopping, nothing failed
                log.exception("reading the statistics in the background failed")

    thread = threading.Thread(target=run, name="stats-warm-up", daemon=True)
    thread.start()
    return thread


def coaching():
    return current_app.extensions["coaching"]


def game_stats() -> GameStats:
    return current_app.extensions.setdefault("game_stats", GameStats())


def the_log():
    return current_app.extensions["companion"].table.log


def current_dice_stats() -> dict:
    rolls = [r for d in game_stats().digests(the_log()) for r in d["first_rolls"]]
    return dice_stats(rolls, face_chances(coaching().dice))


@bp.get("/api/coach")
def coach_settings():
    return jsonify(coaching().settings())


@bp.post("/api/coach")
def change_coach():
    require_pin()
    raw = json_body()
    unknown = [k for k in raw if k not in ("mode", "faces")]
    if unknown or not raw:
        what = f"unknown key {quote(unknown[0])}" if unknown else "nothing to change"
        raise BadRequest(f"{what}; send mode ({', '.join(MODES)}) and/or faces ({', '.join(FACE_SOURCES)})")
    if "mode" in raw and raw["mode"] not in MODES:
        raise BadRequest(f"mode must be one of {', '.join(MODES)}, got {quote(raw['mode'])}")
    if "faces" in raw and raw["faces"] not in FACE_SOURCES:
        raise BadRequest(f"faces must be {' or '.join(FACE_SOURCES)}, got {quote(raw['faces'])}")
    observed = None
    if raw.get("faces") == "observed":
        observed = current_dice_stats()["observed"]
        if observed is None:
            raise BadRequest("no first rolls in the game log yet: there are no observed chances to use")
    try:
        if "mode" in raw:
            coaching().set_mode(raw["mode"])
        if "faces" in raw:
            coaching().use_observed(observed)
    except ConfigError as exc:
        raise BadRequest(str(exc)) from None
    # Every phone at the table follows the switch (a notice without words: not shown as an event).
    current_app.extensions["companion"].table.notify("coach", mode=coaching().mode)
    return jsonify(coaching().settings())


@bp.get("/api/dice-stats")
def dice():
    return jsonify({**current_dice_stats(), "coach": coaching().settings()})


@bp.get("/stats")
def stats_page():
    return render_template("stats.html", version=__version__), 200, {"Cache-Control": "no-cache"}


@bp.get("/api/stats")
def stats():
    return jsonify(game_stats().summary(the_log()))


@bp.get("/api/stats.csv")
def stats_csv():
    return Response(to_csv(game_stats().summary(the_log())), mimetype="text/csv",
                    headers={"Content-Disposition": 'attachment; filename="companion-stats.csv"',
                             "Cache-Control": "no-store"})
