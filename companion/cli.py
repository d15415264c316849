"""The `companion` command.

Built-in subcommands: `replay` and `log`. The camera (`vision`), the web page
(`serve`) and the whole product (`run`) register themselves through the
`companion.cli` entry points, so this package never imports them.
"""

from __future__ import annotations

import argparse
import json
import sys
from importlib.metadata import entry_points
from pathlib import Path

from . import stats_cli
from .coaching import Coaching
from .commands import parse_command
from .config import load_settings, read_config
from .errors import CompanionError
from .gamelog import GameLog
from .paths import default_db_path
from .replay import replay_lines
from .summary import summarize

EXIT_REFUSED = 2


def _fail(message: str, status: int = EXIT_REFUSED) -> int:
    print(message, file=sys.stderr)
    return status


def _print_state(state: dict, as_json: bool, config: str | None = None) -> None:
    if as_json and state.get("game") == "zombee":
        # The coach: the usual dice and "tip" unless --config says otherwise (the user's own file is not read).
        settings = load_settings(read_config(config), config or "the defaults")
        state = Coaching(settings.coach, settings.dice).attach(state)
    print(json.dumps(state) if as_json else summarize(state))


def read_lines(path: Path) -> list[str]:
    """A game log's physical lines. Only newline ends a line: str.splitlines would also split
    on U+2028 and friends, which JSON allows inside a player's name. A BOM is dropped."""
    return path.read_text(encoding="utf-8-sig").split("\n")


def cmd_replay(args: argparse.Namespace) -> int:
    if args.db:
        if args.target is None or not args.target.isdigit():
            return _fail(f"with --db, give a game id (a number) to replay, got {args.target!r}; `companion log --db {args.db}` lists them")
        with GameLog(args.db) as log:
            engine = log.engine(int(args.target))
            _print_state(engine.state(), args.json, args.config)
        return 0
    if args.target is None:
        return _fail("give a game log (JSON Lines) to replay, or --db PATH GAME_ID")
    path = Path(args.target)
    try:
        lines = read_lines(path)
    except (OSError, UnicodeDecodeError) as exc:
        return _fail(f"cannot read {path}: {exc}")
    engine, _ = replay_lines(lines)
    _print_state(engine.state(), args.json, args.config)
    return 0


def cmd_log(args: argparse.Namespace) -> int:
    db = args.db or default_db_path()
    if args.action is None:
        with GameLog(db) as log:
            games = log.games()
        if args.json:
            print(json.dumps(games))
        elif not games:
            print(f"no games in {db} yet")
        for g in [] if args.json else games:
            status = "over" if g["over"] else g["phase"]
            print(f"{g['id']:>4}  {g['game']:<7} {', '.join(g['players']):<36} {g['seq']:>4} commands  {status}")
        return 0
    if args.action == "import":
        if not args.arg:
            return _fail("log import needs a game log file (JSON Lines)")
        try:
            lines = read_lines(Path(args.arg))
        except (OSError, UnicodeDecodeError) as exc:
            return _fail(f"cannot read {args.arg}: {exc}")
        with GameLog(db) as log:
            gid = log.import_jsonl(lines, source="import")
        print(f"imported {args.arg} as game {gid} in {db}")
        return 0
    if args.action == "export":
        if not args.arg or not args.arg.isdigit():
            return _fail(f"log export needs a game id (a number), got {args.arg!r}")
        with GameLog(db) as log:
            text = log.export_jsonl(int(args.arg))
        if args.out:
            Path(args.out).write_text(text, encoding="utf-8")
        else:
            sys.stdout.write(text)
        return 0
    return _fail(f"unknown log action {args.action!r}; actions: import, export (or none to list)")


BUILT_IN = ("replay", "log", "send") + stats_cli.COMMANDS


def cmd_send(args: argparse.Namespace) -> int:
    """One command to the running companion, through its page's API (the table's single writer)."""
    import os
    import urllib.error
    import urllib.request

    cmd = parse_command(args.command)  # a malformed command is refused here, before the network
    pin = args.pin or os.environ.get("COMPANION_PIN")
    if not pin:
        return _fail("companion send needs the override PIN: --pin or COMPANION_PIN")
    request = urllib.request.Request(
        args.url.rstrip("/") + "/api/commands", data=cmd.to_json().encode(), method="POST",
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {pin}", "X-Companion-Source": "cli"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            state = json.loads(response.read())
    except urllib.error.HTTPError as exc:
        try:
            reason = json.loads(exc.read()).get("error", exc.reason)
        except ValueError:
            reason = exc.reason
        return _fail(f"refused ({exc.code}): {reason}", EXIT_REFUSED if exc.code < 500 else 1)
    except (urllib.error.URLError, OSError) as exc:
        return _fail(f"cannot reach the companion at {args.url}: {getattr(exc, 'reason', exc)}", 1)
    _print_state(state, args.json)
    return 0


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser; plugins load only when the command line may need them (Flask and OpenCV are slow to import)."""
    parser = argparse.ArgumentParser(prog="companion", description="The table companion for ZomBee and Zombie Zoo.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    replay = sub.add_parser("replay", help="replay a game log and print the state")
    replay.add_argument("target", nargs="?", help="a JSON Lines game log, or with --db a game id")
    replay.add_argument("--db", help="replay game GAME_ID from this database instead")
    replay.add_argument("--json", action="store_true", help="print the state as one JSON object")
    replay.add_argument("--config", help="settings file (TOML) for the coach's mode and dice (default: tip, the usual dice)")
    replay.set_defaults(func=cmd_replay)

    log = sub.add_parser("log", help="list, import or export the games in a database")
    log.add_argument("action", nargs="?", choices=["import", "export"], help="import FILE | export GAME_ID")
    log.add_argument("arg", nargs="?", help="the file to import or the game id to export")
    log.add_argument("--db", help=f"database (default {default_db_path()})")
    log.add_argument("--out", "-o", help="export: write to this file instead of standard output")
    log.add_argument("--json", action="store_true", help="list the games as JSON")
    log.set_defaults(func=cmd_log)

    send = sub.add_parser("send", help="send one command to the running companion (as the CLI source)")
    send.add_argument("command", help='a command as JSON, e.g. \'{"cmd":"stop"}\'')
    send.add_argument("--url", default="http://127.0.0.1:8000", help="the companion's address (default %(default)s)")
    send.add_argument("--pin", help="override PIN (default $COMPANION_PIN)")
    send.add_argument("--json", action="store_true", help="print the new state as JSON")
    send.set_defaults(func=cmd_send)
    stats_cli.register(sub)

    plugins = entry_points(group="companion.cli")
    first = next((a for a in argv or [] if not a.startswith("-")), None)
    if first in BUILT_IN:
        plugins = []
    elif first in plugins.names:
        plugins = [plugins[first]]  # only the subcommand asked for; the others' imports are not needed
    for ep in plugins:
        try:
            register = ep.load()
        except ImportError as exc:
            # A part whose libraries are missing must not take the rest of the command down.
            broken = sub.add_parser(ep.name, help=f"(unavailable: {exc})")
            broken.set_defaults(func=lambda _a, e=exc, n=ep.name: _fail(f"`companion {n}` is unavailable: {e}", 1))
            continue
        register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_REFUSED
    try:
        return args.func(args)
    except CompanionError as exc:
        return _fail(str(exc))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
