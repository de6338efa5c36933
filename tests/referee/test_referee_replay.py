"""Random games of every variant replayed through the referee from noisy Readings.

The noise (``rules.referee.noise``) is honest and real at every heap size:
count noise that grows with the heap, occasional misreads, unseen pits, colour
confusion for chips. Every verdict is checked on its own, strictly:

* it never contradicts the rules: its explanation and every candidate replay
  through the engine (``check_consistent``);
* a committed verdict (move, takeback, unchanged) names the position the game
  is really in, and an ambiguous one names it among its candidates, unless the
  Reading itself was confidently wrong about the pits that tell them apart: it
  made what the verdict names at least 99 times as likely as the truth
  (``misled``);
* a committed move is the one played (a sequence: the moves played), or moves
  the rules make equivalent: replayed through the engine they reach the very
  position the moves played reach, and a single move other than the one played
  lists it among its ``equivalent`` moves (``committed_as_played``);
* illegal, or seeds still in a hand, only where the Reading ruled the truth
  out (a pit gave its true count under 1 in 1,000: a misread);
* "wait, a move is being sown" only where the Reading made the half-sown
  boards 99 times as likely as the truth;
* unreadable only for a Reading too uncertain to name few candidates.

How often the truth is committed (and found at all) is checked against floors
measured on this noise; the checks above are what fails a wrong commit.

Design, within the time budget of the test run: ``GAMES`` random games per
variant (11,000 in all), each judged at one random ply, 1, 2 or 3 moves after
the board the referee last saw (the camera missed 0, 1 or 2 boards); and
``LIVE_GAMES`` games per variant judged at every ply as a live session does
(the board before the move, then after it) by one Referee whose caches carry
over from ply to ply.
"""

from __future__ import annotations

import collections
import json
import random

import pytest

import rules
from referee_games import (caught_up, check_consistent, evidence_of, misled, random_game, random_play,
                           replayed, replays_to, shown_moves)
from rules.referee import Referee, Verdict, noisy_reading
from rules.referee.explain import board_of

GAMES = 1000         # per variant, each judged once
LIVE_GAMES = 8       # per variant, judged at every ply
TAKEBACK_GAMES = 150  # per variant, judged once after 1, 2 or 3 moves are taken back
GAPS = (1, 2, 3)     # moves between the board the referee saw last and the one it judges
UNSEEN = 0.03        # share of pits hidden from the camera
LIVE_PLIES = 150     # at most, per live game (a Nam Nam game runs to hundreds)
# floors on the share of verdicts that commit the truth, by gap (0: the board before the move), as
# measured less about 0.08 (Pass It On lowest: each pass takes one chip from a heap read with noise);
# a sequence is harder to commit, as its prior is lower and more stories compete
RIGHT_AT_LEAST = {0: 0.65, 1: 0.55, 2: 0.42, 3: 0.35}
TAKEBACK_RIGHT_AT_LEAST = {1: 0.6, 2: 0.6, 3: 0.6}  # by moves taken back (measured 0.7 or more)
FOUND_AT_LEAST = 0.76     # the truth committed or among the candidates (measured 0.84 or more; the rest: misreads)
UNREADABLE_AT_MOST = 0.1  # measured 0.07 at most (Pass It On)


def judged(referee: Referee, history: list[rules.Position], truth: rules.Position,
           reading: rules.Reading, played: list[rules.Move] | None) -> str:
    """Judge ``reading`` after ``history``, check the verdict strictly, and say how it went.
    ``played``: the moves that led from ``history[-1]`` to ``truth`` (``None``: a takeback)."""
    verdict = referee.judge(history, reading)
    assert json.loads(json.dumps(verdict.to_json()))["kind"] == verdict.kind
    assert verdict.margin >= 0
    for explanation in ((verdict.best,) if verdict.best else ()) + verdict.candidates:
        check_consistent(history, explanation)
    if verdict.kind == "move":
        assert verdict.depth >= len(verdict.moves)
        if len(verdict.moves) > 1:
            assert any("searched sequences" in note for note in verdict.notes)
    return outcome(history, truth, verdict, reading, played)


def committed_as_played(current: rules.Position, verdict: Verdict, played: list[rules.Move] | None) -> None:
    """A committed verdict records the moves played, or moves the rules make equivalent to
    them: replayed through the engine, the committed moves reach the very position the moves
    played reach, and a single move other than the one played lists it among its equivalent
    moves (Ethiopian C< and C> of 13 seeds). Forced passes that change nothing are left out on
    both sides (``shown_moves``). A takeback (``played`` is ``None``) has no moves to compare."""
    if played is None:
        return
    committed = [m.text for m in verdict.moves] if verdict.kind == "move" else []
    truth = [m.text for m in played]
    if shown_moves(current, committed) == shown_moves(current, truth):
        return
    about = f"committed {committed}, played {truth} from {current!r}"
    reached = replayed(current, verdict.best) if verdict.kind == "move" else current
    assert caught_up(reached) == caught_up(replays_to(current, truth)), about
    if len(committed) == len(truth) == 1:
        assert tuple(truth) in verdict.best.equivalent, about


def outcome(history: list[rules.Position], truth: rules.Position, verdict: Verdict, reading: rules.Reading,
            played: list[rules.Move] | None) -> str:
    evidence = evidence_of(truth, reading)
    now = caught_up(truth)
    named = [c.seen_board for c in verdict.candidates]
    about = f"{verdict.kind}: {verdict.reason} (truth: {truth!r})"

    def shows_truth(e) -> bool:
        return e.kind != "in_progress" and caught_up(e.position) == now

    if verdict.kind in ("move", "takeback", "unchanged"):
        if shows_truth(verdict.best):
            committed_as_played(history[-1], verdict, played)
            return "right"
        assert misled(evidence, truth, [verdict.best.seen_board]), f"a wrong commit: {about}"
        return "misled"
    if verdict.kind == "ambiguous":
        if any(shows_truth(c) for c in verdict.candidates):
            # a real choice: two or more outcomes, the likeliest fitting the reading, none sure alone
            outcomes = {caught_up(leads_to(history[-1], c)) for c in verdict.candidates}
            assert len(outcomes) == len(verdict.candidates) >= 2, f"ambiguous without a choice: {about}"
            assert evidence.fits(*verdict.best.seen_board), f"ambiguous, but its best does not fit: {about}"
            assert not any(c.posterior >= 0.99 and c.share >= 0.99 for c in verdict.candidates), about
            return "ambiguous"
        assert misled(evidence, truth, named), f"ambiguous without the truth: {about}"
        return "misled"
    if verdict.kind == "unreadable":
        assert "too uncertain" in verdict.reason, about
        return "unreadable"
    if not evidence.fits(*board_of(truth)):  # a misread: the Reading rules the truth out
        assert verdict.kind in ("illegal", "in_progress"), about
        return "ruled out"
    assert verdict.kind == "in_progress" and verdict.best is not None, f"the truth fits the reading: {about}"
    assert misled(evidence, truth, named), f"waits for a move being sown: {about}"
    return "misled"


def leads_to(current: rules.Position, e) -> rules.Position:
    """Where an explanation takes the game: a move caught half-way, where the move does."""
    return replays_to(current, e.texts) if e.kind == "in_progress" else e.position


def check_rates(tallies: dict[int, collections.Counter], right_at_least: dict[int, float] = RIGHT_AT_LEAST) -> None:
    for gap, tally in tallies.items():
        judged_ = sum(tally.values())
        assert judged_ >= 8, (gap, tally)
        assert tally["right"] >= right_at_least[gap] * judged_, (gap, tally)
        assert tally["right"] + tally["ambiguous"] >= FOUND_AT_LEAST * judged_, (gap, tally)
        assert tally["unreadable"] <= UNREADABLE_AT_MOST * judged_, (gap, tally)


def replay(variant: rules.Variant, games: int, seed: str, gaps: tuple[int, ...] = GAPS
           ) -> dict[int, collections.Counter]:
    """Judge each of ``games`` random games once, at a random ply, after a gap of 1, 2 or 3 moves."""
    rng = random.Random(seed)
    referee = Referee()
    tallies: dict[int, collections.Counter] = {gap: collections.Counter() for gap in gaps}
    for k in range(games):
        gap = gaps[k % len(gaps)]
        game, moves = random_play(variant, rng)
        if len(game) <= gap:
            continue
        ply = rng.randrange(gap, len(game))
        history, truth = game[:ply - gap + 1], game[ply]
        reading = noisy_reading(truth, rng, unseen=UNSEEN)
        tallies[gap][judged(referee, history, truth, reading, moves[ply - gap:ply])] += 1
    return tallies


@pytest.mark.parametrize("name", sorted(rules.VARIANTS))
def test_random_games_are_refereed_from_noisy_readings(name: str) -> None:
    check_rates(replay(rules.variant(name), GAMES, f"replay {name}"))


@pytest.mark.parametrize("name", sorted(rules.VARIANTS))
def test_games_are_refereed_move_by_move(name: str) -> None:
    """Every ply of a few games, as a live session judges them: the board before the move
    (unchanged, or a forced pass committed), then after it."""
    variant = rules.variant(name)
    rng = random.Random(f"live {name}")
    referee = Referee()
    tallies: dict[int, collections.Counter] = {0: collections.Counter(), 1: collections.Counter()}
    for _ in range(LIVE_GAMES):
        game, moves = random_play(variant, rng, LIVE_PLIES)
        for ply in range(1, len(game)):
            history = game[:ply]
            for gap, truth in ((0, history[-1]), (1, game[ply])):
                reading = noisy_reading(truth, rng, unseen=UNSEEN)
                tallies[gap][judged(referee, history, truth, reading, moves[ply - 1:ply - 1 + gap])] += 1
    check_rates(tallies)


@pytest.mark.parametrize("name", sorted(rules.VARIANTS))
def test_takebacks_are_recognised_from_noisy_readings(name: str) -> None:
    """The players take back 1, 2 or 3 moves: the board is back at an earlier position."""
    variant = rules.variant(name)
    rng = random.Random(f"takeback {name}")
    referee = Referee()
    tallies: dict[int, collections.Counter] = {undo: collections.Counter() for undo in GAPS}
    for k in range(TAKEBACK_GAMES):
        undo = GAPS[k % len(GAPS)]
        game = random_game(variant, rng)
        if len(game) <= undo + 1:
            continue
        history = game[:rng.randrange(undo + 1, len(game)) + 1]
        truth = history[-1 - undo]
        tallies[undo][judged(referee, history, truth, noisy_reading(truth, rng, unseen=UNSEEN), None)] += 1
    check_rates(tallies, TAKEBACK_RIGHT_AT_LEAST)


@pytest.mark.parametrize("name, options", [
    ("kalah", {"capture_needs_opposite": True}),
    ("kalah", {"houses": 4, "seeds": 3}),
    ("oware", {"grand_slam": "forbidden"}),
    ("oware", {"grand_slam": "no_capture", "win_leftover": "collect"}),
    ("nam-nam", {"leader_hollows": "right", "loser_starts": False}),
    ("pass-it-on", {"match_target": 100}),
])
def test_variant_options_are_refereed_by_their_own_rules(name: str, options: dict) -> None:
    check_rates(replay(rules.variant(name, **options), GAMES // 5, f"options {name} {sorted(options.items())}", (1,)))
