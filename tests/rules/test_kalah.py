"""Kalah, kalah-3 and egyptian: every rule of RULES.md worked by hand.

Pit order: A B C D E F S a b c d e f N; North's a faces South's F, f faces A.
"""

import pytest
from rules_boards import counts, kinds, play, position

import rules

KALAH = rules.variant("kalah")


def test_first_move_into_own_store_moves_again():
    pos, events = play(KALAH, KALAH.start(), "C")
    assert counts(pos) == {"A": 4, "B": 4, "D": 5, "E": 5, "F": 5, "S": 1,
                           "a": 4, "b": 4, "c": 4, "d": 4, "e": 4, "f": 4}
    assert pos.to_move == rules.SOUTH
    assert kinds(events) == ["lift", "drop", "drop", "drop", "drop", "extra_turn"]


def test_first_move_past_store_passes_the_turn():
    pos, _ = play(KALAH, KALAH.start(), "D")
    assert (pos.count("S"), pos.count("a"), pos.to_move) == (1, 5, rules.NORTH)


def test_opponents_store_is_skipped_and_capture_takes_the_opposite_house():
    pos = position(KALAH, A=1, F=9, S=10, a=4, b=4, c=4, d=4, e=4, f=4, N=4)
    new, events = play(KALAH, pos, "F")
    # F: S a b c d e f, (N skipped), A B; B was empty: B's seed and e's 5 go to S
    assert counts(new) == {"A": 2, "S": 17, "a": 5, "b": 5, "c": 5, "d": 5, "f": 5, "N": 4}
    assert {"type": "skip", "pit": "N"} in events
    assert [e for e in events if e["type"] == "capture"] == [
        {"type": "capture", "pit": "e", "seeds": 5, "by": "south", "to": "S"},
        {"type": "capture", "pit": "B", "seeds": 1, "by": "south", "to": "S"},
    ]
    assert new.to_move == rules.NORTH


@pytest.mark.parametrize("needs_opposite, expected_b, expected_s", [(False, 0, 21), (True, 1, 20)])
def test_capture_with_an_empty_opposite_house(needs_opposite, expected_b, expected_s):
    v = rules.variant("kalah", capture_needs_opposite=needs_opposite)
    pos = position(v, A=1, S=20, a=5, b=5, c=5, d=5, f=3, N=4)  # B faces e, which is empty
    new, _ = play(v, pos, "A")
    assert (new.count("B"), new.count("S")) == (expected_b, expected_s)


def test_long_sowing_does_not_skip_the_start_house():
    pos = position(KALAH, A=13, a=4, b=4, c=4, d=4, e=4, f=4, N=11)
    new, _ = play(KALAH, pos, "A")
    # 13 seeds: B..F, S, a..f, A again (now 1, it was emptied): captures A and f
    assert counts(new) == {"B": 1, "C": 1, "D": 1, "E": 1, "F": 1, "S": 7,
                           "a": 5, "b": 5, "c": 5, "d": 5, "e": 5, "N": 11}


def test_side_empty_ends_the_game_and_beats_the_extra_turn():
    pos = position(KALAH, F=1, S=20, a=3, f=2, N=22)
    new, events = play(KALAH, pos, "F")
    assert new.result == rules.Result(rules.NORTH, "a side is empty", (21, 27))
    assert counts(new) == {"S": 21, "N": 27}
    assert "extra_turn" not in kinds(events)
    assert kinds(events)[-3:] == ["sweep", "sweep", "game_end"]
    assert KALAH.legal_moves(new) == []


def test_equal_stores_draw():
    new, _ = play(KALAH, position(KALAH, F=1, S=23, a=2, N=22), "F")
    assert new.result.winner is None and new.result.score == (24, 24)


def test_presets_and_options():
    assert rules.variant("kalah-3").start().pits == (3,) * 6 + (0,) + (3,) * 6 + (0,)
    assert rules.variant("egyptian").start().pits == KALAH.start().pits
    small = rules.variant("kalah", houses=4, seeds=5)
    assert small.layout.labels == ("A", "B", "C", "D", "S", "a", "b", "c", "d", "N")
    assert small.total_seeds == 40
    with pytest.raises(rules.BadOption, match="houses=9 is outside 1..8"):
        rules.variant("kalah", houses=9)


def test_a_position_that_should_have_ended_is_rejected():
    with pytest.raises(rules.BadPosition, match="game is over"):
        position(KALAH, A=1, S=20, N=27)
