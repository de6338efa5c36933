"""Differential tests: our engine against OpenSpiel's C++ games, position by position.

OpenSpiel's ``mancala`` is Kalah that captures only when the opposite house
is occupied and never sweeps (the sides' totals decide); its ``oware`` forbids
nothing but captures nothing on a grand slam, ends at once when a player
cannot feed, and ends on the second occurrence of a position with each player
taking his own row (as it also does after a win). Our options express all of that; every random game
compares the legal moves, every position and the end.
"""

from __future__ import annotations

import collections
import random

import pyspiel  # the test dependency open_spiel
import pytest

import rules

GAMES = 2000


def _oware_board(state) -> tuple[tuple[int, ...], tuple[int, int]]:
    """Seeds per house (our canonical order is OpenSpiel's) and scores, from the observation tensor."""
    values = [round(x * 48) for x in state.observation_tensor(0)]
    return tuple(values[:12]), (values[12], values[13])


@pytest.mark.slow
def test_oware_matches_openspiel_oware():
    game = pyspiel.load_game("oware")
    variant = rules.variant("oware", grand_slam="no_capture", no_feeding_move="collect",
                            repetitions=2, repetition_end="collect", win_leftover="collect")
    rng = random.Random(2026)
    moves_compared = 0
    endings = collections.Counter()
    for number in range(GAMES):
        state, pos = game.new_initial_state(), variant.start()
        while True:
            pits, scores = _oware_board(state)
            assert (pits, scores) == (pos.pits, pos.captured), f"game {number}, move {moves_compared}"
            if state.is_terminal():
                assert pos.result is not None, f"game {number}: OpenSpiel ended, we did not"
                returns = state.returns()
                expected = None if returns[0] == returns[1] else (0 if returns[0] > returns[1] else 1)
                assert pos.result.winner == expected
                endings[pos.result.reason.split()[-1]] += 1
                break
            assert pos.result is None, f"game {number}: we ended ({pos.result.reason}), OpenSpiel did not"
            assert state.current_player() == pos.to_move
            offset = 6 * pos.to_move
            actions = state.legal_actions()
            ours = variant.legal_moves(pos)
            assert [a + offset for a in actions] == [m.pit for m in ours]
            k = rng.randrange(len(actions))
            state.apply_action(actions[k])
            pos, _ = variant.play(pos, ours[k], events=False, check=False)
            moves_compared += 1
    assert moves_compared > GAMES * 20
    # every way OpenSpiel ends a game was met: 25 captured, cannot feed, repetition
    assert endings["more"] > 100 and endings["feed"] > 20 and endings["times"] > 20, endings


def _ours_from_mancala(board: list[int]) -> tuple[int, ...]:
    """OpenSpiel numbers North's store 0, South's houses 1..6, South's store 7; we start at South's A."""
    return tuple(board[1:]) + (board[0],)


@pytest.mark.slow
def test_kalah_matches_openspiel_mancala():
    game = pyspiel.load_game("mancala")
    variant = rules.variant("kalah", capture_needs_opposite=True)
    rng = random.Random(1964)
    moves_compared = 0
    for number in range(GAMES):
        state, pos = game.new_initial_state(), variant.start()
        while True:
            board = _ours_from_mancala([int(x) for x in state.observation_tensor(0)[:14]])
            if state.is_terminal():
                # OpenSpiel leaves the houses as they are; each side's total is its score
                assert pos.result is not None, f"game {number}: OpenSpiel ended, we did not"
                totals = (sum(board[:7]), sum(board[7:]))
                assert pos.result.score == totals == (pos.pits[6], pos.pits[13]), f"game {number}"
                returns = state.returns()
                expected = None if returns[0] == returns[1] else (0 if returns[0] > returns[1] else 1)
                assert pos.result.winner == expected
                break
            assert board == pos.pits, f"game {number}, move {moves_compared}"
            assert pos.result is None and state.current_player() == pos.to_move
            actions = state.legal_actions()
            ours = variant.legal_moves(pos)
            assert [a - 1 for a in actions] == [m.pit for m in ours]
            k = rng.randrange(len(actions))
            state.apply_action(actions[k])
            pos, _ = variant.play(pos, ours[k], events=False, check=False)
            moves_compared += 1
    assert moves_compared > GAMES * 20
