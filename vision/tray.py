"""From settled tray readings to the commands the engine takes: ZomBee's `roll`, the Zoo's `fight` roll.

At the table the player takes the dice they keep out of the tray, leaves the
ones to roll again, then rolls them. So after a roll the camera sees, in turn:
the roll's result; then (often) fewer dice lying where they lay, the dice to
be picked up again; then, after motion, the new result. `RollTracker` tells
these apart by where the dice lie: dice that did not move were not rolled.

A reading the rules cannot take (a cocked die, the wrong number of dice) is
not guessed at: the tracker asks the table to check the dice instead.

A Zombie Zoo game rolls one ordinary die (`ZooDie`): while a fight waits for
its roll, the die settled is that roll; any other time it is a move (the
hero's, or how many zombies move), shown on the phones and never entered.
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
from .doubt import Asking, doubted
from .moved import LOOK_SMALLER
from .reading import Reading

IDLE_S = 0.2  # how often an idle camera looks whether a ZomBee game has begun
SAME_SPOT_PX = 12  # a die that moved less than this did not take part in a roll


@dataclass(frozen=True)
class TrayAction:
    """What one reading means: a command to send, dice selected for the next roll, or a check."""

    command: dict | None = None
    selected: tuple[str, ...] | None = None
    check: str | None = None
    words: dict | None = None  # the check before its values went in, for the page's languages
    rolled: int | None = None  # a Zoo die read outside a fight: a move, shown and not entered
    doubts: tuple[int, ...] = ()  # positions of dice between two faces: the command waits for the table's answer

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
        left_lying = not first and len(unmoved) == len(faces) < len(before)
        if left_lying and not unknown:
            # Dice left lying where they were: the ones to be picked up again, if the rules allow it.
            if allows(legal, {"cmd": "roll", "reroll": faces}):
                self.selection = tuple(faces)
                return TrayAction(selected=self.selection)
            return TrayAction.asking("{seen} cannot all be rolled again now; leave in the tray "
                                     "only dice the rules let you pick up", seen=seen)
        # Dice between two faces (honey or zzz?) are asked about, one tap each, when the roll is otherwise
        # one the rules take; any other unknown die, or dice left lying, and the table checks the dice.
        asked = None if left_lying else doubted(reading.dice)
        if unknown and asked is None:
            return TrayAction.asking("{unknown} of them could not be read (cocked, blurred "
                                     "or hidden?). Seen: {seen}", unknown=unknown, seen=seen)
        if first:
            if len(faces) != DICE:
                return TrayAction.asking("a first roll shows all {dice} dice, the tray shows "
                                         "{count} ({seen})", dice=DICE, count=len(faces), seen=seen)
            return TrayAction(command={"cmd": "roll", "faces": faces}, doubts=asked or ())
        reroll = self._reroll(rolls, len(faces))
        if isinstance(reroll, dict):
            return TrayAction.asking("{reason}; the tray shows {count} ({seen})", reason=reroll,
                                     count=len(faces), seen=seen)
        return TrayAction(command={"cmd": "roll", "reroll": reroll, "faces": faces}, doubts=asked or ())

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


UNKNOWN = "unknown"


def die_value(die: Any) -> int | str:
    """What a pip die shows: the pip reader gives each die a `value`, 1-6 or "unknown" (never a guess)."""
    value = getattr(die, "value", UNKNOWN)
    return value if type(value) is int and 1 <= value <= 6 else UNKNOWN


class ZooDie:
    """The Zoo's one die: a fight's roll when the engine lists one (`fight` with a `roll`), else a move.

    It knows no combat rule: whose roll it is and whether one is due come from `legal`.
    A die lying where it lay with the same value was not rolled again (a hand passed over).
    """

    def __init__(self, same_spot_px: float = SAME_SPOT_PX):
        self.same_spot_px = same_spot_px
        self._last: tuple | None = None  # (x, y, value) of the die last taken as a roll or a move

    def on_reading(self, state: dict | None, reading: Reading) -> TrayAction:
        dice = list(reading.dice)
        if not dice:
            self._last = None
            return TrayAction()
        if len(dice) > 1:
            return TrayAction.asking("the Zoo rolls one die and the tray shows {count}; leave one die in the tray",
                                     count=len(dice))
        die, value = dice[0], die_value(dice[0])
        last = self._last
        if last is not None and last[2] == value and abs(last[0] - die.x) <= self.same_spot_px and \
                abs(last[1] - die.y) <= self.same_spot_px:
            return TrayAction()  # the same die, untouched
        if value == UNKNOWN:
            return TrayAction.asking("the die could not be read (cocked, blurred or hidden?)")
        legal = (state or {}).get("legal")
        due = [m for m in of_kind(legal, "fight") if "roll" in m]
        fight = (state or {}).get("fight")
        if not due and fight:
            # A roll of 1-3 waits for bullets or a life: not taken, so that Roll reads it once the choice is made.
            return TrayAction.asking("{name} rolled {roll} and chooses first: spend bullets, or lose a life and "
                                     "roll again", name=fight["player"], roll=fight["roll"])
        self._last = (die.x, die.y, value)
        if due:
            return TrayAction(command={"cmd": "fight", "player": due[0]["player"], "roll": value})
        return TrayAction(rolled=value)


class TrayWatcher:
    """The camera's thread: frames -> settled readings -> commands on the table's queue.

    `open_camera()` returns a FrameSource; when it fails or the camera vanishes, the
    table is told (`camera` notice) and the watcher tries again every `retry_s`.
    """

    def __init__(self, table: Any, open_camera: Callable[[], Any], settler: Any, *,
                 tracker: RollTracker | None = None, retry_s: float = 2.0, pip_settler: Any = None,
                 asking: Asking | None = None):
        self.table = table
        self.asking = asking or Asking(table)  # a die between two faces: the one question every phone shows
        self.open_camera = open_camera
        self.settler = settler
        self.tracker = tracker or RollTracker()
        # A Zoo game's die is read by a pip reader (read(frame, timestamp, expected) -> Reading whose dice
        # carry `value`) behind its own Settler; without one the camera idles in a Zoo game.
        self.pip_settler = pip_settler
        self.zoo_die = ZooDie()
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
            game = (state or {}).get("game")
            zoo = game == "zoo" and self.pip_settler is not None
            if not (zoo or game == "zombee") or self.teaching:
                self._read_now.clear()
                self._stop.wait(IDLE_S)  # no game, or a Zoo game and no pip reader: the camera idles
                continue
            settler = self.pip_settler if zoo else self.settler
            expected = 1 if zoo else self._thrown(state)
            reading = settler.feed(stamp, frame, expected)
            self._report_settling(settler.state == "moving")
            if self._read_now.is_set() and reading is None and not settler.hand:
                reading = settler.reader.read(frame, stamp, expected)
            self._read_now.clear()
            if reading is not None:
                self.last_read = (frame, reading)  # a phone's correction of this roll teaches from its frame
                self.handle(reading, frame)

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

    def handle(self, reading: Reading, frame=None) -> TrayAction:
        """Turn one settled reading into a command, a selection, a question about a die or a request to
        check the dice. frame: the one read (its dice's crops go with a question)."""
        self.readings += 1
        if reading.moved and not any(r is self.settler.reader for r in self._moved_told):
            self._moved_told.append(self.settler.reader)
            self._camera_moved(reading.moved)
        state = self.table.state()
        zoo = (state or {}).get("game") == "zoo"
        action = (self.zoo_die if zoo else self.tracker).on_reading(state, reading)
        seen = [die_value(d) for d in reading.dice] if zoo else reading.faces
        if action.command is not None and action.doubts:
            self.asking.ask(frame, reading, action.command, action.doubts, state)
        elif action.command is not None:
            try:
                self.table.submit(action.command, "camera")
            except IllegalCommand as exc:
                # The engine's reason stays English on every page; the sentence around it is translated.
                self.table.notify(NoticeKind.DICE, status=DiceStatus.CHECK, seen=seen,
                                  **worded(N_("Check the dice: {reason}"), reason=str(exc)))
            except (CompanionError, TimeoutError):
                pass  # the table itself is in trouble; its own messages say so
        elif action.selected is not None:
            self.table.notify(NoticeKind.DICE, status=DiceStatus.SELECTED, seen=list(action.selected),
                              **worded(N_("Dice to roll again: {faces}."), faces=list(action.selected)))
        elif action.rolled is not None:
            self.table.notify(NoticeKind.DICE, status=DiceStatus.ROLLED, seen=seen,
                              **worded(N_("The die shows {value}: a move, or that many zombies move."),
                                       value=action.rolled))
        elif action.check is not None:
            self.table.notify(NoticeKind.DICE, status=DiceStatus.CHECK, seen=seen,
                              **worded(N_("Check the dice: {reason}"), reason=action.words))
        return action

