"""From settled tray readings to the ZomBee `roll` commands the engine takes.

At the table the player takes the dice they keep out of the tray, leaves the
ones to roll again, then rolls them. So after a roll the camera sees, in turn:
the roll's result; then (often) fewer dice lying where they lay, the dice to
be picked up again; then, after motion, the new result. `RollTracker` tells
these apart by where the dice lie: dice that did not move were not rolled.

A reading the rules cannot take (a cocked die, the wrong number of dice) is
not guessed at: the tracker asks the table to check the dice instead.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Callable

from companion.errors import CompanionError, IllegalCommand
from companion.events import N_, phrase, render, worded
from companion.legal import allows, of_kind
from companion.notices import CameraStatus, DiceStatus, NoticeKind
from companion.zombee_dice import DICE

from .camera.latest import LatestFrame
from .reader import LOOK_SMALLER, Reading

IDLE_S = 0.2  # how often an idle camera looks whether a ZomBee game has begun
SAME_SPOT_PX = 12  # a die that moved less than this did not take part in a roll


@dataclass(frozen=True)
class TrayAction:
    """What one reading means: a command to send, dice selected for the next roll, or a check."""

    command: dict | None = None
    selected: tuple[str, ...] | None = None
    check: str | None = None
    words: dict | None = None  # the check before its values went in, for the page's languages

    @classmethod
    def asking(cls, template: str, **args: Any) -> "TrayAction":
        """A check for the players to make, in English (`check`) and as a phrase to translate."""
        words = phrase(template, **args)
        return cls(check=render(template, args), words=words)


class RollTracker:
    """Remembers the last reading and the dice chosen for the next roll of the current turn.

    It knows no dice rule: whether anyone is rolling, whether a roll is a turn's
    first, and which dice may be picked up again all come from the `legal` moves
    the engine published (companion.legal).
    """

    def __init__(self, same_spot_px: float = SAME_SPOT_PX):
        self.same_spot_px = same_spot_px
        self.selection: tuple[str, ...] | None = None
        self._turn: tuple | None = None
        self._last: list = []  # dice of the last reading taken into account

    def expect_reroll(self, state: dict, faces) -> None:
        """The dice to be rolled next were chosen some other way (the demo's virtual player)."""
        self._sync_turn(state)
        self.selection = tuple(faces)

    def dice_expected(self, state: dict | None) -> int | None:
        """How many dice the next roll throws, when the engine's answers (and the selection) say; else None."""
        rolls = of_kind((state or {}).get("legal"), "roll")
        if not rolls:
            return None
        if "reroll" not in rolls[0]:
            return DICE  # a turn's first roll throws every die
        self._sync_turn(state)
        if self.selection is not None:
            return len(self.selection)
        sizes = {len(r["reroll"]) for r in rolls}
        return sizes.pop() if len(sizes) == 1 else None

    def _sync_turn(self, state: dict) -> None:
        # A selection belongs to one roll of one turn: a new roll or turn forgets it.
        turn = (state.get("game_id"), state.get("seq") if state.get("rolls") == 0 else None,
                state.get("active"), state.get("rolls"))
        if turn != self._turn:
            self._turn, self.selection = turn, None

    def _unmoved(self, reading: Reading) -> list:
        """Dice of this reading lying where a die with the same face lay in the last one."""
        left = list(self._last)
        still = []
        for die in reading.dice:
            for old in left:
                if old.face == die.face and abs(old.x - die.x) <= self.same_spot_px and abs(old.y - die.y) <= self.same_spot_px:
                    left.remove(old)
                    still.append(die)
                    break
        return still

    def on_reading(self, state: dict | None, reading: Reading) -> TrayAction:
        legal = (state or {}).get("legal")
        rolls = of_kind(legal, "roll")
        if not rolls:
            self._last = list(reading.dice)
            return TrayAction()  # nobody may roll now: dice on the tray are not a roll
        self._sync_turn(state)
        unmoved, before = self._unmoved(reading), self._last
        self._last = list(reading.dice)
        faces = reading.faces
        unknown = faces.count("unknown")
        seen = list(faces) or [N_("no dice")]
        first = "reroll" not in rolls[0]
        if before and len(unmoved) == len(faces) == len(before):
            return TrayAction()  # the same dice, untouched: a hand passed over the tray
        if not first and not faces:
            return TrayAction()  # every die taken out of the tray: nothing was rolled
        if not first and len(unmoved) == len(faces) < len(before) and not unknown:
            # Dice left lying where they were: the ones to be picked up again, if the rules allow it.
            if allows(legal, {"cmd": "roll", "reroll": faces}):
                self.selection = tuple(faces)
                return TrayAction(selected=self.selection)
            return TrayAction.asking("{seen} cannot all be rolled again now; leave in the tray "
                                     "only dice the rules let you pick up", seen=seen)
        if unknown:
            return TrayAction.asking("{unknown} of them could not be read (cocked, blurred "
                                     "or hidden?). Seen: {seen}", unknown=unknown, seen=seen)
        if first:
            if len(faces) != DICE:
                return TrayAction.asking("a first roll shows all {dice} dice, the tray shows "
                                         "{count} ({seen})", dice=DICE, count=len(faces), seen=seen)
            return TrayAction(command={"cmd": "roll", "faces": faces})
        reroll = self._reroll(rolls, len(faces))
        if isinstance(reroll, dict):
            return TrayAction.asking("{reason}; the tray shows {count} ({seen})", reason=reroll,
                                     count=len(faces), seen=seen)
        return TrayAction(command={"cmd": "roll", "reroll": reroll, "faces": faces})

    def _reroll(self, rolls: list, thrown: int) -> list[str] | dict:
        """The dice picked up for a roll of `thrown` dice, or why that cannot be told (a phrase)."""
        if self.selection:
            if len(self.selection) != thrown:
                return phrase("{count} were to be rolled again ({faces})", count=len(self.selection),
                              faces=list(self.selection))
            return list(self.selection)
        # Nobody saw which dice were picked up: fine when the rules leave one choice of that size.
        fits = [r["reroll"] for r in rolls if "reroll" in r and len(r["reroll"]) == thrown]
        if len(fits) == 1:
            return list(fits[0])
        most = max(len(r["reroll"]) for r in rolls if "reroll" in r)
        if not fits:
            return phrase("at most {most} dice may be rolled again", most=most)
        return phrase("the camera did not see which dice were picked up (leave them in the tray before rolling)")


class TrayWatcher:
    """The camera's thread: frames -> settled readings -> commands on the table's queue.

    `open_camera()` returns a FrameSource; when it fails or the camera vanishes, the
    table is told (`camera` notice) and the watcher tries again every `retry_s`.
    """

    def __init__(self, table: Any, open_camera: Callable[[], Any], settler: Any, *,
                 tracker: RollTracker | None = None, retry_s: float = 2.0):
        self.table = table
        self.open_camera = open_camera
        self.settler = settler
        self.tracker = tracker or RollTracker()
        self.retry_s = retry_s
        self.camera_ok: bool | None = None
        self.readings = 0
        self.latest = LatestFrame()  # the newest frame, for the camera view and calibration captures
        self.last_read: tuple[Any, Reading] | None = None  # (frame, reading) of the last settled reading
        self.teaching = False  # while the dice are being taught, dice in the tray are not rolls
        self._settling = False
        self._moved_told: list = []  # readers whose dice were said to look another size: said once each
        self._read_now = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> "TrayWatcher":
        self._thread = threading.Thread(target=self._run, name="tray", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def read_now(self) -> None:
        """The panel's Roll button: read the tray at the next frame even if it never looked still."""
        self._read_now.set()

    def _camera(self, ok: bool, error: str = "") -> None:
        if ok != self.camera_ok:
            template = (N_("Camera ready: dice are read as they settle.") if self.camera_ok is None
                        else N_("Camera is back: dice are read again.")) if ok else \
                N_("Camera offline ({error}): enter rolls on the page or the panel until it returns.")
            self.camera_ok = ok
            self.table.notify(NoticeKind.CAMERA, status=CameraStatus.OK if ok else CameraStatus.LOST,
                              **worded(template, **({} if ok else {"error": error})))

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                source = self.open_camera()
            except CompanionError as exc:
                self._camera(False, str(exc))
                self._stop.wait(self.retry_s)
                continue
            self._camera(True)
            try:
                self._watch(source)
            except CompanionError as exc:  # CameraError, or a frame the reader cannot take
                self._camera(False, str(exc))
                self._stop.wait(self.retry_s)
            except Exception as exc:  # a bug must not leave the table without its camera for good
                self._camera(False, f"dice reader failed: {exc!r}")
                self._stop.wait(self.retry_s)
            finally:
                source.close()

    def _watch(self, source: Any) -> None:
        self.settler.reset()
        while not self._stop.is_set():
            stamp, frame = source.read()
            self.latest.put(stamp, frame)
            state = self.table.state()
            if state is None or state.get("game") != "zombee" or self.teaching:
                self._read_now.clear()
                self._stop.wait(IDLE_S)  # the Zoo's dice are not asked for: the camera idles
                continue
            expected = self._thrown(state)
            reading = self.settler.feed(stamp, frame, expected)
            self._report_settling(self.settler.state == "moving")
            if self._read_now.is_set() and reading is None and not self.settler.hand:
                reading = self.settler.reader.read(frame, stamp, expected)
            self._read_now.clear()
            if reading is not None:
                self.last_read = (frame, reading)  # a phone's correction of this roll teaches from its frame
                self.handle(reading)

    def _camera_moved(self, size: float) -> None:
        # The reader read the dice at the size they measured (DiceReader.moved_camera): it copes, but
        # the empty tray it compares with is the old framing, and untold it would not.
        template = (LOOK_SMALLER if size < 1 else
                    N_("The dice look larger than when they were taught: if the camera was lowered, teach the "
                       "dice again for the surest reading."))
        self.table.notify(NoticeKind.CAMERA, status=CameraStatus.OK, **worded(template))

    def _thrown(self, state: dict):
        """How many dice the next settled tray should hold, as a hint for cutting touching dice apart:
        the engine's legal rolls say it (all dice first, then the sizes of the listed rerolls; the
        selection seen picks one). None when no roll is due."""
        rolls = of_kind(state.get("legal"), "roll")
        if not rolls:
            return None
        n = self.tracker.dice_expected(state)
        if n is not None:
            return n
        return sorted({len(r["reroll"]) for r in rolls if "reroll" in r}) or None

    def _report_settling(self, moving: bool) -> None:
        # The panel's status LED blinks while dice are still rolling; only changes are sent.
        if moving != self._settling:
            self._settling = moving
            self.table.notify(NoticeKind.DICE, status=DiceStatus.SETTLING if moving else DiceStatus.STILL)

    def handle(self, reading: Reading) -> TrayAction:
        """Turn one settled reading into a command, a selection, or a request to check the dice."""
        self.readings += 1
        if reading.moved and not any(r is self.settler.reader for r in self._moved_told):
            self._moved_told.append(self.settler.reader)
            self._camera_moved(reading.moved)
        action = self.tracker.on_reading(self.table.state(), reading)
        if action.command is not None:
            try:
                self.table.submit(action.command, "camera")
            except IllegalCommand as exc:
                # The engine's reason stays English on every page; the sentence around it is translated.
                self.table.notify(NoticeKind.DICE, status=DiceStatus.CHECK, seen=reading.faces,
                                  **worded(N_("Check the dice: {reason}"), reason=str(exc)))
            except (CompanionError, TimeoutError):
                pass  # the table itself is in trouble; its own messages say so
        elif action.selected is not None:
            self.table.notify(NoticeKind.DICE, status=DiceStatus.SELECTED, seen=list(action.selected),
                              **worded(N_("Dice to roll again: {faces}."), faces=list(action.selected)))
        elif action.check is not None:
            self.table.notify(NoticeKind.DICE, status=DiceStatus.CHECK, seen=reading.faces,
                              **worded(N_("Check the dice: {reason}"), reason=action.words))
        return action

