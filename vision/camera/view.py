"""The camera view: what the camera sees, with the tray's edge and every die drawn on it, and in words
what is wrong with the picture (too dark, glare, tray not found, dice too small, a hand).

Everything here runs in the thread that asks (a phone's request), from the newest frame the tray
watcher already read: the camera is never opened twice and its read loop never waits. A frame is
read and encoded at most once per `min_interval_s`, however many phones look; nothing is computed
while nobody looks.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import cv2
import numpy as np

from companion.errors import CameraError

from ..find.detect import SMALL, brightest
from ..moved import moved_words
from ..reading import Reading
from .latest import LatestFrame, Shot

DARK_LEVEL = 70  # the tray's brightness (0-255) below which dice cannot be told apart reliably
GLARE_SHARE = 0.005  # share of the frame burnt to white (a die-sized patch at 640x480) that means a lamp's reflection
SMALL_DIE_PX = 20  # dice narrower than this on the frame are read poorly
TRAY_SHARE = 0.2  # the light tray should cover at least this share of the picture
STALE_S = 5.0  # a camera whose newest frame is older than this is offline
COLOURS = {"bee": (0, 215, 255), "honey": (0, 140, 255), "zzz": (255, 200, 0), "zombee": (0, 200, 0)}


class NoCamera(CameraError):
    """No picture to show: the camera is offline, starting, or frozen."""


@dataclass
class Look:
    """One frame as the camera view shows it."""

    shot: Shot
    reading: Reading
    side: float
    edge: np.ndarray | None  # the tray's outline, frame pixels, or None when no tray was found
    problems: list[dict] = field(default_factory=list)  # [{"code", "text", "args"?}]: the page words it by code

    def to_dict(self) -> dict:
        h, w = self.shot.frame.shape[:2]
        return {"ok": not self.problems, "problems": self.problems, "size": [w, h], "die_px": round(self.side, 1),
                "dice": [d.to_dict() for d in self.reading.dice], "hand": self.reading.hand, "frame": self.shot.seq}


def tray_outline(frame: np.ndarray) -> tuple[np.ndarray | None, float]:
    """(outline of the light tray in frame pixels or None, tray brightness 0-255)."""
    small = cv2.resize(frame, SMALL, interpolation=cv2.INTER_AREA)
    v = cv2.blur(small.max(axis=2), (5, 5))
    h, w = v.shape
    level = float(np.percentile(v, 95))  # the tray is the light part of the picture, even when small
    mask = (v > 0.7 * level).astype(np.uint8) * 255
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None, level
    best = max(contours, key=cv2.contourArea)
    if cv2.contourArea(best) < TRAY_SHARE * h * w:
        return None, level
    hull = cv2.convexHull(best)
    outline = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True).reshape(-1, 2).astype(np.float32)
    fh, fw = frame.shape[:2]
    outline *= np.array([fw / w, fh / h], np.float32)
    # a tray filling the whole picture has the frame's border as its edge: draw it just inside
    outline = np.clip(outline, 2, np.array([fw - 3, fh - 3], np.float32))
    return outline.astype(np.int32), level


def small_dice(frame: np.ndarray, level: float) -> float | None:
    """The side in pixels of dark, die-shaped spots too small for the reader to take as dice, or None.
    (The detector leaves such dice out, so they are looked for here.)"""
    dark = (brightest(frame) < 0.45 * level).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(dark)
    sides = []
    for x, y, w, h, area in stats[1:]:
        # a turned die's box is up to 1.41 times its side; its dark face (less the symbol) about 0.6 of its square
        side = (area / 0.6) ** 0.5
        if 6 <= min(w, h) and max(w, h) < 1.45 * SMALL_DIE_PX and max(w, h) <= 1.6 * min(w, h) \
                and area >= 0.35 * w * h and side < SMALL_DIE_PX:
            sides.append(side)
    return float(np.median(sides)) if sides else None


def problems_of(frame: np.ndarray, reading: Reading, side: float, edge, level: float) -> list[dict]:
    """What is wrong with the picture, in words, most important first."""
    out = []
    if level < DARK_LEVEL:
        out.append({"code": "dark", "text": f"Too dark: put more light on the tray (it is at {level:.0f} of 255).",
                    "args": {"level": round(level)}})
    elif edge is None:
        out.append({"code": "tray", "text": "Tray not found: aim the camera so the light tray fills the middle "
                                            "of the picture."})
    white = brightest(frame) >= 250
    for d in reading.dice:  # a die's own white symbol is not glare
        x, y, w, h = d.box
        white[max(y, 0): y + h, max(x, 0): x + w] = False
    burnt = float(white.mean()) if level >= DARK_LEVEL else 0.0
    if burnt > GLARE_SHARE:
        out.append({"code": "glare", "text": f"Glare: {100 * burnt:.1f}% of the picture is burnt white; move the "
                                             "lamp to one side or tilt it away from the camera.",
                    "args": {"share": round(100 * burnt, 1)}})
    sized = bool(reading.dice) or reading.measured > 0  # dice were measured, read or not (moved, below)
    tiny = None if sized or level < DARK_LEVEL else small_dice(frame, level)
    if (sized and side < SMALL_DIE_PX) or tiny is not None:
        side = side if sized else tiny
        out.append({"code": "small", "text": f"Dice too small: {side:.0f} px across; move the camera closer "
                                             f"({SMALL_DIE_PX + 8} px or more reads best).",
                    "args": {"px": round(side), "best": SMALL_DIE_PX + 8}})
    moved = moved_words(reading.measured, bool(reading.moved))
    if moved:
        # Untold how many were thrown, dice that all look smaller are read at their size (reader.smaller_too)
        # or, when that finds none, left out as another set's: either way the camera was likely raised
        out.append({"code": "moved", "args": {"times": round(reading.measured, 2), "read": bool(reading.moved)},
                    "text": moved})
    if reading.hand:
        out.append({"code": "hand", "text": "A hand is over the tray."})
    return out


def annotate(frame: np.ndarray, reading: Reading) -> np.ndarray:
    """A copy of the frame with each die boxed and labelled with its face and confidence, for a person to
    check the reading (`companion vision read --annotate`, the camera page's overlay)."""
    out = frame.copy()
    for d in reading.dice:
        x, y, w, h = d.box
        c = COLOURS.get(d.face, (0, 0, 255))
        cv2.rectangle(out, (x, y), (x + w, y + h), c, 2)
        _label(out, f"{d.face} {d.confidence:.2f}", (x, max(y - 5, 12)), c)
    if reading.hand:
        _label(out, "hand", (8, 20), (0, 0, 255))
    return out


def _label(out: np.ndarray, text: str, at: tuple, colour: tuple) -> None:
    cv2.putText(out, text, at, cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 3, cv2.LINE_AA)  # an outline: legible
    cv2.putText(out, text, at, cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1, cv2.LINE_AA)  # on any tray


def draw(look: Look) -> np.ndarray:
    """The frame with the tray's edge, and each die's box, face and confidence."""
    out = annotate(look.shot.frame, look.reading)
    if look.edge is not None:
        cv2.polylines(out, [look.edge.reshape(-1, 1, 2)], True, (255, 255, 0), 2, cv2.LINE_AA)
    return out


class CameraView:
    """`jpeg(overlay)` and `status()` of the newest frame, computed lazily and shared between phones.

    reader: returns the DiceReader in use (it changes when a taught model is put in use).
    camera_ok: returns the watcher's camera_ok (True, False, or None while starting).
    space: returns the data card's room (companion.files.room); low room is one of the problems said.
    """

    def __init__(self, latest: LatestFrame, reader: Callable[[], Any], camera_ok: Callable[[], bool | None], *,
                 min_interval_s: float = 0.2, stale_s: float = STALE_S, quality: int = 75,
                 clock: Callable[[], float] = time.monotonic, space: Callable[[], dict] | None = None):
        self.latest, self.reader, self.camera_ok, self.space = latest, reader, camera_ok, space
        self.min_interval_s, self.stale_s, self.quality, self.clock = min_interval_s, stale_s, quality, clock
        self._lock = threading.Lock()
        self._look: Look | None = None
        self._looked_at = -1e9
        self._jpegs: dict[bool, tuple[int, bytes]] = {}

    def shot(self) -> Shot:
        """The newest frame, or NoCamera saying why there is none."""
        ok = self.camera_ok()
        shot = self.latest.get()
        if ok is False:
            raise NoCamera("camera offline: no picture (the companion keeps trying to reopen it)")
        if shot is None:
            raise NoCamera("camera offline: no picture yet" + (" (starting)" if ok is None else ""))
        age = self.clock() - shot.wall
        if age > self.stale_s:
            raise NoCamera(f"camera offline: no new picture for {age:.0f} s")
        return shot

    def look(self) -> Look:
        with self._lock:  # phones asking together share one reading of the frame
            shot = self.shot()
            now = self.clock()
            fresh = self._look is not None and (self._look.shot.seq == shot.seq or
                                                 now - self._looked_at < self.min_interval_s)
            if not fresh:
                reader = self.reader()
                reading, side = reader.inspect(shot.frame, shot.stamp)
                edge, level = tray_outline(shot.frame)
                self._look = Look(shot, reading, side, edge, problems_of(shot.frame, reading, side, edge, level))
                self._looked_at = now
            return self._look

    def jpeg(self, overlay: bool = False) -> bytes:
        look = self.look()
        with self._lock:
            cached = self._jpegs.get(overlay)
            if cached and cached[0] == look.shot.seq:
                return cached[1]
            image = draw(look) if overlay else look.shot.frame
            ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, self.quality])
            if not ok:
                raise NoCamera("the picture could not be encoded")
            self._jpegs[overlay] = (look.shot.seq, data.tobytes())
            return self._jpegs[overlay][1]

    def status(self) -> dict:
        try:
            out = self.look().to_dict()
        except NoCamera as exc:
            out = {"ok": False, "problems": [{"code": "offline", "text": str(exc)[0].upper() + str(exc)[1:] + "."}],
                   "dice": []}
        room = self.space() if self.space else {}
        if room.get("low"):  # seen while setting up, before teaching or a game night fills the card
            out = {**out, "ok": False, "problems": [*out["problems"], {"code": "space", "text": room["text"],
                                                                       "args": {"free": room["free"]}}]}
        return out
