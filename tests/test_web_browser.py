"""The page in a real browser: Playwright driving Debian's chromium against waitress.

Screenshots of each game's page (390x844, a phone) go to test-output/ at the repo root.
"""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from companion.gamelog import GameLog
from companion.table import Table
from web import create_app
from web.serve import ServerThread

from support.browser import OUT, needs_chromium

PIN = "246813"
PHONE = {"width": 390, "height": 844}

pytestmark = needs_chromium

ZOMBEE = [
    {"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia", "Ann"], "variant": "standard"},
    {"cmd": "roll", "faces": ["honey", "honey", "honey", "zzz", "zzz"]}, {"cmd": "stop"},
    {"cmd": "roll", "faces": ["bee", "bee", "honey", "zzz", "zombee"]}, {"cmd": "stop"},
    {"cmd": "flip", "result": "bee"}, {"cmd": "flip", "result": "question"}, {"cmd": "choose", "player": "Tom"},
    {"cmd": "flip", "result": "bee"}, {"cmd": "flip", "result": "bee"},
    {"cmd": "roll", "faces": ["bee", "honey", "honey", "zzz", "zombee"]},
    {"cmd": "roll", "reroll": ["honey", "zzz"], "faces": ["honey", "zzz"]},
]
ZOO = [
    {"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben", "Cal"]},
    {"cmd": "kill", "player": "Ann", "count": 4}, {"cmd": "life", "player": "Ben", "delta": -2},
    {"cmd": "kill", "player": "Ben", "count": 3}, {"cmd": "bullets", "player": "Cal", "delta": 2},
    {"cmd": "kill", "player": "Cal", "count": 2}, {"cmd": "kill", "player": "Ann", "count": 4},
    {"cmd": "collect_lock", "player": "Ann", "lock": "tiger_trail"},
]


def start_site(table, **config):
    app = create_app({"TABLE": table, "PIN": PIN, "HEARTBEAT_S": 1.0, **config})
    return ServerThread(app).start()


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    log = GameLog(tmp_path_factory.mktemp("web") / "games.sqlite")
    table = Table(log).start()
    srv = start_site(table)
    yield SimpleNamespace(url=srv.url + "/", table=table, server=srv)
    srv.stop()
    table.stop()
    log.close()


@pytest.fixture
def page(browser):
    from playwright.sync_api import expect

    expect.set_options(timeout=10_000)
    context = browser.new_context(viewport=PHONE)  # a fresh phone: empty local storage
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(exc))
    yield page
    context.close()
    assert not errors, errors


def play(table, commands, source="cli"):
    for cmd in commands:
        table.submit(cmd, source)


def open_live(page, url):
    from playwright.sync_api import expect

    page.goto(url)
    expect(page.locator("#status")).to_have_text("Live")


def shot(page, name):
    OUT.mkdir(exist_ok=True)
    page.screenshot(path=str(OUT / name), full_page=True)


def test_zombee_page_shows_the_game(site, page):
    from playwright.sync_api import expect

    play(site.table, ZOMBEE)
    open_live(page, site.url)
    expect(page.locator("#now-main")).to_have_text("Ann’s turn")
    expect(page.locator("#now-sub")).to_contain_text("Ann rolls again or stops")
    expect(page.locator("#zb-players")).to_contain_text("3 honey")
    expect(page.locator("#zb-players .player.active")).to_contain_text("Ann")
    expect(page.locator("#zb-kept .die-label")).to_have_text(["Bee", "Honey", "ZomBee"])
    expect(page.locator("#zb-roll .die-label")).to_have_text(["Honey", "Zzz"])
    expect(page.locator("#zb-flowers .flower.up")).to_have_count(4)
    expect(page.locator("#zb-flowers .flower.down")).to_have_count(10)
    expect(page.locator("#zb-odds")).to_contain_text("10%")
    expect(page.locator("#zb-flower-text")).to_contain_text("3 of 11 bees, 1 of 2 question marks")  # /api/info
    # Only dice the engine lists as a legal reroll can be tapped: the Zzz, the honey, and the ZomBee it frees.
    expect(page.locator("#zb-controls .die-btn .die-label")).to_have_text(["Honey", "Zzz", "ZomBee"])
    expect(page.locator("#zb-controls .die-btn.kept")).to_have_count(1)
    expect(page.locator("#chart svg.chart-svg")).to_be_visible()
    expect(page.locator("#chart .legend")).to_contain_text("Tom: 3")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], "the page scrolls sideways on a phone"
    shot(page, "web-zombee.png")


def test_a_command_from_elsewhere_appears_without_reload(site, page):
    from playwright.sync_api import expect

    play(site.table, ZOMBEE[:1])
    open_live(page, site.url)
    page.evaluate("window.__same_page = true")
    expect(page.locator("#zb-roll")).to_contain_text("not rolled yet")
    site.table.submit({"cmd": "roll", "faces": ["bee", "bee", "honey", "zzz", "zombee"]}, "camera")
    expect(page.locator("#zb-roll .die-label")).to_have_text(["Bee", "Bee", "Honey", "Zzz", "ZomBee"])
    expect(page.locator("#events")).to_contain_text("Tom rolled Bee, Bee, Honey, Zzz, ZomBee")  # as the dice are labelled
    site.table.post({"cmd": "choose", "player": "Mia"}, "panel")  # refused: explained on the page
    expect(page.locator("#events .refused")).to_contain_text("from panel")
    assert page.evaluate("window.__same_page") is True


def test_override_form_is_refused_without_the_pin_and_works_with_it(site, page):
    from playwright.sync_api import expect

    play(site.table, ZOMBEE[:1])
    seq = site.table.state()["seq"]
    open_live(page, site.url)
    for face, n in (("Honey", 3), ("Zzz", 2)):
        for _ in range(n):
            page.get_by_role("button", name=f"one {face} more").click()
    expect(page.locator("#roll-hint")).to_have_text("5 of 5 dice entered")
    page.get_by_role("button", name="Enter roll").click()
    expect(page.locator("#ov-msg")).to_have_text("Enter the override PIN first.")
    # A PIN kept on the phone that the companion no longer takes (its PIN was changed): said at the move.
    page.evaluate("localStorage.setItem('companion.pin', '0000')")
    page.get_by_role("button", name="Enter roll").click()
    expect(page.locator("#ov-msg")).to_contain_text("PIN was not accepted")
    assert site.table.state()["seq"] == seq  # nothing changed

    save_pin(page)
    page.get_by_role("button", name="Enter roll").click()
    expect(page.locator("#ov-msg")).to_have_text("Done.")
    expect(page.locator("#zb-roll .die-label")).to_have_text(["Honey", "Honey", "Honey", "Zzz", "Zzz"])
    expect(page.locator("#events .event").first).to_contain_text("Tom rolled Honey, Honey, Honey, Zzz, Zzz")
    assert site.table.state()["seq"] == seq + 1 and site.table.records()[-1]["source"] == "web"

    page.get_by_role("button", name="Undo last move").click()  # asks first, naming the move
    expect(page.locator(".ask")).to_contain_text("Take back the last move")
    page.get_by_role("button", name="Yes, undo").click()
    expect(page.locator("#zb-roll")).to_contain_text("not rolled yet")
    # Nothing left to take back (the engine's can_undo): the button is not offered.
    expect(page.get_by_role("button", name="Undo last move")).to_be_disabled()
    page.reload()
    expect(page.locator("#pin-input")).to_have_value(PIN)  # kept in local storage


def save_pin(page):
    """Type the PIN and save it, then wait, as a player does, for the page to say the companion took
    it: the page keeps a PIN only then, so a click before that goes without it, or with a PIN kept
    before (seen on a slow machine: "Enter the override PIN first." where the panel's press was
    expected)."""
    from playwright.sync_api import expect

    page.fill("#pin-input", PIN)
    page.get_by_role("button", name="Save PIN").click()
    expect(page.locator("#ov-msg")).to_have_text("PIN saved: this phone can change the game now.")


def test_save_pin_says_at_once_whether_the_pin_is_right(site, page):
    from playwright.sync_api import expect

    play(site.table, ZOMBEE[:1])
    open_live(page, site.url)
    page.fill("#pin-input", "0000")
    page.get_by_role("button", name="Save PIN").click()
    # Said at once, not at the first move (five wrong tries there lock the phone out for 2 minutes).
    expect(page.locator("#ov-msg")).to_have_text("Wrong PIN: not saved. Type the PIN the companion shows.")
    expect(page.locator("#pin-state")).to_contain_text("Enter the PIN shown on the companion")
    assert page.evaluate("localStorage.getItem('companion.pin')") is None
    page.fill("#pin-input", PIN)
    page.get_by_role("button", name="Save PIN").click()
    expect(page.locator("#ov-msg")).to_have_text("PIN saved: this phone can change the game now.")
    expect(page.locator("#pin-state")).to_contain_text("PIN saved on this phone")
    assert page.evaluate("localStorage.getItem('companion.pin')") == PIN


def test_new_game_form_and_zoo_overrides(site, page):
    from playwright.sync_api import expect

    play(site.table, ZOMBEE[:2])  # its own ZomBee game under way (it once needed an earlier test's)
    open_live(page, site.url)
    save_pin(page)
    page.locator("#setup summary").click()
    page.select_option("#ng-game", "zoo")
    expect(page.locator("#ng-variant")).to_be_hidden()
    page.fill("#ng-players", "Ann, Ben")
    page.get_by_role("button", name="Start new game").click()
    expect(page.locator(".ask")).to_contain_text("is not finished")  # the ZomBee game under way is not dropped silently
    page.get_by_role("button", name="Yes, start a new game").click()
    expect(page.locator("#zoo-locks .lock")).to_have_count(4)
    expect(page.locator("#unfinished .game-line").first).to_contain_text("ZomBee")  # and can be resumed
    assert site.table.state()["game"] == "zoo"
    page.select_option("#zoo-player", "Ben")
    page.fill("#zoo-count", "2")
    page.get_by_role("button", name="Add kills").click()
    expect(page.locator("#zoo-players tr", has_text="Ben")).to_contain_text("2")
    for typed in ("0", ""):  # refused, in a sentence; it once quietly became one kill
        page.fill("#zoo-count", typed)
        page.get_by_role("button", name="Add kills").click()
        expect(page.locator("#ov-msg")).to_have_text("Type how many zombies Ben killed: a whole number, 1 or more.")
    assert site.table.state()["players"][1]["kills"] == 2
    page.get_by_role("button", name="−1 life").click()
    expect(page.locator("#zoo-players tr", has_text="Ben").locator(".hearts")).to_have_text("♥4")
    assert site.table.state()["players"][1]["life"] == 4


def test_zoo_page_shows_the_game(site, page):
    from playwright.sync_api import expect

    play(site.table, ZOO)
    open_live(page, site.url)
    expect(page.locator("#now-main")).to_have_text("Leader: Ann")
    expect(page.locator("#zoo-locks")).to_contain_text("Collected")
    expect(page.locator("#zoo-locks .lock-3000")).to_have_count(3)
    expect(page.locator("#zoo-release")).to_contain_text("3")
    expect(page.locator("#zoo-players tr.leader")).to_contain_text("13")
    expect(page.locator("#chart-title")).to_have_text("Score over time")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shot(page, "web-zoo.png")


def test_page_shows_offline_and_reconnects_by_itself(browser, page, tmp_path):
    from playwright.sync_api import expect

    log = GameLog(tmp_path / "games.sqlite")
    table = Table(log).start()
    try:
        play(table, ZOO[:2])
        srv = start_site(table)
        open_live(page, srv.url + "/")
        srv.stop()  # the Pi goes away
        expect(page.locator("#status")).to_contain_text("Offline")
        expect(page.locator("body")).to_have_class(re.compile("offline"))
        shot(page, "web-offline.png")
        table.submit({"cmd": "kill", "player": "Ben", "count": 5}, "cli")  # happens while away
        page.get_by_role("button", name="−1 life").click(force=True)  # a tap while away is not sent, and says so
        expect(page.locator("#ov-msg")).to_have_text("Not sent: the companion cannot be reached.")
        srv = ServerThread(create_app({"TABLE": table, "PIN": PIN, "HEARTBEAT_S": 1.0}), port=srv.port).start()
        try:
            expect(page.locator("#status")).to_have_text("Live", timeout=20_000)
            expect(page.locator("#ov-msg")).to_be_hidden()  # no longer true once back
            expect(page.locator("#zoo-players tr", has_text="Ben")).to_contain_text("5")
        finally:
            srv.stop()
    finally:
        table.stop()
        log.close()


def test_virtual_panel_in_demo_mode(browser, page, tmp_path):
    from playwright.sync_api import expect

    log = GameLog(tmp_path / "games.sqlite")
    table = Table(log).start()
    presses = []
    srv = start_site(table, DEMO_PRESS=lambda button, hold: presses.append((button, hold)),
                     DEMO_BUTTONS=["Bee", "Roll", "Undo"])
    try:
        open_live(page, srv.url + "/")
        expect(page.locator("#panel")).to_be_visible()
        expect(page.locator("#panel-buttons button")).to_have_text(["Bee", "Roll", "Undo"])
        save_pin(page)
        table.submit({"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia"]}, "cli")
        page.locator("#panel-buttons").get_by_role("button", name="Roll").click()
        expect(page.locator("#panel-msg")).to_have_text("Roll pressed.")  # next to the panel
        assert presses == [("Roll", 0.0)]
        # Roll asked the camera: its reading answers the press (it said "Roll pressed." until the next tap)
        table.submit({"cmd": "roll", "faces": ["bee", "bee", "honey", "zzz", "zombee"]}, "camera")
        expect(page.locator("#panel-msg.ok")).to_have_text("Tom rolled Bee, Bee, Honey, Zzz, ZomBee (roll 1 of 3).")
        # a move made elsewhere leaves that answer out of date: it goes
        table.submit({"cmd": "stop"}, "cli")
        expect(page.locator("#panel-msg")).to_be_hidden()
    finally:
        srv.stop()
        table.stop()
        log.close()
