"""The button panel: arcade buttons and LEDs on the Pi's GPIO, read and driven with gpiozero.

`Panel(table, pin_map, pin_factory)` turns presses into the engine's commands
(source "panel") and shows whose move it is. See docs/panel.md.
"""

from .pins import DEFAULT_PIN_MAP, PinMap, load_pin_map
from .panel import Panel, pin_factory_for

__all__ = ["DEFAULT_PIN_MAP", "Panel", "PinMap", "load_pin_map", "pin_factory_for"]
