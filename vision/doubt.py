"""When unsure, ask once, precisely: a die between two faces becomes one question on every phone
("Die 3: honey or zzz?", with the die's crop), and one tap on the answer enters the roll.

A die read `unknown`, or read as a face only just (below UNSURE), whose two likeliest faces carry most
of its probability, the second close to the first (honey 0.48, zzz 0.41; zzz 0.55, honey 0.40), is
between those two: a player tells them apart at a glance. A die unknown
for another reason (cocked, half hidden, a face never taught: no second face close) is not asked about;
the table checks the dice as before (vision/tray.py). The answer is a phone's roll like any other, so
it is also a correction that teaches (table_companion/corrections.py keeps the die with the face tapped).

`Asking` holds the one open question for the tray watcher (which opens it) and the phone page (which
shows it, serves each die's crop and takes the answers: web/camera.py). A question belongs to the state
it was asked at: once the game moves on any other way, it is gone.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from companion.commands import DICE_FACES, quote
from companion.errors import CompanionError, IllegalCommand
from companion.events import N_, worded
from companion.notices import DiceStatus, NoticeKind

CLOSE = 0.5  # the runner-up has at least this share of the likeliest face's probability...
MOSTLY = 0.6  # ...and the two together at least this much: the die is one of them, not something else
# A face read less surely than this, with the runner-up close, is asked too: on real small dice the misses
# were a honey read as zzz at little more than the threshold, which a guess would have entered silently
UNSURE = 0.7
MOST_ASKED = 2  # more dice in doubt than this: a question for each is no quicker than checking the dice
CROP_MARGIN = 0.45  # of a die's box shown around it: enough of the tray to see it is that die
CROP_SIDE = 192  # a crop is enlarged to at least this many pixels across (a 40 px die is a speck on a phone)


class DoubtError(CompanionError, ValueError):
    """An answer that names no die of the question, or a face the game does not have (400)."""


class AnswerConflict(CompanionError):
    """An answer that came too late or contradicts one given already (409): nothing changed. die and
    answered: the die and the face it was answered as first, when that is the conflict (for the page)."""

    def __init__(self, message: str, die: int | None = None, answered: str | None = None):
        super().__init__(message)
        self.die, self.answered = die, answered


def between(die: Any) -> tuple[str, str] | None:
    """The two faces a die lies between (likelier first): read `unknown`, or read as a face less surely
    than UNSURE, with the runner-up close. None when it is not close to any two (a die simply unknown)
    or was read as a face surely enough."""
    if len(getattr(die, "likeliest", ())) < 2 or (die.face != "unknown" and die.confidence >= UNSURE):
        return None
    (first, p), (second, q) = die.likeliest[:2]
    if q < CLOSE * p or p + q < MOSTLY:
        return None
    return first, second


def doubted(dice: list) -> tuple[int, ...] | None:
    """The positions of the dice to ask about: those read `unknown`, when every one of them lies between
    two faces, and those read as a face only just with a close runner-up; at most MOST_ASKED in all.
    Else None (nothing to ask, or the table must check the dice)."""
    unknown = [i for i, d in enumerate(dice) if d.face == "unknown"]
    if any(between(dice[i]) is None for i in unknown):
        return None  # a die simply unknown: the table checks the dice
    asked = [i for i, d in enumerate(dice) if between(d) is not None]
    if not asked or len(asked) > MOST_ASKED:
        return None
    return tuple(asked)


@dataclass(frozen=True)
class Question:
    die: int  # the die's number in the roll, from 1
    faces: tuple[str, str]  # the two it lies between, likelier first
    answer: str | None = None

    def to_dict(self) -> dict:
        return {"die": self.die, "faces": list(self.faces), "answer": self.answer}


@dataclass
class _Open:
    ident: int
    frame: np.ndarray | None
    dice: list
    command: dict  # the roll, "unknown" where a die is asked about
    questions: list[Question]
    seen: tuple  # (game_id, seq) the question was asked at
    entered: bool = False
    faces: list[str] = field(default_factory=list)  # the roll's faces as read


class Asking:
    """The question open now (at most one), for the tray watcher and every phone."""

    def __init__(self, table: Any, submit_timeout: float = 5.0):
        self.table = table
        self.submit_timeout = submit_timeout
        self._lock = threading.Lock()
        self._open: _Open | None = None
        self._count = 0

    def ask(self, frame: np.ndarray | None, reading: Any, command: dict, positions, state: dict | None) -> dict:
        """Open the question about the dice at positions of reading (the roll command has "unknown" there)
        and tell every phone (a dice notice `asked`, with the question and the faces read)."""
        state = state or {}
        dice = list(reading.dice)
        with self._lock:
            self._count += 1
            self._open = _Open(self._count, frame, dice, dict(command),
                               [Question(i + 1, between(dice[i])) for i in positions],
                               (state.get("game_id"), state.get("seq")), faces=list(reading.faces))
            asked = self._describe(self._open)
        self._tell(asked)
        return asked

    def _tell(self, asked: dict) -> None:
        open_ = [q for q in asked["questions"] if q["answer"] is None]
        if not open_:
            return
        q = open_[0]
        template = N_("The camera is unsure of die {die}: {faces}?") if len(open_) == 1 else \
            N_("The camera is unsure of dice {dice}: which faces?")
        self.table.notify(NoticeKind.DICE, status=DiceStatus.ASKED, seen=asked["seen"], question=asked,
                          **worded(template, die=q["die"], faces=q["faces"], dice=[o["die"] for o in open_]))

    @staticmethod
    def _describe(o: _Open) -> dict:
        return {"id": o.ident, "game_id": o.seen[0], "seq": o.seen[1], "dice": len(o.dice), "seen": o.faces,
                "questions": [q.to_dict() for q in o.questions], "entered": o.entered}

    def current(self) -> dict | None:
        """The open question (with the answers given so far), or None: none was asked, or the game moved
        on since without it (a roll entered by hand, an undo)."""
        with self._lock:
            o = self._open
            if o is None or o.entered or self._where() != o.seen:
                return None
            return self._describe(o)

    def _where(self) -> tuple:
        state = self.table.state() or {}
        return state.get("game_id"), state.get("seq")

    def crop(self, die: int) -> bytes:
        """The JPEG of die (its number in the open question's roll) cut from the settled frame with some
        of the tray around it; LookupError when there is no such die or no frame."""
        with self._lock:
            o = self._open
            if o is None or o.frame is None or not 1 <= die <= len(o.dice):
                raise LookupError(f"no die {die} in a question open now")
            frame, box = o.frame, o.dice[die - 1].box
        return crop_jpeg(frame, box)

    def answer(self, die: Any, face: Any, ident: Any = None) -> dict:
        """Take one tap: die (the number asked about) shows face. When every die asked about is answered,
        the roll goes to the engine as the phone's (source "web"); answers {"question": ..., "state": the new
        state or None while another die waits}. DoubtError for a die or face that cannot be; AnswerConflict
        when the question is gone or this die was answered otherwise (the first answer stands)."""
        with self._lock:
            o = self._open
            if o is None or (ident is not None and ident != o.ident):
                raise AnswerConflict("that question is no longer open (a newer roll was read since): nothing changed")
            numbers = [q.die for q in o.questions]
            if type(die) is not int or die not in numbers:
                raise DoubtError(f"die {quote(die)} was not asked about; the question is about die "
                                 f"{' and '.join(map(str, numbers))}")
            if face not in DICE_FACES:
                raise DoubtError(f"{quote(face)} is not a face of this game's dice; faces are {', '.join(DICE_FACES)}")
            k = numbers.index(die)
            given = o.questions[k].answer
            if given is not None and given != face:
                raise AnswerConflict(f"die {die} was already answered as {given}"
                                     + (" and the roll entered" if o.entered else "")
                                     + "; to change it, undo the roll and enter it again (nothing changed)",
                                     die, given)
            if given is not None or o.entered:
                return {"question": self._describe(o), "state": None}
            if self._where() != o.seen:
                raise AnswerConflict("the game moved on since the camera asked (the roll was entered another way): "
                                     "nothing changed")
            o.questions[k] = replace(o.questions[k], answer=face)
            if any(q.answer is None for q in o.questions):
                asked = self._describe(o)
                state = None
            else:
                faces = list(o.command["faces"])
                for q in o.questions:
                    faces[q.die - 1] = q.answer
                try:
                    state = self.table.submit({**o.command, "faces": faces}, "web", timeout=self.submit_timeout,
                                              seen=o.seen)
                except IllegalCommand as exc:  # MovedOn too: the game moved on meanwhile
                    o.questions[k] = replace(o.questions[k], answer=None)
                    raise AnswerConflict(f"the roll was refused: {exc}") from None
                o.entered = True
                asked = self._describe(o)
        if state is None:
            self._tell(asked)
        return {"question": asked, "state": state}


def crop_jpeg(frame: np.ndarray, box) -> bytes:
    """A die's box with CROP_MARGIN of it around, enlarged to CROP_SIDE pixels across at least, as JPEG."""
    h, w = frame.shape[:2]
    x, y, bw, bh = (int(v) for v in box)
    m = int(round(max(bw, bh) * CROP_MARGIN))
    x0, y0, x1, y1 = max(x - m, 0), max(y - m, 0), min(x + bw + m, w), min(y + bh + m, h)
    if x1 <= x0 or y1 <= y0:
        raise LookupError("the die lies outside the frame")
    crop = frame[y0:y1, x0:x1]
    k = CROP_SIDE / max(crop.shape[:2])
    if k > 1:
        crop = cv2.resize(crop, None, fx=k, fy=k, interpolation=cv2.INTER_CUBIC)
    ok, data = cv2.imencode(".jpg", crop, [cv2.IMWRITE_JPEG_QUALITY, 90])
    if not ok:
        raise LookupError("the crop could not be encoded")
    return data.tobytes()
