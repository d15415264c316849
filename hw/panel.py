"""The button panel: gpiozero Buttons and LEDs wired to the table.

    panel = Panel(table, pin_map=load_pin_map(config_path), pin_factory=pin_factory_for(mock=None))
    panel.start()        # subscribe, light the LEDs, take presses
    ...
    panel.close()        # or: with Panel(...) as panel: ...

Button callbacks never touch the game: a debounced press is mapped (hw.mapping)
against the last state the engine published and posted with `table.post(cmd,
"panel")`; the engine thread applies or refuses it. A small listener thread
drains the panel's subscription and drives the LEDs and the buzzer from what
was published (hw.feedback). The only state the panel owns is its highlight
(Select/Lock) and its feedback timers.

On a Pi gpiozero's default pin factory (lgpio) is used; anywhere else pass
`MockFactory(pin_class=MockPWMPin)`, and `press(name, hold)` drives the mock pins
as a finger would (demo mode, tests).
"""

from __future__ import annotations

import collections
import functools
import glob
import os
import threading
import time
from typing import Any, Callable, Mapping

from gpiozero import LED, Button, Buzzer
from gpiozero.exc import GPIOZeroError
from gpiozero.pins.mock import MockFactory, MockPin, MockPWMPin

from companion.errors import CompanionError, ConfigError
from companion.notices import NoticeKind

from .debounce import DEFAULT_SETTLE, Debouncer
from .feedback import (BLINK, BLINK_TIMES, FAST, OFF, ON, REFUSED_FOR, SEAT_BLINK, SOUNDS, Look, camera_notice, look,
                       sound_for)
from .mapping import NOTHING, Decision, Highlight, decide, reconcile
from .pins import SEATS, PinMap, coerce

SOURCE = "panel"
HOLD_TIME = 1.0  # Undo acts after a one-second hold
LISTEN_TICK = 0.1  # the listener re-checks timers (the end of a refusal blink) this often


def pin_factory_for(mock: bool | None = None):
    """The pin factory `companion run` should pass: None (gpiozero's default, lgpio on a
    Pi) when GPIO chips are present, else gpiozero's MockFactory. `mock=True/False` forces it."""
    if mock is None:
        mock = os.environ.get("GPIOZERO_PIN_FACTORY", "").lower() == "mock" or not glob.glob("/dev/gpiochip*")
    return MockFactory(pin_class=MockPWMPin) if mock else None


class PinsUnavailable(CompanionError, OSError):
    """A pin the panel needs is held by another program (lgpio's "GPIO busy"): nothing in the settings
    is wrong, so `companion run` goes on without the panel and says so (table_companion.health)."""


class Panel:
    def __init__(self, table: Any, pin_map: PinMap | Mapping | str | None = None, pin_factory: Any = None,
                 clock: Callable[[], float] = time.monotonic, *, on_roll: Callable[[], Any] | None = None,
                 hold_time: float = HOLD_TIME, settle: float = DEFAULT_SETTLE, refused_for: float = REFUSED_FOR):
        # The pin map is checked first: a bad map fails before any pin or game state is touched.
        self.pins = coerce(pin_map)
        self.table = table
        self.clock = clock
        self.hold_time = hold_time
        self.refused_for = refused_for
        self._on_roll = on_roll if on_roll is not None else self._ask_for_roll
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._sub = None
        self._state: dict | None = None
        self._highlight: Highlight = NOTHING
        self._refused_until = float("-inf")
        self._camera_lost = self._settling = False
        self._applied: dict[str, str] = {}
        self._look: Look | None = None
        self.last_refusal: str | None = None
        self.last_decision: tuple[str, Decision] | None = None
        self.sounds: collections.deque[str] = collections.deque(maxlen=64)
        self.messages = 0  # table messages handled so far
        self.last_notice: dict | None = None
        self._told: tuple | None = None  # what the last "panel" notice said, so a change is told once
        self._sound_to_tell: str | None = None
        self._debouncers = {name: Debouncer(settle, hold_time if name == "Undo" else None, clock)
                            for name in self.pins.buttons}
        # one software press per button at a time: two taps driving one mock pin together make one edge
        self._pressing = {name: threading.Lock() for name in self.pins.buttons}
        self._buttons: dict[str, Button] = {}
        self._leds: dict[str, Any] = {}
        try:
            for name, pin in self.pins.buttons.items():
                self._buttons[name] = self._open(name, pin, Button, pin_factory, pull_up=True, bounce_time=None,
                                                 hold_time=hold_time if name == "Undo" else HOLD_TIME)
            for name, pin in self.pins.leds.items():
                self._leds[name] = self._open(name, pin, Buzzer if name == "buzzer" else LED, pin_factory)
        except BaseException:
            self._close_devices()
            raise

    @classmethod
    def from_config(cls, table: Any, config_path: str | None = None, *, mock: bool | None = None,
                    **kw: Any) -> "Panel":
        """What `companion run` needs: the pin map from the TOML config file (None: the
        default map) on the Pi's pins, or on mock pins off a Pi / in demo mode (`mock=True`)."""
        pins = coerce(config_path)  # checked before a pin factory is even chosen
        return cls(table, pins, pin_factory_for(mock), **kw)

    @staticmethod
    def _open(name: str, pin: int, kind: type, pin_factory: Any, **kw: Any) -> Any:
        try:
            return kind(pin, pin_factory=pin_factory, **kw)
        except GPIOZeroError as exc:
            hint = ("; off a Raspberry Pi use the mock pin factory (demo mode, or GPIOZERO_PIN_FACTORY=mock)"
                    if "factory" in type(exc).__name__.lower() else "")
            raise ConfigError(f'cannot open "{name}" on GPIO{pin}: {exc}{hint}') from exc
        except Exception as exc:  # the pin library's own error (lgpio.error "GPIO busy", OSError): not ours
            raise PinsUnavailable(f'"{name}" on GPIO{pin}: {exc}') from exc

    # --- lifecycle -------------------------------------------------------------------------

    def start(self) -> "Panel":
        """Subscribe to the table, show its state and start taking presses."""
        if self._thread is not None:
            return self
        self._stopping.clear()
        self._sub = self.table.subscribe()
        first = self._sub.get(timeout=0)  # a subscription's first message is the current state
        with self._lock:
            self._state = first["state"]
            self._highlight = reconcile(NOTHING, self._state)
        for name, button in self._buttons.items():
            button.when_pressed = functools.partial(self._press_edge, name)
            button.when_released = functools.partial(self._release_edge, name)
            if name == "Undo":
                button.when_held = functools.partial(self._held, name)
        self.refresh()
        self._thread = threading.Thread(target=self._listen, name="panel", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop listening and release every pin (safe to call twice)."""
        self._stopping.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(2.0)
        self._thread = None
        if self._sub is not None:
            self._sub.close()
            self._sub = None
        self._close_devices()

    def _close_devices(self) -> None:
        # Each gpiozero Button stops a hold thread that polls every 0.1 s: close them side by side.
        def close(device: Any) -> None:
            try:
                device.close()
            except Exception:  # closing must release the rest even if one fails
                pass

        closers = [threading.Thread(target=close, args=(d,), name="panel-close")
                   for d in [*self._buttons.values(), *self._leds.values()]]
        for t in closers:
            t.start()
        for t in closers:
            t.join()
        self._buttons.clear()
        self._leds.clear()
        self._applied.clear()

    def __enter__(self) -> "Panel":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # --- reading the panel ------------------------------------------------------------------

    @property
    def buttons(self) -> tuple[str, ...]:
        """Names of the buttons this panel has (in the canonical order)."""
        return tuple(self.pins.buttons)

    @property
    def state(self) -> dict | None:
        return self._state

    @property
    def highlight(self) -> Highlight:
        return self._highlight

    @property
    def look(self) -> Look | None:
        return self._look

    def led_modes(self) -> dict[str, str]:
        """What each fitted LED is doing now: off, on, blink or fast."""
        with self._lock:
            return dict(self._applied)

    def wait_until(self, predicate: Callable[["Panel"], bool], timeout: float = 2.0) -> bool:
        """Wait (on a condition, not a sleep) until `predicate(panel)` holds after a table
        message or a press was handled; False on timeout."""
        with self._changed:
            return self._changed.wait_for(lambda: predicate(self), timeout)

    # --- pressing (demo mode, tests) --------------------------------------------------------------

    def press(self, name: str, hold: float = 0.0) -> None:
        """Press a button by name on mock pins, as a finger would: drive it low, keep it
        down for `hold` seconds of real time, let go. Undo needs `hold` >= the hold time."""
        button = self._buttons.get(name)
        if button is None:
            raise ConfigError(f'this panel has no "{name}" button; it has {", ".join(self.buttons) or "none"}')
        pin = button.pin
        if not isinstance(pin, MockPin):
            raise ConfigError(f'cannot press "{name}" from software: GPIO{self.pins.buttons[name]} is a real pin')
        with self._pressing[name]:
            wait = min(self._debouncers[name].quiet_needed(), self._debouncers[name].settle)
            if wait > 0:  # a press right after the last one would be taken for a bounce
                threading.Event().wait(wait)
            pin.drive_low()
            try:
                if hold > 0:
                    threading.Event().wait(hold)
            finally:
                pin.drive_high()

    # --- button callbacks (gpiozero threads; never touch the game) --------------------------------

    # Edges and the hold timer arrive on different gpiozero threads: the lock keeps each
    # debouncer's bookkeeping whole.

    def _press_edge(self, name: str) -> None:
        with self._lock:
            fire = self._debouncers[name].press_edge() and name != "Undo"  # Undo acts on its hold
        if fire:
            self._act(name)

    def _release_edge(self, name: str) -> None:
        with self._lock:
            fire = self._debouncers[name].release_edge()  # a hold noticed on release (Undo only)
        if fire:
            self._act(name)

    def _held(self, name: str) -> None:
        with self._lock:
            fire = self._debouncers[name].poll_hold()
        if fire:
            self._act(name)

    def _act(self, name: str) -> None:
        with self._lock:
            decision = decide(name, self._state, self._highlight)
            if decision.highlight is not None:
                self._highlight = decision.highlight
            self.last_decision = (name, decision)
        if decision.command is not None:
            # Posted legal or not: the engine refuses with its own reason, which the phones show.
            self.table.post(decision.command, SOURCE)
        elif decision.action == "roll_requested":
            self._on_roll()
            self._sound("short")
        elif decision.refusal is not None:
            # No command to post: the table publishes the refusal like the engine's own, so the
            # phones explain it and our listener blinks and beeps for it once.
            self.table.refuse(f"{name} on the panel: {decision.refusal}", SOURCE, {"button": name}, decision.words)
        else:
            self._sound("short")  # the highlight moved
        self.refresh()

    def _ask_for_roll(self) -> None:
        """Roll's default: tell the dice reader (through the table) to read the tray now."""
        self.table.notify(NoticeKind.ROLL_REQUESTED, source=SOURCE)

    # --- table messages ----------------------------------------------------------------------

    def _listen(self) -> None:
        while not self._stopping.is_set():
            message = self._sub.get(timeout=LISTEN_TICK) if self._sub is not None else None
            if message is not None:
                try:
                    self.handle(message)
                except Exception:  # a malformed message must not stop the LEDs
                    pass
            self.refresh()

    def handle(self, message: Mapping[str, Any]) -> None:
        """Take one table message into account (the listener thread calls this)."""
        kind = message.get("type")
        with self._lock:
            if kind == "state":  # each state comes once and in order: the subscription starts with the current one
                old, self._state = self._state, message.get("state")
                self._highlight = reconcile(self._highlight, self._state, old)
            elif kind == "refused" and message.get("source") == SOURCE:
                self.last_refusal = message.get("error")
                self._refused_until = self.clock() + self.refused_for
            elif kind == "notice":
                self._camera_lost, self._settling = camera_notice(message, self._camera_lost, self._settling)
            if kind == "notice" and message.get("kind") != NoticeKind.PANEL:  # our own notices aside
                self.last_notice = dict(message)
            sound = sound_for(message)
            if sound:
                self._sound(sound)
            self.messages += 1
            self.refresh()  # under the same lock: a waiter never sees the state before the LEDs

    # --- feedback ------------------------------------------------------------------------------

    def _sound(self, kind: str) -> None:
        with self._lock:
            self.sounds.append(kind)
            self._sound_to_tell = kind
            buzzer = self._leds.get("buzzer")
            if buzzer is not None:
                on, off, n = SOUNDS[kind]
                buzzer.beep(on_time=on, off_time=max(off, 0.01), n=n, background=True)

    def refresh(self) -> Look:
        """Bring the LEDs in line with the state, the highlight and the feedback timers."""
        with self._changed:
            now = self.clock()
            want = look(self._state, self._highlight, refusing=now < self._refused_until,
                        camera_lost=self._camera_lost, settling=self._settling)
            if want != self._look:
                for seat, mode in zip(SEATS, want.seats):
                    self._drive(seat, mode, SEAT_BLINK)
                self._drive("status", want.status, BLINK_TIMES.get(want.status))
                self._look = want
            self._tell(want)
            self._changed.notify_all()
            return want

    def snapshot(self) -> dict[str, Any]:
        """What the box shows now, for the phone page: the highlight, each seat light by player,
        the status LED and how long Undo must be held (also in /api/info's status under `run`)."""
        with self._lock:
            want = self._look or look(self._state, self._highlight)
            players = [p.get("name") for p in (self._state or {}).get("players") or []]
            return {"highlight": {"player": self._highlight.player, "lock": self._highlight.lock},
                    "seats": [{"player": name, "light": mode} for name, mode in zip(players, want.seats)],
                    "status_led": want.status, "hold_s": self.hold_time}

    def _tell(self, want: Look) -> None:
        """A `panel` notice when the highlight, a light or the buzzer changed, so every page mirrors the box."""
        said = (self._highlight, want)
        if said == self._told and self._sound_to_tell is None:
            return
        self._told, sound, self._sound_to_tell = said, self._sound_to_tell, None
        notify = getattr(self.table, "notify", None)
        if notify is not None and self._thread is not None:
            notify(NoticeKind.PANEL, **self.snapshot(), sound=sound)

    def _drive(self, name: str, mode: str, times: tuple[float, float] | None) -> None:
        led = self._leds.get(name)
        if led is None or self._applied.get(name) == mode:
            return
        if mode == OFF:
            led.off()
        elif mode == ON:
            led.on()
        elif mode in (BLINK, FAST):
            led.blink(on_time=times[0], off_time=times[1], background=True)
        self._applied[name] = mode
