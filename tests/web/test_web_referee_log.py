"""A recorded game's replay tells its story besides the moves: the boards judged illegal or
ambiguous and the players' own changes (a move entered, chosen, taken back); the moves the referee
saw are only in the move list. Over a real session and recorder,
through the API and in a headless Chromium."""

from __future__ import annotations

import json
import sqlite3

import pytest
from selenium.webdriver.common.by import By

from apphelpers import between, board
from pitwatch import records
from pitwatch_browser import chromium, wait_for
from rules import Game, Reading
from served import serving


@pytest.fixture
def told(session):
    """Kalah, Ann and Bob: C seen plainly (South plays again); a board no move explains; F entered by
    hand and taken back; a board between two moves, the players choosing A: (session, its game id)."""
    after_c = Game("kalah")
    after_c.play("C")
    assert session.submit(board(after_c))["kind"] == "move"
    pits = list(after_c.position.pits)
    pits[0], pits[1] = pits[0] + 1, pits[1] - 1  # a seed in the wrong pit
    labels = after_c.variant.layout.labels
    assert session.submit(Reading.exact(labels, pits, source="camera"))["kind"] == "illegal"
    session.play_by_hand("F")
    session.takeback()
    position = session.game.position
    a, _ = after_c.variant.play(position, after_c.variant.parse_move(position, "A"))
    b, _ = after_c.variant.play(position, after_c.variant.parse_move(position, "B"))
    assert session.submit(between(a, b))["kind"] == "ambiguous"
    index = [c["moves"] for c in session.state()["choices"]].index(["A"])
    session.choose(index)
    return session, session.game_id


def test_the_log_tells_what_the_players_did_and_the_boards_in_question_not_the_plain_moves(told):
    session, game_id = told
    log = records.referee_log(session.recorder, game_id)
    assert [(e["ply"], e["kind"], e["by"]) for e in log] == [
        (1, "illegal", "referee"), (1, "move", "players"), (2, "takeback", "players"), (1, "ambiguous", "referee"),
        (1, "move", "players")]
    assert log[1]["words"] == "F entered by hand" and log[2]["words"] == "F taken back"
    assert log[4]["words"].startswith("chosen by the players") and log[4]["moves"] == ["A"]


def test_a_replay_shows_the_log_and_a_click_on_an_entry_shows_that_board(told, app, tmp_path):
    session, game_id = told
    with serving(app) as url:
        browser = chromium(tmp_path / "chromium-profile")
        try:
            browser.get(f"{url}games/{game_id}")
            entries = wait_for(lambda: len(found := browser.find_elements(By.CSS_SELECTOR, "#log li")) == 5 and found,
                               what="the five entries of the log")
            assert entries[0].text.startswith("after move 1: Illegal: "), entries[0].text
            assert entries[1].text == "after move 1: F entered by hand"
            entries[2].click()
            wait_for(lambda: browser.find_element(By.ID, "step-text").text.startswith("after move 2 of 2"),
                     what="the board after move 2")
            assert "current" in entries[2].get_attribute("class")
        finally:
            browser.quit()


def test_a_damaged_verdict_row_is_named_and_the_moves_still_replay(told, client):
    session, game_id = told
    with sqlite3.connect(session.recorder.path) as db:
        db.execute("UPDATE verdicts SET body='[not json' WHERE kind='takeback'")
    answer = client.get(f"/api/games/{game_id}")
    assert answer.status_code == 200
    data = json.loads(answer.data)
    assert data["log"] == [] and "verdicts.body" in data["log_damage"] and len(data["steps"]) == 3
