"""`companion stats` and `companion dice-stats`: what the game log says across games."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .coaching import face_chances
from .config import default_config_path, load_settings, read_config
from .dice_stats import describe as describe_dice
from .dice_stats import dice_stats
from .gamelog import GameLog
from .paths import default_db_path
from .stats import GameStats, describe, to_csv

COMMANDS = ("stats", "dice-stats")


def settings_from(path: str | None):
    """The settings file given with --config, else the default one (when it exists)."""
    chosen = path or default_config_path()
    return load_settings(read_config(chosen), str(chosen) if chosen else "the config file")


def first_rolls(log: GameLog) -> list[list[str]]:
    return [roll for d in GameStats().digests(log) for roll in d["first_rolls"]]


def cmd_stats(args: argparse.Namespace) -> int:
    with GameLog(args.db or default_db_path(), readonly=True) as log:  # reading makes no log
        summary = GameStats().summary(log)
    if args.csv:
        sys.stdout.write(to_csv(summary))
    elif args.json:
        print(json.dumps(summary))
    else:
        print(describe(summary))
    return 0


def cmd_dice_stats(args: argparse.Namespace) -> int:
    settings = settings_from(args.config)
    with GameLog(args.db or settings.db_path(), readonly=True) as log:
        result = dice_stats(first_rolls(log), face_chances(settings.dice))
    print(json.dumps(result) if args.json else describe_dice(result))
    return 0


def register(sub: Any) -> None:
    stats = sub.add_parser("stats", help="statistics across every finished game: players, wins, honey, kills")
    stats.add_argument("--db", help=f"database (default {default_db_path()})")
    output = stats.add_mutually_exclusive_group()  # one format: both printed the CSV and dropped --json
    output.add_argument("--json", action="store_true", help="print the statistics as one JSON object")
    output.add_argument("--csv", action="store_true", help="print one CSV row per player")
    stats.set_defaults(func=cmd_stats)

    dice = sub.add_parser("dice-stats", help="how the table's dice really fall (first rolls), tested against the coach")
    dice.add_argument("--db", help="database (default from the config, else the user data directory)")
    dice.add_argument("--config", help="settings file (TOML) with the dice the coach assumes")
    dice.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    dice.set_defaults(func=cmd_dice_stats)
