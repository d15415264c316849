"""The JSON API: read the game freely, change it only with the PIN."""

from __future__ import annotations

import math
import re

from flask import Blueprint, current_app, jsonify, request
from werkzeug.exceptions import (BadRequest, InternalServerError, NotFound, RequestEntityTooLarge, ServiceUnavailable,
                                 TooManyRequests, Unauthorized, UnsupportedMediaType)

from companion.commands import load_json, parse_command, quote
from companion.constants import game_constants
from companion.errors import BadCommand, CompanionError, GameLogError, IllegalCommand, NotJSON

from .auth import bearer, pin_matches
from .chart import chart
from .holds import MAX_HOLD_S

bp = Blueprint("api", __name__)


def ctx():
    return current_app.extensions["companion"]


def require_pin() -> None:
    """401 without the right PIN; 429 while this address is locked out."""
    c = ctx()
    address = request.remote_addr or "?"
    wait = c.limiter.retry_after(address)
    if wait > 0:
        raise TooManyRequests(retry_after=math.ceil(wait))
    token = bearer(request.headers.get("Authorization"))
    if not pin_matches(token, c.pin):
        if token is not None:
            c.limiter.failed(address)
            wait = c.limiter.retry_after(address)
            if wait > 0:
                raise TooManyRequests(retry_after=math.ceil(wait))
            raise Unauthorized("wrong PIN")
        raise Unauthorized()
    c.limiter.succeeded(address)


def json_body() -> dict:
    """The request body as a JSON object, or 413/415/400."""
    limit = current_app.config["MAX_BODY"]
    if request.content_length is not None and request.content_length > limit:
        raise RequestEntityTooLarge()
    mimetype = request.mimetype or ""
    if mimetype != "application/json" and not mimetype.endswith("+json"):
        raise UnsupportedMediaType(f"send JSON with Content-Type: application/json (got {mimetype or 'no type'})")
    data = request.stream.read(limit + 1)  # a chunked body has no length to check first
    if len(data) > limit:
        raise RequestEntityTooLarge()
    try:
        value = load_json(data)  # bounded depth and number length: 400, never a RecursionError
    except NotJSON as exc:
        raise UnsupportedMediaType(f"the body is not JSON ({exc})") from None
    except BadCommand as exc:
        raise BadRequest(str(exc)) from None
    if not isinstance(value, dict):
        raise BadRequest(f"the body must be a JSON object, got {quote(value)}")
    return value


def current_state() -> dict:
    state = ctx().table.state()
    if state is None:
        raise NotFound("no game yet: start one with new_game (POST /api/commands)")
    return state


@bp.get("/healthz")
def healthz():
    # the card's room, when the companion knows where its data goes: seen before a game night fills it
    space = current_app.config.get("SPACE")
    return jsonify(ok=True, streams=ctx().hub.count(), **({"space": space()} if space else {}))


def etag(state: dict | None) -> str:
    """The state's version as an ETag: a command sent with it as If-Match is applied only to that state."""
    return "none" if state is None else f"g{state['game_id']}-{state['seq']}"


_SEEN = re.compile(r'(?:W/)?"(?:none|g(\d{1,18})-(\d{1,18}))"')


def seen_state() -> tuple[int | None, int | None] | None:
    """The (game_id, seq) a command's If-Match names, or None when it names none (or "*")."""
    value = request.headers.get("If-Match", "").strip()
    if not value or value == "*":
        return None
    found = _SEEN.fullmatch(value)
    if found is None:
        raise BadRequest(f"If-Match must be the ETag of GET /api/state, like \"g3-12\" or \"none\"; got {quote(value)}")
    return (None, None) if found.group(1) is None else (int(found.group(1)), int(found.group(2)))


@bp.get("/api/state")
def state():
    now = current_state()
    response = jsonify(current_app.extensions["coaching"].attach(now))
    response.set_etag(etag(now))
    return response


@bp.get("/api/log")
def game_log():
    table = ctx().table
    now = table.state()
    return jsonify(game_id=now.get("game_id") if now else None, records=table.records() if now else [])


@bp.get("/api/chart")
def game_chart():
    table = ctx().table
    now = table.state()
    if now is None:
        return jsonify(chart([], None))
    return jsonify(chart(table.timeline(), now))


@bp.get("/api/info")
def info():
    c = ctx()
    return jsonify(
        demo=c.demo_press is not None,
        buttons=list(c.demo_buttons) if c.demo_press is not None else [],
        heartbeat_s=c.heartbeat_s,
        **game_constants(),  # the rules' numbers and names, so the page keeps no copies
        overrides=c.pin is not None,
        status=c.status() if c.status else {},
        started=c.started,  # added: compared by a page reconnecting after a restart
    )


@bp.post("/api/commands")
def command():
    require_pin()
    raw = json_body()
    cmd = parse_command(raw)  # parsed once, here: BadCommand (an IllegalCommand) -> 400 before the engine sees it
    seen = seen_state()
    try:
        # `companion send` says it is the CLI; any other client is a phone.
        source = "cli" if request.headers.get("X-Companion-Source") == "cli" else "web"
        new_state = ctx().table.submit(cmd, source, timeout=ctx().submit_timeout, seen=seen)
    except TimeoutError:
        raise ServiceUnavailable("the table did not answer in time; the command may still be applied") from None
    except IllegalCommand:
        raise
    except GameLogError as exc:  # the details (a path, SQLite's words) go to the server's log only
        current_app.logger.error("command not stored: %s", exc)
        raise ServiceUnavailable(exc.public or "the game log could not take the command") from None
    except CompanionError as exc:
        current_app.logger.error("command failed: %s", exc)
        raise InternalServerError(exc.public or "internal error") from None
    response = jsonify(new_state)
    response.set_etag(etag(new_state))
    return response


@bp.post("/api/demo/press")
def demo_press():
    c = ctx()
    if c.demo_press is None:
        raise NotFound("there is no virtual panel: the companion is not in demo mode")
    require_pin()
    raw = json_body()
    unknown = [k for k in raw if k not in ("button", "hold_s")]
    if unknown:
        raise BadRequest(f"unknown key {quote(unknown[0])}; a press takes button and hold_s")
    button = raw.get("button")
    if button not in c.demo_buttons:
        raise BadRequest(f"unknown button {quote(button)}; buttons are {', '.join(c.demo_buttons)}")
    hold = raw.get("hold_s", 0)
    if type(hold) not in (int, float) or not math.isfinite(hold) or not 0 <= hold <= MAX_HOLD_S:
        raise BadRequest(f"hold_s must be a number of seconds from 0 to {MAX_HOLD_S:g}, got {quote(hold)}")
    try:
        c.demo_press(button, float(hold))
    except CompanionError as exc:
        raise BadRequest(str(exc)) from None
    return jsonify(ok=True, button=button, hold_s=float(hold))


@bp.post("/api/pin")
def check_pin():
    """The page's Save PIN: whether the PIN in Authorization is right, before the phone keeps it.

    Only require_pin() decides, so a wrong PIN here counts towards the same lockout as a wrong
    one sent with a command (401 wrong, 429 while locked out): guessing here is no cheaper.
    """
    require_pin()
    return jsonify(ok=True)
