"""Shared helpers for the rules tests: positions written by pit label, moves played by text.

Import as ``from rules_boards import position, play`` (pytest puts this folder on the path).
"""

from __future__ import annotations

import rules


def position(variant: rules.Variant, to_move: str = "south", captured: tuple[int, int] = (0, 0),
             **counts: int) -> rules.Position:
    """A validated position of ``variant``: the named pits hold ``counts``, every other pit 0.

    Goes through ``position_from_json`` so that it passes the same checks as
    any position read from outside (conservation, the variant's invariants).
    """
    labels = variant.layout.labels
    unknown = set(counts) - set(labels)
    assert not unknown, f"no pits {unknown} on {variant.name}"
    return variant.position_from_json({
        "to_move": to_move,
        "pits": {label: counts.get(label, 0) for label in labels},
        "captured": {"south": captured[0], "north": captured[1]},
    })


def play(variant: rules.Variant, pos: rules.Position, text: str):
    """Play the move written ``text`` (it must be legal): the new position and its events."""
    return variant.play(pos, variant.parse_move(pos, text))


def counts(pos: rules.Position) -> dict[str, int]:
    """The non-empty pits of ``pos`` by label."""
    return {label: n for label, n in zip(pos.variant.layout.labels, pos.pits) if n}


def kinds(events: list[dict]) -> list[str]:
    return [e["type"] for e in events]
