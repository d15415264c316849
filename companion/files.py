"""Writing a file whole or not at all, and saying how much room the card has left.

Every file the companion writes outside SQLite (the dice models and their photos, the calibration's
notes, the override PIN, a game's export) goes through `write_atomic`: written beside its place under
a temporary name, flushed and synced to the card, renamed over the old one, and the folder synced so
the new name survives a power cut too. A reader then finds the old file or the new, never half of
one; a full card leaves the old file as it was and raises WriteError, which names the file and the
room left, for the phone to show.
"""

from __future__ import annotations

import errno
import os
import secrets
import shutil
from pathlib import Path
from typing import Callable

from .errors import CompanionError

LOW_SPACE = 50 * 1024 * 1024  # below this the camera view and /healthz warn, before a game night fills it


class WriteError(CompanionError, OSError):
    """A file that could not be written whole (a full or read-only card). The old file, if any, is
    untouched. `path` names the file, `free` the bytes left on its card (None when unknown) and
    `full` says the card ran out of room."""

    public = "a file could not be written on the companion's memory card; the server's log has the details"

    def __init__(self, path, reason: str, *, code: int | None = None, free: int | None = None):
        self.path, self.reason, self.free = Path(path), reason, free
        self.full = code in (errno.ENOSPC, errno.EDQUOT)
        room = f" ({size_words(free)} free)" if free is not None else ""
        super().__init__(code or errno.EIO, f"cannot write {self.path}: {reason}{room}")

    def __str__(self) -> str:
        return self.args[1]

    def words(self, again: str) -> str:
        """What a person reads: why, and the way on (`again`: what to tap once it is fixed)."""
        if self.full:
            room = f" ({size_words(self.free)} free)" if self.free is not None else ""
            return f"The memory card is full{room}; delete old game exports or photos, then {again}"
        return f"{self.path.name} could not be written ({self.reason}); check the memory card, then {again}"


def size_words(n: int | None) -> str:
    """16 KB, 3.2 MB, 1.4 GB: as a person reads a card's room."""
    if n is None:
        return "unknown"
    for unit, size in (("GB", 1 << 30), ("MB", 1 << 20)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n // 1024} KB"


def room(free: int | None) -> dict:
    """The card's room as /healthz and the camera view say it: {"free": bytes or None, "low", "text"}."""
    low = free is not None and free < LOW_SPACE
    text = (f"The memory card is nearly full ({size_words(free)} free): teaching the dice and keeping corrected "
            "rolls need room; delete old game exports or photos.") if low else ""
    return {"free": free, "low": low, "text": text}


def free_space(path, disk_usage: Callable = shutil.disk_usage) -> int | None:
    """Bytes free on the card holding path (its nearest folder that exists), or None when unknown."""
    path = Path(path).absolute()
    for folder in (path, *path.parents):
        if folder.exists():
            try:
                return int(disk_usage(folder).free)
            except OSError:
                return None
    return None


def write_atomic(path, data: bytes, *, mode: int = 0o644, parents: bool = True,
                 disk_usage: Callable = shutil.disk_usage) -> None:
    """Put data at path whole: the old file stays until the new one is safely on the card. Makes the
    folder when missing (unless not parents: a mistyped folder of the user's is an error).
    WriteError (an OSError) naming the file and the room left, else nothing."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(3)}.part")
    try:
        if parents:
            path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        try:
            os.fchmod(fd, mode)  # O_CREAT's mode is filtered by the umask; a secret must stay the owner's
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError as exc:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise WriteError(path, exc.strerror or str(exc), code=exc.errno,
                         free=free_space(path.parent, disk_usage)) from None
    sync_folder(path.parent)


def sync_folder(folder) -> None:
    """The new name on the card too, not just the file's bytes."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems cannot sync a folder; the name is then as safe as they make it
    finally:
        os.close(fd)
