"""Game records: text and JSON round trips over random games of every variant, and errors
that name their line and column."""

from __future__ import annotations

import json
import random

import pytest

import rules
from referee_games import mid_sowing_four, random_game
from rules.referee import judge
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


def _game_with_a_four_left(moves_after: int = 6) -> tuple[rules.Game, int, str]:
    """A Nam Nam game in which the referee accepted a four left for its owner, then went on:
    the game, the number of that move and the hollow."""
    game, _, _, capture, pits = mid_sowing_four()
    verdict = judge(game, rules.Reading.exact(game.variant.layout.labels, pits))
    assert verdict.kind == "move" and verdict.best.left == (capture["pit"],), verdict.reason
    game.play(verdict.moves[0], observed=verdict.position)
    number = len(game.moves)
    rng = random.Random(2)
    for _ in range(moves_after):
        game.play(rng.choice(game.legal_moves()))
    return game, number, capture["pit"]


def test_a_nam_nam_four_left_for_its_owner_survives_both_forms_with_moves_after_it() -> None:
    game, number, hollow = _game_with_a_four_left()
    record = Record.from_game(game, {number: ["the four stood"]})
    assert record.left == {number: (hollow,)}
    assert record.positions == game.positions
    text = record.to_text()
    written = f"{game.moves[number - 1].text}/{hollow}"
    assert f" {written} " in text.replace("\n", " ")
    again = read(text)
    assert again.left == record.left and again.comments == record.comments
    assert again.positions == game.positions and again.to_game().positions == game.positions
    assert again.to_text() == text
    data = json.loads(json.dumps(record.to_json()))
    assert data["left_for_owner"] == {str(number): [hollow]}
    assert data["moves"][number - 1] == game.moves[number - 1].text  # the JSON moves stay engine moves
    from_json = Record.from_json(data)
    assert from_json.positions == game.positions and from_json.to_json() == record.to_json()
    # without the annotation the same moves are another game: the four is captured, the record differs
    plain = Record.from_moves("nam-nam", [m.text for m in game.moves[:number]])
    assert plain.positions[-1] != game.positions[number]


def test_a_four_left_that_the_rules_do_not_allow_is_an_error_with_its_place() -> None:
    game, number, hollow = _game_with_a_four_left(0)
    moves = " ".join(m.text for m in game.moves[:number - 1])
    last = game.moves[number - 1].text
    wrong = next(label for label in game.variant.layout.labels if label != hollow)
    text = f'[Variant "nam-nam"]\n\n{moves} {last}/{wrong} *'
    with pytest.raises(NotationError) as caught:
        read(text)
    assert caught.value.line == 3 and f"no four in hollow {wrong!r}" in str(caught.value)
    with pytest.raises(NotationError, match="no four is ever left"):
        read('[Variant "kalah"]\n\n1. B/c *')
    with pytest.raises(rules.RulesError, match="'left_for_owner'"):
        Record.from_json({**Record.from_game(game).to_json(), "left_for_owner": {"x": ["a"]}})
    with pytest.raises(rules.RulesError, match=r"fours left after moves \[99\]"):
        Record.from_json({**Record.from_game(game).to_json(), "left_for_owner": {"99": [hollow]}})
    odd = rules.Game("nam-nam")  # a position the game accepted that no four left explains
    new, _ = odd.variant.play(odd.position, odd.legal_moves()[0])
    odd.play(odd.legal_moves()[0], observed=new._replace(pits=new.pits[1:] + new.pits[:1]))
    with pytest.raises(rules.RulesError, match="neither a four left for its owner nor a round.s choice of hollows explains it"):
        Record.from_game(odd)


def test_line_comments_are_kept_like_braced_ones() -> None:
    text = '[Variant "kalah"]\n\n; before the game\n1. C ; extra turn, then F\nF {braced} 1... a ; last\n*\n'
    record = read(text)
    assert [m.text for m in record.moves] == ["C", "F", "a"]
    assert record.comments == {0: ["before the game"], 1: ["extra turn, then F"], 2: ["braced"], 3: ["last"]}
    assert read(record.to_text()).comments == record.comments
    # a comment holding '}' is written after ';' and ends its line
    closing = Record.from_moves("kalah", ["C", "F"])
    closing.comments = {1: ["a } inside"], 2: ["after"]}
    written = closing.to_text()
    assert "C ; a } inside\n" in written
    assert read(written).comments == closing.comments
    closing.comments = {1: ["both }\nand a line break"]}
    with pytest.raises(ValueError, match="no comment form"):
        closing.to_text()
