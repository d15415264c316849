"""Notices: what the table announces besides game states, in one vocabulary.

The tray watcher, the panel and `companion run` send them with `Table.notify(kind,
status=..., text=...)`; the panel's LEDs and the phone page read them. On the wire
a notice is `{"type": "notice", "kind": ..., "status": ..., "text": ..., ...}`.
The enums are str subclasses, so they compare equal to, and serialize as, their
plain words. Table.notify refuses a status that is not in its kind's list.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Mapping


class NoticeKind(StrEnum):
    CAMERA = "camera"  # status: CameraStatus; text for people when the camera is lost
    DICE = "dice"  # status: DiceStatus; text when the dice must be checked; seen: the faces read
    RESTART = "restart"  # text: the companion restarted and the game continues where it stood
    ROLL_REQUESTED = "roll_requested"  # the panel's Roll button asked the camera to read now; source
    PANEL = "panel"  # what the box shows: highlight, seats (player, light), status_led, hold_s, sound


class CameraStatus(StrEnum):
    OK = "ok"  # the camera delivers frames (again)
    LOST = "lost"  # no frames: enter rolls on the page or the panel


class DiceStatus(StrEnum):
    SETTLING = "settling"  # the dice are moving in the tray
    STILL = "still"  # the dice came to rest and are being read
    CHECK = "check"  # the reading was unsure or refused: look at the dice and throw again
    SELECTED = "selected"  # the dice picked up for the next roll were seen
    ROLLED = "rolled"  # a Zoo die read outside a fight (a move): shown on the phones, nothing entered


STATUSES: Mapping[str, type[StrEnum]] = {NoticeKind.CAMERA: CameraStatus, NoticeKind.DICE: DiceStatus}


def check_status(kind: str, data: Mapping[str, Any]) -> None:
    """Refuse (ValueError) a notice whose status its kind does not have."""
    allowed = STATUSES.get(kind)
    if allowed is not None and "status" in data and data["status"] not in set(allowed):
        raise ValueError(f"a {kind} notice's status is one of {', '.join(allowed)}, not {data['status']!r}")
