"""The phone dashboard: Flask views over a running `companion.table.Table`.

`create_app(config)` builds the app; `web.serve.serve(app, host, port)` runs it
with waitress. The views never touch the database: they read the Table's state
and submit commands to it (the Table is the single writer).

Config keys (all optional except TABLE):
  TABLE        a started Table (state/submit/records/timeline/subscribe)
  PIN          the override PIN (str); None or "" disables every override (401)
  MAX_STREAMS  open event streams allowed at once (default 60); more get 503
  HEARTBEAT_S  seconds between heartbeat comments on /events (default 5)
  DEMO_PRESS   callable press(button, hold_s); enables POST /api/demo/press (a hold runs off
               the request's thread, one per button: web.holds)
  DEMO_BUTTONS the button names press() accepts (default: DEFAULT_DEMO_BUTTONS)
  CAMERA_VIEW, TEACHER, DEMO_TRAY  the camera view, the dice teacher and (demo) the synthetic tray:
               web.camera
  AUTH_MAX_FAILURES, AUTH_WINDOW_S, AUTH_LOCKOUT_S  wrong-PIN lockout (5 in 300 s -> 120 s)
  AUTH_OVERALL_FAILURES, AUTH_OVERALL_WINDOW_S, AUTH_SLOW_S  all addresses together: after 20 wrong
               PINs in 300 s, one guess per 5 s from addresses that never showed the right PIN
  MAX_STREAMS_PER_ADDRESS  open event streams one address may hold (default 4); more get 429
  MAX_CONNECTIONS_PER_ADDRESS  open connections one address may hold under waitress (default 12)
  UNCAPPED_ADDRESSES  addresses exempt from both caps (default loopback: the machine itself)
  MAX_CONNECTIONS  open connections in all under waitress (default: threads + 50, at least 100); when
               reached, connections still waiting for their request make room (web.patience)
  PATIENCE     a web.patience.Patience: how soon a request must arrive whole (default: headers in 5 s,
               a body at 2 KiB/s after 5 s), and its clock
  ALLOWED_HOSTS  extra Host names served (default: loopback, this machine's names, any IP); "*": any
  CLOCK        monotonic clock for the lockout (default time.monotonic)
  SUBMIT_TIMEOUT  seconds to wait for the Table to take a command (default 5)
  MAX_BODY     largest request body in bytes (default 16 KiB); larger gets 413
  STATUS       callable returning a dict shown as "status" in /api/info (demo, restarted, camera)
  COACH, DICE  the ZomBee coach's mode (off/tip/full, default tip) and the faces of the five dice
  INVITE_URL   the address the Invite view's QR code gives (serve/run set the LAN address; default:
               the address the phone used, or the LAN address when that was localhost)
  STATS_WARM_UP  digest the log's games for /stats in a background thread at start (default False)
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable

from flask import Flask

from companion.coaching import DEFAULT_MODE, Coaching

from .auth import Limiter
from .fair import MAX_STREAMS_PER_ADDRESS
from .holds import Holds
from .hub import Hub
from .wire import MAX_CONNECTIONS_PER_ADDRESS, UNCAPPED

# The panel's own buttons (hw.pins); `companion run` passes the ones its panel really has.
DEFAULT_DEMO_BUTTONS = ("Bee", "Question", "ZomBee", "Select", "OK", "Stop", "Undo", "Roll",
                        "Kill", "Life -", "Bullet -", "Lock")
MAX_BODY = 16 * 1024


@dataclass
class WebContext:
    table: Any
    hub: Hub
    limiter: Limiter
    pin: str | None
    heartbeat_s: float
    submit_timeout: float
    demo_press: Callable[[str, float], Any] | None
    demo_buttons: tuple[str, ...]
    status: Callable[[], dict] | None = None
    started: float = 0.0  # when this server started: a page that sees it change knows of a restart


def defaults() -> dict[str, Any]:
    return {
        "TABLE": None,
        "PIN": None,
        "MAX_STREAMS": 60,
        "HEARTBEAT_S": 5.0,
        "DEMO_PRESS": None,
        "DEMO_BUTTONS": DEFAULT_DEMO_BUTTONS,
        "AUTH_MAX_FAILURES": 5,
        "AUTH_WINDOW_S": 300.0,
        "AUTH_LOCKOUT_S": 120.0,
        "AUTH_OVERALL_FAILURES": 20,
        "AUTH_OVERALL_WINDOW_S": 300.0,
        "AUTH_SLOW_S": 5.0,
        "ALLOWED_HOSTS": (),
        "MAX_STREAMS_PER_ADDRESS": MAX_STREAMS_PER_ADDRESS,
        "MAX_CONNECTIONS_PER_ADDRESS": MAX_CONNECTIONS_PER_ADDRESS,
        "UNCAPPED_ADDRESSES": UNCAPPED,
        "CLOCK": time.monotonic,
        "SUBMIT_TIMEOUT": 5.0,
        "MAX_BODY": MAX_BODY,
        "STATUS": None,
    }


def create_app(config: dict[str, Any] | None = None) -> Flask:
    from . import api, errors, games, hosts, i18n, insight, invite, pages, stream

    app = Flask(__name__)
    app.config.update(defaults())
    app.config.update(config or {})
    # Werkzeug's limit truncates a chunked body silently at exactly its value: one byte
    # more lets api.json_body tell "exactly 16 KiB" from "too large".
    app.config["MAX_CONTENT_LENGTH"] = int(app.config["MAX_BODY"]) + 1
    app.config["DEBUG"] = False  # never the debugger, whatever the config says
    app.config["PROPAGATE_EXCEPTIONS"] = False  # errors become JSON, never a traceback
    app.json.sort_keys = False
    app.json.compact = True
    table = app.config["TABLE"]
    if table is None:
        raise ValueError("create_app needs config['TABLE'], a started companion.table.Table")
    cfg = app.config
    app.extensions["companion"] = WebContext(
        table=table,
        hub=Hub(table, max_streams=int(cfg["MAX_STREAMS"])),
        limiter=Limiter(max_failures=cfg["AUTH_MAX_FAILURES"], window_s=cfg["AUTH_WINDOW_S"],
                        lockout_s=cfg["AUTH_LOCKOUT_S"], overall_failures=cfg["AUTH_OVERALL_FAILURES"],
                        overall_window_s=cfg["AUTH_OVERALL_WINDOW_S"], slow_s=cfg["AUTH_SLOW_S"], clock=cfg["CLOCK"]),
        pin=cfg["PIN"] or None,
        heartbeat_s=float(cfg["HEARTBEAT_S"]),
        submit_timeout=float(cfg["SUBMIT_TIMEOUT"]),
        demo_press=Holds(cfg["DEMO_PRESS"]) if cfg["DEMO_PRESS"] is not None else None,
        demo_buttons=tuple(cfg["DEMO_BUTTONS"]),
        status=cfg["STATUS"],
        started=time.time(),
    )
    app.extensions["coaching"] = Coaching(cfg.get("COACH") or DEFAULT_MODE, cfg.get("DICE"))
    i18n.install(app)
    app.register_blueprint(pages.bp)
    app.register_blueprint(insight.bp)
    app.register_blueprint(games.bp)
    app.register_blueprint(invite.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(stream.bp)
    from . import camera  # the camera from the phone (its own blueprint)

    app.register_blueprint(camera.bp)
    errors.install(app)
    hosts.install(app)
    if cfg.get("STATS_WARM_UP"):
        insight.warm_up(app)
    return app


def context(app: Flask) -> WebContext:
    return app.extensions["companion"]


def close_app(app: Flask) -> None:
    """End every open event stream (call before stopping the server)."""
    context(app).hub.close()
