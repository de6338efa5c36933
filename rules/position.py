"""Positions, moves and results: immutable plain data.

They are ``NamedTuple`` s on purpose: creating one is a single C call, which
keeps random playouts and the referee's searches fast, and they compare and
hash by value.
"""

from __future__ import annotations

import reprlib
from typing import TYPE_CHECKING, Any, NamedTuple

from .errors import BadPosition
from .layout import PLAYER_NAMES

if TYPE_CHECKING:
    from .variant import Variant


class Result(NamedTuple):
    """How a game ended: ``winner`` 0 (South), 1 (North) or ``None`` for a draw."""

    winner: int | None
    reason: str
    score: tuple[int, int]

    def to_json(self) -> dict:
        return {
            "winner": None if self.winner is None else PLAYER_NAMES[self.winner],
            "reason": self.reason,
            "score": {"south": self.score[0], "north": self.score[1]},
        }

    @classmethod
    def from_json(cls, data: dict) -> "Result":
        winner, score = data.get("winner"), data["score"]
        return cls(
            None if winner is None else PLAYER_NAMES.index(winner),
            str(data.get("reason", "")),
            (count_from_json(score["south"], "score south"), count_from_json(score["north"], "score north")),
        )


def count_from_json(value: Any, where: str) -> int:
    """A count read from JSON, a whole number of 0 or more: not ``int(value)``, which takes 1.9 as 1,
    "3" as 3 and true as 1, and so would load a position nobody wrote. ``BadPosition`` names ``where``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise BadPosition(f"{where} must be a count of 0 or more, not {reprlib.repr(value)}")
    return value


WHITE, YELLOW = "w", "y"  # Pass It On's chip colours, as ``Move.colours``, ``Move.penalty`` and events write them


def credited(pair: tuple[int, int], player: int, seeds: int) -> tuple[int, int]:
    """``pair`` (one count per player: seeds captured, a score) with ``seeds`` more for ``player``:
    the pairs are tuples, so a capture builds a new one instead of adding in place."""
    return (pair[0] + seeds, pair[1]) if player == 0 else (pair[0], pair[1] + seeds)


class Move(NamedTuple):
    """One legal move. ``str(move)`` is its text form, which ``parse_move`` reads back.

    ``pit`` is the canonical index of the pit sown from, ``-1`` for a pass.
    ``direction`` is ``""`` where the variant has one direction, else ``"ccw"``
    or ``"cw"`` as seen from above (text ``C>`` / ``C<``). ``colours`` is the
    Pass It On drop order (``"wyy"``: ``WHITE`` and ``YELLOW``); ``penalty`` the
    chip a passing Pass It On player takes: ``(outbox label, colour)``.
    """

    pit: int
    text: str
    direction: str = ""
    colours: str = ""
    penalty: tuple[str, str] | None = None

    def __str__(self) -> str:
        return self.text

    @property
    def is_pass(self) -> bool:
        return self.pit < 0


class Position(NamedTuple):
    """A position of one variant.

    ``pits`` holds the count of every pit in canonical order (stores on the
    track included); ``captured`` the seeds each player keeps aside off the
    track; ``white`` the white chips per pit (Pass It On only); ``state`` the
    variant's extra state (hashable, variant-defined); ``result`` is set on the
    position that ends the game.
    """

    variant: "Variant"
    pits: tuple[int, ...]
    to_move: int
    captured: tuple[int, int] = (0, 0)
    white: tuple[int, ...] | None = None
    state: tuple = ()
    result: Result | None = None

    @property
    def is_over(self) -> bool:
        return self.result is not None

    def count(self, label: str) -> int:
        """Seeds in the pit called ``label``."""
        return self.pits[self.variant.layout.index_of(label)]

    def to_json(self) -> dict[str, Any]:
        """The documented JSON form (see ``docs/position.md``); pits are named by label."""
        return self.variant.position_to_json(self)

    def __repr__(self) -> str:
        labels = self.variant.layout.labels
        pits = " ".join(f"{label}={n}" for label, n in zip(labels, self.pits))
        return f"<{self.variant.name} {PLAYER_NAMES[self.to_move]} to move: {pits}>"
