"""Ethiopian (seed 002): Kalah where the mover also chooses the direction.

A move is (house, direction): text ``C>`` sows counterclockwise (CCW), ``C<``
clockwise (CW), as seen from above. CW reverses the track; the mover's own
store stays on it and the opponent's stays off it. A house holding exactly one
seed may never start a move (either direction), so a player left with only
0s and 1s passes (an explicit ``pass`` move), and when neither player can move
the game ends with each side sweeping its own houses into its own store.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .. import events as ev
from ..position import Move, Position, Result
from ..registry import register
from ..variant import Event
from .kalah import Kalah

PASS = Move(-1, "pass")


class Ethiopian(Kalah):
    """Kalah 6 x 4 with a choice of direction on every move and no single-seed moves."""

    # one seed per house would leave nobody a move at the start: at least 2
    OPTIONS = tuple(replace(o, bounds=(2, 12)) if o.name == "seeds" else o for o in Kalah.OPTIONS)

    def __init__(self, name: str, description: str, /, **options: Any) -> None:
        super().__init__(name, description, **options)
        size = len(self.layout)
        cw = self._track_paths(lambda pit: (pit - 1) % size)
        self._tracks = tuple((ccw, cw[player]) for player, (ccw,) in enumerate(self._tracks))
        labels = self.layout.labels
        # each player's houses, each with its two moves (CCW, CW)
        self._house_moves = tuple(
            tuple((i, (Move(i, labels[i] + ">", "ccw"), Move(i, labels[i] + "<", "cw"))) for i in houses)
            for houses in self._houses
        )

    def legal_moves(self, pos: Position) -> list[Move]:
        if pos.result is not None:
            return []
        pits, legal = pos.pits, []
        for house, both_ways in self._house_moves[pos.to_move]:
            if pits[house] > 1:
                legal += both_ways
        return legal or [PASS]

    def _why_not_from(self, pos: Position, index: int) -> str | None:
        return "a house of one seed never starts a move"

    def _apply(self, pos: Position, move: Move, events: list[Event] | None) -> Position:
        if not move.is_pass:
            return super()._apply(pos, move, events)
        if events is not None:
            events.append(ev.pass_turn(pos.to_move))
        return pos._replace(to_move=1 - pos.to_move)

    def _end_check(self, pits: list[int], events: list[Event] | None) -> Result | None:
        """Kalah's end (a side is empty), or neither player can move (no house holds 2 or more).
        Every move asks, so C calls answer first: a row has a house of 2 or more exactly when
        it holds more seeds than it has houses that are not empty."""
        (s0, s1), (n0, n1) = self._rows
        south, north = pits[s0:s1], pits[n0:n1]
        south_seeds, north_seeds = sum(south), sum(north)
        if south_seeds and north_seeds and (south_seeds + south.count(0) > len(south)
                                            or north_seeds + north.count(0) > len(north)):
            return None
        return super()._end_check(pits, events) or self._sweep_and_end(pits, events, "neither player can move")


register("ethiopian", Ethiopian,
         "Ethiopian: Kalah 6 x 4 where each move also chooses CCW (C>) or CW (C<); no single-seed moves")
