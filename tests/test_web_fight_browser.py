"""The Zoo's fight on a phone, in Chromium at 320 and 390 px, in English and German.

Screenshots go to test-output/ (web-fight-*.png).
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from companion.gamelog import GameLog
from companion.table import Table
from web import create_app
from web.serve import ServerThread

from support.browser import OUT, needs_chromium

PIN = "246813"
pytestmark = needs_chromium


@pytest.fixture
def site(tmp_path):
    log = GameLog(tmp_path / "games.sqlite")
    table = Table(log).start()
    srv = ServerThread(create_app({"TABLE": table, "PIN": PIN, "HEARTBEAT_S": 1.0})).start()
    table.submit({"cmd": "new_game", "game": "zoo", "players": ["Ann", "Benedikt", "Cat"]}, "cli")
    yield SimpleNamespace(url=srv.url + "/", table=table)
    srv.stop()
    table.stop()
    log.close()


def phone(browser, width, site, lang="en"):
    from playwright.sync_api import expect

    expect.set_options(timeout=10_000)
    context = browser.new_context(viewport={"width": width, "height": 800})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(exc))
    page.goto(site.url + f"?lang={lang}")
    page.evaluate(f"localStorage.setItem('companion.pin', '{PIN}')")
    page.reload()
    expect(page.locator("#status")).not_to_have_text("Connecting…")
    return context, page, errors


def shot(page, name):
    OUT.mkdir(exist_ok=True)
    page.locator("#zoo").screenshot(path=str(OUT / name))


def fits(page, width):
    assert page.evaluate("document.documentElement.scrollWidth") <= width


@pytest.mark.parametrize("width", [320, 390])
def test_a_fight_from_the_page_with_the_camera_s_roll_and_its_correction(browser, site, width):
    from playwright.sync_api import expect

    context, page, errors = phone(browser, width, site)
    fight = page.locator("#zoo-fight")
    expect(page.locator("#zoo-fighters")).to_contain_text("Who fights a zombie?")
    page.locator("#zoo-fighters").get_by_role("button", name="Ann").click()
    expect(fight).to_contain_text("Ann fights a zombie: roll the die.")
    fits(page, width)
    shot(page, f"web-fight-open-{width}.png")
    site.table.submit({"cmd": "fight", "player": "Ann", "roll": 2}, "camera")  # as the tray watcher sends it
    expect(fight).to_contain_text("Ann rolled 2: spend 2 bullets or lose a life and roll again.")
    expect(fight.get_by_role("button", name="Spend 2 bullets")).to_be_visible()
    expect(fight).to_contain_text("The camera read 2. Wrong? Tap what the die shows:")
    fits(page, width)
    shot(page, f"web-fight-choice-{width}.png")
    fight.get_by_role("button", name="the die shows 5").click()  # the die showed 5: one tap
    expect(page.locator("#zoo-fighters")).to_contain_text("Who fights a zombie?")
    expect(fight).to_be_hidden()
    expect(page.locator("#zoo-players tr").first).to_contain_text("1")
    state = site.table.state()
    assert state["fight"] is None and state["players"][0]["kills"] == 1
    assert [r["command"].get("roll") for r in site.table.records()[-2:]] == [None, 5]  # the camera's 2 went back
    context.close()
    assert not errors, errors


def test_the_choices_are_the_legal_ones_and_the_page_speaks_german(browser, site):
    from playwright.sync_api import expect

    for cmd in ({"cmd": "life", "player": "Ann", "delta": -4}, {"cmd": "fight", "player": "Ann"},
                {"cmd": "fight", "player": "Ann", "roll": 1}):
        site.table.submit(cmd, "cli")
    for width in (320, 390):
        context, page, errors = phone(browser, width, site, "de")
        fight = page.locator("#zoo-fight")
        expect(fight).to_contain_text("Ann würfelt 1: 3 Kugeln einsetzen, denn Kugeln gehen vor dem letzten Leben.")
        expect(fight.get_by_role("button")).to_have_count(1)  # the last life waits for the bullets
        fits(page, width)
        shot(page, f"web-fight-de-{width}.png")
        context.close()
        assert not errors, errors
    context, page, errors = phone(browser, 390, site)
    page.locator("#zoo-fight").get_by_role("button", name="Spend 3 bullets").click()
    expect(page.locator("#zoo-fighters")).to_contain_text("Who fights a zombie?")
    assert site.table.state()["players"][0]["bullets"] == 2
    context.close()
    assert not errors, errors


def test_a_fight_waiting_for_its_roll_takes_it_from_the_page_in_german(browser, site):
    from playwright.sync_api import expect

    site.table.submit({"cmd": "fight", "player": "Cat"}, "cli")
    context, page, errors = phone(browser, 320, site, "de")
    fight = page.locator("#zoo-fight")
    expect(fight).to_contain_text("Cat kämpft gegen einen Zombie")
    fight.get_by_role("button", name="der Würfel zeigt 3").click()
    expect(fight).to_contain_text("Ein Leben abgeben, neu würfeln")
    fits(page, 320)
    shot(page, "web-fight-de-choice-320.png")
    context.close()
    assert not errors, errors
