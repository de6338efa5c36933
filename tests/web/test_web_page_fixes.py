"""Findings of a browser audit of the pages, each in a real headless Chromium over a real session:
a Pitwatch that stopped, a Start pressed twice, a name in lower case, long names in the games list,
the demo's chooser left from an older position, and what a screen reader is told.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

from apphelpers import between, board
from pitwatch import records
from rules import Game
from rules.notation import Record
from pitwatch_browser import uncaught_errors, wait_for
from served import Served, serving
from test_web_dashboard import banner_shows, caught_up, kalah_after, position_after

LOST = "Pitwatch cannot be reached: try again"
GAMES_JS = (Path(__file__).resolve().parents[2] / "web" / "static" / "games.js").read_text()  # the page's script, run again


@pytest.fixture
def stoppable(app):
    """The app served until the test stops it, as Pitwatch stopped."""
    served = Served(app)
    yield served
    served.stop()


def new_games(session, count: int) -> None:
    for i in range(count):
        session.new_game("kalah", {}, "Ann", f"Bob {i}")


# -- 1. a list or a replay asked of a Pitwatch that stopped -----------------------------

def test_older_games_asked_of_a_stopped_pitwatch_say_it_cannot_be_reached(stoppable, browser, session):
    new_games(session, 50)  # 51 games: a page of 50 and an older one
    browser.get(stoppable.url + "games")
    wait_for(lambda: browser.find_element(By.ID, "older").is_displayed(), what="the Older games button")
    uncaught_errors(browser)
    stoppable.stop()
    browser.find_element(By.ID, "older").click()
    assert wait_for(lambda: browser.find_element(By.ID, "games-note").text, what="the note") == LOST
    assert len(browser.find_elements(By.CSS_SELECTOR, "#games tr")) == 50  # the page shown is kept
    assert uncaught_errors(browser) == []


def test_the_games_list_reloaded_from_a_stopped_pitwatch_says_it_cannot_be_reached(stoppable, browser, session):
    browser.get(stoppable.url + "games")
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#games tr"), what="the list")
    stoppable.stop()
    uncaught_errors(browser)
    browser.execute_script(GAMES_JS)  # the list asked again, with nothing answering
    assert wait_for(lambda: browser.find_element(By.ID, "games-note").text, what="the note") == LOST
    assert uncaught_errors(browser) == []


def test_a_replay_asked_of_a_stopped_pitwatch_says_it_cannot_be_reached(stoppable, browser, session):
    browser.get(stoppable.url + f"games/{session.game_id}")
    wait_for(lambda: browser.find_element(By.ID, "replay-title").text.startswith(f"Game {session.game_id}:"),
             what="the replay")
    stoppable.stop()
    uncaught_errors(browser)
    browser.execute_script("document.getElementById('replay-title').textContent = '';" + GAMES_JS)
    assert wait_for(lambda: browser.find_element(By.ID, "replay-title").text, what="the title") == LOST
    assert uncaught_errors(browser) == []


# -- 2. Start pressed twice ---------------------------------------------------------------

def test_start_pressed_twice_starts_one_game(page, session):
    browser, _ = page
    before = len(session.recorder.games())
    browser.find_element(By.ID, "btn-new").click()
    wait_for(lambda: browser.find_element(By.ID, "new-game").is_displayed()
             and browser.find_elements(By.CSS_SELECTOR, "#ng-options [data-option]"), what="the New game dialog")
    browser.execute_script("const form = document.getElementById('new-game-form'); form.requestSubmit(); form.requestSubmit();")
    wait_for(lambda: not browser.find_element(By.ID, "new-game").is_displayed(), what="the dialog closed")
    wait_for(lambda: len(session.recorder.games()) > before, what="the new game")
    time.sleep(1)  # a second request on its way has arrived by now
    assert len(session.recorder.games()) == before + 1
    assert browser.find_element(By.ID, "ng-start").is_enabled()  # the next game can be started


# -- 3. a name in lower case ---------------------------------------------------------------

def test_a_name_in_lower_case_keeps_it_in_the_headline_and_the_choices(page, session):
    browser, _ = page
    session.new_game("kalah", {}, "van Dijk", "Bob")
    session.submit(board(kalah_after("B")))
    assert banner_shows(browser, "van Dijk played B")["headline"] == "van Dijk played B"
    session.new_game("kalah", {}, "van Dijk", "Bob")
    session.submit(between(session.game.position, position_after(session.game, "A")))
    shown = banner_shows(browser, "More than one move fits")
    assert sorted(shown["choices"]) == ["Nothing was played", "van Dijk played A"]


# -- 4. long names in the games list --------------------------------------------------------

def test_forty_letter_names_leave_the_games_list_within_its_card(page, session):
    browser, url = page
    session.new_game("kalah", {}, "Annabella" * 4 + "Anna", "Bartholomew" * 3 + "Barthol")
    browser.get(url + "games")
    wait_for(lambda: len(browser.find_elements(By.CSS_SELECTOR, "#games tr")) == 2, what="both games listed")
    fits = "const box = document.querySelector('.scrolls-across'); return box.scrollWidth <= box.clientWidth"
    assert browser.execute_script(fits)
    link = browser.find_element(By.CSS_SELECTOR, f'#games tr[data-game="{session.game_id}"] a[href$="format=json"]')
    assert browser.execute_script("return arguments[0].getBoundingClientRect().right <= innerWidth", link)


# -- 5. the demo's chooser of an older position ------------------------------------------------

def test_the_demo_chooser_goes_when_the_position_changes(page, session):
    """Ethiopian: every move chooses its direction. A chooser opened for Bob's pit, and the move
    before taken back: its moves are no longer Bob's to play, and it goes."""
    browser, _ = page
    session.new_game("ethiopian", {}, "Ann", "Bob")
    session.play_by_hand(session.game.legal_moves()[0].text)
    caught_up(browser, session)
    browser.find_element(By.CSS_SELECTOR, 'input[name="demo-player"][value="clicks"]').click()
    label = session.game.legal_moves()[0].text.rstrip("<>")
    pit = wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, f'#board g.pit.clickable[data-label="{label}"]'),
                   what=f"pit {label} to click")
    pit[0].click()
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#demo-choice button"), what="the choice")
    session.takeback()
    caught_up(browser, session)
    assert not browser.find_element(By.ID, "demo-choice").is_displayed()


def test_an_imported_game_shows_the_day_its_record_names_with_no_made_up_time(page, session):
    """A record's Date is a day: the list shows that day, not noon; a record with no whole day was
    taken as started when it was imported, and shows that moment."""
    browser, url = page
    played = Game("kalah")
    played.play("C")
    texts = [Record.from_game(played, South="Ada", North="Bo", Date=date).to_text() for date in ("2024.05.01", "????.??.??")]
    dated, undated = session.recorder.import_games(records.read_import("".join(texts)).games)
    browser.get(url + "games")
    started = lambda game: browser.find_element(By.CSS_SELECTOR, f'#games tr[data-game="{game}"] td:nth-child(2)').text
    wait_for(lambda: started(dated), what="the imported games listed")
    day = browser.execute_script("return new Date(Date.UTC(2024, 4, 1)).toLocaleDateString(undefined, {timeZone: 'UTC'})")
    assert started(dated) == day
    import_moment = session.recorder.game(undated).started_at
    assert started(undated) == browser.execute_script(f"return new Date({import_moment} * 1000).toLocaleString()")


# -- 6. what a screen reader is told ---------------------------------------------------------------

def test_the_replays_step_buttons_and_the_games_links_are_named(page, session):
    browser, url = page
    game = session.game_id
    browser.get(url + "games")
    row = wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, f'#games tr[data-game="{game}"]'), what="the game")[0]
    assert [a.accessible_name for a in row.find_elements(By.TAG_NAME, "a")] == [
        f"replay game {game}", f"game {game} as text", f"game {game} as JSON"]
    browser.get(url + f"games/{game}")
    names = [browser.find_element(By.ID, step).accessible_name for step in ("first", "prev", "next", "last")]
    assert names == ["start position", "previous move", "next move", "last position"]


KALAH_START = "A 4, B 4, C 4, D 4, E 4, F 4, store S 0, a 4, b 4, c 4, d 4, e 4, f 4, store N 0"
AFTER_C = "A 4, B 4, C 0, D 5, E 5, F 5, store S 1, a 4, b 4, c 4, d 4, e 4, f 4, store N 0"


def test_the_board_is_told_in_words_and_the_replays_steps_are_announced(page, session):
    """To a screen reader the board is one picture: its name says every pit's count and where the
    legal moves are, on the dashboard and on the replay, where each step is announced."""
    browser, url = page
    board_words = lambda: browser.find_element(By.ID, "board").accessible_name
    assert board_words() == f"the board: {KALAH_START}; legal moves from: A, B, C, D, E, F"
    session.play_by_hand("C")  # the last seed in Ann's store: she sows again
    wait_for(lambda: board_words() == f"the board: {AFTER_C}; legal moves from: A, B, D, E, F", what="the board after C")
    browser.get(url + f"games/{session.game_id}")
    step = browser.find_element(By.ID, "step-text")
    assert (step.get_attribute("role"), step.get_attribute("aria-live")) == ("status", "polite")
    wait_for(lambda: step.text == "after move 1 of 1: C", what="the replay at its last move")
    assert board_words() == f"the board: {AFTER_C}"  # a replay has no moves to make
    browser.find_element(By.ID, "first").click()
    assert (step.text, board_words()) == ("start position", f"the board: {KALAH_START}")


def test_the_banner_is_announced_and_the_pills_say_their_state_in_words(page, session):
    browser, _ = page
    banner = browser.find_element(By.ID, "banner")
    assert (banner.get_attribute("role"), banner.get_attribute("aria-live")) == ("status", "polite")
    session.set_source("sensors", "microcontroller lost: unplugged")
    wait_for(lambda: browser.find_element(By.ID, "pill-sensors").accessible_name == "sensors: microcontroller lost: unplugged",
             what="the sensors' pill telling its state")
    session.set_source("sensors", "ok")
    wait_for(lambda: browser.find_element(By.ID, "pill-sensors").accessible_name == "sensors: ok", what="sensors ok")
    assert browser.find_element(By.ID, "pill-link").accessible_name == "live: connected"


# -- 7. a Pitwatch that hangs ------------------------------------------------------------------

class HangingEvents:
    """The app, its events stream sent as the server would with named keepalives ("alive"), which
    then stops sending anything though the connection stays open: a Pitwatch that hangs. A
    connection opened after the first stays silent until ``back`` is set."""

    def __init__(self, app, session):
        self.app, self.session = app, session
        self.opened = 0
        self.back, self.done = threading.Event(), threading.Event()

    def __call__(self, environ, start_response):
        if environ["PATH_INFO"] != "/api/events":
            return self.app(environ, start_response)
        self.opened += 1
        start_response("200 OK", [("Content-Type", "text/event-stream"), ("Cache-Control", "no-store")])
        return self.stream(first=self.opened == 1)

    def stream(self, first):
        yield "retry: 1000\n\n".encode()
        if first or self.back.wait(60):
            yield f"event: state\ndata: {self.session.hub.latest}\n\nevent: alive\ndata: 1\n\n".encode()
        self.done.wait(60)  # hangs: nothing more is sent, and the connection is not closed


# The page's 40 s of silence pass in 2 s: its timers of 40 s or more run twenty times faster.
FAST_SILENCE_JS = """
const later = window.setTimeout;
window.setTimeout = (f, ms, ...rest) => later(f, ms >= 40000 ? ms / 20 : ms, ...rest);
"""


def test_a_pitwatch_that_hangs_is_shown_lost_and_its_events_asked_again(app, session, browser):
    hanging = HangingEvents(app, session)
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": FAST_SILENCE_JS})
    try:
        with serving(hanging) as url:
            browser.get(url)
            banner_shows(browser, "Waiting for a still board")
            shown = banner_shows(browser, "Pitwatch cannot be reached")
            assert shown["kind"] == "lost"
            assert browser.find_element(By.ID, "pill-link").get_attribute("class") == "pill bad"
            assert browser.find_element(By.ID, "pill-link").accessible_name == "live: lost"
            wait_for(lambda: hanging.opened >= 2, what="the events asked again")
            hanging.back.set()
            banner_shows(browser, "Waiting for a still board")
            assert uncaught_errors(browser) == []
    finally:
        hanging.done.set()


# -- a hidden tab gives back its connections ---------------------------------------------------

SET_HIDDEN_JS = """
Object.defineProperty(document, 'hidden', {get: () => arguments[0], configurable: true});
document.dispatchEvent(new Event('visibilitychange'));
"""


def test_a_hidden_tab_gives_back_its_event_stream_and_camera_and_catches_up_when_shown(page, session):
    """Each tab held the event stream and the camera's stream open; a browser opens at most 6
    connections to one server, so three tabs with a camera left none for a fourth tab's page or a
    control. Headless Chromium never hides a tab: the page is told it is hidden as a browser does."""
    browser, _ = page
    camera_src = "return document.getElementById('camera').getAttribute('src')"
    wait_for(lambda: session.hub.listeners == 1 and browser.execute_script(camera_src), what="the page connected")
    browser.execute_script(SET_HIDDEN_JS, True)
    assert browser.execute_script(camera_src) is None
    session.play_by_hand("A")  # the server notices a closed stream when it next writes to it
    session.refresh()
    wait_for(lambda: session.hub.listeners == 0, what="the event stream given back")
    browser.execute_script(SET_HIDDEN_JS, False)
    wait_for(lambda: session.hub.listeners == 1, what="the event stream asked again")
    caught_up(browser, session)
    assert browser.execute_script(camera_src) == "/camera.mjpg"
    assert uncaught_errors(browser) == []


class HangingControls:
    """The app, but a control posted to it hangs until ``done`` is set: a Pitwatch that hangs."""

    def __init__(self, app):
        self.app, self.done = app, threading.Event()

    def __call__(self, environ, start_response):
        if environ["REQUEST_METHOD"] == "POST":
            self.done.wait(60)
        return self.app(environ, start_response)


# The page's 15 s wait for a control's answer passes in 0.75 s.
FAST_ANSWER_WAIT_JS = """
const later = window.setTimeout;
window.setTimeout = (f, ms, ...rest) => later(f, ms === 15000 ? ms / 20 : ms, ...rest);
"""


def test_a_control_a_hanging_pitwatch_does_not_answer_is_told_after_15_s(app, session, browser):
    """The request waited for ever and the players, told nothing, pressed again."""
    hanging = HangingControls(app)
    session.play_by_hand("A")
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": FAST_ANSWER_WAIT_JS})
    try:
        with serving(hanging) as url:
            browser.get(url)
            wait_for(lambda: browser.find_element(By.ID, "btn-takeback").is_enabled(), what="Take back to press")
            browser.find_element(By.ID, "btn-takeback").click()
            said = wait_for(lambda: browser.find_element(By.ID, "toast").text, what="the toast")
            assert said == "Pitwatch did not answer within 15 s: look at the board before trying again"
            assert uncaught_errors(browser) == []
    finally:
        hanging.done.set()
