"""One server per game log: `run` and `serve` hold an exclusive lock beside the file while they serve.

Two servers on one file would each keep their own engines, and the log could fork. The lock is
flock(2) on a sidecar file (`games.sqlite.lock`), not a pid file: the kernel drops it when the
process ends in any way, SIGKILL and power cuts included, so a restart never meets a stale lock.
Readers (`replay`, `log`, `stats`) take no lock and keep working while a server runs.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from .errors import GameLogError, GameLogInUse
from .logfile import make_folder


def lock_path(db: Path) -> Path:
    return db.with_name(db.name + ".lock")


class ServerLock:
    """`ServerLock(db).acquire()` or GameLogInUse naming the game log and the pid that holds it."""

    def __init__(self, db: str | os.PathLike):
        self.db = Path(db)
        self.path = lock_path(self.db)
        self._fd: int | None = None

    def acquire(self) -> "ServerLock":
        make_folder(self.db)  # the default data folder on first use; a missing given folder is refused here
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise GameLogError(f"cannot lock the game log {self.db}: {exc.strerror or exc} ({self.path})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _pid_in(fd)
            os.close(fd)
            raise GameLogInUse(f"another companion{f' (pid {holder})' if holder else ''} is already using the game "
                               f"log {self.db}; stop it first, or give another --db") from None
        except OSError as exc:  # a file system without locks: refuse rather than risk two writers
            os.close(fd)
            raise GameLogError(f"cannot lock the game log {self.db}: {exc.strerror or exc} ({self.path})") from None
        try:  # the pid is only for the message above; the lock itself is what counts
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        except OSError:
            pass
        self._fd = fd
        return self

    def release(self) -> None:
        # Closing drops the lock. The file stays: unlinking it would let a third start lock a new
        # file while a second still holds the old one.
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)

    def __enter__(self) -> "ServerLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


def _pid_in(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None
