"""The pin map: defaults, TOML overrides, and every way a map can be wrong."""

from __future__ import annotations

import pathlib

import pytest

from companion.errors import ConfigError
from hw.pins import (BUTTONS, DEFAULT_BUTTONS, DEFAULT_LEDS, DEFAULT_PIN_MAP, HEADER_PIN, LEDS, coerce,
                     from_config, load_pin_map, pin_map)

ROOT = pathlib.Path(__file__).resolve().parent.parent


def write(tmp_path, text):
    path = tmp_path / "companion.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_default_map_has_every_part_on_a_distinct_header_pin():
    assert set(DEFAULT_BUTTONS) == set(BUTTONS) and set(DEFAULT_LEDS) == set(LEDS)
    pins = list(DEFAULT_BUTTONS.values()) + list(DEFAULT_LEDS.values())
    assert len(set(pins)) == len(pins) == 20
    assert all(2 <= p <= 27 and p in HEADER_PIN for p in pins)
    assert not {2, 3, 14, 15} & set(pins)  # I2C and the serial console stay free
    assert DEFAULT_PIN_MAP.pin_of("Bee") == 17 and DEFAULT_PIN_MAP.pin_of("buzzer") == 18


def test_wiring_table_lists_every_part_with_its_header_pin():
    table = DEFAULT_PIN_MAP.wiring_table()
    assert "| button `Life -` | GPIO24 | 18 | GND |" in table
    assert "| LED `seat1` | GPIO7 | 26 |" in table
    assert len(table.splitlines()) == 2 + 20


def test_docs_show_the_default_wiring_table():
    doc = (ROOT / "docs" / "panel.md").read_text(encoding="utf-8")
    assert DEFAULT_PIN_MAP.wiring_table() in doc


def test_toml_moves_and_leaves_out_parts(tmp_path):
    path = write(tmp_path, """
[panel]
something_else = true   # other panel settings are not the pin map's business

[panel.buttons]
Bee = 4
Roll = "none"
"Life -" = "GPIO20"

[panel.leds]
seat6 = "none"
seat5 = "BCM 14"
""".replace("BCM 14", "BCM14"))
    pins = load_pin_map(path)
    assert pins.buttons["Bee"] == 4 and pins.buttons["Life -"] == 20
    assert "Roll" not in pins.buttons and "seat6" not in pins.leds
    assert pins.leds["seat5"] == 14
    assert pins.buttons["Kill"] == DEFAULT_BUTTONS["Kill"]  # untouched parts keep their default


def test_no_config_file_means_the_default_map():
    assert load_pin_map(None) == DEFAULT_PIN_MAP
    assert from_config({}) == DEFAULT_PIN_MAP
    assert coerce(None) is DEFAULT_PIN_MAP


def test_a_pin_used_twice_names_both_parts(tmp_path):
    path = write(tmp_path, "[panel.buttons]\nBee = 6\n")  # 6 is OK's pin
    with pytest.raises(ConfigError) as info:
        load_pin_map(path)
    msg = str(info.value)
    assert "GPIO6 is used twice" in msg and '"Bee"' in msg and '"OK"' in msg and str(path) in msg


def test_a_button_and_an_led_on_the_same_pin_is_refused():
    with pytest.raises(ConfigError, match='GPIO17 is used twice: by "Bee" and by "status"'):
        pin_map(leds={"status": 17})


def test_a_part_left_out_frees_its_pin_for_another():
    pins = pin_map({"Bee": 6, "OK": "none"})
    assert pins.buttons["Bee"] == 6 and "OK" not in pins.buttons


@pytest.mark.parametrize("name, hint", [("bee", 'did you mean "Bee"'), ("Life-", 'did you mean "Life -"'),
                                        ("Fire", None)])
def test_an_unknown_button_name_is_refused_with_a_hint(name, hint):
    with pytest.raises(ConfigError) as info:
        pin_map({name: 4})
    msg = str(info.value)
    assert f'unknown button "{name}"' in msg and "buttons are: Bee, Question" in msg
    if hint:
        assert hint in msg


def test_an_unknown_led_name_is_refused():
    with pytest.raises(ConfigError, match='unknown led "seat7"'):
        pin_map(leds={"seat7": 4})


@pytest.mark.parametrize("value, fragment", [
    (28, "there is no GPIO28"), (40, "there is no GPIO40"), (-1, "there is no GPIO-1"),
    (0, "reserved for HAT EEPROMs"), (1, "reserved for HAT EEPROMs"),
    (True, "is not a pin"), (17.0, "is not a pin"), ("seventeen", "is not a pin"), ([17], "is not a pin"),
])
def test_a_pin_that_does_not_exist_is_refused(value, fragment):
    with pytest.raises(ConfigError) as info:
        pin_map({"Stop": value})
    assert fragment in str(info.value) and '"Stop"' in str(info.value)


def test_bad_toml_and_missing_file_are_config_errors(tmp_path):
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_pin_map(write(tmp_path, "[panel.buttons\nBee = 4"))
    with pytest.raises(ConfigError, match="does not exist"):
        load_pin_map(tmp_path / "nope.toml")
    with pytest.raises(ConfigError, match=r"\[panel\] must be a table"):
        from_config({"panel": 3})
    with pytest.raises(ConfigError, match=r"\[panel.buttons\] must be a table"):
        from_config({"panel": {"buttons": [1, 2]}})


def test_coerce_accepts_the_forms_panel_takes(tmp_path):
    assert coerce({"Bee": 4}).buttons["Bee"] == 4
    assert coerce({"buttons": {"Bee": 4}, "leds": {"seat1": "none"}}).leds.get("seat1") is None
    assert coerce({"panel": {"leds": {"buzzer": 20}}}).leds["buzzer"] == 20
    assert coerce(str(write(tmp_path, "[panel.leds]\nbuzzer = 20\n"))).leds["buzzer"] == 20
    with pytest.raises(ConfigError, match='unknown panel part "Beee"'):
        coerce({"Beee": 4})
    with pytest.raises(ConfigError, match='unknown pin map key "extra"'):
        coerce({"buttons": {}, "extra": 1})
    with pytest.raises(ConfigError):
        coerce(17)
