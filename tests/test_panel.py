"""The panel on gpiozero's MockFactory against the real Table, GameLog and engines.

Presses drive the mock pins (buttons pull up: low = pressed). Time that matters
to debounce and holds comes from a FakeClock; the engine thread is waited for
on the panel's condition or a subscription, never with sleep.
"""

from __future__ import annotations

import glob
import threading
import time
import warnings

import pytest
from gpiozero import Button, Device

from companion.errors import ConfigError
from hw.panel import Panel, pin_factory_for
from support.hw import FakeClock, install_mock_factory, release_mock_factory

ROLL_ONE_BEE = {"cmd": "roll", "faces": ["bee", "zzz", "zzz", "honey", "honey"]}
WAIT = 3.0


@pytest.fixture
def factory():
    f = install_mock_factory()
    yield f
    release_mock_factory(f)


class Rig:
    """A table, a panel on mock pins, a fake clock, and a phone-page subscription."""

    def __init__(self, table, factory, clock=None, **panel_kw):
        self.table, self.factory = table, factory
        self.clock = clock or FakeClock()
        self.rolls: list[int] = []
        self.syncs = 0
        panel_kw.setdefault("on_roll", lambda: self.rolls.append(1))
        self.panel = Panel(table, pin_factory=factory, clock=self.clock, **panel_kw)
        self.phone = table.subscribe()
        self.panel.start()

    def close(self):
        self.phone.close()
        self.panel.close()

    # --- the table side ---
    def submit(self, cmd, source="web"):
        state = self.table.submit(cmd, source)
        assert self.panel.wait_until(lambda p: p.state is not None and p.state["seq"] == state["seq"]
                                     and p.state["game_id"] == state["game_id"], WAIT)
        return state

    def new_game(self, game, *players):
        return self.submit({"cmd": "new_game", "game": game, "players": list(players)})

    def sync(self):
        """Everything posted so far has been applied or refused, and the panel has seen it."""
        self.syncs += 1
        token = self.syncs
        self.table.notify("sync", token=token)
        assert self.panel.wait_until(lambda p: (p.last_notice or {}).get("token") == token, WAIT)

    def phone_messages(self):
        """What a phone was sent since, each without `time` (when: the companion's clock)."""
        out = []
        while (m := self.phone.get(timeout=0)) is not None:
            m.pop("time", None)
            out.append(m)
        return out

    # --- the panel side ---
    def pin(self, name):
        return self.factory.pin(self.panel.pins.pin_of(name))

    def tap(self, name, down=0.08, gap=0.2):
        """One clean press: the line quiet for `gap`, down for `down` (fake seconds)."""
        self.clock.advance(gap)
        self.pin(name).drive_low()
        self.clock.advance(down)
        self.pin(name).drive_high()

    def press(self, name, **kw):
        """Tap and wait until the engine has answered whatever the press posted."""
        self.tap(name, **kw)
        self.sync()
        return self.table.state()

    def lit(self):
        """Seats whose LED pin is high now (steady LEDs only; blinking ones toggle)."""
        return [i for i in range(1, 7) if self.factory.pin(self.panel.pins.pin_of(f"seat{i}")).state]


@pytest.fixture
def rig(table, factory):
    r = Rig(table, factory)
    yield r
    r.close()


def records(table):
    return [(r["source"], r["command"]) for r in table.records()]


class Toggles(list):
    """A mock pin's state history that sets `both` once the pin has gone high and low since it was
    watched (the blink thread appends to it at each change: the test waits on that, not on the clock)."""

    def __init__(self, history):
        super().__init__(history)
        self.seen = set()  # only changes from now on: an LED that was once on and then off is not blinking
        self.both = threading.Event()

    def append(self, state):
        super().append(state)
        self.seen.add(state.state)
        self._check()

    def _check(self):
        if self.seen >= {0, 1}:
            self.both.set()


def watch(pin) -> Toggles:
    """Watch a mock pin from now on (before the press that should make it blink or beep)."""
    pin.states = toggles = Toggles(pin.states)
    return toggles


# ----- ZomBee: every button -----

def test_zombee_turn_with_every_button(rig):
    rig.new_game("zombee", "Tom", "Mia", "Ann")
    assert rig.lit() == [1] and rig.panel.led_modes()["status"] == "on"
    rig.submit(ROLL_ONE_BEE, "camera")
    s = rig.press("Stop")
    assert (s["phase"], s["pending"]) == ("flip", "Mia") and rig.lit() == [2]
    seat2 = watch(rig.pin("seat2"))
    s = rig.press("Question")
    assert s["phase"] == "choose" and rig.panel.led_modes()["seat2"] == "blink"
    assert seat2.both.wait(WAIT)
    rig.tap("Select")
    assert rig.panel.highlight.player == "Ann" and rig.panel.led_modes()["seat3"] == "on"
    rig.tap("Select")
    assert rig.panel.highlight.player == "Tom" and rig.panel.led_modes()["seat1"] == "on"
    s = rig.press("OK")
    assert (s["phase"], s["pending"]) == ("flip", "Tom") and rig.panel.highlight.player is None
    s = rig.press("Bee")
    assert (s["phase"], s["active"], s["flowers"]["bee"]) == ("roll", "Mia", 1) and rig.lit() == [2]
    rig.submit(ROLL_ONE_BEE, "camera")
    rig.press("Stop")
    s = rig.press("ZomBee")  # Ann reveals the ZomBee
    assert s["players"][2]["honey"] == 1 and s["phase"] == "roll"
    assert list(rig.panel.sounds)[-1] == "long"
    rig.tap("Roll")
    assert rig.rolls == [1]
    panel_cmds = [c for src, c in records(rig.table) if src == "panel"]
    assert panel_cmds == [{"cmd": "stop"}, {"cmd": "flip", "result": "question", "player": "Mia"},
                          {"cmd": "choose", "player": "Tom"}, {"cmd": "flip", "result": "bee", "player": "Tom"},
                          {"cmd": "stop"}, {"cmd": "flip", "result": "zombee", "player": "Ann"}]
    assert list(rig.panel.sounds).count("short") >= 5 and "refused" not in rig.panel.sounds


def test_undo_needs_a_one_second_hold(rig):
    rig.new_game("zombee", "Tom", "Mia")
    rig.submit(ROLL_ONE_BEE, "camera")
    before = len(rig.table.records())
    rig.press("Undo", down=0.4)  # a brush against Undo does nothing
    assert len(rig.table.records()) == before and rig.table.state()["rolls"] == 1
    # a held Undo that bounces as it is pressed still undoes exactly once
    rig.clock.advance(0.5)
    pin = rig.pin("Undo")
    for _ in range(3):
        pin.drive_low()
        rig.clock.advance(0.002)
        pin.drive_high()
        rig.clock.advance(0.002)
    pin.drive_low()
    rig.clock.advance(1.1)
    pin.drive_high()
    rig.sync()
    assert records(rig.table)[-1] == ("panel", {"cmd": "undo"})
    assert len(rig.table.records()) == before + 1 and rig.table.state()["rolls"] == 0


def test_undo_fires_while_still_held_after_the_hold_time(table, factory):
    # gpiozero's own hold timer (real time) drives this one, so use the real clock and a short hold
    rig = Rig(table, factory, clock=time.monotonic, hold_time=0.2)
    try:
        rig.new_game("zoo", "Ann", "Ben")
        rig.submit({"cmd": "kill", "player": "Ann"})
        pin = rig.pin("Undo")
        pin.drive_low()
        assert rig.panel.wait_until(lambda p: p.state["players"][0]["kills"] == 0, WAIT)
        assert pin.state == 0  # still held: the undo came from when_held, not from letting go
        pin.drive_high()
        rig.sync()
        assert [c for _, c in records(table)].count({"cmd": "undo"}) == 1
    finally:
        rig.close()


# ----- Zombie Zoo: every button -----

def test_zoo_every_button(rig):
    rig.new_game("zoo", "Ann", "Ben", "Cat")
    assert rig.lit() == []
    rig.tap("Select")
    rig.tap("Select")
    assert rig.panel.highlight.player == "Ben" and rig.lit() == [2]
    s = rig.press("Kill")
    s = rig.press("Bullet -")
    s = rig.press("Life -")
    ben = s["players"][1]
    assert (ben["kills"], ben["bullets"], ben["life"]) == (1, 4, 4)
    rig.tap("Lock")
    rig.tap("Lock")
    assert rig.panel.highlight.lock == "lions_den" and rig.panel.led_modes()["seat2"] == "blink"
    s = rig.press("OK")
    assert s["locks"]["lions_den"] == "collected" and s["players"][1]["locks"] == ["lions_den"]
    assert rig.panel.highlight.lock is None and rig.panel.led_modes()["seat2"] == "on"
    rig.clock.advance(0.5)
    rig.pin("Undo").drive_low()
    rig.clock.advance(1.0)
    rig.pin("Undo").drive_high()
    rig.sync()
    assert rig.table.state()["locks"]["lions_den"] == "60:00"
    assert [c["cmd"] for src, c in records(rig.table) if src == "panel"] == [
        "kill", "bullets", "life", "collect_lock", "undo"]


def test_kill_for_a_dead_player_is_refused_and_changes_nothing(rig):
    rig.new_game("zoo", "Ann", "Ben", "Cat")
    rig.tap("Select")  # Ann
    rig.submit({"cmd": "bullets", "player": "Ann", "delta": -5})
    rig.submit({"cmd": "life", "player": "Ann", "delta": -5})
    before, seq = records(rig.table), rig.table.state()["seq"]
    rig.phone_messages()
    rig.press("Kill")
    assert records(rig.table) == before and rig.table.state()["seq"] == seq
    refused = [m for m in rig.phone_messages() if m["type"] == "refused"]
    assert refused and refused[0]["source"] == "panel" and "Ann is out of the game" in refused[0]["error"]
    assert rig.panel.last_refusal == refused[0]["error"]
    assert rig.panel.led_modes()["status"] == "fast" and list(rig.panel.sounds)[-1] == "refused"


# ----- refusals -----

def test_flower_while_rolling_is_refused_on_the_status_led_buzzer_and_phone(rig):
    rig.new_game("zombee", "Tom", "Mia")
    rig.phone_messages()
    before = records(rig.table)
    status, buzzer = watch(rig.pin("status")), watch(rig.pin("buzzer"))
    rig.press("Bee")
    assert records(rig.table) == before
    [refused] = [m for m in rig.phone_messages() if m["type"] == "refused"]
    assert refused["source"] == "panel" and "Tom is rolling" in refused["error"]
    assert rig.panel.led_modes()["status"] == "fast" and status.both.wait(WAIT)
    assert list(rig.panel.sounds)[-1] == "refused" and buzzer.both.wait(WAIT)
    rig.clock.advance(1.0)
    rig.panel.refresh()
    assert rig.panel.led_modes()["status"] == "fast"
    rig.clock.advance(1.5)  # the refusal blink lasts two seconds
    rig.panel.refresh()
    assert rig.panel.led_modes()["status"] == "on" and rig.lit() == [1]


def test_a_press_that_makes_no_command_is_refused_by_the_panel_and_reaches_the_phone(rig):
    rig.new_game("zombee", "Tom", "Mia")
    rig.phone_messages()
    rig.press("Kill")
    reason = "Kill is a Zombie Zoo button; this is a ZomBee game"
    refused = [m for m in rig.phone_messages() if m["type"] == "refused"]
    # with its words, so a German page says it in German and names the button as its label does
    words = {"template": "{button} is a Zombie Zoo button; this is a ZomBee game",
             "args": {"button": {"template": "Kill", "args": {}}}}
    assert refused == [{"type": "refused", "source": "panel", "command": {"button": "Kill"},
                        "error": f"Kill on the panel: {reason}", "words": words}]
    assert rig.panel.wait_until(lambda p: p.led_modes()["status"] == "fast")
    assert list(rig.panel.sounds)[-1] == "refused"
    assert [src for src, _ in records(rig.table)] == ["web"]


def test_no_game_yet(rig):
    assert rig.table.state() is None and rig.lit() == []
    rig.press("Bee")
    assert "no game" in rig.panel.last_refusal and rig.panel.led_modes()["status"] == "fast"


# ----- debounce -----

def test_a_bouncing_flower_button_flips_once(rig):
    rig.new_game("zombee", "Tom", "Mia", "Ann")
    rig.submit(ROLL_ONE_BEE, "camera")
    rig.submit({"cmd": "stop"})
    assert rig.table.state()["pending"] == "Mia"
    pin = rig.pin("Bee")
    rig.clock.advance(1.0)
    for _ in range(5):  # five bounces within ten milliseconds, then held, then a bouncy release
        pin.drive_low()
        rig.clock.advance(0.001)
        pin.drive_high()
        rig.clock.advance(0.001)
    pin.drive_low()
    rig.clock.advance(0.15)
    for _ in range(3):
        pin.drive_high()
        rig.clock.advance(0.002)
        pin.drive_low()
        rig.clock.advance(0.002)
    pin.drive_high()
    rig.sync()
    flips = [c for src, c in records(rig.table) if c["cmd"] == "flip"]
    assert flips == [{"cmd": "flip", "result": "bee", "player": "Mia"}]
    assert "refused" not in rig.panel.sounds  # the bounces never reached the engine


def test_deliberate_repeats_all_count(rig):
    rig.new_game("zoo", "Ann", "Ben")
    rig.tap("Select")
    for _ in range(4):
        rig.tap("Kill", down=0.05, gap=0.05)
    rig.sync()
    assert rig.table.state()["players"][0]["kills"] == 4


# ----- LEDs follow the engine -----

def test_leds_follow_states_from_other_sources(rig):
    rig.new_game("zombee", "Tom", "Mia", "Ann")
    assert rig.lit() == [1]
    rig.submit(ROLL_ONE_BEE, "camera")
    rig.submit({"cmd": "stop"}, "web")
    assert rig.lit() == [2]
    rig.submit({"cmd": "flip", "result": "bee"}, "web")
    assert rig.lit() == [2]  # Mia's turn to roll
    rig.new_game("zoo", "Ann", "Ben")
    assert rig.lit() == [] and rig.panel.highlight.player is None
    assert "short" not in rig.panel.sounds  # only the panel's own presses beep short


def test_game_over_lights_the_winner_and_sounds_long(rig):
    rig.new_game("zoo", "Ann", "Ben")
    rig.submit({"cmd": "bullets", "player": "Ann", "delta": -5})
    rig.submit({"cmd": "life", "player": "Ann", "delta": -5})
    assert rig.table.state()["phase"] == "game_over" and rig.lit() == [2]
    assert list(rig.panel.sounds)[-1] == "long"


def test_camera_and_dice_notices_drive_the_status_led(rig):
    rig.table.notify("camera", status="lost")
    assert rig.panel.wait_until(lambda p: p.led_modes()["status"] == "fast", WAIT)
    rig.table.notify("camera", status="ok")
    assert rig.panel.wait_until(lambda p: p.led_modes()["status"] == "on", WAIT)
    rig.table.notify("dice", status="settling")
    assert rig.panel.wait_until(lambda p: p.led_modes()["status"] == "blink", WAIT)
    rig.table.notify("dice", status="still")
    assert rig.panel.wait_until(lambda p: p.led_modes()["status"] == "on", WAIT)
    with pytest.raises(ValueError, match="settling, still, check, selected"):
        rig.table.notify("dice", status="moving")  # one vocabulary (companion.notices): a typo fails loudly


def test_roll_button_asks_the_table_by_default(table, factory):
    rig = Rig(table, factory, on_roll=None)
    try:
        rig.tap("Roll")
        assert rig.panel.wait_until(lambda p: p.messages >= 1, WAIT)
        assert {"type": "notice", "kind": "roll_requested", "source": "panel"} in rig.phone_messages()
    finally:
        rig.close()


# ----- pin map, devices, demo presses -----

class Spy:
    """A table that records every call, to show a bad map fails before the table is touched."""

    def __init__(self):
        self.calls = []

    def __getattr__(self, name):
        return lambda *a, **k: self.calls.append(name)


@pytest.mark.parametrize("pins, fragment", [
    ({"Bee": 6}, "GPIO6 is used twice"), ({"Fire": 4}, 'unknown panel part "Fire"'),
    ({"buttons": {"Select": 28}}, "no GPIO28"), ({"leds": {"seat1": 0}}, "no GPIO0"),
])
def test_a_bad_pin_map_fails_at_start_before_anything_is_touched(factory, table, pins, fragment):
    spy = Spy()
    with pytest.raises(ConfigError, match=fragment):
        Panel(spy, pin_map=pins, pin_factory=factory)
    assert spy.calls == []
    Button(17, pin_factory=factory).close()  # no pin was left reserved


def test_a_pin_taken_by_another_device_is_a_config_error_and_releases_the_rest(factory, table):
    taken = Button(19, pin_factory=factory)  # Undo's pin
    try:
        with pytest.raises(ConfigError, match='cannot open "Undo" on GPIO19'):
            Panel(table, pin_factory=factory)
    finally:
        taken.close()
    Panel(table, pin_factory=factory).close()  # everything opened before Undo was released


def test_parts_can_be_left_out(table, factory):
    rig = Rig(table, factory, pin_map={"Roll": "none", "seat6": "none", "buzzer": "none", "status": "none"})
    try:
        assert "Roll" not in rig.panel.buttons and "seat6" not in rig.panel.led_modes()
        rig.new_game("zombee", "Tom", "Mia")
        rig.press("Bee")  # refused: no buzzer or status LED to show it, but nothing breaks
        assert rig.panel.last_refusal and "refused" in rig.panel.sounds
        with pytest.raises(ConfigError, match='no "Roll" button'):
            rig.panel.press("Roll")
    finally:
        rig.close()


def test_demo_press_by_name_with_a_hold(table, factory):
    with Panel(table, pin_factory=factory, hold_time=0.2) as panel:
        table.submit({"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"]}, "demo")
        assert panel.wait_until(lambda p: p.state is not None, WAIT)
        panel.press("Select")
        panel.press("Kill")
        assert panel.wait_until(lambda p: p.state["players"][0]["kills"] == 1, WAIT)
        panel.press("Kill")  # right after the last press: press() waits out the settle time
        assert panel.wait_until(lambda p: p.state["players"][0]["kills"] == 2, WAIT)
        panel.press("Undo", hold=0.3)
        assert panel.wait_until(lambda p: p.state["players"][0]["kills"] == 1, WAIT)
        with pytest.raises(ConfigError, match='no "Fire" button'):
            panel.press("Fire")
    # closed: every pin is free again
    Panel(table, pin_factory=factory).close()


def test_taps_from_two_phones_at_once_each_count(table, factory):
    # Two taps on the page's Kill while the first was still on its way: both drove the same mock pin
    # low and high together, one edge for two taps, and a kill was lost ("Picked: Ann" for two Selects).
    import threading

    with Panel(table, pin_factory=factory) as panel:
        table.submit({"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"]}, "demo")
        assert panel.wait_until(lambda p: p.state is not None, WAIT)
        panel.press("Select")
        together = threading.Barrier(3)

        def tap():
            together.wait()
            panel.press("Kill")

        phones = [threading.Thread(target=tap) for _ in range(3)]
        for phone in phones:
            phone.start()
        for phone in phones:
            phone.join(WAIT)
        assert panel.wait_until(lambda p: p.state["players"][0]["kills"] == 3, WAIT), panel.state["players"][0]


def test_close_is_idempotent_and_turns_leds_off(rig):
    rig.new_game("zombee", "Tom", "Mia")
    assert rig.lit() == [1]
    rig.panel.close()
    rig.panel.close()
    assert rig.factory.pin(7).state == 0


@pytest.mark.skipif(bool(glob.glob("/dev/gpiochip*")), reason="this machine has GPIO chips")
def test_off_a_pi_the_default_pin_factory_is_a_clear_config_error(monkeypatch, table):
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    monkeypatch.setattr(Device, "pin_factory", None)
    spy = Spy()
    with warnings.catch_warnings(), pytest.raises(ConfigError, match='cannot open "Bee" on GPIO17.*mock pin factory'):
        warnings.simplefilter("ignore")  # gpiozero warns about each factory it falls back from
        Panel(spy)
    assert spy.calls == []


def test_from_config_reads_the_toml_and_checks_it_first(tmp_path, table):
    config = tmp_path / "companion.toml"
    config.write_text('[panel.buttons]\nRoll = "none"\n[panel.leds]\nbuzzer = 20\n', encoding="utf-8")
    with Panel.from_config(table, str(config), mock=True) as panel:
        assert "Roll" not in panel.buttons and panel.pins.leds["buzzer"] == 20
        panel.press("Select")
        assert panel.wait_until(lambda p: p.last_refusal is not None)
        assert "no game" in panel.last_refusal
    config.write_text('[panel.buttons]\nRoll = 99\n', encoding="utf-8")
    spy = Spy()
    with pytest.raises(ConfigError, match=f"{config}.*no GPIO99"):
        Panel.from_config(spy, str(config), mock=True)
    assert spy.calls == []


def test_pin_factory_for_falls_back_to_mock_off_a_pi(monkeypatch):
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    assert pin_factory_for(mock=False) is None
    assert type(pin_factory_for(mock=True)).__name__ == "MockFactory"
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    assert type(pin_factory_for()).__name__ == "MockFactory"


# ----- what the phones see of the box -----

def panel_notice(rig, predicate):
    """The phone's next `panel` notice that satisfies predicate (waiting on the subscription, never a sleep)."""
    while (m := rig.phone.get(timeout=WAIT)) is not None:
        if m["type"] == "notice" and m["kind"] == "panel" and predicate(m):
            return m
    raise AssertionError("no such panel notice reached the phone")


def test_every_phone_is_told_the_highlight_the_seat_lights_and_the_buzzer(rig):
    rig.new_game("zoo", "Ann", "Ben", "Cat")
    rig.phone_messages()
    rig.tap("Select")
    rig.tap("Select")
    rig.tap("Lock")
    last = panel_notice(rig, lambda m: m["highlight"]["lock"] is not None)
    assert last["highlight"] == {"player": "Ben", "lock": rig.panel.highlight.lock}
    assert {"player": "Ben", "light": "blink"} in last["seats"] and last["hold_s"] == rig.panel.hold_time
    assert rig.panel.snapshot()["highlight"] == last["highlight"]
    rig.submit({"cmd": "bullets", "player": "Ben", "delta": -5})
    rig.submit({"cmd": "life", "player": "Ben", "delta": -5})
    rig.press("Kill")  # Ben is out: refused, and the phones hear the three short beeps
    told = panel_notice(rig, lambda m: m["sound"] == "refused")
    assert told["status_led"] == "fast"
