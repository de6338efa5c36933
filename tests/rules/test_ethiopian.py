"""Ethiopian: directions, the single-seed ban, passes and the end when neither can move.

Pit order: A B C D E F S a b c d e f N. CW from South's row runs leftwards,
skips N, runs along North's row from f to a, then enters S.
"""

import pytest
from rules_boards import counts, kinds, play, position

import rules

ETHIOPIAN = rules.variant("ethiopian")


def test_every_house_offers_both_directions():
    texts = [str(m) for m in ETHIOPIAN.legal_moves(ETHIOPIAN.start())]
    assert texts == ["A>", "A<", "B>", "B<", "C>", "C<", "D>", "D<", "E>", "E<", "F>", "F<"]
    move = ETHIOPIAN.parse_move(ETHIOPIAN.start(), "C<")
    assert (move.pit, move.direction) == (2, "cw")


def test_ccw_is_kalah():
    pos, _ = play(ETHIOPIAN, ETHIOPIAN.start(), "C>")
    assert (pos.count("S"), pos.to_move) == (1, rules.SOUTH)


def test_cw_skips_the_opponents_store_and_runs_along_his_row():
    pos, events = play(ETHIOPIAN, ETHIOPIAN.start(), "A<")
    assert counts(pos) == {"B": 4, "C": 4, "D": 4, "E": 4, "F": 4,
                           "a": 4, "b": 4, "c": 5, "d": 5, "e": 5, "f": 5}
    assert events[1] == {"type": "skip", "pit": "N"}


def test_cw_into_own_store_moves_again():
    pos = position(ETHIOPIAN, B=8, C=4, a=4, b=4, c=4, d=4, e=4, f=4, N=12)
    new, events = play(ETHIOPIAN, pos, "B<")  # A, f e d c b a, S
    assert counts(new) == {"A": 1, "C": 4, "S": 1, "a": 5, "b": 5, "c": 5, "d": 5, "e": 5, "f": 5, "N": 12}
    assert new.to_move == rules.SOUTH and events[-1]["type"] == "extra_turn"


def test_cw_capture_after_going_round():
    pos = position(ETHIOPIAN, B=9, C=3, a=4, b=4, c=4, d=4, e=4, f=4, N=12)
    new, _ = play(ETHIOPIAN, pos, "B<")  # A, f..a, S, F: F was empty, takes a (5)
    assert counts(new) == {"A": 1, "C": 3, "S": 7, "b": 5, "c": 5, "d": 5, "e": 5, "f": 5, "N": 12}


def test_a_single_seed_never_starts_a_move():
    pos = position(ETHIOPIAN, A=1, B=2, S=20, a=3, N=22)
    assert [str(m) for m in ETHIOPIAN.legal_moves(pos)] == ["B>", "B<"]
    with pytest.raises(rules.IllegalMove, match="'A>' is not a legal move for south: a house of one seed never starts a move; legal moves: B>, B<"):
        ETHIOPIAN.parse_move(pos, "A>")


def test_only_singles_means_pass_and_the_pass_is_a_move():
    pos = position(ETHIOPIAN, A=1, C=1, S=20, a=3, N=23)
    assert [str(m) for m in ETHIOPIAN.legal_moves(pos)] == ["pass"]
    new, events = play(ETHIOPIAN, pos, "pass")
    assert new.pits == pos.pits and new.to_move == rules.NORTH
    assert events == [{"type": "pass", "player": "south"}]


def test_neither_player_can_move_ends_the_game_with_own_sweeps():
    pos = position(ETHIOPIAN, A=2, D=1, S=20, a=1, c=1, N=23)
    new, events = play(ETHIOPIAN, pos, "A<")  # N skipped, f, e: only singles remain
    assert new.result == rules.Result(rules.NORTH, "neither player can move", (21, 27))
    assert counts(new) == {"S": 21, "N": 27}
    assert kinds(events)[-5:] == ["sweep", "sweep", "sweep", "sweep", "game_end"]


def test_a_position_where_neither_can_move_is_over():
    with pytest.raises(rules.BadPosition, match="neither player can move"):
        position(ETHIOPIAN, A=1, S=23, a=1, N=23)


def test_a_long_cw_sowing_does_not_skip_the_start_house():
    pos = position(ETHIOPIAN, B=13, a=4, b=4, c=4, d=4, e=4, f=4, N=11)
    new, _ = play(ETHIOPIAN, pos, "B<")  # A, f..a, S, F E D C, B again (emptied): takes B and e
    assert counts(new) == {"A": 1, "C": 1, "D": 1, "E": 1, "F": 1, "S": 7,
                           "a": 5, "b": 5, "c": 5, "d": 5, "f": 5, "N": 11}


def test_one_seed_per_house_is_refused_as_nobody_could_move():
    with pytest.raises(rules.BadOption, match="seeds=1 is outside 2..12"):
        rules.variant("ethiopian", seeds=1)
