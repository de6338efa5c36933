"""Random games of every variant replayed through the referee from noisy Readings.

The noise is honest (``rules.referee.noise``): the true count always keeps a
non-zero probability, so a referee that reads with the rules must never name
a wrong move; where the noise hides the answer it must say ambiguous and name
the truth among the candidates. Each game is played to its end; the referee
judges a random sample of its plies so the whole run stays within budget.
"""

from __future__ import annotations

import collections
import json
import random

import pytest

import rules
from referee_games import caught_up, random_game, replays_to
from rules.referee import Referee, noisy_reading
from rules.referee.likelihood import Evidence

GAMES = 200          # per variant: 11 variants, over 2,000 games
PLIES_JUDGED = 5     # single-move observations judged per game
GAP_GAMES = 40       # games per variant judged after 2- and 3-move gaps


def check_verdict(positions, truth, gap, verdict, reading, tally) -> None:
    """The verdict names the truth, or is ambiguous with the truth among fitting candidates.

    A calibrated referee may still miss the truth with the probability its
    verdict leaves outside what it names (1 - confidence for a move): such
    verdicts are counted, and so is their expected number. After a gap of
    several moves, a simpler story that fits the Reading (fewer moves, a
    takeback, a move in progress) is what the referee must prefer, missed
    boards being rare: such verdicts are counted as ``simpler``."""
    current = positions[-1]
    evidence = Evidence(current.variant.layout, reading, current.variant.total_seeds)
    assert json.loads(json.dumps(verdict.to_json()))["kind"] == verdict.kind
    if verdict.kind == "move":
        # never contradicts the rules: the moves replay legally to the position it claims
        assert replays_to(current, [m.text for m in verdict.moves]) == verdict.position
    if verdict.kind in ("move", "ambiguous"):  # the posterior left outside what the verdict names
        tally["expected wrong"] += 1 - sum(c.posterior for c in verdict.candidates)
    candidates = [caught_up(c.position) for c in verdict.candidates if c.kind == "move"]
    if verdict.kind == "move" and caught_up(verdict.position) == caught_up(truth):
        tally["right"] += 1
    elif verdict.kind == "ambiguous" and caught_up(truth) in candidates:
        fitting = [c for c in verdict.candidates if evidence.fits(*c.seen_board)]
        assert len(fitting) >= 2, "ambiguous, but only one candidate fits the reading"
        tally["ambiguous"] += 1
    elif gap > 1 and verdict.kind != "illegal" and all(
            (c.kind != "move" or len(c.moves) < gap) and evidence.fits(*c.seen_board) for c in verdict.candidates):
        tally["simpler"] += 1
    elif verdict.kind in ("move", "ambiguous"):
        tally["wrong"] += 1
    elif verdict.kind == "unreadable" and "too uncertain" in verdict.reason:
        tally["unreadable"] += 1  # honest, if rare: more candidates fit than the players could choose from
    else:
        pytest.fail(f"{verdict.kind}: {verdict.reason}")


def check_tally(tally: collections.Counter, right: float) -> None:
    """Most verdicts name the truth; wrong ones are no more frequent than the confidences say."""
    verdicts = sum(n for kind, n in tally.items() if kind != "expected wrong")
    assert tally["right"] >= right * verdicts, tally
    assert tally["wrong"] <= 1 + 3 * tally["expected wrong"], tally
    assert tally["unreadable"] <= 1 + 0.02 * verdicts, tally


def replay(name: str, gap: int, games: int, per_game: int, unseen: float, **options) -> collections.Counter:
    """Judge noisy Readings taken ``gap`` moves after random plies of random games; tally the verdicts."""
    rng = random.Random(f"{name} gap {gap} {sorted(options.items())}")
    variant = rules.variant(name, **options)
    referee = Referee()
    tally: collections.Counter = collections.Counter()
    for _ in range(games):
        game = random_game(variant, rng)
        plies = range(gap, len(game))
        for ply in rng.sample(plies, min(per_game, len(plies))):
            before, truth = game[:ply - gap + 1], game[ply]
            reading = noisy_reading(truth, rng, unseen=unseen)
            verdict = referee.judge(before, reading)
            if verdict.kind == "move":
                assert len(verdict.moves) <= gap and verdict.depth >= len(verdict.moves)
                if len(verdict.moves) > 1:
                    assert any("searched sequences" in note for note in verdict.notes)
            check_verdict(before, truth, gap, verdict, reading, tally)
    return tally


@pytest.mark.parametrize("name", sorted(rules.VARIANTS))
def test_single_moves_are_recovered_exactly(name: str) -> None:
    check_tally(replay(name, 1, GAMES, PLIES_JUDGED, unseen=0.03), right=0.8)


@pytest.mark.parametrize("gap", [2, 3])
@pytest.mark.parametrize("name", sorted(rules.VARIANTS))
def test_skipped_observations_are_recovered(name: str, gap: int) -> None:
    """The camera missed one or two boards: the referee finds the 2- or 3-move sequence."""
    check_tally(replay(name, gap, GAP_GAMES, 1, unseen=0.0), right=0.75)


@pytest.mark.parametrize("name, options", [
    ("kalah", {"capture_needs_opposite": True}),
    ("kalah", {"houses": 4, "seeds": 3}),
    ("oware", {"grand_slam": "forbidden"}),
    ("oware", {"grand_slam": "no_capture", "win_leftover": "collect"}),
    ("nam-nam", {"leader_hollows": "right", "loser_starts": False}),
    ("pass-it-on", {"match_target": 100}),
])
def test_variant_options_are_refereed_by_their_own_rules(name: str, options: dict) -> None:
    check_tally(replay(name, 1, GAMES // 5, PLIES_JUDGED, 0.03, **options), right=0.8)
