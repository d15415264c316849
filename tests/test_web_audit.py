"""What a page audit at phone sizes found (Debian's chromium at 320 and 390 px, English and German).

The Zoo's controls offer only what the engine lists in `legal`; the header keeps its words whole while
offline; the German headline and badges say whose turn it is and who acts in different words; a short
name and every drop count read whole in a tournament; the locks' words and the dice statistics fit a
320 px phone; the dice to pick are announced in German. Fixtures and helpers are the
table page's (tests/test_web_table_page.py: a table with the panel on mock pins, pressed from the page).
"""

from __future__ import annotations

import re

import pytest

import test_web_table_page as table_page
from support.browser import OUT, needs_chromium
from test_web_newcomer import showing
from test_web_table_page import open_live, phone

browser = table_page.browser  # the table page's fixtures: its chromium, its table with the panel on mock pins
site = table_page.site

pytestmark = needs_chromium


def played(browser, site, width, commands, lang="en"):
    """A phone `width` px wide, live on the table once these commands (sent as the CLI sends them) are
    played: (page, the state after the last)."""
    page = phone(browser, width)
    for cmd in commands:
        state = site.table.submit(cmd, "cli")
    open_live(page, site.url, lang)
    showing(page, state)
    return page, state


FIRST_ROLL = [{"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia"]},
              {"cmd": "roll", "faces": ["bee", "bee", "honey", "zzz", "zombee"]}]


def test_the_zoo_controls_offer_only_what_the_engine_allows(browser, site):
    from playwright.sync_api import expect

    table = site.table
    page, state = played(browser, site, 390, [
        {"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben", "Cat"]},
        {"cmd": "bullets", "player": "Cat", "delta": -5}, {"cmd": "life", "player": "Cat", "delta": -5},
        {"cmd": "life", "player": "Ben", "delta": -4}])  # Ben: 1 life left, 5 bullets
    # Cat is out: she is not offered (a tap for her was refused "Cat is out of the game").
    expect(page.locator("#zoo-player option")).to_have_text(["Ann", "Ben"])
    page.select_option("#zoo-player", "Ben")
    life_down = page.get_by_role("button", name="−1 life")
    bullet_down = page.get_by_role("button", name="−1 bullet")
    # The last life waits for the bullets: greyed out, with the reason beside it (it took the tap, then refused).
    expect(life_down).to_be_disabled()
    expect(bullet_down).to_be_enabled()
    expect(page.locator("#zoo-hint")).to_have_text("Ben must spend every bullet before losing the last life.")
    state = table.submit({"cmd": "bullets", "player": "Ben", "delta": -5}, "cli")
    showing(page, state)
    expect(page.locator("#zoo-player")).to_have_value("Ben")  # the hero picked stays picked
    expect(bullet_down).to_be_disabled()  # it was offered at 0 and refused: "Ben has only 0 bullets."
    expect(life_down).to_be_enabled()
    expect(page.locator("#zoo-hint")).to_have_text("Ben has no bullets left.")
    page.select_option("#zoo-player", "Ann")
    expect(bullet_down).to_be_enabled()
    expect(page.locator("#zoo-hint")).to_be_hidden()
    # Ben's last life ends the game: only Undo is left (every control stayed, and every tap was refused).
    state = table.submit({"cmd": "life", "player": "Ben", "delta": -1}, "cli")
    showing(page, state)
    assert state["over"] and state["legal"] == []
    controls = page.locator("#zoo-controls")
    expect(controls.locator("button:visible")).to_have_text(["Undo last move"])
    expect(controls.locator("select, input")).to_have_count(0)
    expect(controls.get_by_role("button", name="Undo last move")).to_be_enabled()
    assert not page.errors, page.errors
    page.context.close()


def test_the_zoo_controls_say_why_no_lock_can_be_taken(browser, site):
    # Once every lock is off the board, Collect is greyed out beside an empty list: it said nothing.
    from playwright.sync_api import expect

    from companion.commands import LOCKS

    page, _ = played(browser, site, 320, [{"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"]}]
                         + [{"cmd": "collect_lock", "player": "Ann", "lock": lock} for lock in LOCKS])
    expect(page.get_by_role("button", name="Collect")).to_be_disabled()
    expect(page.locator("#zoo-hint")).to_have_text("No lock is left on the board to collect.")
    expect(page.get_by_role("button", name="Animals cleared")).to_be_visible()  # what is left to do
    assert not page.errors, page.errors
    page.context.close()


def test_a_move_taken_back_leaves_the_chart(browser, site):
    # A kill taken back stayed on the score chart as a spike (Tim up to 9, back to 0), and a long name
    # at a line's end was cut off mid-letter by the chart's edge ("Maximili").
    from playwright.sync_api import expect

    page, _ = played(browser, site, 360, [
        {"cmd": "new_game", "game": "zoo", "players": ["Tim", "Maximilian-Alexander"]},
        {"cmd": "kill", "player": "Tim", "count": 2}])
    chart = page.locator("#chart svg.chart-svg")
    expect(chart).to_contain_text("moves (1)")
    expect(chart.locator(".end-label")).to_have_text(["Tim", re.compile(r"^Max\w*…$")])
    showing(page, site.table.submit({"cmd": "kill", "player": "Tim", "count": 9}, "cli"))
    expect(chart).to_contain_text("moves (2)")
    showing(page, site.table.submit({"cmd": "undo"}, "cli"))
    expect(chart).to_contain_text("moves (1)")  # the game and Tim's 2: not the 9 and its undo
    expect(page.locator("#chart .legend")).to_contain_text("Tim: 2")
    assert not page.errors, page.errors
    OUT.mkdir(exist_ok=True)
    page.locator("#chart").screenshot(path=str(OUT / "chart-undo-long-name.png"))
    page.context.close()


HEADER_WORDS = """() => [...document.querySelectorAll('header.bar a, header.bar .status')].filter((e) => e.offsetParent)
  .map((e) => { const r = document.createRange(); r.selectNodeContents(e);
    const lines = new Set([...r.getClientRects()].map((b) => Math.round(b.top))).size;
    const b = e.getBoundingClientRect();
    return {text: e.textContent.trim(), lines, width: b.width, left: b.left, right: b.right}; })"""


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_header_keeps_its_words_whole_while_offline_on_a_narrow_phone(browser, site, lang):
    from playwright.sync_api import expect

    page = phone(browser, 320)
    site.table.submit({"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"]}, "cli")
    open_live(page, site.url, lang)
    page.context.set_offline(True)  # the phone's Wi-Fi drops
    expect(page.locator("#status.offline")).to_be_visible(timeout=20_000)
    words = page.evaluate(HEADER_WORDS)
    # German "Offline · neuer Versuch läuft" squeezed "Einladen" into one letter a line, DE over EN.
    links = [w for w in words if w["text"] != page.locator("#status").inner_text()]
    assert all(w["lines"] == 1 for w in links), words
    assert page.locator("header.bar").bounding_box()["height"] <= 80, words
    across = sorted(words, key=lambda w: w["left"])
    assert all(a["right"] <= b["left"] + 0.5 for a, b in zip(across, across[1:])), f"overlapping: {words}"
    # The language switch is a thumb wide, not only a thumb tall (DE and EN were 32 px wide).
    assert all(w["width"] >= 44 for w in words if w["text"] in ("DE", "EN")), words
    assert page.evaluate("document.documentElement.scrollWidth") <= 320
    page.context.set_offline(False)
    expect(page.locator("#status.live")).to_be_visible(timeout=20_000)
    page.context.close()


def test_the_german_headline_says_whose_turn_and_who_acts_in_words_that_differ(browser, site):
    from playwright.sync_api import expect

    page, _ = played(browser, site, 390, [
        {"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia", "Ann"]},
        {"cmd": "roll", "faces": ["bee", "bee", "bee", "honey", "zzz"]},
        {"cmd": "stop"}], "de")  # three bees: Mia, Ann, Mia each owe a flower
    # It read "Tom ist dran" over Mia's badge "Ist dran", and "(3 Blumen offen)" where the flowers card
    # says "offen" for face up ("14 verdeckt · offen: 0 von 11 Bienen").
    expect(page.locator("#now-main")).to_have_text("Tom ist am Zug")
    expect(page.locator("#now-sub")).to_have_text("Jetzt: Mia dreht eine Blume um (3 Blumen umzudrehen)")
    expect(page.locator("#zb-players .player", has_text="Tom").locator(".badge")).to_have_text(["Am Zug"])
    expect(page.locator("#zb-players .player", has_text="Mia").locator(".badge")).to_have_text(["Jetzt gefragt"])
    assert not page.errors, page.errors
    page.context.close()


@pytest.mark.parametrize("width, lang", [(320, "en"), (320, "de"), (390, "en"), (390, "de")])
def test_a_short_name_and_every_drop_count_read_whole_in_a_tournament(browser, site, width, lang):
    from playwright.sync_api import expect

    page, state = played(browser, site, width, [
        {"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia", "Ann"], "variant": "tournament"},
        {"cmd": "roll", "faces": ["honey", "honey", "honey", "zombee", "bee"]},
        {"cmd": "stop"}], lang)  # Tom takes a drop (2) and turns the first flower himself
    assert state["pending"] == "Tom"
    tom = page.locator("#zb-players .player", has_text="Tom")
    # His turn ("▶" and the headline) and he acts now: one badge. "▶ Tom" was cut to "▶ T…" at 320 px,
    # beside two badges ("Turn", "Acts now") and a row of drops.
    expect(tom.locator(".badge")).to_have_count(1)
    expect(page.locator("#now-main")).to_contain_text("Tom")
    name = tom.locator(".player-name")
    assert name.evaluate("(e) => e.scrollWidth <= e.clientWidth"), name.inner_text()
    # Each count stands beside its drop: the green count 0 stood alone ("💧1 0": a 0 of what?).
    for drops in page.locator("#zb-players .drops").all():
        assert drops.locator(".icon:visible").count() >= 1, drops.inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert not page.errors, page.errors
    page.context.close()


@pytest.mark.parametrize("lang", ["en", "de"])
def test_a_locks_state_reads_whole_on_a_narrow_phone(browser, site, lang):
    page, _ = played(browser, site, 320, [
        {"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"]},
        {"cmd": "collect_lock", "player": "Ben", "lock": "lions_den"},
        {"cmd": "kill", "player": "Ann", "count": 8}], lang)  # two steps: the others removed
    # German "Genommen" broke as "Genomme" over "n" in its 136 px card, "Hyänenversteck" read "Hyänenverst…".
    broken = page.evaluate("""() => [...document.querySelectorAll('#zoo-locks .lock-state, #zoo-locks .lock-name')].filter((e) => {
      const r = document.createRange(); r.selectNodeContents(e);
      return new Set([...r.getClientRects()].map((b) => Math.round(b.top))).size > 1
        || e.scrollWidth > e.clientWidth; }).map((e) => e.textContent)""")
    assert not broken, broken
    assert page.evaluate("document.documentElement.scrollWidth") <= 320
    assert not page.errors, page.errors
    page.context.close()


def test_a_screen_reader_hears_the_dice_to_pick_in_german(browser, site):
    from playwright.sync_api import expect

    page, _ = played(browser, site, 390, FIRST_ROLL, "de")
    # The group of dice to tap was announced in English ("dice picked up") on the German page.
    expect(page.get_by_role("group", name="wieder aufgenommene Würfel")).to_be_visible()
    assert not page.errors, page.errors
    page.context.close()


@pytest.mark.parametrize("lang", ["en", "de"])
def test_what_the_dice_really_do_fits_a_narrow_phone(browser, site, lang):
    from playwright.sync_api import expect

    page, _ = played(browser, site, 320, FIRST_ROLL, lang)
    stats = page.locator("#dice-stats")
    expect(stats.locator("table")).to_be_visible()
    # The last column ("Assumed") was cut to "Assum" and its figures to "3", behind a sideways scroll.
    wide = stats.evaluate("(e) => [e.querySelector('table').getBoundingClientRect().width, e.clientWidth]")
    assert wide[0] <= wide[1] + 0.5, f"the table is {wide[0]:.0f} px wide in {wide[1]} px"
    assert not page.errors, page.errors
    page.context.close()
