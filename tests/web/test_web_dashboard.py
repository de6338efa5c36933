"""The live dashboard in a real headless Chromium, over a real session and recorder served in this process.

Each test puts the session in one situation the players meet (a verdict, a source in trouble, a
game's end, a phone's narrow screen) through the session's own inputs (Readings, controls, new
games) and reads what the page shows them.
"""

from __future__ import annotations

import json
import re
import sqlite3

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from apphelpers import MUST_PASS_AFTER, between, board, random_game
from pitwatch_browser import as_phone, uncaught_errors, wait_for
from rules import Game, PitReading, Reading

BANNER_JS = """
const banner = document.getElementById('banner');
return {kind: banner.className, headline: banner.querySelector('.headline')?.textContent || '',
        details: [...banner.querySelectorAll('.detail')].map(d => d.textContent),
        choices: [...banner.querySelectorAll('.choices button')].map(b => b.textContent)};
"""


def banner(browser) -> dict:
    return browser.execute_script(BANNER_JS)


def banner_shows(browser, headline: str) -> dict:
    """The banner once its headline starts with ``headline``."""
    return wait_for(lambda: (shown := banner(browser))["headline"].startswith(headline) and shown,
                    what=f"the banner saying {headline!r}")


def kalah_after(*moves: str) -> Game:
    """A kalah game with ``moves`` played: its board is what a camera would see of them."""
    played = Game("kalah")
    for text in moves:
        played.play(text)
    return played


def position_after(game, move: str):
    """The position after ``move`` in ``game`` (the game itself unchanged)."""
    return game.variant.play(game.position, game.variant.parse_move(game.position, move))[0]


def caught_up(browser, session) -> None:
    """Wait until the page has drawn the session's newest state."""
    newest = str(json.loads(session.hub.latest)["version"])
    wait_for(lambda: browser.execute_script("return document.body.dataset.version") == newest, what="the newest state drawn")


def no_horizontal_scroll(browser) -> bool:
    return browser.execute_script(
        "return document.documentElement.scrollWidth <= document.documentElement.clientWidth")


def test_a_source_in_trouble_is_a_remark_under_the_verdict_which_stays_the_headline(page, session):
    browser, _ = page
    session.set_source("sensors", "ok")
    session.set_source("camera", "board never still (settling)")
    session.submit(board(session.game))
    shown = banner_shows(browser, "The board matches the game")
    assert shown["details"] == ["Ann to move", "Camera: board never still (settling): the game goes on with the other source"]

    session.set_source("sensors", "microcontroller lost: unplugged")  # nothing watches the board now
    session.submit(between(position_after(session.game, "A"), position_after(session.game, "B")))
    shown = banner_shows(browser, "More than one move fits: which was played?")
    assert shown["kind"] == "ambiguous" and sorted(shown["choices"]) == ["Ann played A", "Ann played B"]
    assert shown["details"][-1] == ("Microcontroller lost: unplugged · Camera: board never still (settling): "
                                    "nothing watches the board until it is back")


def test_when_nothing_watches_the_board_the_loss_leads(page, session):
    browser, _ = page
    session.set_source("camera", "camera lost: no frame for 5 s")
    shown = banner_shows(browser, "Camera lost: no frame for 5 s")
    assert shown["kind"] == "lost" and shown["details"] == ["nothing watches the board until it is back"]


def test_a_verdict_of_two_moves_names_each_mover(page, session):
    browser, _ = page
    session.submit(board(kalah_after("B", "e")))
    assert banner_shows(browser, "Ann played B")["headline"] == "Ann played B, then Bob played e"
    assert session.state()["verdict"]["players"] == ["south", "north"]


def test_the_choices_of_an_ambiguous_board_are_told_in_plain_words(page, session):
    browser, _ = page
    session.submit(between(session.game.position, position_after(session.game, "A")))  # as it was, or after A
    shown = banner_shows(browser, "More than one move fits")
    assert sorted(shown["choices"]) == ["Ann played A", "Nothing was played"]
    browser.find_element(By.XPATH, "//*[@id='banner']//button[text()='Ann played A']").click()
    wait_for(lambda: [m.text for m in session.game.moves] == ["A"], what="the choice played")


def test_a_pass_it_on_pit_of_the_wrong_colours_says_its_white_and_yellow_chips(page, session):
    browser, _ = page
    session.new_game("pass-it-on", {}, "Ann", "Bob")
    played = Game("pass-it-on")
    played.play("A:wyy")
    labels = played.variant.layout.labels
    pits = dict(Reading.of_position(played.position).pits)
    count, white = played.position.pits[labels.index("B")], played.position.white[labels.index("B")]
    assert (count, white) == (4, 1)
    pits["B"] = PitReading.exact(4, 0)  # the white chip of A's sowing seen yellow
    session.submit(Reading(pits, "test"))
    shown = banner_shows(browser, "Illegal")
    assert "B: should be 1 white and 3 yellow chips, seen 0 white and 4 yellow" in shown["details"][0]
    tab = browser.execute_script("return document.querySelector('#board g.pit[data-label=\"B\"] text.expected').textContent")
    assert tab == "0 → 1 white"
    start = "A 3 (1 white), B 3, C 3, D 3, E 3, outbox N 0, a 3 (1 white), b 3, c 3, d 3, e 3, outbox S 0"
    assert browser.find_element(By.ID, "board").accessible_name.startswith(f"the board: {start}; ")  # in words too


def test_a_board_not_yet_laid_out_for_a_new_game_asks_for_the_start_position(page, session):
    browser, _ = page
    played = kalah_after("B", "e")
    session.submit(board(played))
    session.new_game("kalah", {}, "Ann", "Bob")  # the last game's board still on the table
    session.submit(board(played))
    assert session.state()["verdict"]["mistake"]["code"] == "not_set_up"
    shown = banner_shows(browser, "Lay out the start position")
    assert shown["kind"] == "waiting"
    assert shown["details"][0].startswith("A: 4 seeds (now 5) · B: 4 seeds (now 1) · ")


def pass_it_on_game_two(session) -> None:
    """Game 1 of a Pass It On match recorded, and game 2 begun at 60-25."""
    session.new_game("pass-it-on", {}, "Ann", "Bob")
    start = Game("pass-it-on").position.to_json()
    start.update(game=2, match={"south": 60, "north": 25}, to_move="north", game_starter="north")
    session.new_game("pass-it-on", {}, "Ann", "Bob", start=session.game.variant.position_from_json(start))


def test_the_match_chart_shows_the_match_score_game_by_game(page, session):
    browser, _ = page
    pass_it_on_game_two(session)
    # the match score before each game, and now
    assert session.state()["game"]["match_history"] == [{"south": 0, "north": 0}] + [{"south": 60, "north": 25}] * 2
    wait_for(lambda: browser.find_element(By.ID, "match-chart").is_displayed(), what="the match chart")
    assert browser.execute_script("return document.querySelectorAll('#match-chart path').length") == 2
    legend = browser.execute_script("return [...document.querySelectorAll('#match-chart .legend')].map("
                                    "g => [g.dataset.side, g.querySelector('line').getAttribute('stroke'), g.textContent.trim()])")
    assert legend == [["south", "#2f7df6", "Ann"], ["north", "#f28c28", "Bob"]]  # each line named, in its colour
    chart = browser.find_element(By.ID, "match-chart").accessible_name
    assert chart == "the match to 500, game by game: Ann 0, 60, 60; Bob 0, 25, 25"


def test_the_result_puts_the_winners_score_first_on_the_dashboard_and_in_the_games_list(page, session):
    browser, url = page
    finished = random_game("kalah", 300, 1)
    result = finished.result
    assert result.winner == 1 and result.score == (13, 35)  # North, Bob, wins
    before_last = finished.positions[-2]
    session.new_game("kalah", {}, "Ann", "Bob", start=before_last)
    session.play_by_hand(finished.moves[-1].text)
    shown = banner_shows(browser, "Bob wins")
    assert shown["details"][0].startswith("35–13 · ")
    browser.get(url + "games")
    cell = wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, f'#games tr[data-game="{session.game_id}"] td.status-finished'),
                    what="the game in the list")
    assert cell[0].text == "Bob won 35–13"


COUNT_FONTS_JS = """
return [...document.querySelectorAll('#board text.count')].map(t => t.getScreenCTM().a * Number(t.getAttribute('font-size')));
"""
TARGETS_JS = """
return [...document.querySelectorAll('#board g.pit.clickable')].map(g => {
  const r = g.getBoundingClientRect(); return [r.width, r.height]; });
"""


def test_on_a_phone_the_counts_can_be_read_and_the_pits_hit(page, session):
    browser, url = page
    as_phone(browser)
    browser.get(url)
    browser.find_element(By.CSS_SELECTOR, 'input[name="demo-player"][value="clicks"]').click()
    targets = wait_for(lambda: browser.execute_script(TARGETS_JS), what="pits to click")
    fonts = browser.execute_script(COUNT_FONTS_JS)
    assert len(fonts) == 14 and min(fonts) >= 11.5, fonts
    assert min(min(size) for size in targets) >= 36, targets  # a hollow alone is 29 x 27 there
    assert no_horizontal_scroll(browser)
    session.new_game("bao-kenya", {}, "Ann", "Bob")  # ten columns, the widest board: WCAG 2.2 asks 24 px
    wide = wait_for(lambda: len(found := browser.execute_script(TARGETS_JS)) == 8 and found, what="Bao's pits to click")
    assert min(min(size) for size in wide) >= 29, wide
    assert no_horizontal_scroll(browser)
    browser.set_window_size(1400, 1000)
    browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    wait_for(lambda: max(browser.execute_script(COUNT_FONTS_JS)) < 16, what="the counts drawn as on a wide screen")


@pytest.mark.parametrize("phone", [True, False])
def test_forty_letter_names_without_spaces_do_not_widen_the_page(page, session, phone):
    browser, url = page
    south, north = "Annabella" * 4 + "Anna", "Bartholomew" * 3 + "Barthol"
    assert len(south) == len(north) == 40
    session.new_game("kalah", {}, south, north)
    session.submit(board(session.game))
    if phone:
        as_phone(browser)
    browser.get(url)
    wait_for(lambda: browser.find_element(By.ID, "score-north-name").text, what="the names")
    banner_shows(browser, "The board matches the game")
    assert no_horizontal_scroll(browser)
    assert browser.find_element(By.ID, "score-south-name").get_attribute("title") == south


def test_a_refused_control_is_told_and_leaves_no_error_in_the_console(page, session):
    browser, _ = page
    uncaught_errors(browser)  # from the page's loading
    browser.find_element(By.ID, "move-text").send_keys("Z")
    browser.find_element(By.ID, "btn-move").click()
    toast = wait_for(lambda: browser.find_element(By.ID, "toast").text, what="the toast")
    assert "not a legal move" in toast
    assert browser.find_element(By.ID, "move-text").get_attribute("value") == "Z"  # kept, to be put right
    assert uncaught_errors(browser) == []


def open_new_game(browser) -> None:
    browser.find_element(By.ID, "btn-new").click()
    wait_for(lambda: browser.find_element(By.ID, "new-game").is_displayed()
             and browser.find_elements(By.CSS_SELECTOR, "#ng-options [data-option]"), what="the New game dialog")


def test_a_refused_new_game_keeps_the_dialog_and_what_was_typed(page, session):
    browser, _ = page
    open_new_game(browser)
    Select(browser.find_element(By.ID, "ng-variant")).select_by_value("oware")
    north = browser.find_element(By.ID, "ng-north")
    north.clear()
    north.send_keys("\u200b")  # typed, but no printable name
    browser.find_element(By.ID, "ng-south").send_keys(" Smith")
    browser.find_element(By.ID, "ng-start").click()
    refused = wait_for(lambda: browser.find_element(By.ID, "ng-refused").text, what="the refusal in the dialog")
    assert "1 to 40 printable" in refused
    assert browser.find_element(By.ID, "new-game").is_displayed()
    assert browser.find_element(By.ID, "ng-south").get_attribute("value") == "Ann Smith"
    assert Select(browser.find_element(By.ID, "ng-variant")).first_selected_option.get_attribute("value") == "oware"
    assert session.game.variant.name == "kalah"
    browser.find_element(By.ID, "ng-cancel").click()
    open_new_game(browser)  # opens on the game being played, not on the variant last picked
    assert Select(browser.find_element(By.ID, "ng-variant")).first_selected_option.get_attribute("value") == "kalah"
    assert browser.find_element(By.ID, "ng-refused").text == ""


def test_enter_in_a_name_starts_the_new_game_and_cancel_starts_none(page, session):
    browser, _ = page
    open_new_game(browser)
    browser.find_element(By.ID, "ng-north").send_keys(" Jones")
    browser.find_element(By.ID, "ng-cancel").click()
    wait_for(lambda: not browser.find_element(By.ID, "new-game").is_displayed(), what="the dialog closed")
    assert session.names == ("Ann", "Bob")
    open_new_game(browser)
    north = browser.find_element(By.ID, "ng-north")
    north.clear()
    north.send_keys("Cy\n")  # Enter where the name is typed: the game starts, as Start starts it
    wait_for(lambda: session.names == ("Ann", "Cy"), what="a new game of Ann and Cy")
    wait_for(lambda: not browser.find_element(By.ID, "new-game").is_displayed(), what="the dialog closed")


def test_an_empty_number_in_the_new_game_dialog_is_the_variants_default(page, session):
    browser, _ = page
    session.new_game("kalah", {"seeds": 3}, "Ann", "Bob")
    caught_up(browser, session)
    open_new_game(browser)
    assert browser.find_element(By.ID, "opt-seeds").get_attribute("value") == "3"  # as the game is played
    browser.find_element(By.ID, "opt-houses").clear()
    browser.find_element(By.ID, "ng-start").click()
    wait_for(lambda: not browser.find_element(By.ID, "new-game").is_displayed(), what="the dialog closed")
    assert session.game.variant.options["houses"] == 6 and session.game.variant.options["seeds"] == 3


def nam_nam_round_two(session) -> None:
    """A Nam Nam round decided (tests/rules/test_nam_nam.py, the eight left): Ann, South, leads
    32 to 16 and takes 2 of Bob's hollows, a and b unless she says otherwise."""
    start = {"to_move": "south", "pits": dict.fromkeys("ABCDEFabcdef", 0) | {"A": 1, "B": 3, "C": 3, "a": 1},
             "captured": {"south": 24, "north": 16}, "owners": dict.fromkeys("ABCDEF", "south") | dict.fromkeys("abcdef", "north"),
             "round": 1, "round_starter": "north", "rounds": []}
    session.new_game("nam-nam", {}, "Ann", "Bob")  # for its variant to read the position with
    session.new_game("nam-nam", {}, "Ann", "Bob", start=session.game.variant.position_from_json(start))
    session.play_by_hand("B")


HOLLOWS_JS = """
return [...document.querySelectorAll('#round-choice-hollows button')].map(b => [b.textContent, b.getAttribute('aria-pressed')]);
"""


def test_the_round_leader_chooses_the_opponents_hollows_he_takes(page, session):
    browser, _ = page
    nam_nam_round_two(session)
    choice = session.state()["game"]["round_choice"]
    assert choice == {"leader": "south", "count": 2, "hollows": list("abcdef"), "chosen": ["a", "b"]}
    prompt = wait_for(lambda: browser.find_element(By.ID, "round-choice-prompt").text, what="the round's set-up")
    assert prompt == "Ann led the round: choose 2 of Bob's hollows"
    assert browser.execute_script(HOLLOWS_JS) == [["a", "true"], ["b", "true"]] + [[h, "false"] for h in "cdef"]
    hollow = lambda label: browser.find_element(By.CSS_SELECTOR, f'#round-choice-hollows button[data-hollow="{label}"]')
    set_hollows = browser.find_element(By.ID, "btn-hollows")
    hollow("a").click()
    assert not set_hollows.is_enabled()  # one pressed: she takes two
    hollow("e").click()
    assert set_hollows.is_enabled()
    set_hollows.click()
    wait_for(lambda: session.state()["game"]["position"]["owners"]["e"] == "south", what="e taken by Ann")
    owners = session.state()["game"]["position"]["owners"]
    assert [label for label in "abcdef" if owners[label] == "south"] == ["b", "e"]
    ring = 'return document.querySelector(\'#board g.pit[data-label="e"] .owner-ring\').getAttribute("stroke")'
    wait_for(lambda: browser.execute_script(ring) == "#2f7df6", what="e drawn as Ann's (South's blue rim)")
    told = re.findall(r"\b([a-f]) \d+ \(Ann's\)", browser.find_element(By.ID, "board").accessible_name)
    assert told == ["b", "e"]  # and told in words, not by the rim's colour alone
    assert uncaught_errors(browser) == []


def test_enter_plays_the_move_typed_and_captures_are_told_by_name(page, session):
    """An Oware position one move before the first capture of a random game: the move typed and
    Enter pressed is played, and the seeds captured are told with the players' names."""
    browser, _ = page
    truth = random_game("oware", 200, 1)
    ply = next(k for k, pos in enumerate(truth.positions) if any(pos.captured)) - 1
    session.new_game("oware", {}, "Ann", "Bob", start=truth.positions[ply])
    caught_up(browser, session)
    browser.find_element(By.ID, "move-text").send_keys(truth.moves[ply].text + "\n")
    wait_for(lambda: [m.text for m in session.game.moves] == [truth.moves[ply].text], what="the typed move played")
    south, north = truth.positions[ply + 1].captured
    wait_for(lambda: f"Captured this game: Ann {south}, Bob {north}" in browser.find_element(By.ID, "score-extra").text,
             what="the captures told by name")


def test_a_game_row_damaged_outside_pitwatch_says_so_in_the_games_list(page, session, tmp_path):
    """A start time changed to text in the database file: the list says what no longer reads, with no
    made-up date, and lists the other games as they are."""
    browser, url = page
    damaged = session.game_id
    session.new_game("oware", {}, "Cy", "Di")
    with sqlite3.connect(session.recorder.path) as db:
        db.execute("UPDATE games SET started_at='yesterday' WHERE id=?", (damaged,))
    browser.get(url + "games")
    rows = wait_for(lambda: len(found := browser.find_elements(By.CSS_SELECTOR, "#games tr")) == 2 and found,
                    what="both games listed")
    cells = {int(row.get_attribute("data-game")): [td.text for td in row.find_elements(By.TAG_NAME, "td")] for row in rows}
    assert cells[damaged][1] == "—" and "is damaged: games.started_at is not a time" in cells[damaged][6], cells
    assert cells[session.game_id][2:5] == ["oware", "Cy", "Di"] and "1970" not in cells[session.game_id][1], cells


def demo_choice(browser, session, variant: str, label: str) -> list:
    """A new game of ``variant``, the demo's board played by clicks, and pit ``label`` clicked: the
    buttons offered for its moves."""
    session.new_game(variant, {}, "Ann", "Bob")
    caught_up(browser, session)
    browser.find_element(By.CSS_SELECTOR, 'input[name="demo-player"][value="clicks"]').click()
    pit = wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, f'#board g.pit.clickable[data-label="{label}"]'),
                   what=f"pit {label} to click")
    pit[0].click()
    return wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#demo-choice button"), what="the choice")


def test_a_demo_pit_of_two_directions_asks_which_and_plays_the_one_chosen(page, session, app):
    """Ethiopian: every move chooses its direction. A click on a pit of the demo's board offers both
    (the first legal move was played before, so a player could never sow clockwise)."""
    browser, _ = page
    buttons = demo_choice(browser, session, "ethiopian", "C")
    assert sorted(b.text for b in buttons) == ["C<: clockwise", "C>: anticlockwise"]
    next(b for b in buttons if b.text.startswith("C<")).click()
    demo = app.extensions["pitwatch"].demo
    wait_for(lambda: demo.clicks == [("C", "C<")], what="C< asked of the demo's board")
    assert not browser.find_element(By.ID, "demo-choice").is_displayed()


def test_a_demo_section_of_both_colours_asks_in_which_order_the_chips_go(page, session, app):
    """Pass It On: section A starts with a white chip and yellow ones, sown in three orders (A:wyy,
    A:ywy, A:yyw); a click offers each order in words, and the one clicked is asked of the board."""
    browser, _ = page
    buttons = demo_choice(browser, session, "pass-it-on", "A")
    orders = [m.text for m in session.game.legal_moves() if m.text.startswith("A:")]
    assert len(orders) == 3
    words = {", ".join({"w": "white", "y": "yellow"}[c] for c in order.split(":")[1]): order for order in orders}
    assert sorted(b.text for b in buttons) == sorted(words)
    chosen = buttons[1].text
    buttons[1].click()
    demo = app.extensions["pitwatch"].demo
    wait_for(lambda: demo.clicks == [("A", words[chosen])], what=f"{words[chosen]} asked of the demo's board")


def test_a_player_who_must_pass_is_told_and_the_outboxes_offer_the_chips(page, session):
    """Pass It On: a player who cannot sow passes, taking a chip from an outbox. Nothing was lit and
    nothing said so, and the demo's clicks could not pass."""
    browser, _ = page
    session.new_game("pass-it-on", {}, "Ann", "Bob")
    for text in MUST_PASS_AFTER:
        session.play_by_hand(text)
    caught_up(browser, session)
    assert "Ann cannot sow: pass, taking a chip from a lit outbox" in banner(browser)["details"]
    browser.find_element(By.CSS_SELECTOR, 'input[name="demo-player"][value="clicks"]').click()
    outbox = wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, '#board g.pit.clickable[data-label="S"]'),
                      what="South's outbox to click")
    outbox[0].click()
    buttons = wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#demo-choice button"), what="the choice")
    assert sorted(b.text for b in buttons) == ["pass, taking a white chip", "pass, taking a yellow chip"]


def test_a_board_back_many_moves_ago_is_asked_before_its_moves_are_taken_back(page, session):
    browser, _ = page
    played = Game("kalah")
    for _ in range(6):
        played.play(played.legal_moves()[0])
        session.submit(board(played))
    session.submit(board(Game("kalah")))  # laid out again for a new game, New game not pressed
    shown = banner_shows(browser, "The board is back where it was 6 moves ago")
    assert shown["details"] == ["take them back (below), or start a new game if the board was laid out for one"]
    assert shown["choices"] == ["The last 6 moves were taken back"]
    browser.find_element(By.CSS_SELECTOR, "#banner .choices button").click()
    wait_for(lambda: session.game.moves == [], what="the moves taken back once chosen")


def test_a_board_button_that_does_nothing_now_says_so_under_any_verdict(page, session):
    """The reply was written as the verdict's message, which the banner shows under no move."""
    browser, _ = page
    session.play_by_hand("A")
    session.press("confirm")
    wait_for(lambda: "Board button: the confirm button does nothing now" in banner(browser)["details"],
             what="the button's reply")
