"""The referee's caches and shortcuts change how fast a verdict comes, never what it says.

A live session keeps one Referee (its Explorer caches legal successors) and
one variant (Bao la Kujifunza memoises the outcome of every move it works
out). Judging the same Reading must give the very same verdict, to the last
digit of its JSON, whether everything is cached, nothing is, or the caches
are so small that they forget in the middle of a search.
"""

from __future__ import annotations

import random

import pytest

import rules
from referee_games import random_game
from rules.referee import Referee, noisy_reading
from rules.referee.explain import Explorer
from rules.referee.likelihood import Evidence


def cold(positions: list[rules.Position]) -> list[rules.Position]:
    """The same history in a new instance of its variant: nothing memoised by the engine."""
    fresh = rules.variant(positions[0].variant.name, **positions[0].variant.options)
    return [p._replace(variant=fresh) for p in positions]


@pytest.mark.parametrize("name", sorted(rules.VARIANTS))
def test_a_verdict_does_not_depend_on_what_is_cached(name: str) -> None:
    rng = random.Random(f"caches {name}")
    variant = rules.variant(name)
    warm = Referee()
    forgetful = Referee()
    forgetful.explorer = Explorer(cache_size=4)  # evicts in the middle of every sequence search
    kinds = set()
    for _ in range(6):
        game = random_game(variant, rng)
        for gap in (1, 3):
            for ply in rng.sample(range(gap, len(game)), min(3, max(0, len(game) - gap))):
                history, reading = game[:ply - gap + 1], noisy_reading(game[ply], rng)
                expected = Referee().judge(cold(history), reading).to_json()
                assert warm.judge(history, reading).to_json() == expected
                assert warm.judge(history, reading).to_json() == expected  # every successor cached now
                assert forgetful.judge(history, reading).to_json() == expected
                kinds.add(expected["kind"])
    assert "move" in kinds


@pytest.mark.parametrize("name", sorted(rules.VARIANTS))
def test_the_searchs_shortcuts_give_what_play_and_score_give(name: str) -> None:
    """A search expands positions with ``Variant.successors`` and scores them with
    ``Evidence.score_all``: the same positions as ``play`` of every legal move, the same
    log likelihoods as ``score``, to the last bit."""
    rng = random.Random(f"shortcuts {name}")
    variant = rules.variant(name)
    for _ in range(3):
        game = random_game(variant, rng)
        for pos in rng.sample(game, min(20, len(game))) + [game[-1]]:
            expected = [(m, variant.play(pos, m)[0]) for m in variant.legal_moves(pos)]
            assert variant.successors(pos) == expected
            evidence = Evidence(variant.layout, noisy_reading(pos, rng), variant.total_seeds)
            children = [q for _, q in expected]
            assert evidence.score_all(children) == [evidence.score(q.pits, q.white) for q in children]
