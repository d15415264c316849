"""SyntheticCamera: a rendered tray that rolls on demand, for the demo mode and for tests.

Frames come out of read() with timestamps that start at clock() and advance by
one frame interval per read, so tests step it deterministically without
sleeping. `realtime=True` paces read() to the wall clock for a live demo.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque

import numpy as np

from companion.commands import DICE_FACES
from companion.errors import CameraError

from ..camera.frames import FrameSource
from .layout import HEIGHT, WIDTH, place_dice
from .art import PIP_ART, PIP_FACES, UNTAUGHT
from .render import compose, random_rig, with_art


class SyntheticCamera(FrameSource):
    def __init__(self, seed: int | None = None, clock=time.monotonic, *, fps: float = 30.0, rig=None,
                 realtime: bool = False, hand_seconds: float = 0.4, bounce_seconds: float = 0.6,
                 noise: float = 1.5):
        self.rng = np.random.default_rng(seed)
        self.rig = rig or random_rig(self.rng)
        self.clock, self.realtime = clock, realtime
        self.interval = 1.0 / fps
        self.t = clock()
        self.hand_frames = max(1, round(hand_seconds * fps))
        self.bounce_frames = max(2, round(bounce_seconds * fps))
        self.noise = noise
        self.look = int(self.rng.integers(1 << 31))  # one seed for light and glare: a steady lamp
        self.size = self.rig.die_size
        self.placed: list = []  # the dice lying still: (face, x, y, angle)
        self._plan: deque = deque()  # frames still to show before the tray is at rest
        self._still = None
        self._closed = False
        self._lock = threading.RLock()
        self.settled_at: float | None = None  # timestamp of the first still frame after a roll
        self._symbols = None  # the rig with the game's own dice while a pip die is shown (roll_pip)

    @property
    def faces(self) -> tuple[str, ...]:
        """The faces of the dice lying still (after the current roll has landed)."""
        return tuple(p[0] for p in self.placed)

    @property
    def busy(self) -> bool:
        """True while a roll is still being shown (hand, bouncing dice)."""
        return bool(self._plan)

    def _frame(self, placed, hand=False, motion=0.0, look=None) -> np.ndarray:
        rng = np.random.default_rng(self.look if look is None else look)
        return compose(rng, self.rig, placed, self.size, hand=hand, motion=motion).image

    def _place(self, faces) -> list:
        margin = self.rig.rim_width + self.size * 1.2
        spots = place_dice(self.rng, len(faces), self.size, margin, self.rig.conditions.touching)
        if len(spots) < len(faces):
            raise ValueError(f"{len(faces)} dice do not fit on the tray")
        return [(f, x, y, a) for f, (x, y, a) in zip(faces, spots)]

    def set_tray(self, faces, apart: float = 0.0) -> None:
        """Show exactly these dice lying still from the next frame on; apart: no two centres nearer than
        this many sides, as far as 50 tries of placing them find (the last try otherwise). The tries are
        made before the frame changes: a frame of a try that was put back is never shown."""
        faces = [str(f) for f in faces]
        known = DICE_FACES + (UNTAUGHT if self.rig.art.pips is not None else ())  # a pip die's 5 and 6 too
        bad = [f for f in faces if f not in known]
        if bad:
            raise ValueError(f"{bad[0]!r} is not a die face; faces are {', '.join(known)}")
        with self._lock:
            self._plan.clear()
            for _ in range(50 if apart else 1):
                placed = self._place(faces)
                spots = [(x, y) for _, x, y, _ in placed]
                if all(math.dist(a, b) > apart * self.size for i, a in enumerate(spots) for b in spots[:i]):
                    break
            self.placed = placed
            self._still = None
            self.settled_at = None

    def clear(self) -> None:
        self.set_tray([])

    def roll(self, faces=None, count: int = 5) -> tuple[str, ...]:
        """Queue a roll: a hand over the tray, dice bouncing, then dice at rest. Returns the faces it lands on."""
        with self._lock:  # the demo rolls from the panel's thread while the reader's thread reads
            if self._symbols is not None:  # back from a pip die to the game's own dice
                self.rig, self._symbols = self._symbols, None
                self.placed = []  # the pip die was picked up: the symbol art cannot draw its 5 or 6
            return self._roll(faces, count)

    def roll_pip(self, value: int | None = None) -> int:
        """Queue a roll of one ordinary pip die (a Zombie Zoo game's), drawn as the pip art draws it; returns
        its value, 1-6 (random unless given)."""
        with self._lock:
            if self.rig.art.pips is None:
                self._symbols, self.rig = self.rig, with_art(self.rig, PIP_ART[0])
            value = int(self.rng.integers(1, 7)) if value is None else value
            face = next(f for f, n in PIP_FACES.items() if n == value)  # KeyError-free: 1-6 all drawn
            self._roll([face], 1)
            return value

    def _roll(self, faces, count: int) -> tuple[str, ...]:
        if faces is None:
            faces = [str(f) for f in self.rng.choice(DICE_FACES, count)]
        old = list(self.placed)
        self.set_tray(faces)
        final = self.placed
        for i in range(self.hand_frames):
            self._plan.append((old, True, 0.0, self.look + 1 + i))
        # the dice fly in from their start spots and slow down as they land
        starts = [(f, x + self.rng.uniform(-80, 80), y + self.rng.uniform(-60, 60), a + self.rng.uniform(-2, 2))
                  for f, x, y, a in final]
        n = self.bounce_frames
        for i in range(n):
            k = (i + 1) / n
            ease = 1 - (1 - k) ** 2
            placed = [(f, sx + (x - sx) * ease, sy + (y - sy) * ease, sa + (a - sa) * ease)
                      for (f, sx, sy, sa), (_, x, y, a) in zip(starts, final)]
            placed = [(f, min(max(x, 0), WIDTH), min(max(y, 0), HEIGHT), a) for f, x, y, a in placed]
            speed = 2 * (1 - k) * math.hypot(80, 60) / n
            self._plan.append((placed, False, max(speed, 0.0), self.look + 100 + i))
        return tuple(faces)

    def read(self) -> tuple[float, np.ndarray]:
        if self._closed:
            raise CameraError("the synthetic camera is closed")
        t = self.t
        self.t += self.interval
        if self.realtime:
            delay = t - self.clock()
            if delay > 0:
                time.sleep(delay)  # demo pacing only; tests use realtime=False
        # Held while rendering: a roll() from another thread must not land between choosing
        # what to draw and caching it, or the new tray would be replaced by the old one.
        with self._lock:
            if self._plan:
                frame = self._frame(*self._plan.popleft())
            else:
                if self._still is None:
                    self._still = self._frame(self.placed)
                    self.settled_at = t
                frame = self._still
            if self.noise:
                # a live sensor never gives the same frame twice
                frame = np.clip(frame + self.rng.normal(0, self.noise, frame.shape).astype(np.float32), 0, 255)
                frame = frame.astype(np.uint8)
        return t, frame

    def close(self) -> None:
        self._closed = True
