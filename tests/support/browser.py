"""Debian's Chromium for the browser tests: where it is, how it starts here, and the skip without it.

Playwright's own browser download is not reachable here, so every browser test launches
/usr/bin/chromium with the flags /work/shared/NOTES.md found to work headless.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
OUT = Path(__file__).resolve().parents[2] / "test-output"  # screenshots, gitignored

needs_chromium = pytest.mark.skipif(
    not os.path.exists(CHROMIUM),
    reason=f"Debian's chromium is not at {CHROMIUM} (apt-get install -y chromium); "
    "Playwright's own browser download is not reachable here",
)


@contextmanager
def chromium() -> Iterator:
    """One launched Chromium, closed on the way out."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield browser
        finally:
            browser.close()
