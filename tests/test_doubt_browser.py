"""The camera's question in a real browser at phone size: every phone sees "Die 3: Honey or Zzz?" with the
die as the camera saw it, one tap enters the roll, and the question goes from every phone.

Screenshots go to test-output/ (doubt-320-en.png, doubt-390-en.png, doubt-320-de.png, doubt-390-de.png,
doubt-answered-390-en.png).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from companion.gamelog import GameLog
from companion.table import Table
from vision.doubt import Asking
from web import create_app
from web.serve import ServerThread

from support.browser import OUT, needs_chromium

pytestmark = needs_chromium
PIN = "246813"
FACES = ["bee", "bee", "honey", "zzz", "zombee"]
SPOTS = [(110, 100), (300, 120), (500, 300), (200, 350), (420, 190)]


@pytest.fixture
def site(tmp_path):
    from table_companion.demo import demo_camera
    from vision.reader import DiceReader

    log = GameLog(tmp_path / "games.sqlite")
    table = Table(log).start()
    table.submit({"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia"]}, "cli")
    camera = demo_camera()
    camera.realtime = False
    camera.placed = [(f, x, y, 0.3) for f, (x, y) in zip(FACES, SPOTS)]
    frame = camera.read()[1]
    reading = DiceReader().read(frame)
    k = reading.faces.index("honey")  # read unsure, as a dark honey drop under a dim lamp is
    reading = replace(reading, dice=[replace(d, face="unknown", confidence=0.48,
                                             likeliest=(("honey", 0.48), ("zzz", 0.41))) if i == k else d
                                     for i, d in enumerate(reading.dice)])
    asking = Asking(table)
    asking.ask(frame, reading, {"cmd": "roll", "faces": reading.faces}, (k,), table.state())
    server = ServerThread(create_app({"TABLE": table, "PIN": PIN, "HEARTBEAT_S": 1.0, "ASKING": asking})).start()
    yield server.url + "/", table, k + 1
    server.stop()
    table.stop()
    log.close()


def phone(browser, url, width=390, lang="en"):
    from playwright.sync_api import expect

    expect.set_options(timeout=10_000)
    context = browser.new_context(viewport={"width": width, "height": 760})
    context.add_init_script(f"localStorage.setItem('companion.pin', '{PIN}')")
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(exc))
    page.goto(f"{url}?lang={lang}")
    expect(page.locator("#status.live")).to_be_visible()
    return context, page, errors


def crop_shown(page) -> bool:
    return page.eval_on_selector(".doubt-crop", "img => img.complete && img.naturalWidth >= 192")


def test_every_phone_sees_the_question_and_one_tap_enters_the_roll(browser, site):
    from playwright.sync_api import expect

    url, table, die = site
    OUT.mkdir(exist_ok=True)
    phones = []
    for width, lang, ask in ((320, "en", f"Die {die}: Honey or Zzz?"), (390, "en", f"Die {die}: Honey or Zzz?"),
                             (320, "de", f"Würfel {die}: Honig oder Zzz?"), (390, "de", f"Würfel {die}: Honig oder Zzz?")):
        context, page, errors = phone(browser, url, width, lang)
        expect(page.locator("#doubt .doubt-ask")).to_have_text(ask)
        page.wait_for_function("() => { const i = document.querySelector('.doubt-crop'); "
                               "return i && i.complete && i.naturalWidth > 0; }")
        assert crop_shown(page)
        box = page.locator("#doubt").bounding_box()
        assert box["y"] + box["height"] <= 760 and box["width"] <= width  # on the first screen, no sideways scroll
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.screenshot(path=str(OUT / f"doubt-{width}-{lang}.png"))
        phones.append((context, page, errors))
    _, first, _ = phones[1]
    first.click("#doubt .doubt-face[data-face='honey']")
    for context, page, errors in phones:
        expect(page.locator("#doubt")).to_be_hidden()  # answered on one phone: gone from all
        expect(page.locator("#zb-roll")).to_contain_text("Honey" if "lang=en" in page.url else "Honig")
    first.screenshot(path=str(OUT / "doubt-answered-390-en.png"))
    assert table.state()["last_roll"] == FACES and table.records()[-1]["source"] == "web"
    for context, page, errors in phones:
        context.close()
        assert not errors, errors


def test_a_phone_that_answers_after_another_is_told_what_the_die_was_answered_as(browser, site):
    from playwright.sync_api import expect

    url, table, die = site
    _, first, _ = phone(browser, url)
    expect(first.locator("#doubt .doubt-ask")).to_have_text(f"Die {die}: Honey or Zzz?")
    late = browser.new_context(viewport={"width": 390, "height": 760})  # its Wi-Fi lags: no live stream
    late.add_init_script(f"localStorage.setItem('companion.pin', '{PIN}')")
    behind = late.new_page()
    behind.route("**/events", lambda route: route.abort())
    behind.goto(url)
    expect(behind.locator("#doubt .doubt-ask")).to_have_text(f"Die {die}: Honey or Zzz?")
    first.click("#doubt .doubt-face[data-face='honey']")
    expect(first.locator("#doubt")).to_be_hidden()
    behind.click("#doubt .doubt-face[data-face='zzz']")
    expect(behind.locator("#doubt .doubt-msg.error")).to_have_text(f"Not taken: die {die} was already answered as Honey.")
    behind.screenshot(path=str(OUT / "doubt-refused-390-en.png"))
    assert table.state()["last_roll"] == FACES and table.state()["seq"] == 2
    late.close()
