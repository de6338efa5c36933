"""Kalah (seed 001) and Egyptian (seed 002): stores on the track, extra turns, captures.

Also the presets ``kalah-3`` (3 seeds per house) and ``egyptian`` (the name
seed 002 gives to the same game).
"""

from __future__ import annotations

from .. import events as ev
from ..layout import Layout, two_row_layout
from ..position import Move, Position, Result
from ..registry import register
from ..variant import Event, Option, Variant


def most_seeds_result(score: tuple[int, int], reason: str) -> Result:
    """The result of a game won by the larger score; equal scores draw."""
    winner = None if score[0] == score[1] else (0 if score[0] > score[1] else 1)
    return Result(winner, reason, score)


class Kalah(Variant):
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

    def __init__(self, name: str, description: str, **options) -> None:
        super().__init__(name, description, **options)
        n = self.options["houses"]
        size = 2 * n + 2
        self._n = n
        self._stores = (n, 2 * n + 1)
        self._houses = (tuple(range(0, n)), tuple(range(n + 1, 2 * n + 1)))
        # next pit on each player's track: the opponent's store is skipped
        self._next = tuple(
            tuple(((i + 1) % size if (i + 1) % size != self._stores[1 - p] else (i + 2) % size)
                  for i in range(size))
            for p in (0, 1)
        )
        self._opposite = self.layout.opposite
        labels = self.layout.labels
        self._moves = tuple(
            tuple(Move(i, labels[i]) for i in range(size)) for _ in (0, 1)
        )

    def start(self) -> Position:
        n, s = self._n, self.options["seeds"]
        pits = (s,) * n + (0,) + (s,) * n + (0,)
        return Position(self, pits, 0)

    def legal_moves(self, pos: Position) -> list[Move]:
        if pos.result is not None:
            return []
        pits, moves = pos.pits, self._moves[pos.to_move]
        return [moves[i] for i in self._houses[pos.to_move] if pits[i]]

    def _apply(self, pos: Position, move: Move, events: list[Event] | None) -> Position:
        player = pos.to_move
        pits = list(pos.pits)
        nxt = self._next[player]
        labels = self.layout.labels
        i = move.pit
        seeds = pits[i]
        pits[i] = 0
        if events is not None:
            events.append(ev.lift(labels[i], seeds))
        while seeds:
            i = nxt[i]
            pits[i] += 1
            seeds -= 1
            if events is not None:
                events.append(ev.drop(labels[i], pits[i]))
        store = self._stores[player]
        to_move = 1 - player
        if i == store:
            to_move = player
        elif pits[i] == 1 and i in self._houses[player]:
            opp = self._opposite[i]
            taken = pits[opp]
            if taken or not self.options["capture_needs_opposite"]:
                pits[store] += taken + 1
                pits[opp] = 0
                pits[i] = 0
                if events is not None:
                    if taken:
                        events.append(ev.capture(labels[opp], taken, player, labels[store]))
                    events.append(ev.capture(labels[i], 1, player, labels[store]))
        result = self._end_check(pits, events)
        if result is None and to_move == player and events is not None:
            events.append(ev.extra_turn(player))
        return Position(self, tuple(pits), to_move, (0, 0), None, (), result)

    def _end_check(self, pits: list[int], events: list[Event] | None) -> Result | None:
        """If either side's houses are empty, each side sweeps its houses into its store."""
        if any(pits[i] for i in self._houses[0]) and any(pits[i] for i in self._houses[1]):
            return None
        labels = self.layout.labels
        for player in (0, 1):
            store = self._stores[player]
            for i in self._houses[player]:
                if pits[i]:
                    if events is not None:
                        events.append(ev.sweep(labels[i], pits[i], player))
                    pits[store] += pits[i]
                    pits[i] = 0
        result = most_seeds_result((pits[self._stores[0]], pits[self._stores[1]]), "a side is empty")
        if events is not None:
            events.append(ev.game_end(result))
        return result

    def _check_invariants(self, pos: Position) -> None:
        pass


register("kalah", Kalah, "Kalah: 2 x 6 houses, 4 seeds, stores on the track, extra turns and captures")
register("kalah-3", Kalah, "Kalah with 3 seeds per house (seed 001, second version)", seeds=3)
register("egyptian", Kalah, "Egyptian: the name seed 002 gives to Kalah 6 x 4")
