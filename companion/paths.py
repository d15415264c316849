"""Where the companion keeps its files when nobody says otherwise."""

from __future__ import annotations

import os
from pathlib import Path


def data_dir(environ=os.environ) -> Path:
    """The user's data directory (XDG), e.g. ~/.local/share/table-companion."""
    base = environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "table-companion"


def default_db_path() -> Path:
    """`COMPANION_DB` if set, else games.sqlite in the data directory."""
    env = os.environ.get("COMPANION_DB")
    return Path(env) if env else data_dir() / "games.sqlite"
