"""What a newcomer met playing both games from a phone (Debian's chromium at 320 and 390 px).

The banner of a moment never lies over a control, the manual dice counters stop at the dice
thrown, the dice's words fit their dice, a Zoo game at 0 points has no leader, and "What
happened" starts afresh with each game. Fixtures and helpers are the table page's
(tests/test_web_table_page.py: a table with the panel on mock pins, pressed from the page).
"""

from __future__ import annotations

import pytest

from support.browser import needs_chromium
from test_web_table_page import browser, open_live, phone, site  # noqa: F401  (fixtures)

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
def test_a_moments_banner_never_lies_over_a_control(browser, site, width):  # noqa: F811
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
