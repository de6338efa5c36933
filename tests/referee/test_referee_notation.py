"""Game records: text and JSON round trips over random games of every variant, and errors
that name their line and column."""

from __future__ import annotations

import json
import random

import pytest

import rules
from referee_games import random_game
from rules.notation import NotationError, Record, read, read_all, result_token, write_all


def random_record(name: str, rng: random.Random, plies: int = 400) -> Record:
    variant = rules.variant(name)
    game = rules.Game(variant, tags={"Event": "Club night", "South": "Ada \"the Quick\"", "North": "Bo\\b"})
    for _ in range(plies):
        if game.is_over:
            break
        game.play(rng.choice(game.legal_moves()), events=False)
    comments = {0: ["opening"], len(game.moves) // 2: ["a comment; with {braces} inside? no: brackets []"]}
    comments = {k: [c.replace("{", "(").replace("}", ")") for c in v] for k, v in comments.items()}
    return Record.from_game(game, comments, Site="Leiden", Date="2026.11.22")


@pytest.mark.parametrize("name", sorted(rules.VARIANTS))
def test_text_round_trip(name: str) -> None:
    rng = random.Random(f"notation {name}")
    for plies in (0, 1, 7, 400):
        record = random_record(name, rng, plies)
        text = record.to_text()
        again = read(text)
        assert [m.text for m in again.moves] == [m.text for m in record.moves]
        assert again.positions == record.positions
        assert again.comments == record.comments
        assert again.tags == record.tags
        assert again.result == record.result == result_token(record.positions[-1].result)
        assert again.to_text() == text
        assert all(len(line) <= 79 for line in text.splitlines() if not line.startswith("["))


@pytest.mark.parametrize("name", sorted(rules.VARIANTS))
def test_json_round_trip(name: str) -> None:
    record = random_record(name, random.Random(f"json {name}"))
    data = json.loads(json.dumps(record.to_json()))
    again = Record.from_json(data)
    assert again.positions == record.positions
    assert again.to_json() == record.to_json()
    assert again.to_text() == record.to_text()


def test_a_record_from_another_start_keeps_it() -> None:
    variant = rules.variant("oware")
    start = random_game(variant, random.Random(4), 10)[-1]
    record = Record.from_moves(variant, [variant.legal_moves(start)[0].text], start=start)
    text = record.to_text()
    assert '[Start "{' in text
    assert read(text).positions == record.positions
    assert Record.from_json(record.to_json()).positions == record.positions


def test_kalah_extra_turns_and_numbers() -> None:
    record = Record.from_moves("kalah", ["C", "F", "a"], South="Ada")
    text = record.to_text()
    assert "1. C F a *" in text  # C ends in the store: South plays again within turn 1
    assert read("[Variant \"kalah\"]\n1. C F 1... a *").moves == record.moves


def test_pass_it_on_match_score_and_colour_orders() -> None:
    rng = random.Random(11)
    records = []
    for _ in range(2):
        record = random_record("pass-it-on", rng)
        records.append(record)
        assert record.positions[-1].result is not None
        match = record.positions[-1].to_json()["match"]
        assert f'[Match "{match["south"]}-{match["north"]}"]' in record.to_text()
        assert any(":" in m.text for m in record.moves)  # colour orders such as A:wyy
    again = read_all(write_all(records))
    assert [r.positions for r in again] == [r.positions for r in records]


@pytest.mark.parametrize("text, line, column, words", [
    ('[Variant "kalah"]\n\n1. C {never closed', 3, 6, "never closed"),
    ('[Variant "kalah"]\n\n1. C Z *', 3, 6, "move 2"),
    ('[Variant "kalah"\n1. C *', 1, 1, "malformed tag pair"),
    ('[Variant "kalahx"]\n\n1. C *', 1, 1, "unknown variant"),
    ('[Variant "kalah"]\n[Options "houses=x"]\n1. C *', 2, 1, "whole number"),
    ('[Variant "kalah"]\n[Options "pits=6"]\n1. C *', 2, 1, "known name"),
    ('[Variant "kalah"]\n\n1. C F', 3, 7, "without a result"),
    ('[Variant "kalah"]\n\n1. C F 1-0', 3, 8, "have not ended"),
    ('[Variant "kalah"]\n[Result "0-1"]\n1. C *', 2, 1, "Result tag"),
    ('[Variant "kalah"]\n\n1. C [Event "x"] *', 3, 6, "inside the move list"),
    ('[Event "x"]\n\n1. C *', 1, 1, "no [Variant"),
    ('[Variant "kalah"]\n[Variant "oware"]\n*', 2, 1, "twice"),
    ('[Variant "oware"]\n[Start "{not json"]\n*', 2, 1, "not JSON"),
    ('[Variant "kalah"]\n\n1. C 1/2-1/2', 3, 6, "no draw by agreement"),
    ('[Variant "kalah"]\n\n  1. C " *', 3, 8, "unexpected character"),
])
def test_malformed_records_name_line_and_column(text: str, line: int, column: int, words: str) -> None:
    with pytest.raises(NotationError) as caught:
        read(text)
    assert (caught.value.line, caught.value.column) == (line, column), str(caught.value)
    assert words in str(caught.value)
    assert str(caught.value).startswith(f"line {line}, column {column}: ")


def test_bad_json_records_name_the_field() -> None:
    good = Record.from_moves("kalah", ["C", "F"]).to_json()
    for broken, words in [
        ({**good, "moves": "C F"}, "'moves'"),
        ({**good, "variant": 3}, "'variant'"),
        ({**good, "options": {"houses": "six"}}, "houses"),
        ({**good, "moves": ["C", "Z"]}, "move 2"),
        ({**good, "result": "2-0"}, "'result'"),
        ([], "JSON object"),
    ]:
        with pytest.raises(rules.RulesError, match=words):
            Record.from_json(broken)


def test_read_expects_one_game() -> None:
    two = '[Variant "kalah"]\n1. C *\n[Variant "kalah"]\n1. D *\n'
    assert len(read_all(two)) == 2
    with pytest.raises(NotationError, match="found 2"):
        read(two)


def test_records_become_games() -> None:
    record = random_record("oware", random.Random(5))
    game = read(record.to_text()).to_game()
    assert game.positions == record.positions
    assert game.tags["Event"] == "Club night"


def test_options_are_written_and_read_back() -> None:
    variant = rules.variant("oware", grand_slam="forbidden", repetitions=2)
    game = rules.Game(variant)
    for text in ("C", "a", "F"):
        game.play(text)
    text = Record.from_game(game).to_text()
    assert '[Options "grand_slam=forbidden no_feeding_move=play_on repetitions=2' in text
    again = read(text)
    assert again.variant == variant and again.positions == game.positions
