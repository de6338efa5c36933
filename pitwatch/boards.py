"""Which variants are played on which physical board: a board is known by its pits' labels, and
``pitwatch run`` watches one board, on which only its variants can be played."""

from __future__ import annotations

from typing import Sequence

import rules


def board_name(pits: Sequence[str]) -> str:
    """The board profile of these ``pits`` (labels), as its variants' layout names it (``2x6+stores``)."""
    return next(rules.variant(name).layout.name for name in variants_on(pits))


def variants_on(pits: Sequence[str]) -> list[str]:
    """The variants played on a board of these ``pits`` (labels): what the players may choose on the
    board being watched."""
    return [name for name in rules.VARIANTS if rules.variant(name).layout.labels == tuple(pits)]
