"""`companion send`: one command to the running companion, through the HTTP API of web/api.py.

It posts to /api/commands as the "cli" source with the override PIN, exactly as a phone's
override would, so the Table stays the single writer. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from companion.commands import parse_command
from companion.summary import summarize

from .cli import PIN_ENV

EXIT_REFUSED = 2  # as the built-in subcommands: the companion (or the input) said no


def register(subparsers: Any) -> None:
    send = subparsers.add_parser("send", help="send one command to the running companion (as the CLI source)")
    send.add_argument("command", help='a command as JSON, e.g. \'{"cmd":"stop"}\'')
    send.add_argument("--url", default="http://127.0.0.1:8000", help="the companion's address (default %(default)s)")
    send.add_argument("--pin", help=f"override PIN (default ${PIN_ENV})")
    send.add_argument("--json", action="store_true", help="print the new state as JSON")
    send.set_defaults(func=handle)


def _fail(message: str, status: int = EXIT_REFUSED) -> int:
    print(message, file=sys.stderr)
    return status


def handle(args: argparse.Namespace, environ=os.environ) -> int:
    cmd = parse_command(args.command)  # a malformed command is refused here, before the network
    pin = (args.pin or environ.get(PIN_ENV) or "").strip()  # as the server strips its own (web.cli.pin_from)
    if not pin:
        return _fail(f"companion send needs the override PIN: --pin or {PIN_ENV}")
    if not pin.isprintable():  # a newline pasted with it: http.client raised ValueError, a traceback
        return _fail(f"the override PIN (--pin or {PIN_ENV}) holds a line break or another control character; "
                     "give the PIN as the companion printed it")
    url = args.url if "://" in args.url else "http://" + args.url  # "127.0.0.1:8000" as typed from the banner
    try:
        where = urllib.parse.urlsplit(url)
        where.port  # noqa: B018 - raises ValueError for "http://host:abc" or a port past 65535
    except ValueError:  # "http://[::1" too: both were tracebacks, or "connection refused" for port 99999
        where = None
    if where is None or where.scheme not in ("http", "https") or not where.hostname:
        return _fail(f"--url {args.url!r} is not the companion's address: give one like http://127.0.0.1:8000", 1)
    # The page's own address, whatever was copied after it ("/?lang=de", "/api/state"): that path
    # was kept, and "/api/commands" put after it was no page (404)
    request = urllib.request.Request(
        f"{where.scheme}://{where.netloc}/api/commands", data=cmd.to_json().encode(), method="POST",
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {pin}", "X-Companion-Source": "cli"})
    # Something else may answer at that address (another web server): only the companion's own answer,
    # JSON with the state or an "error", is a refusal or a move; anything else says the address is wrong.
    elsewhere = f"what answers at {url!r} is not the table companion: check --url (the address it printed)"
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            state = json.loads(response.read())
    except urllib.error.HTTPError as exc:
        try:
            answer = json.loads(exc.read())
        except ValueError:
            answer = None
        if not isinstance(answer, dict) or "error" not in answer:
            return _fail(f"{elsewhere} (HTTP {exc.code} {exc.reason})", 1)
        return _fail(f"refused ({exc.code}): {answer['error']}", EXIT_REFUSED if exc.code < 500 else 1)
    except ValueError:  # a 200 that is no JSON
        return _fail(elsewhere, 1)
    except (urllib.error.URLError, OSError) as exc:
        return _fail(f"cannot reach the companion at {url!r}: {getattr(exc, 'reason', exc)}", 1)
    if not isinstance(state, dict):
        return _fail(elsewhere, 1)
    print(json.dumps(state) if args.json else summarize(state))
    return 0
