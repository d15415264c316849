"""The Pi's own faults (table_companion.health): said once in the service's log and on every phone, with
what to do, and the game goes on. The readings are injected: a fake sysfs file, a fake vcgencmd, a fake disk."""

from __future__ import annotations

import argparse
import stat

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from companion.notices import NoticeKind
from table_companion import health as health_mod
from table_companion.health import Health, throttled_bits

PIN = "246810"


class Table:
    """Records the notices as every phone would get them."""

    def __init__(self):
        self.notices = []

    def notify(self, kind, **data):
        self.notices.append((kind, data))


def monitor(tmp_path, bits=0, free_mb=5000.0, camera=None):
    readings = {"bits": bits, "free": free_mb, "camera": camera}
    log = []
    h = Health(Table(), tmp_path, throttled=lambda: readings["bits"], disk_free_mb=lambda folder: readings["free"],
               camera_ok=lambda: readings["camera"], log=log.append)
    return h, readings, log


def test_under_voltage_from_the_firmwares_sysfs_file_is_said_once_with_what_to_do(tmp_path):
    sysfs = tmp_path / "get_throttled"
    sysfs.write_text("50005\n")  # under-voltage now and since boot, throttled
    h, _, log = monitor(tmp_path)
    h._throttled = lambda: throttled_bits(sysfs, vcgencmd="")
    h.check()
    h.check()
    assert [line for line in log if "under-voltage" in line] == [log[0]]  # said once, not at every look
    assert "Use the official supply (5 V, 3 A for a Pi 4, 5 A for a Pi 5)" in log[0]
    assert any("too hot" in line for line in log)  # bit 2: throttled
    kinds = [(kind, data["status"], data["code"]) for kind, data in h.table.notices]
    assert kinds == [(NoticeKind.HEALTH, "fault", "power"), (NoticeKind.HEALTH, "fault", "heat")]
    assert [f["code"] for f in h.faults()] == ["power", "heat"]
    assert h.faults()[0]["template"].startswith("The Pi's power supply")  # a phone says it in its language


def test_vcgencmd_is_asked_when_the_sysfs_file_is_not_there(tmp_path):
    tool = tmp_path / "vcgencmd"
    tool.write_text("#!/bin/sh\necho throttled=0x80008\n")  # soft temperature limit, now and since boot
    tool.chmod(tool.stat().st_mode | stat.S_IEXEC)
    assert throttled_bits(tmp_path / "missing", vcgencmd=str(tool)) == 0x80008
    assert throttled_bits(tmp_path / "missing", vcgencmd="") is None  # off a Pi: nothing to look at


def test_an_under_voltage_that_came_and_went_stays_said_until_a_reboot(tmp_path):
    h, readings, log = monitor(tmp_path, bits=0x1)
    h.check()
    readings["bits"] = 0x10000  # not now, but since boot: a supply that sagged once sags again under load
    h.check()
    assert len(log) == 1 and [f["code"] for f in h.faults()] == ["power"]


def test_a_nearly_full_sd_card_is_said_with_the_space_left_and_again_when_it_is_over(tmp_path):
    h, readings, log = monitor(tmp_path, free_mb=42.7)
    h.check()
    assert log == ["The SD card is nearly full (42 MB free): delete what you do not need (old logs: "
                   "journalctl --vacuum-size=50M). When it is full, moves can no longer be saved."]
    readings["free"] = 800.0
    h.check()
    assert log[1].startswith("over: The SD card is nearly full") and h.faults() == []
    assert [d["status"] for _, d in h.table.notices] == ["fault", "ok"]  # the phones drop the line


def test_a_healthy_pi_and_a_machine_that_is_no_pi_say_nothing(tmp_path):
    for bits in (0, None):
        h, _, log = monitor(tmp_path, bits=bits)
        h.check()
        assert log == [] and h.table.notices == [] and h.faults() == []


def test_a_camera_lost_in_a_game_is_said_in_the_log_once_and_its_return_too(tmp_path):
    h, readings, log = monitor(tmp_path, camera=True)
    h.check()
    readings["camera"] = False
    h.check()
    h.check()
    readings["camera"] = True
    h.check()
    assert len(log) == 2 and "the camera is offline: check its cable" in log[0] and "is back" in log[1]
    assert h.table.notices == []  # the phones hear it from the tray watcher already


def test_a_camera_missing_at_the_start_is_not_said_twice(tmp_path):
    h, readings, log = monitor(tmp_path, camera=False)  # StartCamera said it when the companion started
    h.check()
    assert log == []


# --- the panel's pins, held by another program -------------------------------------------------------------


class BusyPin(MockPWMPin):
    """GPIO17 is held by another program, as lgpio says it on a Pi."""

    def __init__(self, factory, info):
        if info.name == "GPIO17":
            raise OSError("GPIO busy")
        super().__init__(factory, info)


def test_pins_held_by_another_program_are_not_a_settings_error():
    from hw.panel import Panel, PinsUnavailable

    with pytest.raises(PinsUnavailable, match=r'"\w+" on GPIO17: GPIO busy'):
        Panel(Table(), None, MockFactory(pin_class=BusyPin))


def test_the_companion_starts_without_the_panel_and_every_phone_is_told(tmp_path, monkeypatch, capsys):
    import hw.panel
    from table_companion import run

    busy = MockFactory(pin_class=BusyPin)
    real = hw.panel.pin_factory_for
    monkeypatch.setattr(hw.panel, "pin_factory_for", lambda mock=None: real(True) if mock else busy)
    monkeypatch.setattr(run, "on_a_pi", lambda: True)
    monkeypatch.setattr(health_mod, "throttled_bits", lambda: None)
    (tmp_path / "s.toml").write_text("")
    ns = argparse.Namespace(demo=False, db=str(tmp_path / "g.sqlite"), config=str(tmp_path / "s.toml"),
                            host="127.0.0.1", port=None, pin=PIN, camera="synthetic", model=None)
    parts = run.build(ns)
    try:
        said = capsys.readouterr().err
        assert said.count("The panel's pins are held by another program") == 1 and "GPIO17: GPIO busy" in said
        client = parts["app"].test_client()
        faults = client.get("/api/info").get_json()["status"]["faults"]
        assert [f["code"] for f in faults] == ["panel"] and "enter the game on the phones" in faults[0]["text"]
        r = client.post("/api/commands", json={"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia"]},
                        headers={"Authorization": f"Bearer {PIN}"})
        assert r.status_code == 200  # the game goes on, entered on the phones
    finally:
        run.shutdown(parts)
