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

from .. import events as ev
from ..position import Move, Position, Result
from ..registry import register
from ..sowing import sow
from ..variant import Event
from .kalah import Kalah

PASS = Move(-1, "pass")


class Ethiopian(Kalah):
    """Kalah 6 x 4 with a choice of direction on every move and no single-seed moves."""

    # one seed per house would leave nobody a move at the start: at least 2
    OPTIONS = tuple(replace(o, bounds=(2, 12)) if o.name == "seeds" else o for o in Kalah.OPTIONS)

    def __init__(self, name: str, description: str, **options) -> None:
        super().__init__(name, description, **options)
        size = len(self.layout)
        self._paths_cw = self._track_paths(lambda pit: (pit - 1) % size)
        labels = self.layout.labels
        self._dir_moves = tuple(
            (Move(i, labels[i] + ">", "ccw"), Move(i, labels[i] + "<", "cw")) for i in range(size)
        )

    def legal_moves(self, pos: Position) -> list[Move]:
        if pos.result is not None:
            return []
        pits, moves = pos.pits, self._dir_moves
        legal = [m for i in self._houses[pos.to_move] if pits[i] > 1 for m in moves[i]]
        return legal or [PASS]

    def _apply(self, pos: Position, move: Move, events: list[Event] | None) -> Position:
        player = pos.to_move
        if move.is_pass:
            if events is not None:
                events.append(ev.pass_turn(player))
            return pos._replace(to_move=1 - player)
        pits = list(pos.pits)
        path = (self._paths_cw if move.direction == "cw" else self._paths)[player][move.pit]
        last = sow(pits, move.pit, path, events, self.layout.labels)
        return self._finish(pits, player, last, events)

    def _end_check(self, pits: list[int], events: list[Event] | None) -> Result | None:
        """Kalah's end (a side is empty), or neither player can move (no house holds 2 or more).
        The largest house of each side answers both: every move asks, so two C calls first."""
        (s0, s1), (n0, n1) = self._rows
        south, north = max(pits[s0:s1]), max(pits[n0:n1])
        if south and north and (south > 1 or north > 1):
            return None
        return super()._end_check(pits, events) or self._sweep_and_end(pits, events, "neither player can move")


register("ethiopian", Ethiopian,
         "Ethiopian: Kalah 6 x 4 where each move also chooses CCW (C>) or CW (C<); no single-seed moves")
