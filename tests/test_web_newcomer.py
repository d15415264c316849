"""What a newcomer met playing both games from a phone (Debian's chromium at 320 and 390 px).

The banner of a moment never lies over a control, the manual dice counters stop at the dice
thrown, the dice's words fit their dice, a Zoo game at 0 points has no leader, and "What
happened" starts afresh with each game. Fixtures and helpers are the table page's
(tests/test_web_table_page.py: a table with the panel on mock pins, pressed from the page).
"""

from __future__ import annotations

import pytest

import test_web_table_page as table_page
from support.browser import needs_chromium
from test_web_table_page import open_live, phone

browser = table_page.browser  # the table page's fixtures: its chromium, its table with the panel on mock pins
site = table_page.site

pytestmark = needs_chromium

CONTROLS = "button, a[href], input, select, summary, [role=button]"


def showing(page, state):
    """Wait (auto-waiting, no sleep) until the page shows this state."""
    from playwright.sync_api import expect

    expect(page.locator("body")).to_have_attribute("data-game", str(state["game_id"]))
    expect(page.locator("body")).to_have_attribute("data-seq", str(state["seq"]))


def covered_controls(page):
    """The visible controls where a tap (at their middle or near a corner) would land on the moment's banner."""
    return page.evaluate("""(sel) => {
      const banner = document.getElementById('moment');
      const hit = (x, y) => x >= 0 && y >= 0 && x < innerWidth && y < innerHeight
        && banner.contains(document.elementFromPoint(x, y));
      const taps = (r) => [[r.left + r.width / 2, r.top + r.height / 2], [r.left + 4, r.top + 4],
        [r.right - 4, r.top + 4], [r.left + 4, r.bottom - 4], [r.right - 4, r.bottom - 4]];
      const name = (e) => `${e.tagName} ${(e.textContent || e.id).trim().slice(0, 30)}`;
      return [...document.querySelectorAll(sel)].filter((e) => e.offsetParent !== null)
        .filter((e) => taps(e.getBoundingClientRect()).some(([x, y]) => hit(x, y)))
        .map((e) => `${name(e)} at ${Math.round(e.getBoundingClientRect().top)} px`);
    }""", CONTROLS)


@pytest.mark.parametrize("width", [320, 390])
def test_a_moments_banner_never_lies_over_a_control(browser, site, width):
    from playwright.sync_api import expect

    page = phone(browser, width)
    page.clock.install()  # the banner's 10 s go by only when the test says: it stays while we look
    table = site.table
    state = table.submit({"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben", "Cat"]}, "cli")
    open_live(page, site.url)
    showing(page, state)
    state = table.submit({"cmd": "kill", "player": "Ann", "count": 6}, "cli")  # the release clock runs
    showing(page, state)
    banner = page.locator("#moment")
    expect(banner).to_contain_text("release clock")
    for where in ("#now", "#panel", "#overrides", "footer"):  # the first screen, the panel, further down
        page.locator(where).scroll_into_view_if_needed()
        assert not covered_controls(page), f"scrolled to {where}: {covered_controls(page)}"
    # The panel's buttons take a tap while the banner is up (it used to land on the banner).
    page.locator("#panel").scroll_into_view_if_needed()
    page.locator("#panel-buttons").get_by_role("button", name="Select").click(timeout=3000)
    expect(page.locator("#panel-picked")).to_contain_text("Picked: Ann")
    page.locator("#now").scroll_into_view_if_needed()
    expect(banner).to_be_visible()
    banner.click()  # a tap puts it away
    expect(banner).to_be_hidden()
    assert not page.errors, page.errors
    page.context.close()


SENTENCES = {
    "en": {"kills": "Ann can take at most 100 kills at once.",
           "one name": "ZomBee is for 2 to 5 players, and one name was typed.",
           "twice": "Each player needs a name of their own: Ann is there twice.",
           "timers": "the timers of all 4 locks on the board move from 60:00 to 30:00"},
    "de": {"kills": "Für Ann lassen sich höchstens 100 erlegte Zombies auf einmal eintragen.",
           "one name": "ZomBee ist für 2 bis 5 Personen, und es wurde ein Name eingetragen.",
           "twice": "Jede Person braucht einen eigenen Namen: Ann steht zweimal da.",
           "timers": "die Uhren aller 4 Schlösser auf dem Spielplan springen von 60:00 auf 30:00"},
}


@pytest.mark.parametrize("lang", ["en", "de"])
def test_common_refusals_and_the_lock_steps_read_as_sentences(browser, site, lang):
    from playwright.sync_api import expect

    page = phone(browser, 390)
    words = SENTENCES[lang]
    table = site.table
    state = table.submit({"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"]}, "cli")
    open_live(page, site.url, lang)
    showing(page, state)
    page.fill("#zoo-count", "500")
    page.locator("#zoo-controls button.primary").click()  # Add kills
    # It showed the API's detail: "'count' must be from 1 to 100, got 500 in"
    expect(page.locator("#ov-msg")).to_have_text(words["kills"])
    page.locator("#setup summary").click()
    for typed, said in (("Ann", words["one name"]), ("Ann, ann", words["twice"])):
        page.fill("#ng-players", typed)
        page.locator("#new-game button[type=submit]").click()
        page.locator(".ask button.primary").click()  # yes, over the Zoo game under way
        expect(page.locator("#ov-msg")).to_have_text(said)
    assert table.state()["game_id"] == state["game_id"]
    table.submit({"cmd": "kill", "player": "Ann", "count": 6}, "cli")
    expect(page.locator("#events .event").first).to_contain_text(words["timers"])  # it read "60:00 -> 30:00"
    expect(page.locator("#events")).not_to_contain_text("->")
    assert not page.errors, page.errors
    page.context.close()


def test_the_german_page_names_its_own_buttons_and_writes_german_numbers(browser, site):
    import re

    from playwright.sync_api import expect

    page = phone(browser, 320)
    table = site.table
    state = table.submit({"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"]}, "cli")
    open_live(page, site.url, "de")
    showing(page, state)
    # Times as German writes them (the moves before the page opened read "04:35 AM").
    expect(page.locator("#events .history").first).to_have_text(re.compile(r"^\d\d:\d\d [^AP]"))
    # The hints name the buttons in German ("Halte Zurück…", "Mit Auswahl oder Schloss…"): so do the buttons
    # (they read Select, Undo, Lock), and a press says so ("Select gedrückt." on a German page). Roll throws
    # the Zoo's one die for the camera (a fight's roll or a move).
    labels = ["Auswahl", "OK", "Zurück", "Würfeln", "Erlegt", "Leben -", "Kugel -", "Schloss"]
    expect(page.locator("#panel-buttons .panel-btn:visible")).to_have_text(labels)
    expect(page.locator("#panel-picked")).to_have_text("Mit Auswahl oder Schloss ist nichts gewählt.")
    # The panel's own refusal, in German with the German labels (it read "Kill on the panel: press Select to ...").
    page.locator("#panel-buttons").get_by_role("button", name="Erlegt").click()
    expect(page.locator("#panel-msg")).to_have_text(
        "Abgelehnt: Drücke erst Auswahl, um zu wählen, wer den Zombie erlegt hat")
    page.locator("#panel-buttons").get_by_role("button", name="Auswahl").click()
    expect(page.locator("#panel-msg")).to_have_text("Auswahl gedrückt.")
    expect(page.locator('.seat[data-player="Ann"] .sr-only')).to_have_text("leuchtet")  # it said "lit"
    expect(page.locator('.seat[data-player="Ben"] .sr-only')).to_have_text("aus")  # and "off"
    expect(page.locator("#panel-sound")).to_have_text("Ein kurzer Piepton: der Tastendruck wurde angenommen.")
    # The Zoo's long beep speaks of heroes (it said "eine ZomBee, jemand ist raus oder ein Sieg" there too)
    table.submit({"cmd": "bullets", "player": "Ben", "delta": -5}, "cli")
    table.submit({"cmd": "life", "player": "Ben", "delta": -5}, "cli")
    expect(page.locator("#panel-sound")).to_have_text("Ein langer Piepton: ein Held ist raus oder ein Sieg.")
    # The coach's numbers with a decimal comma (they had the English point: "0.58").
    table.submit({"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia"]}, "cli")
    state = table.submit({"cmd": "roll", "faces": ["bee", "bee", "honey", "zzz", "zombee"]}, "cli")
    showing(page, state)
    # a move seen live says when, as the moves loaded from the log do (it had no time)
    expect(page.locator("#events .event").first).to_have_text(re.compile(r"^\d\d:\d\d Tom"))
    page.locator("#coach-modes").get_by_role("button", name="Voll").click()
    figures = page.locator("#coach-table td")
    expect(figures.first).to_be_visible()
    expect(page.locator("#dice-stats")).to_contain_text("Chi-Quadrat")
    numbers = " ".join(figures.all_inner_texts() + [page.locator("#dice-stats").inner_text()])
    assert re.search(r"\d,\d\d", numbers) and not re.search(r"\d\.\d", numbers), numbers
    # ... and shares with the space German sets before its per cent sign ("7 %"; they read "7%")
    expect(page.locator("#zb-odds strong")).to_have_text(re.compile(r"^\d+\s%$"))
    broken = page.evaluate("""() => [...document.querySelectorAll('#coach-table td')].filter((td) => {
      const r = document.createRange(); r.selectNodeContents(td); return r.getClientRects().length > 1;
    }).map((td) => td.textContent)""")
    assert not broken, f"figures broken over two lines: {broken}"  # "1,0" above "0" at 320 px
    page.locator("#coach-modes").get_by_role("button", name="Tipp").click()
    expect(page.locator("#coach-modes button[aria-pressed=true]")).to_have_text("Tipp")
    assert not page.errors, page.errors
    page.context.close()


@pytest.mark.parametrize("width, lang", [(320, "en"), (320, "de"), (390, "en"), (390, "de")])
def test_each_dies_word_fits_its_die(browser, site, width, lang):
    page = phone(browser, width)
    table = site.table
    table.submit({"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia"]}, "cli")
    table.submit({"cmd": "roll", "faces": ["bee", "honey", "zzz", "zzz", "zombee"]}, "cli")
    open_live(page, site.url, lang)
    # One die set aside: its group is one die wide, and German "Beiseite" was cut to "Beisei…". Then
    # ZomBee beside ZomBee, with four dice set aside.
    for reroll, faces in ((["honey", "zzz", "zzz", "zombee"], ["honey", "zzz", "zombee", "zombee"]),
                          (["honey"], ["zombee"])):
        showing(page, table.submit({"cmd": "roll", "reroll": reroll, "faces": faces}, "cli"))
        boxes = page.evaluate("""() => [...document.querySelectorAll('#zombee .die')].map((d) => {
          const l = d.querySelector('.die-label').getBoundingClientRect(), b = d.getBoundingClientRect();
          return {word: d.textContent, left: l.left, right: l.right, dieLeft: b.left, dieRight: b.right};
        })""")
        assert len(boxes) == 5
        # "ZomBee" was 47 px wide on a 42 px die: its letters ran into the next die's word.
        spill = [b for b in boxes if b["left"] < b["dieLeft"] - 0.5 or b["right"] > b["dieRight"] + 0.5]
        assert not spill, spill
        words = sorted(boxes, key=lambda b: b["left"])
        assert all(a["right"] <= b["left"] for a, b in zip(words, words[1:])), words
        cut = page.evaluate("""() => [...document.querySelectorAll('.dice-line .dice-group h3')]
          .filter((h) => h.offsetParent && h.scrollWidth > h.clientWidth).map((h) => h.textContent)""")
        assert not cut, f"headings cut short: {cut}"
        assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert not page.errors, page.errors
    page.context.close()


def test_the_dice_counters_stop_at_the_dice_thrown_now(browser, site):
    from playwright.sync_api import expect

    page = phone(browser, 390)
    table = site.table
    state = table.submit({"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia"]}, "cli")
    open_live(page, site.url)
    showing(page, state)
    more = lambda face: page.get_by_role("button", name=f"one {face} more")  # noqa: E731
    for _ in range(5):
        more("Bee").click()
    # The first roll throws all five dice (it let a sixth, seventh... be entered).
    for face in ("Bee", "Honey", "Zzz", "ZomBee"):
        expect(more(face)).to_be_disabled()
    expect(page.get_by_role("button", name="one Honey less")).to_be_disabled()  # none to take away
    expect(page.locator("#roll-hint")).to_have_text("5 of 5 dice entered")
    page.get_by_role("button", name="one Bee less").click()
    expect(more("Honey")).to_be_enabled()
    # A later roll throws the dice picked up: none picked, nothing to enter; two picked, two faces.
    state = table.submit({"cmd": "roll", "faces": ["bee", "bee", "honey", "zzz", "zombee"]}, "cli")
    showing(page, state)
    expect(more("Bee")).to_be_disabled()
    picks = page.locator("#zb-controls .die-btn")
    picks.nth(0).click()
    picks.nth(1).click()
    more("Honey").click()
    more("Honey").click()
    expect(more("Bee")).to_be_disabled()
    expect(page.locator("#roll-hint")).to_have_text("2 of 2 dice entered")
    assert not page.errors, page.errors
    page.context.close()


def test_nobody_leads_a_zoo_game_before_anyone_scores(browser, site):
    from playwright.sync_api import expect

    page = phone(browser, 390)
    table = site.table
    state = table.submit({"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben", "Cat"]}, "cli")
    open_live(page, site.url)
    showing(page, state)
    expect(page.locator("#now-main")).to_have_text("No points yet")  # it said "Leader: Ann, Ben, Cat"
    expect(page.locator("#now-sub")).to_have_text("next release in 6 kills")
    expect(page.locator("#zoo-players tr.leader")).to_have_count(0)
    expect(page.locator("#zoo-players .star")).to_have_count(0)
    state = table.submit({"cmd": "kill", "player": "Ben", "count": 1}, "cli")
    showing(page, state)
    expect(page.locator("#now-main")).to_have_text("Leader: Ben")
    expect(page.locator("#zoo-players tr.leader")).to_contain_text("Ben")
    assert not page.errors, page.errors
    page.context.close()


ONE = {
    "en": {"stats": "1 finished game: 0 ZomBee, 1 Zombie Zoo (2 not finished, not counted). 2 players.",
           "move": "· one move",
           "rolls": "From the first roll of each turn: 1 roll, 5 dice.", "history": "one move"},
    "de": {"stats": "1 beendetes Spiel: 0 ZomBee, 1 Zombie Zoo (2 nicht beendet, nicht gezählt). 2 Mitspielende.",
           "move": "· ein Zug",
           "rolls": "Aus dem ersten Wurf jedes Zugs: 1 Wurf, 5 Würfel.", "history": "ein Zug"},
}


@pytest.mark.parametrize("lang", ["en", "de"])
def test_one_of_a_kind_is_said_in_the_singular(browser, tmp_path, lang):
    from playwright.sync_api import expect

    from companion.gamelog import GameLog
    from companion.table import Table
    from web import create_app
    from web.serve import ServerThread

    log = GameLog(tmp_path / "games.sqlite")  # a log of its own: the counts are this test's
    table = Table(log).start()
    srv = ServerThread(create_app({"TABLE": table, "PIN": table_page.PIN, "HEARTBEAT_S": 1.0})).start()
    page = phone(browser, 390)
    try:
        for cmd in ({"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"]},
                    {"cmd": "bullets", "player": "Ben", "delta": -5}, {"cmd": "life", "player": "Ben", "delta": -5},
                    {"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia"]},  # left after one move
                    {"cmd": "new_game", "game": "zombee", "players": ["Ann", "Ben"]},
                    {"cmd": "roll", "faces": ["bee", "bee", "honey", "zzz", "zombee"]}):
            state = table.submit(cmd, "cli")
        words = ONE[lang]
        open_live(page, srv.url + "/", lang)
        showing(page, state)
        expect(page.locator("#unfinished .game-line")).to_contain_text(words["move"])  # "· 1 moves"
        expect(page.locator("#dice-stats")).to_contain_text(words["rolls"])  # "1 rolls, 5 dice"
        page.goto(f"{srv.url}/stats?lang={lang}")
        expect(page.locator("#st-summary")).to_have_text(words["stats"])  # "1 finished games"
        page.goto(f"{srv.url}/history?lang={lang}")
        expect(page.locator("#hi-games .game-line").nth(1)).to_contain_text(words["history"])
        assert not page.errors, page.errors
    finally:
        page.context.close()
        srv.stop()
        table.stop()
        log.close()


def test_what_happened_shows_only_the_game_on_the_table(browser, site):
    from playwright.sync_api import expect

    page = phone(browser, 390)
    table = site.table
    zoo = table.submit({"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"]}, "cli")
    state = table.submit({"cmd": "kill", "player": "Ann", "count": 2}, "cli")
    open_live(page, site.url)
    showing(page, state)
    events = page.locator("#events")
    table.submit({"cmd": "kill", "player": "Ben", "count": 3}, "cli")
    expect(events).to_contain_text("Ben killed 3 Zombies")
    state = table.submit({"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia"]}, "cli")
    showing(page, state)
    expect(events).to_contain_text("Tom")
    # The Zoo game's lines went with it (they stayed under the new game's).
    expect(events).not_to_contain_text("killed")
    state = table.submit({"cmd": "roll", "faces": ["bee", "bee", "honey", "zzz", "zombee"]}, "cli")
    expect(events.locator(".event").first).to_contain_text("Tom rolled")
    # Back to the Zoo game: its own moves again, the ZomBee game's gone.
    state = table.resume(zoo["game_id"], "cli")
    showing(page, state)
    expect(events.locator(".event").first).to_contain_text("continues")
    expect(events).to_contain_text("Ben killed 3")
    expect(events).not_to_contain_text("Tom")
    assert not page.errors, page.errors
    page.context.close()
