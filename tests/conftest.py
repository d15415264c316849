"""Shared fixtures: a real game log and Table in a temporary directory."""

from __future__ import annotations

import pytest

from companion.gamelog import GameLog
from companion.table import Table


@pytest.fixture
def gamelog(tmp_path):
    log = GameLog(tmp_path / "games.sqlite")
    yield log
    log.close()


@pytest.fixture
def table(gamelog):
    t = Table(gamelog).start()
    yield t
    t.stop()


class Clock:
    """A clock the test moves by setting `now` (injected wherever a module takes `clock=`)."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture(scope="module")
def browser():
    """One Debian Chromium for a test module's pages (support/browser.py; a module may set its own)."""
    from support.browser import chromium

    with chromium() as b:
        yield b
