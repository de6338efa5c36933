"""Every verdict kind, worked out by hand on small situations, and their JSON."""

from __future__ import annotations

import json
import random

import pytest

import rules
from referee_games import after, random_game, reading
from rules.referee import KINDS, Referee, judge
from rules.referee.explain import sowing_boards

KALAH = rules.variant("kalah")
START = KALAH.start()


def exact(pos: rules.Position) -> rules.Reading:
    return rules.Reading.of_position(pos)


def test_one_move() -> None:
    verdict = judge([START], exact(after(KALAH, START, "B")))
    assert verdict.kind == "move"
    assert [m.text for m in verdict.moves] == ["B"]
    assert verdict.position == after(KALAH, START, "B")
    assert verdict.confidence > 0.999 and verdict.margin > 20
    assert verdict.depth == 1 and verdict.exhaustive


def test_unchanged() -> None:
    verdict = judge([START], exact(START))
    assert verdict.kind == "unchanged" and verdict.position == START


def test_takebacks_to_earlier_positions() -> None:
    game = rules.Game(KALAH)
    for text in ("B", "a", "D", "e"):
        game.play(text)
    for undo in (1, 2, 4):
        verdict = judge(game, exact(game.positions[-1 - undo]))
        assert verdict.kind == "takeback", verdict.reason
        assert verdict.best.undo == undo
        assert verdict.position == game.positions[-1 - undo]


def test_kalah_extra_turn_chain_seen_at_once() -> None:
    # C ends in South's store (4 seeds: D E F S), so South moves again: C then F
    chain = after(KALAH, START, "C", "F")
    assert chain.to_move == 1
    verdict = judge([START], exact(chain))
    assert verdict.kind == "move" and [m.text for m in verdict.moves] == ["C", "F"]
    assert verdict.depth == 2
    assert any("searched sequences of up to 2 moves" in n for n in verdict.notes)
    single = judge([START], exact(after(KALAH, START, "C")))
    assert "south moves again" in single.notes


def test_three_moves_at_once_with_captures() -> None:
    game = rules.Game(KALAH)
    for text in ("B", "a", "D", "e"):
        game.play(text)
    pos = game.position
    seq = [m.text for m in KALAH.legal_moves(pos)[:1]]
    p1 = after(KALAH, pos, *seq)
    seq.append(KALAH.legal_moves(p1)[-1].text)
    p2 = after(KALAH, pos, *seq)
    seq.append(KALAH.legal_moves(p2)[0].text)
    verdict = judge(game, exact(after(KALAH, pos, *seq)))
    assert verdict.kind == "move" and verdict.position == after(KALAH, pos, *seq)
    assert len(verdict.moves) == 3 and verdict.depth == 3


def test_an_unsure_heap_still_picks_the_only_legal_result() -> None:
    """A reading unsure whether a heap holds 13 or 14 seeds: only one legal result fits."""
    pos = KALAH.position_from_json({"to_move": "south", "pits": {
        "A": 13, "B": 2, "C": 1, "D": 0, "E": 3, "F": 3, "S": 0, "a": 4, "b": 4, "c": 4, "d": 4, "e": 4,
        "f": 2, "N": 4}})
    result = after(KALAH, pos, "E")  # E: 3 seeds into F, S, a: a holds 5
    heap = result.count("A")
    assert heap == 13
    verdict = judge([pos], reading(KALAH, result.pits, A={13: 0.5, 14: 0.5}))
    assert verdict.kind == "move" and [m.text for m in verdict.moves] == ["E"]
    verdict = judge([pos], reading(KALAH, result.pits, A={12: 0.3, 13: 0.3, 14: 0.4}))
    assert verdict.kind == "move" and verdict.position == result


def test_ambiguous_when_the_telling_pits_are_unseen() -> None:
    # A sows B C D E; B sows C D E F: the boards differ only at A, B and F
    a, b = after(KALAH, START, "A"), after(KALAH, START, "B")
    differ = [label for label, x, y in zip(KALAH.layout.labels, a.pits, b.pits) if x != y]
    assert differ == ["A", "B", "F"]
    verdict = judge([START], reading(KALAH, a.pits, unseen=differ))
    assert verdict.kind == "ambiguous"
    assert sorted(c.moves[0].text for c in verdict.candidates if c.kind == "move") == ["A", "B"]
    assert verdict.margin == pytest.approx(0.0)
    assert 0.45 < verdict.confidence <= 0.5  # B caught with one seed in hand fits too, far less likely


def test_unreadable() -> None:
    half = KALAH.layout.labels[:8]
    assert judge([START], reading(KALAH, START.pits, unseen=half)).kind == "unreadable"
    covered = rules.Reading(exact(START).pits, "vision", status="hand over board")
    verdict = judge([START], covered)
    assert verdict.kind == "unreadable" and "hand over board" in verdict.reason
    flat = {label: rules.pit_reading([1.0] * 49) for label in KALAH.layout.labels}
    verdict = judge([START], rules.Reading(flat, "vision"))
    assert verdict.kind == "unreadable" and "too uncertain" in verdict.reason


def test_in_progress_partial_sowing() -> None:
    """Seeds lifted from a pit and partly sown: the board of a move half-way."""
    move = KALAH.parse_move(START, "C")
    partial, _ = sowing_boards(START, move, KALAH.play(START, move)[1])
    for hand, (pits, _) in partial:
        verdict = judge([START], reading(KALAH, pits))
        assert verdict.kind == "in_progress", verdict.reason
        assert verdict.best.in_hand == hand and verdict.moves[0].text == "C"
        assert "wait" in verdict.reason


def test_in_progress_when_seeds_are_in_a_hand() -> None:
    """No legal sowing matches, but the board is short of seeds: a hand still holds some."""
    pits = list(START.pits)
    pits[0] = 0  # A lifted ...
    pits[3] += 1  # ... one seed put into D, three still in hand
    verdict = judge([START], reading(KALAH, pits))
    assert verdict.kind == "in_progress" and "in a hand" in verdict.reason
    assert verdict.confidence > 0.95


def test_game_end_seen_before_the_sweep() -> None:
    pos = KALAH.position_from_json({"to_move": "south", "pits": {
        "A": 0, "B": 0, "C": 0, "D": 0, "E": 0, "F": 1, "S": 20, "a": 3, "b": 2, "c": 0, "d": 0, "e": 0,
        "f": 0, "N": 22}})
    end = after(KALAH, pos, "F")  # F's seed ends in the store: South's houses are empty
    assert end.result is not None
    swept = judge([pos], exact(end))
    assert swept.kind == "move" and swept.position == end
    before = list(pos.pits)
    before[5], before[6] = 0, 21
    verdict = judge([pos], reading(KALAH, before))
    assert verdict.kind == "move" and verdict.position == end
    assert any("still to be swept" in n for n in verdict.notes)


def test_a_forced_pass_that_changes_nothing_is_committed() -> None:
    ethiopian = rules.variant("ethiopian")
    pos = ethiopian.position_from_json({"to_move": "south", "pits": {
        "A": 1, "B": 0, "C": 1, "D": 0, "E": 1, "F": 0, "S": 20, "a": 3, "b": 2, "c": 0, "d": 0, "e": 4,
        "f": 0, "N": 16}})
    assert [m.text for m in ethiopian.legal_moves(pos)] == ["pass"]
    verdict = judge([pos], exact(pos))
    assert verdict.kind == "move" and [m.text for m in verdict.moves] == ["pass"]
    assert "cannot move" in verdict.reason


def test_pass_it_on_colour_orders() -> None:
    """A holds one white and two yellows: each order puts the white somewhere else."""
    variant = rules.variant("pass-it-on")
    start = variant.start()
    orders = [m.text for m in variant.legal_moves(start) if m.text.startswith("A:")]
    assert sorted(orders) == ["A:wyy", "A:ywy", "A:yyw"]
    for text in orders:
        result = after(variant, start, text)
        verdict = judge([start], exact(result))
        assert verdict.kind == "move" and [m.text for m in verdict.moves] == [text]
    # counts of A:wyy but the white chip seen in a pit no order can put it: illegal, whites named
    result = after(variant, start, "A:wyy")
    white = list(result.white)
    white[variant.layout.index_of("B")] -= 1
    white[variant.layout.index_of("E")] += 1
    verdict = judge([start], reading(variant, result.pits, white))
    assert verdict.kind == "illegal"
    assert {(d.pit, d.expected_white, d.seen_white) for d in verdict.differences} == {("B", 1, 0), ("E", 0, 1)}


def _mid_sowing_four(seed: int = 8):
    """A Nam Nam position, a move of it that captures a four mid-sowing, the position after,
    the capture event, and the board with that four left standing by its owner."""
    variant = rules.variant("nam-nam")
    rng = random.Random(seed)
    for pos in random_game(variant, rng, 200):
        for move in variant.legal_moves(pos):
            new, events = variant.play(pos, move)
            mid = [e for k, e in enumerate(events) if e["type"] == "capture" and e["seeds"] == 4
                   and any(x["type"] == "drop" for x in events[k + 1:])
                   and not any(x.get("pit") == e["pit"] for x in events[k + 1:])
                   and not any(x["type"] == "round_end" for x in events)]
            if mid:
                pits = list(new.pits)
                pits[variant.layout.index_of(mid[0]["pit"])] += 4
                return pos, move, new, mid[0], pits
    pytest.fail("no mid-sowing capture of four found in the sample game")


def test_nam_nam_four_left_for_its_owner_is_accepted_and_recorded() -> None:
    pos, move, new, capture, pits = _mid_sowing_four()
    variant = pos.variant
    verdict = judge([pos], reading(variant, pits))
    assert verdict.kind == "move", verdict.reason
    assert verdict.moves == [move] and verdict.best.left == (capture["pit"],)
    assert verdict.position.pits == tuple(pits)
    assert verdict.position.captured[["south", "north"].index(capture["by"])] == \
        new.captured[["south", "north"].index(capture["by"])] - 4
    assert any(f"hollow {capture['pit']} holds 4" in n for n in verdict.notes)
    assert capture not in verdict.captures
    variant.validate(verdict.position)
    game = rules.Game(variant, pos)
    game.play(verdict.moves[0], observed=verdict.position)
    assert game.position == verdict.position  # the four stays on the board, uncaptured
    replayed = rules.Game.from_json(json.loads(json.dumps(game.to_json())))
    assert replayed.positions == game.positions
    game.undo()
    assert game.position == pos and game.to_json()["observed"] == {}


@pytest.mark.parametrize("p_four", [0.5, 0.9])
def test_a_four_left_that_the_reading_is_unsure_of_is_weighed_not_overlooked(p_four: float) -> None:
    """The hollow reads 0 or 4: both the capture and the four left are named, the four left with
    its position, and described apart so the players can tell them apart."""
    pos, move, new, capture, pits = _mid_sowing_four()
    unsure = dict(reading(pos.variant, pits).pits)
    unsure[capture["pit"]] = rules.PitReading((1 - p_four, 0.0, 0.0, 0.0, p_four))
    verdict = judge([pos], rules.Reading(unsure, source="camera"))
    assert verdict.kind == "ambiguous", verdict.reason
    by_board = {c.left: c for c in verdict.candidates}
    assert set(by_board) == {(), (capture["pit"],)}
    left, taken = by_board[(capture["pit"],)], by_board[()]
    assert left.moves == taken.moves == (move,)
    assert left.position.pits == tuple(pits) and taken.position == new
    assert (left.posterior > taken.posterior) == (p_four > 0.5)  # the four left's prior is e^-1
    assert left.describe() != taken.describe() and capture["pit"] in left.describe()
    shown = verdict.to_json()["candidates"]
    assert {tuple(c["left_for_owner"]) for c in shown} == {(), (capture["pit"],)}
    for c in shown:
        assert pos.variant.position_from_json(c["position"]).pits in (tuple(pits), new.pits)


def test_every_verdict_kind_is_json() -> None:
    game = rules.Game(KALAH)
    game.play("B")
    seen = {}
    readings = [exact(after(KALAH, game.position, "a")), exact(game.position), exact(START),
                reading(KALAH, START.pits, unseen=KALAH.layout.labels[:9])]
    pits = list(game.position.pits)
    pits[2], pits[3] = pits[2] - 1, pits[3] + 1  # a seed moved by hand: illegal
    readings.append(reading(KALAH, pits))
    partial, _ = sowing_boards(game.position, KALAH.parse_move(game.position, "a"),
                               KALAH.play(game.position, KALAH.parse_move(game.position, "a"))[1])
    readings.append(reading(KALAH, partial[1][1][0]))
    a, b = after(KALAH, game.position, "a"), after(KALAH, game.position, "b")
    readings.append(reading(KALAH, a.pits, unseen=[label for label, x, y in zip(KALAH.layout.labels, a.pits, b.pits)
                                                    if x != y]))
    for r in readings:
        verdict = judge(game, r)
        data = json.loads(json.dumps(verdict.to_json()))
        assert data["kind"] == verdict.kind
        assert set(data) >= {"kind", "reason", "moves", "position", "captures", "confidence", "margin",
                             "candidates", "differences", "mistake", "notes", "depth", "exhaustive"}
        seen[verdict.kind] = data
    assert set(seen) == set(KINDS)
    assert seen["illegal"]["differences"] and seen["illegal"]["mistake"]["words"]
    assert seen["illegal"]["position"] is not None  # the nearest legal result
    for kind in ("in_progress", "ambiguous", "unreadable"):
        assert seen[kind]["position"] is None
    assert len(seen["ambiguous"]["candidates"]) >= 2


def test_a_reading_as_json_and_bad_readings() -> None:
    data = exact(after(KALAH, START, "D")).to_json()
    assert judge([START], data).moves[0].text == "D"
    with pytest.raises(rules.BadReading, match="'Z'"):
        judge([START], {"pits": {"Z": {"p": [1]}}})
    with pytest.raises(rules.BadReading):
        judge([START], {"pits": {"A": {"p": [-1]}}})
    with pytest.raises(TypeError):
        judge([], exact(START))


def test_a_referee_is_reusable_and_gives_the_same_verdicts() -> None:
    referee = Referee()
    game = random_game(KALAH, random.Random(3), 30)
    first = [referee.judge(game[:k], exact(game[k])).to_json() for k in range(1, len(game))]
    again = [referee.judge(game[:k], exact(game[k])).to_json() for k in range(1, len(game))]
    fresh = [Referee().judge(game[:k], exact(game[k])).to_json() for k in range(1, len(game))]
    assert first == again == fresh


def test_after_an_agreed_draw_no_move_is_legal() -> None:
    game = rules.Game("oware")
    game.play("C")
    game.agree_draw()
    verdict = judge(game, exact(after(game.variant, game.position, "a")))
    assert verdict.kind == "illegal" and "the game is over" in verdict.mistake.words
    assert judge(game, exact(game.position)).kind == "unchanged"


@pytest.mark.parametrize("name", sorted(rules.VARIANTS))
def test_a_move_caught_half_way_in_every_variant(name: str) -> None:
    """Boards seen while a move is sown (laps, captures on the way, colour orders) say: wait."""
    variant = rules.variant(name)
    rng = random.Random(f"half-way {name}")
    judged = 0
    while judged < 12:
        pos = rng.choice(random_game(variant, rng, 120))
        moves = [m for m in variant.legal_moves(pos) if not m.is_pass]
        if not moves:
            continue
        move = rng.choice(moves)
        partial, _ = sowing_boards(pos, move, variant.play(pos, move)[1])
        hand, (pits, white) = rng.choice(partial)
        verdict = judge([pos], reading(variant, pits, white))
        if verdict.kind == "in_progress":
            assert verdict.best.in_hand == hand and verdict.moves[0].pit == move.pit
        else:
            assert verdict.kind == "ambiguous", verdict.reason
            assert any(c.kind == "in_progress" and c.in_hand == hand for c in verdict.candidates)
        judged += 1
