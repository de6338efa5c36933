"""Shared helpers for the referee tests: random games and the truth to check verdicts against.

Import as ``from referee_games import ...`` (pytest puts this folder on the path).
"""

from __future__ import annotations

import math
import random

import rules
from rules.referee.explain import board_of, sowing_boards
from rules.referee.likelihood import Evidence

SILENT_PASSES = 64  # more forced passes in a row than any variant allows (Pass It On ends at 6 penalties each)


def random_play(variant: rules.Variant, rng: random.Random, max_plies: int = 400
                ) -> tuple[list[rules.Position], list[rules.Move]]:
    """The positions of one random game of ``variant`` (the start first) and the moves played
    between them (``moves[k]`` leads from ``positions[k]`` to ``positions[k + 1]``)."""
    positions = [variant.start()]
    moves: list[rules.Move] = []
    for _ in range(max_plies):
        legal = variant.legal_moves(positions[-1])
        if not legal:
            break
        moves.append(rng.choice(legal))
        positions.append(variant.play(positions[-1], moves[-1], events=False)[0])
    return positions, moves


def random_game(variant: rules.Variant, rng: random.Random, max_plies: int = 400) -> list[rules.Position]:
    """The positions of one random game of ``variant`` (the start first)."""
    return random_play(variant, rng, max_plies)[0]


def same_board(a: rules.Position, b: rules.Position) -> bool:
    return board_of(a) == board_of(b)


def replays_to(start: rules.Position, texts: list[str]) -> rules.Position:
    """Play move texts from ``start`` through the engine, each checked for legality."""
    pos = start
    for text in texts:
        pos, _ = start.variant.play(pos, start.variant.parse_move(pos, text))
    return pos


def caught_up(pos: rules.Position) -> rules.Position:
    """``pos`` after the forced passes that leave the board as it is (nothing to see: the
    referee commits them one Reading later, so a verdict may stop short of them)."""
    for _ in range(SILENT_PASSES):
        moves = pos.variant.legal_moves(pos)
        if len(moves) != 1 or not moves[0].is_pass:
            break
        after = pos.variant.play(pos, moves[0], events=False)[0]
        if not same_board(pos, after):
            break
        pos = after
    return pos


def reading(variant: rules.Variant, pits, white=None, unseen=(), **spread: dict[int, float]) -> rules.Reading:
    """A Reading certain of ``pits`` (and ``white``), except pits in ``unseen`` (not seen) and
    pits given in ``spread`` as ``{count: probability}``."""
    labels = variant.layout.labels
    out = {}
    for i, label in enumerate(labels):
        if label in unseen:
            out[label] = None
        elif label in spread:
            probs = [0.0] * (max(spread[label]) + 1)
            for k, p in spread[label].items():
                probs[k] = p
            out[label] = rules.pit_reading(probs)
        else:
            out[label] = rules.PitReading.exact(pits[i], None if white is None else white[i])
    return rules.Reading(out, "test")


def after(variant: rules.Variant, pos: rules.Position, *texts: str) -> rules.Position:
    """``pos`` after the moves written ``texts``."""
    return replays_to(pos, list(texts))


def evidence_of(pos: rules.Position, reading_: rules.Reading) -> Evidence:
    """The Reading compiled for scoring boards of ``pos``'s variant, as the referee does."""
    return Evidence(pos.variant.layout, reading_, pos.variant.total_seeds)


def misled(evidence: Evidence, truth: rules.Position, boards: list[tuple]) -> bool:
    """The Reading itself was confidently wrong about the pits that tell the truth from
    ``boards``: it makes them together at least 99 times as likely as the true board (the
    pits where they agree with the truth cancel out of the ratio)."""
    scores = [evidence.score(*board) for board in boards]
    top = max(scores)
    named = top + math.log(sum(math.exp(s - top) for s in scores))
    return named - evidence.score(*board_of(truth)) >= math.log(99) - 1e-9


def replayed(current: rules.Position, explanation) -> rules.Position:
    """Where the moves of a ``move`` explanation take the game by the rules: replayed through the
    engine, each checked for legality, and a Nam Nam four it says was left standing left by the
    engine's own ``leave_fours``."""
    variant = current.variant
    pos, events = current, []
    for move in explanation.moves:
        pos, events = variant.play(pos, variant.parse_move(pos, move.text))
    if explanation.left:
        assert len(explanation.moves) == 1, explanation.describe()
        return variant.leave_fours(pos, events, explanation.left)
    return pos


def check_consistent(history: list[rules.Position], explanation) -> None:
    """An explanation never contradicts the rules: its moves replay through the engine to the
    position it claims (a Nam Nam four left standing is the engine's own leave_fours), a
    takeback goes back to an earlier position of this game, a move caught half-way shows a
    board the engine's sowing passes through with as many seeds in hand."""
    current = history[-1]
    variant = current.variant
    e = explanation
    if e.kind == "move":
        assert e.position == replayed(current, e), e.describe()
        for texts in e.equivalent:
            assert replays_to(current, list(texts)) == replays_to(current, e.texts), (e.describe(), texts)
    elif e.kind == "takeback":
        assert 1 <= e.undo < len(history) and e.position == history[-1 - e.undo], e.describe()
    elif e.kind == "unchanged":
        assert e.position == current
    else:
        assert e.kind == "in_progress" and e.position == current and len(e.moves) == 1
        move = variant.parse_move(current, e.moves[0].text)
        partial, _ = sowing_boards(current, move, variant.play(current, move)[1])
        assert (e.in_hand, e.seen_board) in partial, e.describe()


def shown_moves(start: rules.Position, texts: list[str]) -> list[str]:
    """``texts`` without the forced passes that leave the board as it was (nothing to see: the
    referee commits such a pass one Reading later, so a verdict may stop short of it or begin with it)."""
    shown, pos = [], start
    for text in texts:
        after = replays_to(pos, [text])
        if not (text.startswith("pass") and same_board(pos, after)):
            shown.append(text)
        pos = after
    return shown


def mid_sowing_four(seed: int = 8) -> tuple[rules.Game, rules.Move, rules.Position, dict, list[int]]:
    """A Nam Nam game up to a move that captures a four in the middle of its sowing (found with
    the test's own reading of the rule: a capture of 4 that drops follow, never coming back to
    it, in a move that does not end the round), that move, the position after it, the capture
    event, and the pits with that four left standing by its owner."""
    variant = rules.variant("nam-nam")
    rng = random.Random(seed)
    game = rules.Game(variant)
    while not game.is_over:
        for move in game.legal_moves():
            new, events = variant.play(game.position, move)
            mid = [e for k, e in enumerate(events) if e["type"] == "capture" and e["seeds"] == 4
                   and any(x["type"] == "drop" for x in events[k + 1:])
                   and not any(x.get("pit") == e["pit"] for x in events[k + 1:])
                   and not any(x["type"] == "round_end" for x in events)]
            if mid:
                pits = list(new.pits)
                pits[variant.layout.index_of(mid[0]["pit"])] += 4
                return game, move, new, mid[0], pits
        game.play(rng.choice(game.legal_moves()))
    raise AssertionError("no mid-sowing capture of four in the sample game")
