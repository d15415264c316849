"""The page as players use it at the table (issue 12), in Debian's chromium at phone widths.

Whole short games of both kinds with the longest names the engine accepts: the page is never
wider than the phone, the one-glance block is on the first screen, the virtual panel mirrors the
box, a refused press is shown beside the panel, a restart is seen by a page left open, a tap
that would lose something asks first. Screenshots of each step go to test-output/table-*.png.
"""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from companion.commands import MAX_NAME_CHARS
from companion.gamelog import GameLog
from companion.table import Table
from web import create_app
from web.serve import ServerThread

from support.browser import OUT, chromium, needs_chromium

PIN = "246813"
HEIGHT = 844
WIDTHS = (320, 360, 390, 430)

pytestmark = needs_chromium


def long_names(n):
    """Unique names of exactly the longest length the engine accepts."""
    return [f"Alexandra Maximiliane von Hohenzollern {i}".ljust(MAX_NAME_CHARS, "x")[:MAX_NAME_CHARS] for i in range(n)]


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import expect

    expect.set_options(timeout=10_000)
    with chromium() as b:
        yield b


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A table with a real panel on mock pins, pressed from the page as in demo mode."""
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    from hw.panel import Panel

    log = GameLog(tmp_path_factory.mktemp("table") / "games.sqlite")
    table = Table(log).start()
    panel = Panel(table, pin_factory=MockFactory(pin_class=MockPWMPin)).start()
    app = create_app({"TABLE": table, "PIN": PIN, "HEARTBEAT_S": 1.0, "DEMO_PRESS": panel.press,
                      "DEMO_BUTTONS": panel.buttons, "STATUS": lambda: {"demo": True, "panel": panel.snapshot()}})
    srv = ServerThread(app).start()
    yield SimpleNamespace(url=srv.url + "/", table=table, panel=panel)
    srv.stop()
    panel.close()
    table.stop()
    log.close()


def phone(browser, width):
    context = browser.new_context(viewport={"width": width, "height": HEIGHT})
    context.add_init_script(f"localStorage.setItem('companion.pin', '{PIN}')")
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(exc))
    return page


def open_live(page, url, lang="en"):
    from playwright.sync_api import expect

    page.goto(f"{url}?lang={lang}")
    expect(page.locator("#status.live")).to_be_visible()


def shown(page, state):
    """Wait until the page shows this state."""
    page.wait_for_function("([g, s]) => document.body.dataset.game === g && document.body.dataset.seq === s",
                           arg=[str(state["game_id"]), str(state["seq"])])


def fits(page, width, what):
    wide = page.evaluate("document.documentElement.scrollWidth")
    if wide > width:  # name the culprits
        culprits = page.evaluate("""(w) => [...document.querySelectorAll('body *')]
          .filter((e) => e.getBoundingClientRect().right > w + 0.5).slice(0, 6)
          .map((e) => `${e.tagName}#${e.id}.${e.className}: ${Math.round(e.getBoundingClientRect().width)} px`)""", width)
        raise AssertionError(f"{what}: the page is {wide} px wide on a {width} px phone: {culprits}")


def bottom(page, selector):
    box = page.locator(selector).bounding_box()
    assert box is not None, f"{selector} is not shown"
    return box["y"] + box["height"]


def in_first_screen(page, selectors, what):
    for sel in selectors:
        for i in range(page.locator(sel).count()):
            if page.locator(sel).nth(i).is_hidden():  # (the set-aside dice when none are set aside)
                continue
            b = bottom(page, f"{sel} >> nth={i}")
            assert b <= HEIGHT, f"{what}: {sel} #{i} ends at {b:.0f} px, below the first screen"


def shot(page, name):
    OUT.mkdir(exist_ok=True)
    page.screenshot(path=str(OUT / name))


def zombee_moves(state):
    """A short game: every first roll five ZomBees, every flower the ZomBee (someone pays each turn)."""
    if state["phase"] == "roll":
        return {"cmd": "roll", "faces": ["zombee"] * 5}
    if any(m["cmd"] == "flip" for m in state["legal"]):
        return {"cmd": "flip", "result": "zombee"}
    return next(m for m in state["legal"] if m["cmd"] == "choose")


ZOMBEE_GLANCE = ["#now", "#zb-players li", "#zb-kept", "#zb-roll", "#zb-odds"]


# The widths in English, and the narrowest and widest in German (longer words).
SIZES = [(w, "en") for w in WIDTHS] + [(320, "de"), (430, "de")]
WORDS = {
    "en": {"chooses": "chooses", "choose first": "must first choose", "wins": "wins", "game over": "Game over",
           "over": "The game is over"},
    "de": {"chooses": "wählt", "choose first": "muss erst wählen", "wins": "gewinnt", "game over": "Spielende",
           "over": "Das Spiel ist vorbei"},
}


@pytest.mark.parametrize("width, lang", SIZES)
def test_a_whole_zombee_game_fits_and_shows_everything_at_a_glance(browser, site, width, lang):
    from playwright.sync_api import expect

    page = phone(browser, width)
    names = long_names(5)
    table = site.table
    variant = "tournament" if lang == "de" and width == 320 else "standard"  # green drops too, narrowest
    state = table.submit({"cmd": "new_game", "game": "zombee", "players": names, "variant": variant}, "cli")
    open_live(page, site.url, lang)
    words = WORDS[lang]
    shown(page, state)
    opening = [{"cmd": "roll", "faces": ["bee", "bee", "honey", "zzz", "zombee"]},
               {"cmd": "roll", "reroll": ["honey"], "faces": ["bee"]}, {"cmd": "stop"},
               {"cmd": "flip", "result": "bee"}, {"cmd": "flip", "result": "question"}]
    step = 0
    for cmd in opening:
        state = table.submit(cmd, "cli")
        shown(page, state)
        fits(page, width, f"after {cmd}")
        in_first_screen(page, ZOMBEE_GLANCE, f"after {cmd}")
        shot(page, f"table-zombee-{lang}-{width}-{step:02d}.png")
        step += 1
    expect(page.locator("#zb-owed")).to_contain_text(names[2])  # the flowers still owed, by whom
    expect(page.locator("#zb-kept .die")).to_have_count(4)
    expect(page.locator("#now-sub")).to_contain_text(words["chooses"])
    panel_top = page.locator("#panel").bounding_box()["y"]
    assert panel_top < HEIGHT, f"the virtual panel starts at {panel_top:.0f} px, below the first screen"
    # A refused command from the panel: a sentence about the game, next to the panel, never JSON.
    table.post({"cmd": "flip", "result": "bee", "player": names[1]}, "panel")
    expect(page.locator("#panel-msg.refused")).to_contain_text(words["choose first"])
    expect(page.locator("#events .refused").first).not_to_contain_text("{")
    fits(page, width, "a refusal")
    while not state["over"]:
        state = table.submit(zombee_moves(state), "cli")
        shown(page, state)
        fits(page, width, f"move {state['seq']}")
        if step % 3 == 0 or state["over"]:
            shot(page, f"table-zombee-{lang}-{width}-{step:02d}.png")
        step += 1
    expect(page.locator("#now-main")).to_contain_text(words["wins"])
    expect(page.locator("#moment")).to_contain_text(words["wins"])  # the banner
    if not state["last_roll"]:  # a finished game's dice: nothing to read, not "not rolled yet"
        expect(page.locator("#zb-roll")).to_have_text("—")
    in_first_screen(page, ["#now", "#zb-players li"], "game over")
    assert not page.errors, page.errors
    page.context.close()


def zoo_script(names):
    a, b, c, d, e, f = names
    dies = lambda who, bullets=5: [{"cmd": "bullets", "player": who, "delta": -bullets},  # noqa: E731
                                   {"cmd": "life", "player": who, "delta": -5}]
    return ([{"cmd": "kill", "player": a, "count": 4}, {"cmd": "collect_lock", "player": a, "lock": "tiger_trail"},
             {"cmd": "collect_lock", "player": c, "lock": "polar_bears"}, {"cmd": "kill", "player": b, "count": 4},
             {"cmd": "kill", "player": c, "count": 9}, {"cmd": "bullets", "player": d, "delta": 2}]
            + dies(b) + dies(d, 7) + dies(e) + dies(f) + dies(c))


@pytest.mark.parametrize("width, lang", SIZES)
def test_a_whole_zoo_game_with_six_heroes_fits_the_phone(browser, site, width, lang):
    from playwright.sync_api import expect

    page = phone(browser, width)
    names = long_names(6)
    table = site.table
    state = table.submit({"cmd": "new_game", "game": "zoo", "players": names}, "cli")
    open_live(page, site.url, lang)
    words = WORDS[lang]
    shown(page, state)
    glance = ["#now", "#zoo-locks .lock", "#zoo-players tr", "#zoo-release"]
    asked = 0
    for step, cmd in enumerate(zoo_script(names)):
        state = table.submit(cmd, "cli")
        shown(page, state)
        fits(page, width, f"after {cmd}")
        if step % 3 == 0 or state["over"]:
            in_first_screen(page, glance, f"after {cmd}")
            shot(page, f"table-zoo-{lang}-{width}-{step:02d}.png")
        cleared = page.locator("#zoo-controls button.animals-cleared")
        if any(m["cmd"] == "animals_cleared" for m in state["legal"]):  # offered once no lock is on the board
            expect(cleared).to_have_count(1)
        else:
            expect(cleared).to_have_count(0)
        if any(m["cmd"] == "animals_cleared" for m in state["legal"]) and not asked:
            cleared.click()  # ends the game: asks first
            expect(page.locator(".ask")).to_be_visible()
            page.locator(".ask button").last.click()  # keep the game going
            expect(page.locator(".ask")).to_have_count(0)
            assert table.state()["seq"] == state["seq"]
            asked += 1
    assert state["over"] and asked
    panel_top = page.locator("#panel").bounding_box()["y"]
    assert panel_top < HEIGHT, f"the virtual panel starts at {panel_top:.0f} px, below the first screen"
    expect(page.locator("#zoo-players tr.dead")).to_have_count(5)
    expect(page.locator("#moment")).to_contain_text(words["game over"])
    # The longest refusals, from the panel and from this phone: plain words, still within the phone.
    table.post({"cmd": "kill", "player": names[1], "count": 1}, "panel")
    expect(page.locator("#events .refused").first).to_contain_text(words["over"])
    fits(page, width, "refusals")
    shot(page, f"table-zoo-{lang}-{width}-refused.png")
    assert not page.errors, page.errors
    page.context.close()


def test_the_panel_on_the_page_shows_what_the_box_shows(browser, site):
    from playwright.sync_api import expect

    page = phone(browser, 390)
    page.clock.install()  # the page's timers (the Undo hold) move when the test says so
    table = site.table
    state = table.submit({"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben", "Cat"]}, "cli")
    open_live(page, site.url)
    shown(page, state)
    buttons = page.locator("#panel-buttons")
    expect(buttons.get_by_role("button", name="Bee", exact=True)).to_be_hidden()  # ZomBee's buttons hide in the Zoo
    buttons.get_by_role("button", name="Select").click()
    # a player sees each press answered before the next (a second tap while the first was on its way
    # was lost once in a CI run: Picked: Ann)
    expect(page.locator("#panel-picked")).to_contain_text("Picked: Ann")
    buttons.get_by_role("button", name="Select").click()
    expect(page.locator("#panel-picked")).to_contain_text("Picked: Ben")
    expect(page.locator('.seat-on[data-player="Ben"]')).to_be_visible()  # Ben's seat light
    buttons.get_by_role("button", name="Lock").click()
    expect(page.locator("#panel-picked")).to_contain_text("Lock:")
    expect(page.locator('.seat-blink[data-player="Ben"]')).to_be_visible()
    shot(page, "table-panel-zoo.png")
    state = table.submit({"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia"]}, "cli")
    shown(page, state)
    buttons.get_by_role("button", name="Bee", exact=True).click()  # no flower is owed: refused by the engine
    msg = page.locator("#panel-msg.refused")
    expect(msg).to_contain_text("Refused: No flower is owed now")
    expect(page.locator("#panel-sound")).to_contain_text("Three short beeps")
    box, panel = msg.bounding_box(), page.locator("#panel").bounding_box()
    assert panel["y"] <= box["y"] and box["y"] + box["height"] <= panel["y"] + panel["height"]  # beside the buttons
    shot(page, "table-panel-refused.png")
    undo = buttons.get_by_role("button", name="Undo (hold for a second)")
    undo.click()  # let go at once
    expect(page.locator("#panel-msg")).to_have_text("Hold Undo for a second to take back the last move.")
    undo.dispatch_event("pointerdown")
    expect(undo).to_have_class("btn panel-btn holding")  # the hold fills up
    undo.dispatch_event("pointerup")
    assert table.state()["seq"] == state["seq"]  # a short hold undoes nothing
    rolled = table.submit({"cmd": "roll", "faces": ["honey", "honey", "honey", "zzz", "zzz"]}, "cli")
    shown(page, rolled)
    page.mouse.move(0, 0)  # (the mouse left over a button would leave it when the page below it moves)
    undo.dispatch_event("pointerdown")
    page.clock.run_for(site.panel.hold_time * 1000)  # held for the box's hold time: the press goes at once
    expect(page.locator("#panel-msg")).to_contain_text(re.compile("Taking back the last move|taken back"))
    undo.dispatch_event("pointerup")
    expect(page.locator("#panel-msg.ok")).to_contain_text("taken back")  # the box held Undo: the roll is gone
    assert table.state()["rolls"] == 0
    assert not page.errors, page.errors
    page.context.close()


def test_undo_and_a_new_game_ask_first_and_an_unfinished_game_comes_back(browser, site):
    from playwright.sync_api import expect

    page = phone(browser, 360)
    table = site.table
    first = table.submit({"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia"]}, "cli")
    state = table.submit({"cmd": "roll", "faces": ["honey", "honey", "honey", "zzz", "zzz"]}, "cli")
    open_live(page, site.url)
    shown(page, state)
    # The moves before the page opened read as the live ones do: who did what, the dice as labelled.
    expect(page.locator("#events .history").first).to_contain_text("Tom rolled Honey, Honey, Honey, Zzz, Zzz (roll 1 of 3).")
    # each player's honey is read out as one ("2 honey"): the number was hidden from screen readers
    expect(page.get_by_role("img", name="2 honey")).to_have_count(2)
    undo = page.get_by_role("button", name="Undo last move")
    undo.click()
    expect(page.locator(".ask")).to_contain_text("Take back the last move? Tom rolled Honey, Honey, Honey, Zzz, Zzz")
    # the safe answer has the focus (two Enter presses took the move back), Escape keeps things as they
    # are, and the focus is back on Undo (it fell to the page's start)
    expect(page.get_by_role("button", name="Keep it")).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.locator(".ask")).to_have_count(0)
    expect(undo).to_be_focused()
    undo.click()
    page.get_by_role("button", name="Keep it").click()
    # after an undo, Undo names the move before the one taken back
    table.submit({"cmd": "stop"}, "cli")
    state = table.submit({"cmd": "undo"}, "cli")
    shown(page, state)
    undo.click()
    expect(page.locator(".ask")).to_contain_text("Take back the last move? Tom rolled Honey, Honey, Honey, Zzz, Zzz")
    page.get_by_role("button", name="Keep it").click()
    assert table.state()["seq"] == state["seq"]
    page.locator("#setup summary").click()
    page.fill("#ng-players", "Ann, Ben")
    page.get_by_role("button", name="Start new game").click()
    expect(page.locator(".ask")).to_contain_text(f"Game {first['game_id']} (Tom, Mia) is not finished")
    shot(page, "table-ask-new-game.png")
    page.get_by_role("button", name="Yes, start a new game").click()
    expect(page.locator("#now-main")).to_contain_text("Ann")
    line = page.locator("#unfinished .game-line", has_text="Tom, Mia").first
    expect(line).to_be_visible()
    fits(page, 360, "unfinished games")
    line.get_by_role("button", name="Resume").click()
    expect(page.locator("#now-main")).to_have_text("Tom’s turn")
    expect(page.locator("#moment")).to_contain_text("continues where it stood")
    assert table.state()["game_id"] == first["game_id"]
    assert not page.errors, page.errors
    page.context.close()


def test_an_undo_confirmed_after_another_move_takes_back_nothing(browser, site):
    # Two phones confirming Undo at once took back two moves: the second took a move its question never named.
    from playwright.sync_api import expect

    page = phone(browser, 360)
    table = site.table
    table.submit({"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"]}, "cli")
    state = table.submit({"cmd": "kill", "player": "Ann"}, "cli")
    open_live(page, site.url)
    shown(page, state)
    page.get_by_role("button", name="Undo last move").click()
    expect(page.locator(".ask")).to_contain_text("Take back the last move? Ann killed 1 Zombie")

    # a move from elsewhere while the question stands puts it away, and says so (it vanished without a word)
    state = table.submit({"cmd": "kill", "player": "Ann"}, "panel")
    shown(page, state)
    expect(page.locator(".ask")).to_have_count(0)
    expect(page.locator("#ov-msg")).to_have_text("The game changed while you were asked, so nothing was taken back. "
                                                 "Ask again if you still want to.")
    page.get_by_role("button", name="Undo last move").click()
    expect(page.locator(".ask")).to_contain_text("Take back the last move? Ann killed 1 Zombie (2 in all)")

    def another_phone_first(route):  # the other phone's move lands while this undo is on its way
        table.submit({"cmd": "kill", "player": "Ben"}, "web")
        route.continue_()

    page.route("**/api/commands", another_phone_first)
    page.get_by_role("button", name="Yes, undo").click()
    expect(page.locator("#ov-msg")).to_contain_text("Not done: the game changed meanwhile")
    assert table.state()["seq"] == state["seq"] + 1  # Ben's kill stands, and Ann's
    assert [p["kills"] for p in table.state()["players"]] == [2, 1]
    assert not page.errors, page.errors
    page.context.close()


def test_a_companion_clock_hours_off_the_phone_keeps_the_chart_and_the_lines_in_order(browser, tmp_path):
    # A Pi no network has set keeps its own time: a live move drew the chart in "minutes (180)", the
    # earlier moves squashed at 0, and its line's time read hours after the lines above it.
    import time as clock_module

    from playwright.sync_api import expect

    ticks = iter(range(100000))
    pi_time = clock_module.time() // 60 * 60 - 3 * 3600 + 5  # three hours behind, early in a minute
    page = phone(browser, 390)
    with GameLog(tmp_path / "games.sqlite", clock=lambda: pi_time + next(ticks) / 100) as log, Table(log) as table, \
            ServerThread(create_app({"TABLE": table, "PIN": PIN, "HEARTBEAT_S": 1.0})) as srv:
        table.submit({"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"]}, "cli")
        state = table.submit({"cmd": "kill", "player": "Ann"}, "cli")
        open_live(page, srv.url + "/")
        shown(page, state)
        expect(page.locator("#events .history").first).to_contain_text("Ann killed")
        shown(page, table.submit({"cmd": "kill", "player": "Ben"}, "panel"))
        expect(page.locator("#chart")).to_contain_text("moves (2)")
        times = page.locator("#events .event .when").all_inner_texts()
        assert len(set(times)) == 1, times  # the live line and those before it: the same minute of the Pi's clock
        assert not page.errors, page.errors
    page.context.close()


def test_what_run_found_at_its_start_is_said_to_every_phone_that_opens(browser, site):
    # the game a restart continues (the banner said "the game"), and a game log whose write-ahead file was
    # damaged, which SQLite read without those moves (`run` keeps a copy)
    from playwright.sync_api import expect

    page = phone(browser, 360)
    status = {"restarted": True, "started": 1796357488.0, "game": 7, "move": 12,
              "log_damaged": "games.sqlite-wal.damaged-20261204-031500"}
    app = create_app({"TABLE": site.table, "PIN": PIN, "HEARTBEAT_S": 1.0, "STATUS": lambda: status})
    with ServerThread(app) as srv:
        open_live(page, srv.url + "/")
        expect(page.locator("#alert-restart")).to_contain_text("; game 7 continues where it stood (move 12).")
        alert = page.locator("#alert-log")
        expect(alert).to_have_text(
            "Moves the game log kept in its write-ahead file could not be read (the file was damaged): games since "
            "the companion last stopped cleanly may be missing. A copy is kept as games.sqlite-wal.damaged-20261204-031500.")
        shown(page, site.table.submit({"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"]}, "cli"))
        expect(alert).to_be_visible()  # it stays on top: the first move cleared it with the restart's banner
        assert not page.errors, page.errors
    page.context.close()


def test_a_page_open_across_a_restart_says_so(browser, tmp_path):
    from playwright.sync_api import expect

    log = GameLog(tmp_path / "games.sqlite")
    table = Table(log).start()
    table.submit({"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia"]}, "cli")
    page = phone(browser, 390)
    srv = ServerThread(create_app({"TABLE": table, "PIN": PIN, "HEARTBEAT_S": 1.0})).start()
    try:
        open_live(page, srv.url + "/")
        expect(page.locator("#alert-restart")).to_be_hidden()
        srv.stop()  # the companion goes away and comes back as a new server on the same address
        expect(page.locator("#status")).to_contain_text("Offline")
        srv = ServerThread(create_app({"TABLE": table, "PIN": PIN, "HEARTBEAT_S": 1.0}), port=srv.port).start()
        expect(page.locator("#status")).to_have_text("Live", timeout=20_000)
        expect(page.locator("#alert-restart")).to_contain_text("restarted")
        shot(page, "table-restarted.png")
        table.submit({"cmd": "roll", "faces": ["bee", "bee", "honey", "zzz", "zombee"]}, "cli")
        expect(page.locator("#alert-restart")).to_be_hidden()  # the game has moved on: no longer news
    finally:
        srv.stop()
        page.context.close()
        table.stop()
        log.close()


def test_history_lists_past_games_with_a_timeline_and_an_export(browser, site):
    from playwright.sync_api import expect

    table = site.table
    table.submit({"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"]}, "cli")
    for cmd in [{"cmd": "kill", "player": "Ann", "count": 2}, {"cmd": "bullets", "player": "Ben", "delta": -5},
                {"cmd": "life", "player": "Ben", "delta": -5}]:
        state = table.submit(cmd, "cli")
    page = phone(browser, 320)
    page.goto(site.url + "history")
    first = page.locator("#hi-games .game-line").first
    expect(first).to_contain_text("won by Ann")
    expect(first).to_contain_text("Ann, Ben")
    first.get_by_role("button", name="Timeline").click()
    expect(page.locator("#hi-timeline li")).to_have_count(state["seq"])
    expect(page.locator("#hi-timeline")).to_contain_text("Ben")
    expect(page.locator("#hi-export")).to_have_attribute("href", f"/api/games/{state['game_id']}.jsonl")
    fits(page, 320, "history")
    shot(page, "table-history.png")
    assert not page.errors, page.errors
    page.context.close()


def test_a_refused_override_reads_as_a_sentence_and_every_control_is_big_enough(browser, site):
    from playwright.sync_api import expect

    page = phone(browser, 390)
    table = site.table
    table.submit({"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"]}, "cli")
    state = table.submit({"cmd": "life", "player": "Ben", "delta": -4}, "cli")  # 1 life left, 5 bullets
    open_live(page, site.url)
    shown(page, state)
    page.select_option("#zoo-player", "Ben")
    # A move the engine does not list is greyed out with its reason beside it (tests/test_web_audit.py) ...
    expect(page.get_by_role("button", name="−1 life")).to_be_disabled()
    expect(page.locator("#zoo-hint")).to_have_text("Ben must spend every bullet before losing the last life.")
    # ... and one it refuses reads as a sentence.
    page.fill("#zoo-count", "0")
    page.get_by_role("button", name="Add kills").click()
    expect(page.locator("#ov-msg")).to_have_text("Type how many zombies Ben killed: a whole number, 1 or more.")
    # The engine's own reason, when no sentence of the page fits: no JSON, no command names.
    plain = page.evaluate("""TC.plainReason('{"cmd":"flip","result":"bee"} is not possible now; Tom is rolling '
                                            + '(animals_cleared) (e.g. {"cmd":"roll"})')""")
    assert plain == "Tom is rolling", plain
    assert table.state()["seq"] == state["seq"]
    page.get_by_role("button", name="Undo last move").click()
    expect(page.locator(".ask")).to_be_visible()
    # Touch targets: every visible button, link, field and summary at least 44 px tall.
    small = page.evaluate("""() => [...document.querySelectorAll('button, a, select, input, summary')]
      .filter((e) => e.offsetParent !== null && e.getBoundingClientRect().height < 44)
      .map((e) => `${e.tagName} ${e.textContent.trim() || e.id}: ${Math.round(e.getBoundingClientRect().height)} px`)""")
    assert not small, small
    assert not page.errors, page.errors
    page.context.close()
