"""What the LEDs and the buzzer show, as pure functions of what the engine published.

`look(...)` gives the mode of every seat LED and of the status LED; `sound_for(message)`
gives the buzzer pattern a table message deserves. `Panel` applies them to the
devices; nothing here touches gpiozero or the game.

Seat LEDs (seat1 = first player in seating order):
- ZomBee, rolling or flipping: the pending player's seat is lit.
- ZomBee, after a question mark: the chooser's seat blinks (a choice is pending);
  the player highlighted with Select is lit steady.
- Zombie Zoo: the player highlighted with Select is lit; it blinks while a lock is
  highlighted too (OK would collect it for them).
- Game over: the winner's seat (ZomBee) or the winners' seats (Zoo) are lit.

Status LED: steady when ready, blinking while the dice are settling, fast blinking
for a few seconds after a refused press and for as long as the camera is lost.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from companion.events import ALARM_KINDS
from companion.notices import CameraStatus, DiceStatus, NoticeKind
from companion.legal import of_kind

from .mapping import NOTHING, Highlight
from .pins import SEATS

OFF, ON, BLINK, FAST = "off", "on", "blink", "fast"

# (on seconds, off seconds) for each blinking mode
BLINK_TIMES = {BLINK: (0.5, 0.5), FAST: (0.1, 0.1)}
SEAT_BLINK = (0.3, 0.3)
REFUSED_FOR = 2.0  # seconds of fast blinking after a refusal

# Buzzer patterns: (on seconds, off seconds, beeps)
SOUNDS = {
    "short": (0.06, 0.0, 1),  # an accepted press
    "long": (0.6, 0.0, 1),  # a ZomBee revealed, a player out, a game or tournament over
    "refused": (0.05, 0.05, 3),  # a press the rules did not allow
}



@dataclass(frozen=True)
class Look:
    seats: tuple[str, ...]  # one mode per seat LED: off, on or blink
    status: str  # on, blink or fast

    def seat_of(self, mode: str) -> list[int]:
        """1-based seats in the given mode (for tests and logs)."""
        return [i + 1 for i, m in enumerate(self.seats) if m == mode]


def _seat(state: Mapping, name: str | None) -> int | None:
    for i, p in enumerate(state.get("players") or []):
        if p.get("name") == name:
            return i
    return None


def seat_modes(state: Mapping | None, highlight: Highlight = NOTHING) -> tuple[str, ...]:
    modes = [OFF] * len(SEATS)

    def set_(name: str | None, mode: str) -> None:
        i = _seat(state, name)
        if i is not None and i < len(modes) and (modes[i] == OFF or mode == BLINK):
            modes[i] = mode

    if not state:
        return tuple(modes)
    if state.get("over"):
        for name in state.get("winners") or []:
            set_(name, ON)
    elif state.get("game") == "zombee":
        if of_kind(state.get("legal"), "choose"):
            set_(state.get("pending"), BLINK)
            set_(highlight.player, ON)
        else:
            set_(state.get("pending"), ON)
    elif state.get("game") == "zoo":
        set_(highlight.player, BLINK if highlight.lock else ON)
    return tuple(modes)


def status_mode(*, refusing: bool = False, camera_lost: bool = False, settling: bool = False) -> str:
    if refusing or camera_lost:
        return FAST
    if settling:
        return BLINK
    return ON


def look(state: Mapping | None, highlight: Highlight = NOTHING, *, refusing: bool = False,
         camera_lost: bool = False, settling: bool = False) -> Look:
    return Look(seat_modes(state, highlight),
                status_mode(refusing=refusing, camera_lost=camera_lost, settling=settling))


def sound_for(message: Mapping[str, Any]) -> str | None:
    """The buzzer pattern a table message deserves, or None."""
    kind = message.get("type")
    if kind == "refused":
        return "refused" if message.get("source") == "panel" else None
    if kind == "state":
        if any(ev.get("kind") in ALARM_KINDS for ev in message.get("events") or []):
            return "long"
        if message.get("source") == "panel":
            return "short"
    return None


def camera_notice(notice: Mapping[str, Any], lost: bool, settling: bool) -> tuple[bool, bool]:
    """(camera_lost, settling) after a `notice` message (companion.notices); unchanged for other notices."""
    kind, status = notice.get("kind"), notice.get("status")
    if kind == NoticeKind.CAMERA and status in (CameraStatus.OK, CameraStatus.LOST):
        return status == CameraStatus.LOST, False
    if kind == NoticeKind.DICE and status is not None:
        return lost, status == DiceStatus.SETTLING
    return lost, settling
