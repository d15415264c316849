"""`companion serve`: the phone dashboard of the current game."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

PIN_ENV = "COMPANION_PIN"
MIN_PIN = 6  # characters; the made-up PIN has six digits


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "serve",
        help="show the current game on every phone (web dashboard)",
        description="Serve the current game of the database to phones on the same network. "
        f"The override PIN comes from --pin or ${PIN_ENV}; with neither, the one kept in the data folder "
        "(made at the first start) is printed.",
    )
    from companion.paths import default_db_path

    p.add_argument("--db", default=None, metavar="PATH",
                   help=f"game log (SQLite) to serve (default: $COMPANION_DB, else {default_db_path()})")
    p.add_argument("--host", default="0.0.0.0", help="address to listen on (default: 0.0.0.0, every interface)")
    p.add_argument("--port", type=int, default=8000, help="TCP port (default: 8000)")
    p.add_argument("--pin", default=None, help=f"override PIN (default: ${PIN_ENV}, else the one kept in the data folder)")
    p.add_argument("--max-phones", type=int, default=60, dest="max_streams", metavar="N",
                   help="open pages allowed at once; more are refused with 503 (default: 60)")
    p.add_argument("--allow-host", action="append", default=[], dest="allowed_hosts", metavar="NAME",
                   help="another name phones may use for this machine (repeatable); localhost, the host "
                        "name, NAME.local and IP addresses always work; '*' allows any")
    p.set_defaults(func=handle)


def pin_from(args: argparse.Namespace, environ=os.environ, configured: str | None = None,
             config_source: str = "the config file") -> tuple[str, str | None]:
    """(PIN, note): --pin, else $COMPANION_PIN, else the settings file's pin (`companion run`
    passes it as `configured`), else the PIN kept in the data folder (made at the first start:
    web.pinfile). The note is None for a given PIN, else where the PIN came from, for the banner."""
    from companion.paths import data_dir

    from .auth import random_pin
    from .pinfile import kept_pin, pin_path

    for pin, source in ((args.pin, "--pin"), (environ.get(PIN_ENV), PIN_ENV), (configured, config_source)):
        if pin is None:
            continue
        pin = pin.strip()
        if not pin:
            raise ValueError(f"the PIN must not be empty (from {source})")
        if len(pin) < MIN_PIN:
            raise ValueError(f"the PIN must have at least {MIN_PIN} characters, got {len(pin)} (from {source}): "
                             "a shorter one is guessed too soon by a phone at the table")
        if len(pin) > 64 or not pin.isprintable():
            raise ValueError(f"the PIN must be at most 64 printable characters (from {source})")
        return pin, None
    folder = data_dir(environ)
    try:
        return kept_pin(folder), f"kept in {pin_path(folder)} for every start; --pin or {PIN_ENV} overrides it"
    except OSError as exc:  # a read-only card: still a PIN, for this run
        return random_pin(), (f"made up for this run: cannot keep it in {folder} "
                              f"({getattr(exc, 'strerror', None) or exc}); set --pin or {PIN_ENV} to keep one")


def banner(url: str, pin: str, made_up: str | bool | None, local_url: str | None = None,
           also: tuple[str, ...] | list[str] = ()) -> str:
    """What the terminal shows at start: the address (the LAN address), other names for it
    (`also`: the `.local` name), the PIN and a QR code of the address."""
    from .serve import qr_text

    lines = [f"Table companion: open {url} on your phone (or scan the code below)."]
    others = [u for u in also if u != url]
    if others:
        lines.append("Also: " + "  ".join(others))
    if local_url and local_url != url:
        lines.append(f"On this machine: {local_url}")
    if made_up is True:
        made_up = f"made up for this run; set --pin or {PIN_ENV} to keep one"
    lines.append(f"Override PIN: {pin}" + (f"  ({made_up})" if made_up else ""))
    lines.append(qr_text(url))
    lines.append("Press Ctrl-C to stop.")
    return "\n".join(lines)


def handle(args: argparse.Namespace) -> int:
    from companion.errors import CompanionError
    from companion.gamelog import GameLog
    from companion.loglock import ServerLock
    from companion.paths import default_db_path
    from companion.table import Table

    from . import create_app
    from . import serve as web_serve
    from .serve import page_urls

    problem = web_serve.listen_problem(args.host, args.port)
    if problem:
        print(f"companion serve: {problem}", file=sys.stderr)
        return 2
    taken = web_serve.port_taken(args.host, args.port)
    if taken:  # before the game log and its lock are made
        print(f"companion serve: {taken} (is the companion already running?)", file=sys.stderr)
        return 1
    if args.max_streams < 1:
        print(f"companion serve: --max-phones must be at least 1, got {args.max_streams}", file=sys.stderr)
        return 2
    try:
        pin, made_up = pin_from(args)
    except ValueError as exc:
        print(f"companion serve: {exc}", file=sys.stderr)
        return 2
    db = args.db or default_db_path()
    lock = ServerLock(db)
    try:
        lock.acquire()  # before the log is opened: a second server must not touch it
        gamelog = GameLog(db)
    except CompanionError as exc:
        lock.release()
        print(f"companion serve: {exc}", file=sys.stderr)
        return 1
    table = Table(gamelog).start()
    try:
        app = create_app({"TABLE": table, "PIN": pin, "MAX_STREAMS": args.max_streams,
                          "ALLOWED_HOSTS": [args.host, *args.allowed_hosts], "STATS_WARM_UP": True})
        try:
            server = web_serve.ServerThread(app, args.host, args.port)
        except (OSError, ValueError) as exc:
            print(f"companion serve: cannot listen on {args.host}:{args.port}: {getattr(exc, 'strerror', None) or exc}",
                  file=sys.stderr)
            return 1
        port = server.port
        urls = page_urls(args.host, port)
        app.config["INVITE_URL"] = urls[0]
        print(banner(urls[0], pin, made_up, f"http://127.0.0.1:{port}/", urls[1:]), flush=True)
        server.serve_until_interrupted()
        return 0
    finally:
        table.stop()
        gamelog.close()
        lock.release()
