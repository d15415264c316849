"""What is said of dice that measure another size than they were taught at: a camera raised or lowered
since teaching (Reading.measured and Reading.moved), by the CLI, the camera view and the tray watcher."""

from __future__ import annotations

from companion.events import N_

from .find.detect import size_off
from .reader import CLEARLY_MOVED

# Said by the tray watcher's notice (vision/tray.py), which the phones translate (babel.cfg extracts this file)
LOOK_SMALLER = N_("The dice look smaller than when they were taught: if the camera was raised, teach the "
                  "dice again for the surest reading.")


def moved_words(measured: float, read: bool = False) -> str | None:
    """What to do about dice that measure `measured` times their taught size (Reading.measured), in
    English; None when they measure it (within CLEARLY_MOVED) or nothing was taught. read: they were
    read at the size they measure (Reading.moved)."""
    if not measured or size_off(measured, 1.0) < CLEARLY_MOVED:
        return None
    times = round(measured, 2)
    if times < 1 and read:
        return LOOK_SMALLER
    if times < 1:  # untold, left out as another set's dice (smaller_too read none)
        return (f"Most dice look smaller than the ones taught ({times} times their size) and are not read: "
                "if the camera was raised, put it back or teach the dice again.")
    return (f"The dice look larger than the ones taught ({times} times their size): if the camera was "
            "lowered, put it back or teach the dice again.")
