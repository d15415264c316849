"""The panel's pin map: which BCM pin each button and LED is wired to.

The default map is the wiring table in docs/panel.md. The companion's config
file (TOML) can move any part or leave it out:

    [panel.buttons]
    Bee = 17
    Roll = "none"        # no Roll button on this panel

    [panel.leds]
    seat6 = "none"
    buzzer = 20

Everything is checked before the panel touches a pin or the game: an unknown
name, a pin that does not exist on the header (BCM 2..27) or a pin used twice
raises `ConfigError` naming the offending part and pin.
"""

from __future__ import annotations

import difflib
import tomllib
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from companion.errors import ConfigError

BUTTONS = ("Bee", "Question", "ZomBee", "Select", "OK", "Stop", "Undo", "Roll", "Kill", "Life -", "Bullet -", "Lock")
SEATS = tuple(f"seat{i}" for i in range(1, 7))
LEDS = SEATS + ("status", "buzzer")

# BCM 0 and 1 are the HAT ID EEPROM pins; 28+ are not on the 40-pin header.
FIRST_PIN, LAST_PIN = 2, 27

DEFAULT_BUTTONS: Mapping[str, int] = MappingProxyType({
    "Bee": 17, "Question": 27, "ZomBee": 22,
    "Select": 5, "OK": 6, "Stop": 13, "Undo": 19, "Roll": 26,
    "Kill": 23, "Life -": 24, "Bullet -": 25, "Lock": 16,
})
DEFAULT_LEDS: Mapping[str, int] = MappingProxyType({
    "seat1": 7, "seat2": 8, "seat3": 9, "seat4": 10, "seat5": 11, "seat6": 21,
    "status": 12, "buzzer": 18,
})

# BCM number -> physical header pin, for the wiring table and error messages.
HEADER_PIN: Mapping[int, int] = MappingProxyType({
    2: 3, 3: 5, 4: 7, 17: 11, 27: 13, 22: 15, 10: 19, 9: 21, 11: 23, 5: 29, 6: 31, 13: 33, 19: 35, 26: 37,
    14: 8, 15: 10, 18: 12, 23: 16, 24: 18, 25: 22, 8: 24, 7: 26, 12: 32, 16: 36, 20: 38, 21: 40,
})

_OFF = ("none", "")
_PANEL_KEYS = ("buttons", "leds")


@dataclass(frozen=True)
class PinMap:
    """Validated pin assignment; a part left out simply has no entry."""

    buttons: Mapping[str, int]
    leds: Mapping[str, int]

    def pin_of(self, name: str) -> int | None:
        return self.buttons.get(name, self.leds.get(name))

    def parts(self) -> dict[str, int]:
        return {**self.buttons, **self.leds}

    def wiring_table(self) -> str:
        """A Markdown table: part, BCM pin, header pin (what docs/panel.md shows for the default map)."""
        rows = ["| Part | BCM | Header pin | Other leg to |", "|---|---|---|---|"]
        for name, pin in self.buttons.items():
            rows.append(f"| button `{name}` | GPIO{pin} | {HEADER_PIN[pin]} | GND |")
        for name, pin in self.leds.items():
            if name == "buzzer":
                other = "module I/O (VCC to pin 1, GND to GND)"
                rows.append(f"| buzzer `{name}` | GPIO{pin} | {HEADER_PIN[pin]} | {other} |")
            else:
                rows.append(f"| LED `{name}` | GPIO{pin} | {HEADER_PIN[pin]} | anode via 330 Ω; cathode to GND |")
        return "\n".join(rows)


def _hint(name: str, known: tuple[str, ...]) -> str:
    folded = {k.casefold().replace(" ", ""): k for k in known}
    exact = folded.get(str(name).casefold().replace(" ", ""))
    close = [exact] if exact else difflib.get_close_matches(str(name), known, n=1)
    return f' (did you mean "{close[0]}"?)' if close else ""


def _pin(section: str, name: str, value: Any) -> int | None:
    """One configured value -> BCM number, or None for a part left out."""
    if isinstance(value, str):
        text = value.strip()
        if text.casefold() in _OFF:
            return None
        upper = text.upper()
        for prefix in ("GPIO", "BCM"):
            if upper.startswith(prefix) and upper[len(prefix):].isdigit():
                value = int(upper[len(prefix):])
                break
        else:
            raise ConfigError(
                f'[panel.{section}] "{name}" = "{value}" is not a pin: give a BCM number from '
                f'{FIRST_PIN} to {LAST_PIN} (e.g. 17 or "GPIO17"), or "none" to leave it out'
            )
    if value is None:
        return None
    if type(value) is not int:  # bool is an int subclass: `true` is a typo, not pin 1
        raise ConfigError(
            f'[panel.{section}] "{name}" = {value!r} is not a pin: give a BCM number from '
            f'{FIRST_PIN} to {LAST_PIN}, or "none" to leave it out'
        )
    if not FIRST_PIN <= value <= LAST_PIN:
        why = " (BCM 0 and 1 are reserved for HAT EEPROMs)" if value in (0, 1) else ""
        raise ConfigError(
            f'[panel.{section}] "{name}" = {value}: there is no GPIO{value} on the header{why}; '
            f"usable BCM pins are {FIRST_PIN} to {LAST_PIN}"
        )
    return value


def _section(section: str, known: tuple[str, ...], defaults: Mapping[str, int], override: Any) -> dict[str, int]:
    if override is None:
        override = {}
    if not isinstance(override, Mapping):
        raise ConfigError(f"[panel.{section}] must be a table of name = pin, got {override!r}")
    for name in override:
        if name not in known:
            raise ConfigError(
                f'[panel.{section}] has unknown {section[:-1]} "{name}"{_hint(name, known)}; '
                f"{section} are: {', '.join(known)}"
            )
    out: dict[str, int] = {}
    for name in known:  # keep the canonical order
        value = override[name] if name in override else defaults.get(name)
        pin = _pin(section, name, value)
        if pin is not None:
            out[name] = pin
    return out


def pin_map(buttons: Mapping[str, Any] | None = None, leds: Mapping[str, Any] | None = None,
            *, defaults: bool = True) -> PinMap:
    """Build and validate a pin map: overrides on top of the default map (or of nothing)."""
    b = _section("buttons", BUTTONS, DEFAULT_BUTTONS if defaults else {}, buttons)
    l_ = _section("leds", LEDS, DEFAULT_LEDS if defaults else {}, leds)
    used: dict[int, str] = {}
    for name, pin in [*b.items(), *l_.items()]:
        if pin in used:
            raise ConfigError(
                f'GPIO{pin} is used twice: by "{used[pin]}" and by "{name}"; '
                f'move one of them or set it to "none"'
            )
        used[pin] = name
    return PinMap(MappingProxyType(b), MappingProxyType(l_))


DEFAULT_PIN_MAP = pin_map()


def from_config(config: Mapping[str, Any] | None) -> PinMap:
    """The pin map from a parsed config file (the whole document; only `[panel]` is read)."""
    panel = (config or {}).get("panel", {})
    if not isinstance(panel, Mapping):
        raise ConfigError(f"[panel] must be a table with [panel.buttons] and [panel.leds], got {panel!r}")
    return pin_map(panel.get("buttons"), panel.get("leds"))


def load_pin_map(path: str | Path | None) -> PinMap:
    """Read the companion's TOML config file; no file (None) means the default map."""
    if path is None:
        return DEFAULT_PIN_MAP
    try:
        with open(path, "rb") as fh:
            config = tomllib.load(fh)
    except FileNotFoundError:
        raise ConfigError(f"config file {str(path)!r} does not exist") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {str(path)!r} is not valid TOML: {exc}") from None
    try:
        return from_config(config)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None


def coerce(pins: "PinMap | Mapping[str, Any] | str | Path | None") -> PinMap:
    """Whatever `Panel(pin_map=...)` was given -> a validated PinMap.

    None: the default map; a PinMap: itself; a path: a TOML config file; a mapping:
    either a whole config ({"panel": {...}}), {"buttons": ..., "leds": ...}, or a flat
    {part name: pin} for the parts to move (on top of the default map).
    """
    if pins is None:
        return DEFAULT_PIN_MAP
    if isinstance(pins, PinMap):
        return pins
    if isinstance(pins, (str, Path)):
        return load_pin_map(pins)
    if not isinstance(pins, Mapping):
        raise ConfigError(f"a pin map must be a mapping or a TOML path, got {pins!r}")
    if "panel" in pins:
        return from_config(pins)
    if set(pins) & set(_PANEL_KEYS):
        extra = [k for k in pins if k not in _PANEL_KEYS]
        if extra:
            raise ConfigError(f'unknown pin map key "{extra[0]}"; use "buttons" and "leds"')
        return pin_map(pins.get("buttons"), pins.get("leds"))
    buttons = {k: v for k, v in pins.items() if k in BUTTONS}
    leds = {k: v for k, v in pins.items() if k in LEDS}
    unknown = [k for k in pins if k not in BUTTONS and k not in LEDS]
    if unknown:
        raise ConfigError(
            f'unknown panel part "{unknown[0]}"{_hint(unknown[0], BUTTONS + LEDS)}; '
            f"buttons are {', '.join(BUTTONS)}; LEDs are {', '.join(LEDS)}"
        )
    return pin_map(buttons, leds)
