"""The `companion` command.

Built-in subcommands: `replay` and `log`. The camera (`vision`), the web page
(`serve`), its HTTP client (`send`) and the whole product (`run`) register
themselves through the `companion.cli` entry points, so this package never
imports them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from importlib.metadata import entry_points
from pathlib import Path

from . import files, stats_cli
from .coaching import Coaching
from .config import load_settings, read_config
from .errors import CompanionError, GameLogError
from .gamelog import GameLog
from .paths import default_db_path
from .replay import replay_lines
from .summary import summarize

# Exit statuses, the same for every subcommand (the README's table): a refused command, log line,
# game id or argument is the user's to fix (2); a file or the system failing is everything else (1).
EXIT_FAILED = 1
EXIT_REFUSED = 2
EXIT_PIPE = 141  # the reader closed our output early (`| head`): quietly, as the shell's own tools end
EXIT_INTERRUPTED = 130


def _fail(message: str, status: int = EXIT_REFUSED) -> int:
    print(" ".join(message.splitlines()), file=sys.stderr)  # one line, whatever the message held
    return status


def exit_status(exc: CompanionError) -> int:
    """A damaged, foreign or newer-format game log, or a file that cannot be read, is a failure (1);
    any other error the companion raises on purpose refuses the input (2)."""
    return EXIT_FAILED if isinstance(exc, (GameLogError, OSError)) else EXIT_REFUSED


def _pipe_closed() -> int:
    try:  # Python would otherwise report the broken pipe again when it flushes stdout on the way out
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return EXIT_PIPE


def _print_state(state: dict, as_json: bool, config: str | None = None) -> None:
    # The coach: the usual dice and "tip" unless --config says otherwise (the user's own file is not read);
    # a file named and not usable is said, summary or not.
    settings = load_settings(read_config(config), config or "the defaults") if config or as_json else None
    if as_json and state.get("game") == "zombee":
        state = Coaching(settings.coach, settings.dice).attach(state)
    print(json.dumps(state) if as_json else summarize(state))


def read_lines(path: Path) -> list[str]:
    """A game log's physical lines. Only newline ends a line: str.splitlines would also split
    on U+2028 and friends, which JSON allows inside a player's name. A BOM is dropped."""
    return path.read_text(encoding="utf-8-sig").split("\n")


def cmd_replay(args: argparse.Namespace) -> int:
    if args.db:
        if args.target is None or not args.target.isdigit():
            got = "none" if args.target is None else repr(args.target)  # not Python's "got None"
            return _fail(f"with --db, give a game id (a number) to replay, got {got}; `companion log --db {args.db}` lists them")
        with GameLog(args.db, readonly=True) as log:
            engine = log.engine(int(args.target))
            _print_state(engine.state(), args.json, args.config)
        return 0
    if args.target is None:
        return _fail("give a game log (JSON Lines) to replay, or --db PATH GAME_ID")
    path = Path(args.target)
    try:
        lines = read_lines(path)
    except (OSError, UnicodeDecodeError) as exc:
        return _fail(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}", EXIT_FAILED)
    engine, _ = replay_lines(lines)
    _print_state(engine.state(), args.json, args.config)
    return 0


def cmd_log(args: argparse.Namespace) -> int:
    # An output option the action does not use was dropped without a word (export --json printed JSON Lines).
    if args.json and args.action is not None:
        return _fail(f"--json is for the listing (`companion log --json`); `log {args.action}` does not take it"
                     + ("; an export is JSON Lines already" if args.action == "export" else ""))
    if args.out and args.action != "export":
        return _fail(f"--out is for `companion log export GAME_ID`; "
                     f"{'the listing' if args.action is None else '`log import`'} prints to the terminal")
    db = args.db or default_db_path()
    if args.action is None:
        with GameLog(db, readonly=True) as log:
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
            return _fail(f"cannot read {args.arg}: {getattr(exc, 'strerror', None) or exc}", EXIT_FAILED)
        with GameLog(db) as log:
            gid = log.import_jsonl(lines, source="import")
        print(f"imported {args.arg} as game {gid} in {db}")
        return 0
    if args.action == "export":
        if not args.arg or not args.arg.isdigit():
            return _fail("log export needs a game id (a number): `companion log` lists them" if not args.arg
                         else f"log export needs a game id (a number), got {args.arg!r}")
        with GameLog(db, readonly=True) as log:
            text = log.export_jsonl(int(args.arg))
        if args.out:
            try:  # whole or not at all: a full card must not leave half an export that looks whole
                files.write_atomic(Path(args.out), text.encode("utf-8"), parents=False)
            except files.WriteError as exc:  # it names the file, why, and the room left
                return _fail(str(exc), EXIT_FAILED)
        else:
            sys.stdout.write(text)
        return 0
    return _fail(f"unknown log action {args.action!r}; actions: import, export (or none to list)")


BUILT_IN = ("replay", "log") + stats_cli.COMMANDS


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
        status = args.func(args)
        sys.stdout.flush()  # here, so a closed pipe is reported below and not at exit
        return status
    except BrokenPipeError:
        return _pipe_closed()
    except CompanionError as exc:
        return _fail(str(exc), exit_status(exc))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
