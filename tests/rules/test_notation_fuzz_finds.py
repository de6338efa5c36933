"""Game records the fuzzer found the notation mishandling: tag names that are also parameter names,
numbers too long for Python to read, move numbers only ``str.isdigit`` takes, JSON tags the text
form cannot hold, and records of more games than a reader asks for. Each is a named error (or,
for a legal tag name, kept), never a ValueError or TypeError."""

from __future__ import annotations

import json

import pytest

import rules
from rules.notation import NotationError, Record, read, read_all

HUGE = "9" * 5000  # more digits than Python's int() converts from text (4,300)
# tag names the text form allows that are also names of the parameters of Record's constructors
PARAMETER_NAMES = ("cls", "game", "comments", "variant", "texts", "start", "left", "tags")


def kalah_json(**fields) -> dict:
    return {**Record.from_moves("kalah", ["C", "F"]).to_json(), **fields}


def test_a_tag_of_any_name_the_notation_allows_goes_through_from_game():
    game = rules.Game("kalah")
    game.play("C")
    tags = {name: f"value of {name}" for name in PARAMETER_NAMES}
    record = Record.from_game(game, {0: ["opening"]}, **tags)
    assert record.tags == tags and record.comments == {0: ["opening"]}
    assert tags.items() <= read(record.to_text()).tags.items()


def test_a_tag_of_any_name_the_notation_allows_goes_through_json():
    tags = {name: f"value of {name}" for name in PARAMETER_NAMES}
    record = Record.from_json(kalah_json(tags=tags))
    assert record.tags == tags
    assert Record.from_json(json.loads(json.dumps(record.to_json()))).tags == tags
    assert tags.items() <= read(record.to_text()).tags.items()


def test_a_start_tag_with_a_number_too_long_to_read_is_named_with_its_line():
    text = f'[Variant "kalah"]\n[Event "x"] [Start "[{HUGE}]"]\n\n*\n'
    with pytest.raises(NotationError) as refused:
        read(text)
    assert (refused.value.line, refused.value.column) == (2, 13)
    assert "the Start tag is not JSON: a number of 5,000 digits" in str(refused.value)


@pytest.mark.parametrize("key", ["\u00b2", "\u2460", "1" * 5000, "-1", " 1", ""])
def test_left_for_owner_takes_only_move_numbers_int_reads(key):
    with pytest.raises(rules.RulesError) as refused:
        Record.from_json(kalah_json(left_for_owner={key: ["a"]}))
    assert "'left_for_owner' maps move numbers to lists of hollows" in str(refused.value)
    assert "not a move number" in str(refused.value)


@pytest.mark.parametrize("name", ["bad name]", "", "1st", "Caf\u00e9", "a-b", 'x"', "\ud800"])
def test_a_json_tag_name_the_text_form_cannot_hold_is_refused(name):
    with pytest.raises(rules.RulesError) as refused:
        Record.from_json(kalah_json(tags={name: "x"}))
    assert f"'tags': the tag name {name[:40]!r} is not one a record can hold" in str(refused.value)


@pytest.mark.parametrize("value, kind", [({"a": [1, 2]}, "dict"), (12, "int"), (None, "NoneType"),
                                         (["x"], "list"), (True, "bool")])
def test_a_json_tag_value_that_is_not_text_is_refused(value, kind):
    with pytest.raises(rules.RulesError) as refused:
        Record.from_json(kalah_json(tags={"Event": value}))
    assert str(refused.value) == f"'tags.Event': the value is {kind}, not text"


def test_a_json_tag_value_with_a_lone_surrogate_is_refused():
    with pytest.raises(rules.RulesError) as refused:
        Record.from_json(kalah_json(tags={"South": "Ada", "Event": "Club \ud800"}))
    assert str(refused.value) == ("'tags.Event': the value holds a lone surrogate ('\\ud800'), which no "
                                  "UTF-8 text can hold")


def test_a_json_tag_value_on_two_lines_is_refused_not_joined():
    """The text form keeps a tag on one line: its export once wrote the line break as a space."""
    with pytest.raises(rules.RulesError) as refused:
        Record.from_json(kalah_json(tags={"Event": "Club night\nround 2"}))
    assert str(refused.value) == ("'tags.Event': the value holds a line break, which a tag pair cannot: a "
                                  "record's text keeps each tag on one line")


def test_every_tag_name_the_text_form_reads_is_taken_from_json():
    names = ["a", "Z", "Round_2", "x9_"]
    assert list(Record.from_json(kalah_json(tags=dict.fromkeys(names, "v"))).tags) == names


def test_read_all_stops_at_the_first_game_past_the_most_asked_for():
    """The limit is checked before the game past it is read: what follows it (here a move no
    rules allow) is never looked at."""
    game = '[Variant "kalah"]\n*\n'
    text = game * 3 + '[Variant "kalah"]\n1. Z *\n'
    assert len(read_all(game * 3, 3)) == 3
    with pytest.raises(NotationError) as refused:
        read_all(text, 2)
    assert (refused.value.line, refused.value.column) == (5, 1)
    assert refused.value.reason == ("game 3 starts here, but a record may hold at most 2 games: split it into "
                                    "smaller files")
    assert len(read_all(game * 3)) == 3  # no limit unless asked
