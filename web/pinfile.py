"""The override PIN that lasts: made once, kept in the data folder, the same at every start.

Phones keep the PIN they were given (localStorage), so a PIN that changed at every
restart would lock every phone out. When neither --pin, $COMPANION_PIN nor the settings
file gives one, the PIN is read from `override-pin` in the companion's data folder
(`companion.paths.data_dir()`, ~/.local/share/table-companion: the default home of the
game log, whatever --db says), or made there at the first start, readable by the owner only.
"""

from __future__ import annotations

import stat
from pathlib import Path

from companion.files import write_atomic

from .auth import random_pin

FILE_NAME = "override-pin"
MIN_LENGTH = 6


def pin_path(directory: Path) -> Path:
    return Path(directory) / FILE_NAME


def kept_pin(directory: Path) -> str:
    """The PIN kept in `directory`, made (six random digits, mode 0600) when there is none yet.

    A kept file that is empty or too short is replaced, whole (companion.files.write_atomic). OSError
    when the folder cannot be written (the caller falls back to a PIN for this run only)."""
    path = pin_path(directory)
    try:
        pin = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        pin = ""
    if len(pin) >= MIN_LENGTH and pin.isprintable():
        if stat.S_IMODE(path.stat().st_mode) & 0o077:  # someone widened it: the PIN is a secret
            path.chmod(0o600)
        return pin
    pin = random_pin()
    write_atomic(path, (pin + "\n").encode(), mode=0o600)  # never readable by others, not even briefly
    return pin
