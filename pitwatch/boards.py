"""Which variants are played on which physical board: a board is known by its pits' labels, and
``pitwatch run`` watches one board, on which only its variants can be played."""

from __future__ import annotations

from functools import cache
from typing import Sequence

import rules

BOARD_OPTION = "houses"  # the one option that changes a variant's board (Kalah's family: 1 to 8 houses a side)


def board_name(pits: Sequence[str]) -> str:
    """The board profile of these ``pits`` (labels), as its variants' layout names it (``2x6+stores``,
    ``2x5+stores`` for Kalah of 5 houses); pits no variant is played on (a hand-edited file) by their number."""
    board = _boards().get(tuple(pits))
    return board[0] if board is not None else f"{len(pits)}-pit"


def variants_on(pits: Sequence[str]) -> list[str]:
    """The variants played on a board of these ``pits`` (labels), as the players are told them:
    ``kalah``, or ``kalah (houses=5)`` where only an option makes that board; none for pits no
    variant is played on."""
    board = _boards().get(tuple(pits))
    return board[1] if board is not None else []


@cache
def _boards() -> dict[tuple[str, ...], tuple[str, list[str]]]:
    """Every board a variant is played on, by its pits: the layout's name and the variants on it,
    with the option that makes the board where the default does not."""
    boards: dict[tuple[str, ...], tuple[str, list[str]]] = {}
    for name in rules.VARIANTS:
        default = rules.variant(name).layout
        boards.setdefault(default.labels, (default.name, []))[1].append(name)
        for option in rules.options_of(name):
            if option.name != BOARD_OPTION or option.bounds is None:
                continue
            for value in range(option.bounds[0], option.bounds[1] + 1):
                layout = rules.variant(name, **{BOARD_OPTION: value}).layout
                if layout.labels != default.labels:
                    boards.setdefault(layout.labels, (layout.name, []))[1].append(f"{name} ({BOARD_OPTION}={value})")
    return boards
