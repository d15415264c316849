"""The Pi's own faults: a weak power supply, heat, a nearly full SD card, the panel's pins held by
another program, the camera gone. Each is said once when it begins (one line in the service's log,
and a `health` notice that every phone keeps on top until it ends) with what to do about it, and
once more when it is over. The game goes on meanwhile, entered by hand on the phones.

Raspberry Pi OS reports power and heat through the firmware's `get_throttled` bits (the sysfs file
below, else `vcgencmd get_throttled`); off a Pi neither exists and those checks are skipped.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Callable

from companion.events import N_, worded
from companion.notices import HealthStatus, NoticeKind

THROTTLED = Path("/sys/devices/platform/soc/soc:firmware/get_throttled")
# get_throttled's bits: now (0-3) and since boot (16-19). Since boot counts too: a supply that sagged
# once under load will sag again, and a fault that came and went every minute would be said every minute.
UNDER_VOLTAGE = 1 << 0 | 1 << 16
HOT = (1 << 1 | 1 << 2 | 1 << 3) | (1 << 17 | 1 << 18 | 1 << 19)  # frequency capped, throttled, soft limit
LOW_DISK_MB = 100  # the game log grows by kilobytes a game; the camera's taught dice by megabytes
CHECK_EVERY_S = 30.0

WORDS = {
    "power": N_("The Pi's power supply gives too little voltage (under-voltage): the Pi slows down and the SD card "
                "can be damaged. Use the official supply (5 V, 3 A for a Pi 4, 5 A for a Pi 5) and a short cable."),
    "heat": N_("The Pi is too hot and slows itself down: give it air, a heatsink or a fan. Dice are read "
               "more slowly meanwhile."),
    "disk": N_("The SD card is nearly full ({free} MB free): delete what you do not need (old logs: "
               "journalctl --vacuum-size=50M). When it is full, moves can no longer be saved."),
    "panel": N_("The panel's pins are held by another program ({error}): stop it, or move the parts in the "
                "settings file, and restart the companion. Until then, enter the game on the phones."),
}
OVER = "over: {what}"  # a fault that ended, for the service's log (English, as its other lines)


def throttled_bits(path: Path = THROTTLED, vcgencmd: str | None = None) -> int | None:
    """The firmware's throttled bits, or None off a Pi. The sysfs file holds hex digits ("50005"),
    vcgencmd says `throttled=0x50005`."""
    try:
        text = path.read_text()
    except OSError:
        tool = vcgencmd if vcgencmd is not None else shutil.which("vcgencmd")
        if not tool:
            return None
        try:
            text = subprocess.run([tool, "get_throttled"], capture_output=True, text=True, timeout=5).stdout
        except (OSError, subprocess.SubprocessError):
            return None
    try:
        return int(text.strip().removeprefix("throttled=").strip() or "0", 16)
    except ValueError:
        return None


class Health:
    """Looks at the Pi every CHECK_EVERY_S seconds (check() does one look; tests call it with readings
    injected: a fake sysfs file, a fake disk). faults() is what a page that opens now shows."""

    def __init__(self, table: Any, data_dir: Path, *, throttled: Callable[[], int | None] | None = None,
                 disk_free_mb: Callable[[Path], float] | None = None, camera_ok: Callable[[], bool | None] = None,
                 log: Callable[[str], Any] | None = None, every: float = CHECK_EVERY_S):
        self.table, self.data_dir, self.every = table, Path(data_dir), every
        self._throttled = throttled or throttled_bits
        self._free_mb = disk_free_mb or _free_mb
        self._camera_ok = camera_ok
        self._log = log or _log
        self._fixed: dict[str, dict] = {}  # faults found once at the start (the panel's pins)
        self._current: dict[str, dict] = {}
        self._camera_said: bool | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def panel_unavailable(self, error: str) -> None:
        """The panel's pins could not be had at the start: lasts until a restart."""
        self._fixed["panel"] = worded(WORDS["panel"], error=error)
        self.check()

    def faults(self) -> list[dict]:
        with self._lock:
            return [{"code": code, **words} for code, words in self._current.items()]

    def check(self) -> None:
        found = dict(self._fixed)
        bits = self._throttled()
        if bits:
            if bits & UNDER_VOLTAGE:
                found["power"] = worded(WORDS["power"])
            if bits & HOT:
                found["heat"] = worded(WORDS["heat"])
        try:
            free = self._free_mb(self.data_dir)
        except OSError:
            free = None  # a folder not made yet: the game log says what is wrong when it writes
        if free is not None and free < LOW_DISK_MB:
            found["disk"] = worded(WORDS["disk"], free=int(free))
        with self._lock:
            began = {c: w for c, w in found.items() if c not in self._current}
            ended = {c: w for c, w in self._current.items() if c not in found}
            self._current = found
        for code, words in began.items():
            self._log(words["text"])
            self.table.notify(NoticeKind.HEALTH, status=HealthStatus.FAULT, code=code, **words)
        for code, words in ended.items():
            self._log(worded(OVER, what=words["text"])["text"])
            self.table.notify(NoticeKind.HEALTH, status=HealthStatus.OK, code=code)  # the phones drop its line
        self._camera()

    def _camera(self) -> None:
        """The camera's comings and goings are on every phone already (the tray watcher's notices); the
        service's log gets them here, once each."""
        ok = self._camera_ok() if self._camera_ok is not None else None
        if ok is None or ok == self._camera_said:
            return
        if not ok and self._camera_said:  # one missing at the start was said by StartCamera already
            self._log("the camera is offline: check its cable (or the webcam's USB plug); rolls are entered on "
                      "the phones until it is back, and it is opened again by itself")
        elif self._camera_said is False:
            self._log("the camera is back: dice are read again")
        self._camera_said = ok

    def start(self) -> "Health":
        self.check()
        self._thread = threading.Thread(target=self._run, name="health", daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            try:
                self.check()
            except Exception as exc:  # a look that failed must not end the looking
                self._log(f"checking the Pi's health failed: {exc}")

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2.0)


def _free_mb(folder: Path) -> float:
    return shutil.disk_usage(folder).free / 1e6


def _log(line: str) -> None:
    print(f"companion run: {line}", file=sys.stderr, flush=True)
