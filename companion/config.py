"""The companion's settings file (TOML) and where to find it.

    [companion]
    db = "/home/pi/.local/share/table-companion/games.sqlite"
    host = "0.0.0.0"
    port = 8000
    pin = "471108"          # at least 6 characters; --pin and COMPANION_PIN come first
    camera = "picamera2"    # or a webcam index ("0"), a folder of images, "synthetic"
    model = "/home/pi/dice-model.npz"   # from `companion vision calibrate`
    dice_dir = "/home/pi/dice"   # dice taught from the phone (default: dice/ beside the game log)
    still_ms = 300          # how long the dice must lie still before they are read
    allowed_hosts = "pi.lan, companion.home"  # more names phones may use (localhost, this
                            # machine's name, NAME.local and IP addresses always work)
    coach = "tip"           # the ZomBee coach: "off", "tip" (one line) or "full" (every option)
    dice = [["bee", "bee", "honey", "zzz", "zombee", "zombee"], ...]   # the 6 faces of each of the 5 dice

    [panel.buttons] / [panel.leds]      # the pin map: see docs/panel.md
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from .coaching import DEFAULT_DICE, DEFAULT_MODE, check_mode, parse_dice
from .errors import ConfigError
from .paths import default_db_path


@dataclass(frozen=True)
class Settings:
    db: str | None = None
    host: str = "0.0.0.0"
    port: int = 8000
    pin: str | None = None
    camera: str | None = None
    model: str | None = None
    still_ms: int = 300
    allowed_hosts: str | None = None
    dice_dir: str | None = None

    def host_names(self) -> list[str]:
        """The Host names the page is served under besides this machine's own (hosts.py)."""
        return [self.host, *(h.strip() for h in (self.allowed_hosts or "").split(",") if h.strip())]
    coach: str = DEFAULT_MODE
    dice: tuple[tuple[str, ...], ...] = DEFAULT_DICE

    def db_path(self) -> Path:
        return Path(self.db) if self.db else default_db_path()

    def dice_path(self) -> Path:
        """Where the dice taught from the phone are kept (vision.captures): dice/ beside the game log."""
        return Path(self.dice_dir) if self.dice_dir else self.db_path().parent / "dice"


def default_config_path() -> Path | None:
    """`COMPANION_CONFIG`, else ~/.config/table-companion/companion.toml when it exists."""
    env = os.environ.get("COMPANION_CONFIG")
    if env:
        return Path(env)
    base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    path = base / "table-companion" / "companion.toml"
    return path if path.exists() else None


MAX_STILL_MS = 5000  # past this no roll is ever read: the dice are picked up again before


def read_config(path: str | os.PathLike | None) -> dict[str, Any]:
    """The whole parsed file ({} for None); a missing or malformed file is a ConfigError naming it."""
    if path is None:
        return {}
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise ConfigError(f"config file {path} does not exist") from None
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"config file {path} cannot be read: {exc}") from None


def load_settings(config: dict[str, Any], source: str = "the config file") -> Settings:
    """The [companion] table, checked key by key (and the file's other tables by name)."""
    _check_tables(config, source)
    table = config.get("companion", {})
    if not isinstance(table, dict):
        raise ConfigError(f"[companion] in {source} must be a table of settings")
    known = {f.name: f for f in fields(Settings)}
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key not in known:
            raise ConfigError(f"[companion] in {source} has unknown setting {key!r}; settings are {', '.join(known)}")
        if key == "dice":
            values[key] = parse_dice(value, source)
            continue
        want = int if key in ("port", "still_ms") else str
        if key == "camera" and isinstance(value, int):
            value = str(value)
        if type(value) is not want:
            kind = "a whole number" if want is int else "a string"  # not the type's name: "a int"
            raise ConfigError(f"[companion] {key} in {source} must be {kind}, got {value!r}")
        values[key] = value
    check_mode(values.get("coach", DEFAULT_MODE), f"[companion] in {source}")
    settings = Settings(**values)
    if not 1 <= settings.port <= 65535:
        raise ConfigError(f"[companion] port in {source} must be 1-65535, got {settings.port}")
    if not 0 < settings.still_ms <= MAX_STILL_MS:
        raise ConfigError(f"[companion] still_ms in {source} must be 1-{MAX_STILL_MS}, got {settings.still_ms}")
    return settings


TABLES = "[companion], [panel.buttons] and [panel.leds]"


def _check_tables(config: dict[str, Any], source: str) -> None:
    """A table the companion does not read is a typo: `[compainon]` or `[panel.button]` was skipped
    in silence, so the start went on with the defaults (another port, no PIN of the file's)."""
    for key, value in config.items():
        if key not in ("companion", "panel"):
            what = f"table [{key}]" if isinstance(value, dict) else f"setting {key!r} outside any table"
            raise ConfigError(f"{source} has unknown {what}; a settings file holds {TABLES}")
    panel = config.get("panel", {})
    for key in panel if isinstance(panel, dict) else ():  # not a table: hw.pins names it
        if key not in ("buttons", "leds"):
            raise ConfigError(f"{source} has unknown table [panel.{key}]; a settings file holds {TABLES}")
