"""A dashboard app over a real session and recorder on tmp_path, for Flask's test client."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "pitwatch"))  # apphelpers, shared with the app tests

from selenium.webdriver.common.by import By

from pitwatch.hub import FrameFeed
from pitwatch.recorder import Recorder
from pitwatch.session import Session
from pitwatch_browser import chromium, wait_for
from served import serving
from web import create_app


class ClickBoard:
    """The demo's click seam, recording what the dashboard asked for (the real one is tested end to end)."""

    def __init__(self):
        self.clicks, self.mode = [], "random"

    def click(self, label, move=None):
        if label not in ("A", "B", "C", "D", "E", "F"):
            raise ValueError(f"pit {label} has no legal move")
        self.clicks.append(label if move is None else (label, move))
        return move or label

    def set_player(self, mode):
        self.mode = mode


@pytest.fixture
def session(tmp_path):
    recorder = Recorder(tmp_path / "games.sqlite")
    s = Session(recorder)
    s.new_game("kalah", {}, "Ann", "Bob")
    yield s
    recorder.close()


@pytest.fixture
def app(session):
    return create_app(session, frames=FrameFeed(), demo=ClickBoard())


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def csrf(app):
    return {"X-CSRF-Token": app.extensions["pitwatch"].guard.csrf}


@pytest.fixture
def browser(tmp_path):
    """A headless Chromium of its own profile."""
    driver = chromium(tmp_path / "chromium-profile")
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def page(app, browser):
    """The dashboard of the ``session`` fixture (Ann and Bob at kalah), open in ``browser``: (browser, url)."""
    with serving(app) as url:
        browser.get(url)
        wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#board g.pit"), what="the board")
        yield browser, url
