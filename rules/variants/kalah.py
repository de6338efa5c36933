"""Kalah (seed 001) and Egyptian (seed 002): stores on the track, extra turns, captures.

Also the presets ``kalah-3`` (3 seeds per house) and ``egyptian`` (the name
seed 002 gives to the same game). ``Kalah`` is the base of the Ethiopian
variant, which adds a sowing direction.

Speed: the board is a flat list while a move is played; for every player and
start pit one lap of sowing is precomputed (:func:`rules.sowing.track_path`),
so a sowing without an event list is a slice and a few additions, and
``successors`` sows every legal move in one loop.
"""

from __future__ import annotations

from functools import partial
from itertools import compress
from typing import Any, Callable

from .. import events as ev
from ..errors import BadPosition
from ..layout import Layout, two_row_layout
from ..position import Move, Position, Result
from ..registry import register
from ..sowing import Path, sow, track_path
from ..variant import Event, Option, Variant


# ``new_position(fields)`` is ``Position(*fields)`` as one C call (no Python-level
# ``NamedTuple.__new__``): ``fields`` must hold all seven fields in order. Hot loops use it.
new_position = partial(tuple.__new__, Position)


class QuickPlay:
    """Mixin for a Variant: ``play(..., events=False, check=False)`` goes straight to ``_apply``.

    Random playouts and the referee's searches call it millions of times; one
    Python frame less is a tenth of a Kalah move.
    """

    def play(self, pos: Position, move: Move, *, events: bool = True, check: bool = True
             ) -> tuple[Position, list[Event]]:
        if check or events:
            return super().play(pos, move, events=events, check=check)
        return self._apply(pos, move, None), []


def most_seeds_result(score: tuple[int, int], reason: str) -> Result:
    """The result of a game won by the larger score; equal scores draw."""
    winner = None if score[0] == score[1] else (0 if score[0] > score[1] else 1)
    return Result(winner, reason, score)


class Kalah(QuickPlay, Variant):
    """Kalah: sow CCW into your own store (never the opponent's); last in store moves again;
    last in an empty house of yours captures it with the opposite house."""

    OPTIONS = (
        Option("houses", 6, "houses per side", bounds=(1, 8)),
        Option("seeds", 4, "seeds per house at the start", bounds=(1, 12)),
        Option("capture_needs_opposite", False,
               "true: landing in an empty own house captures nothing when the opposite house is empty"),
    )

    def _make_layout(self) -> Layout:
        return two_row_layout(self.options["houses"], "right")

    def __init__(self, name: str, description: str, /, **options: Any) -> None:
        super().__init__(name, description, **options)
        n = self.options["houses"]
        size = 2 * n + 2
        self._n = n
        self._stores = (n, 2 * n + 1)
        self._houses = (tuple(range(0, n)), tuple(range(n + 1, 2 * n + 1)))
        self._owner = tuple(p.owner if not p.is_store else -1 for p in self.layout.pits)
        self._opposite = self.layout.opposite
        self._needs_opposite = self.options["capture_needs_opposite"]
        # _tracks[p][cw][i]: one lap of p's sowing from i, CCW (cw False) or CW where the variant
        # lets the mover choose (Ethiopian adds those), the opponent's store off the track
        self._tracks = tuple((paths,) for paths in self._track_paths(lambda pit: (pit + 1) % size))
        labels = self.layout.labels
        self._moves = tuple(Move(i, labels[i]) for i in range(size))
        self._rows = ((0, n), (n + 1, 2 * n + 1))  # each player's houses as a slice of the pits
        self._row_moves = tuple(tuple(self._moves[i] for i in self._houses[p]) for p in (0, 1))

    def _track_paths(self, step: Callable[[int], int]) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
        """For each player and pit, one lap of sowing with ``step``, skipping the opponent's store."""
        size = len(self.layout)
        return tuple(
            tuple(track_path(step, i, (self._stores[1 - p],)) for i in range(size)) for p in (0, 1)
        )

    def start(self) -> Position:
        n, s = self._n, self.options["seeds"]
        pits = (s,) * n + (0,) + (s,) * n + (0,)
        return Position(self, pits, 0)

    def legal_moves(self, pos: Position) -> list[Move]:
        if pos.result is not None:
            return []
        lo, hi = self._rows[pos.to_move]
        return list(compress(self._row_moves[pos.to_move], pos.pits[lo:hi]))

    def _apply(self, pos: Position, move: Move, events: list[Event] | None) -> Position:
        player = pos.to_move
        pits = list(pos.pits)
        last = sow(pits, move.pit, self._tracks[player][move.direction == "cw"][move.pit], events, self.layout.labels)
        return self._finish(pits, player, last, events)

    def successors(self, pos: Position) -> list[tuple[Move, Position]]:
        """Every legal move sown and finished in one loop, no ``_apply`` frame per move: the
        referee's searches spend about a third of a verdict here."""
        if pos.result is not None:
            return []
        moves = self.legal_moves(pos)
        if moves[0].is_pass:  # a forced pass (Ethiopian): nothing to sow
            return [(moves[0], self._apply(pos, moves[0], None))]
        player, base, finish = pos.to_move, pos.pits, self._finish
        tracks = self._tracks[player]
        out = []
        for move in moves:
            pits = list(base)
            last = sow(pits, move.pit, tracks[move.direction == "cw"][move.pit], None, ())
            out.append((move, finish(pits, player, last, None)))
        return out

    def _finish(self, pits: list[int], player: int, last: int, events: list[Event] | None) -> Position:
        """Extra turn or capture by the last seed, then the end check: the rest of a Kalah move."""
        store = self._stores[player]
        to_move = 1 - player
        if last == store:
            to_move = player
        elif pits[last] == 1 and self._owner[last] == player:
            opp = self._opposite[last]
            taken = pits[opp]
            if taken or not self._needs_opposite:
                pits[store] += taken + 1
                pits[opp] = 0
                pits[last] = 0
                if events is not None:
                    labels = self.layout.labels
                    if taken:
                        events.append(ev.capture(labels[opp], taken, player, labels[store]))
                    events.append(ev.capture(labels[last], 1, player, labels[store]))
        result = self._end_check(pits, events)
        if result is None and to_move == player and events is not None:
            events.append(ev.extra_turn(player))
        return new_position((self, tuple(pits), to_move, (0, 0), None, (), result))

    def _end_check(self, pits: list[int], events: list[Event] | None) -> Result | None:
        """If either side's houses are empty, each side sweeps its houses into its store."""
        (s0, s1), (n0, n1) = self._rows
        if any(pits[s0:s1]) and any(pits[n0:n1]):
            return None
        return self._sweep_and_end(pits, events, "a side is empty")

    def _sweep_and_end(self, pits: list[int], events: list[Event] | None, reason: str) -> Result:
        """Each player puts the seeds of his own houses into his own store; most seeds wins."""
        labels = self.layout.labels
        for player in (0, 1):
            store = self._stores[player]
            for i in self._houses[player]:
                if pits[i]:
                    if events is not None:
                        events.append(ev.sweep(labels[i], pits[i], player))
                    pits[store] += pits[i]
                    pits[i] = 0
        result = most_seeds_result((pits[self._stores[0]], pits[self._stores[1]]), reason)
        if events is not None:
            events.append(ev.game_end(result))
        return result

    def _check_invariants(self, pos: Position) -> None:
        if pos.captured != (0, 0):
            raise BadPosition(f"{self.name}: seeds are won into the stores S and N, 'captured' must be 0 and 0")
        ended = self._end_check(list(pos.pits), None) if pos.result is None else None
        if ended is not None:
            raise BadPosition(f"{self.name}: the game is over in this position ({ended.reason}) "
                              "but it carries no result")


register("kalah", Kalah, "Kalah: 2 x 6 houses, 4 seeds, stores on the track, extra turns and captures")
register("kalah-3", Kalah, "Kalah with 3 seeds per house (seed 001, second version)", seeds=3)
register("egyptian", Kalah, "Egyptian: the name seed 002 gives to Kalah 6 x 4")
