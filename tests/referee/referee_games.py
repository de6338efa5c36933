"""Shared helpers for the referee tests: random games and the truth to check verdicts against.

Import as ``from referee_games import ...`` (pytest puts this folder on the path).
"""

from __future__ import annotations

import random

import rules
from rules.referee.explain import board_of


def random_game(variant: rules.Variant, rng: random.Random, max_plies: int = 400) -> list[rules.Position]:
    """The positions of one random game of ``variant`` (the start first)."""
    positions = [variant.start()]
    for _ in range(max_plies):
        moves = variant.legal_moves(positions[-1])
        if not moves:
            break
        positions.append(variant.play(positions[-1], rng.choice(moves), events=False)[0])
    return positions


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
    for _ in range(4):
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
