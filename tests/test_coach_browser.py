"""The coach's tip and table, the dice statistics and the statistics page in a real browser, at phone size.

Screenshots go to test-output/ (coach-tip.png, coach-full.png, stats.png).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from test_web_browser import (PHONE, PIN, open_live, page, play, pytestmark, save_pin, shot,  # noqa: F401
                              start_site)

from companion.coach import coach
from companion.gamelog import GameLog
from companion.simulate import random_zombee_game
from companion.table import Table

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
LIVE = [
    {"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia", "Ann"]},
    {"cmd": "roll", "faces": ["bee", "bee", "honey", "zzz", "zombee"]},
]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    log = GameLog(tmp_path_factory.mktemp("coach") / "games.sqlite")
    for seed in range(4):
        log.import_jsonl([json.dumps(c) for c in random_zombee_game(seed)])
    log.import_jsonl((EXAMPLES / "zoo-game.jsonl").read_text().splitlines())
    table = Table(log).start()
    play(table, LIVE)
    srv = start_site(table)
    yield SimpleNamespace(url=srv.url + "/", table=table)
    srv.stop()
    table.stop()
    log.close()


def fits_the_phone(page):
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], "the page scrolls sideways"


def test_the_tip_names_the_best_choice(site, page):
    from playwright.sync_api import expect

    figures = coach(site.table.state())
    best = figures["options"][figures["best"]]
    assert best["reroll"] == ["bee", "bee", "zzz", "zombee"]
    open_live(page, site.url)
    expect(page.locator("#coach")).to_be_visible()
    expect(page.locator("#coach-tip")).to_have_text(
        "Best: roll the 2 Bees, the Zzz and the ZomBee again: honey chance 0% → 28%")
    expect(page.locator("#coach-table table")).to_have_count(0)
    fits_the_phone(page)
    shot(page, "coach-tip.png")


def test_the_full_table_needs_the_pin_and_lists_every_option(site, page):
    from playwright.sync_api import expect

    open_live(page, site.url)
    page.click("#coach-modes button[data-mode=full]")
    expect(page.locator("#insight-msg")).to_contain_text("Enter the override PIN first")
    expect(page.locator("#coach-table table")).to_have_count(0)
    save_pin(page)
    page.click("#coach-modes button[data-mode=full]")
    figures = coach(site.table.state())
    rows = page.locator("#coach-table tbody tr")
    expect(rows).to_have_count(len(figures["options"]))
    expect(rows.nth(0).locator("th")).to_have_text("Stop")
    expect(page.locator("#coach-table tr.best th")).to_have_text("★ Bee, Bee, Zzz, ZomBee")
    expect(page.locator("#coach-modes button[data-mode=full]")).to_have_attribute("aria-pressed", "true")
    fits_the_phone(page)
    page.locator("#coach").scroll_into_view_if_needed()
    shot(page, "coach-full.png")
    page.click("#coach-modes button[data-mode=off]")
    expect(page.locator("#coach")).to_be_hidden()
    page.click("#coach-modes button[data-mode=tip]")
    expect(page.locator("#coach")).to_be_visible()


def test_every_phone_follows_a_switch(site, page, browser):
    from playwright.sync_api import expect

    other = browser.new_context(viewport=PHONE).new_page()
    try:
        open_live(other, site.url)
        open_live(page, site.url)
        expect(other.locator("#coach-table table")).to_have_count(0)
        save_pin(page)
        page.click("#coach-modes button[data-mode=full]")
        expect(other.locator("#coach-table table")).to_have_count(1)
        expect(other.locator("#coach-modes button[data-mode=full]")).to_have_attribute("aria-pressed", "true")
        page.click("#coach-modes button[data-mode=off]")
        expect(other.locator("#coach")).to_be_hidden()
        page.click("#coach-modes button[data-mode=tip]")
        expect(other.locator("#coach-tip")).to_contain_text("Best:")
    finally:
        other.context.close()


def test_dice_statistics_show_on_the_page(site, page):
    from playwright.sync_api import expect

    open_live(page, site.url)
    rows = page.locator("#dice-stats tbody tr")
    expect(rows).to_have_count(4)
    expect(rows.nth(0).locator("th")).to_have_text("Bee")
    expect(page.locator("#dice-stats .verdict")).to_contain_text("p = ")


def test_the_statistics_page_fits_a_phone(site, page):
    from playwright.sync_api import expect

    page.goto(site.url + "stats")
    expect(page.locator("#st-players tr")).to_have_count(5)  # Tom, Mia, Ann and the Zoo's Ben and Cat
    expect(page.locator("#st-winrate svg")).to_be_visible()
    expect(page.locator("#st-honey svg")).to_be_visible()
    expect(page.locator("#st-score svg")).to_be_visible()
    expect(page.locator("#st-zoo tr")).to_have_count(3)
    fits_the_phone(page)
    shot(page, "stats.png")


def test_loaded_dice_are_offered_to_the_coach_with_the_pin(browser, page, tmp_path):
    from playwright.sync_api import expect

    log = GameLog(tmp_path / "games.sqlite")
    table = Table(log).start()
    loaded = [{"cmd": "roll", "faces": ["bee", "honey", "zzz", "zzz", "zzz"]}, {"cmd": "stop"},
              {"cmd": "flip", "result": "bee"}]  # the bee face: one flower for the other player
    play(table, [{"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia"]}] + loaded * 10 + loaded[:1])
    srv = start_site(table)
    try:
        open_live(page, srv.url + "/")
        expect(page.locator("#dice-stats .verdict")).to_contain_text("differ")
        save_pin(page)
        page.click("text=Let the coach use the observed chances")
        expect(page.locator("#coach-faces")).to_have_text(
            "The coach assumes (as the dice have shown): Bee 20%, Honey 20%, Zzz 60%, ZomBee 0%")
        expect(page.locator("#coach-tip")).to_contain_text("Best:")
        faces = page.request.get(srv.url + "/api/state").json()["coach"]["faces"]
        assert faces == pytest.approx({"bee": 0.2, "honey": 0.2, "zzz": 0.6, "zombee": 0.0})
        page.click("text=Coach: use the settings' dice again")
        expect(page.locator("#coach-faces")).to_contain_text("from the settings")
    finally:
        srv.stop()
        table.stop()
        log.close()



def test_the_tip_says_stop_when_stopping_is_best(site, page):
    from playwright.sync_api import expect

    play(site.table, [LIVE[0], {"cmd": "roll", "faces": ["honey", "honey", "honey", "zzz", "zzz"]}])
    assert coach(site.table.state())["best"] == 0
    open_live(page, site.url)
    expect(page.locator("#coach-tip")).to_have_text(re.compile(r"^Best: stop now \(rolling the .+ again: .+\)$"))


def test_every_column_stays_in_view_on_a_small_german_phone(site, browser):
    # German headings are the longest ("Deine Blumen", "Schlösser", "Ø Punkte"): at 320 px the coach's
    # last column ("Wert") and the statistics' last ones hid behind a sideways scroll nobody notices.
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 320, "height": 640}, locale="de-DE")
    context.add_init_script(f"localStorage.setItem('companion.pin', '{PIN}')")  # a phone that saved it
    page = context.new_page()

    def hidden_columns():
        return page.evaluate("""() => [...document.querySelectorAll('.table-wrap')]
          .filter((w) => w.scrollWidth > w.clientWidth + 0.5).map((w) => w.textContent.slice(0, 40))""")

    try:
        page.goto(site.url + "?lang=de")
        expect(page.locator("#status")).to_have_text("Verbunden")
        page.click("#coach-modes button[data-mode=full]")
        expect(page.locator("#coach-table tbody tr").first).to_be_visible()
        expect(page.locator("#coach-table thead th").last).to_have_text("Wert")
        assert hidden_columns() == []
        page.goto(site.url + "stats?lang=de")
        expect(page.locator("#st-zoo tr")).to_have_count(3)
        expect(page.locator("#st-zombee-card thead th").last).to_have_text("Runden")
        assert hidden_columns() == []
    finally:
        context.close()
