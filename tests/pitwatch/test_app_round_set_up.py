"""Oware Nam Nam's round set-up on a real session, recorder and dashboard API: the round's leader
says which of the opponent's hollows he takes (seed counts cannot show it), and that choice is
what the game, its record and a resumed session play on. Also: a choice or a correction made on
a verdict the players no longer see is refused, not applied to another one."""

from __future__ import annotations

import json

import pytest

import rules
from apphelpers import between
from pitwatch.hub import FrameFeed
from pitwatch import records
from pitwatch.records import game_of
from pitwatch.session import Session, SessionError
from rules import Game, notation
from web import create_app

# South to move: B sows 3 into C (3 -> 4 mid-sowing, South's: captured) and leaves 4 in play,
# which South takes too: South leads the round 32-16 and takes 2 of North's hollows (RULES.md).
BEFORE_ROUND_END = {
    "to_move": "south",
    "pits": {**dict.fromkeys("ABCDEFabcdef", 0), "A": 1, "B": 3, "C": 3, "a": 1},
    "captured": {"south": 24, "north": 16},
    "owners": {label: "south" if label.isupper() else "north" for label in "ABCDEFabcdef"},
    "round": 1, "round_starter": "north", "rounds": [],
}


def owners(position_json: dict) -> str:
    """The owners of a-f as South / North letters."""
    return "".join("S" if position_json["owners"][label] == "south" else "N" for label in "abcdef")


@pytest.fixture
def round_ended(recorder):
    """A Nam Nam session whose last move (South's B) has just ended round 1."""
    session = Session(recorder)
    start = Game("nam-nam").variant.position_from_json(BEFORE_ROUND_END)
    session.new_game("nam-nam", {}, "Ann", "Bob", start=start)
    session.play_by_hand("B")
    return session


def test_the_leader_is_asked_and_his_choice_is_played_recorded_and_resumed(round_ended, recorder):
    state = round_ended.state()["game"]
    assert state["round_choice"] == {"leader": "south", "count": 2, "hollows": list("abcdef"),
                                     "chosen": ["a", "b"]}  # the option's default until Ann says
    verdict = round_ended.choose_hollows(["e", "c"])
    assert verdict["by"] == "players" and verdict["message"] == "Ann takes hollows c, e"
    state = round_ended.state()["game"]
    assert owners(state["position"]) == "NNSNSN"
    assert state["round_choice"]["chosen"] == ["c", "e"]  # still the round's start: she may change her mind
    assert [m["text"] for m in state["moves"]] == ["B"]  # the round-ending move, not a new one
    assert owners(recorder.moves(round_ended.game_id)[-1].position) == "NNSNSN"
    assert game_of(recorder, round_ended.game_id)[1].positions == round_ended.game.positions
    resumed = Session(recorder)
    assert resumed.resume_or_start("kalah", {}, "Cy", "Di")
    assert resumed.game.positions == round_ended.game.positions
    resumed.play_by_hand("a")  # North's first move of round 2: the choice is made
    assert resumed.state()["game"]["round_choice"] is None
    with pytest.raises(SessionError, match="no one chooses hollows now"):
        resumed.choose_hollows(["a", "b"])


def test_the_choice_is_in_the_games_record_and_read_back_from_it(round_ended, recorder):
    """A record carried only fours left standing, so a game whose leader had taken hollows could
    not be exported, shown or imported: `move 1 (B): the game accepted a position that is not the
    rules' result` (found 2026-12-07). The choice is written after the round-ending move, ``B=c=e``."""
    round_ended.choose_hollows(["e", "c"])
    text = records.export(recorder, round_ended.game_id, "text")
    assert "1. B=c=e *" in text
    assert notation.read(text).to_game().positions == round_ended.game.positions
    as_json = json.loads(records.export(recorder, round_ended.game_id, "json"))
    assert as_json["round_choices"] == {"1": ["c", "e"]}
    assert notation.Record.from_json(as_json).to_game().positions == round_ended.game.positions
    imported = recorder.import_games(records.read_import(text).games)
    assert game_of(recorder, imported[0])[1].positions == round_ended.game.positions
    with pytest.raises(rules.RulesError, match="kalah: no round's leader chooses hollows, so a move cannot name them"):
        notation.read('[Variant "kalah"]\n\n1. C=a *\n')


def test_a_wrong_choice_is_refused_naming_what_to_choose_and_changes_nothing(round_ended, recorder):
    before = round_ended.game.positions[:]
    for wrong in (["c"], ["c", "c"], ["c", "E"], ["c", "z"]):
        with pytest.raises(SessionError, match=r"Ann chooses 2 different hollows of Bob.s \(a, b, c, d, e, f\)"):
            round_ended.choose_hollows(wrong)
    assert round_ended.game.positions == before
    assert owners(recorder.moves(round_ended.game_id)[-1].position) == "SSNNNN"


def test_no_one_chooses_hollows_in_another_variant_or_before_a_round_is_decided(session, recorder):
    with pytest.raises(SessionError, match="no one chooses hollows now"):
        session.choose_hollows(["a"])
    assert session.state()["game"]["round_choice"] is None
    session.new_game("nam-nam", {}, "Ann", "Bob")
    assert session.state()["game"]["round_choice"] is None
    with pytest.raises(SessionError, match="no one chooses hollows now"):
        session.choose_hollows(["a"])


def test_taking_back_after_a_choice_takes_back_the_round_ending_move(round_ended):
    round_ended.choose_hollows(["c", "e"])
    round_ended.takeback()
    assert round_ended.game.moves == [] and round_ended.state()["game"]["round_choice"] is None


def post(client, url, body, headers):
    return client.post(url, data=json.dumps(body), content_type="application/json", headers=headers)


@pytest.fixture
def api(round_ended):
    app = create_app(round_ended, frames=FrameFeed())
    return app.test_client(), {"X-CSRF-Token": app.extensions["pitwatch"].guard.csrf}


@pytest.mark.parametrize("body, status, message", [
    ({}, 400, "missing field 'hollows'"),
    ({"hollows": "c"}, 400, "field 'hollows' must be a list, not \"c\""),
    ({"hollows": ["c", 5]}, 400, "field 'hollows' must be a list of at most 64 hollow labels"),
    ({"hollows": ["c"] * 65}, 400, "at most 64"),
    ({"hollows": ["c"]}, 409, "Ann chooses 2 different hollows of Bob's (a, b, c, d, e, f), not c"),
])
def test_the_api_refuses_a_bad_choice_naming_it(api, body, status, message):
    client, csrf = api
    answer = post(client, "/api/hollows", body, csrf)
    assert answer.status_code == status and message in answer.get_json()["error"], answer.get_json()


def test_the_api_sets_the_hollows(api, round_ended):
    client, csrf = api
    assert post(client, "/api/hollows", {"hollows": ["d", "f"]}, csrf).status_code == 200
    assert owners(json.loads(client.get("/api/state").data)["game"]["position"]) == "NNNSNS"


def test_a_choice_or_correction_made_on_what_is_no_longer_shown_is_refused(session):
    client = create_app(session, frames=FrameFeed()).test_client()
    csrf = {"X-CSRF-Token": client.application.extensions["pitwatch"].guard.csrf}
    game = session.game
    a, _ = game.variant.play(game.position, game.variant.parse_move(game.position, "A"))
    b, _ = game.variant.play(game.position, game.variant.parse_move(game.position, "B"))
    session.submit(between(a, b))
    choices = session.state()["choices"]
    index = [c["moves"] for c in choices].index(["A"])
    stale = post(client, "/api/choose", {"index": index, "moves": ["B"]}, csrf)
    assert stale.status_code == 409 and "changed since it was shown" in stale.get_json()["error"]
    assert session.game.moves == []
    assert post(client, "/api/choose", {"index": index, "moves": ["A"]}, csrf).status_code == 200
    stale = post(client, "/api/correct", {"move": "B", "replaces": "C"}, csrf)
    assert stale.status_code == 409 and "the last move is now A, not C" in stale.get_json()["error"]
    assert post(client, "/api/correct", {"move": "B", "replaces": "A"}, csrf).status_code == 200
    assert [m.text for m in session.game.moves] == ["B"]
