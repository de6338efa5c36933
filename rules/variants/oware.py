"""Oware (seeds 003 and 004, the Abapa family): 2-3 captures, must feed, grand slam, stalemate.

RULES.md settles it; the options beyond ``grand_slam`` exist because other
tournaments (and OpenSpiel's ``oware``) play them:

* ``grand_slam``: a move whose normal captures would leave the opponent's row
  empty: ``capture`` (default) | ``no_capture`` (played, captures nothing) |
  ``forbidden`` (illegal unless only such moves remain, then they capture).
* ``no_feeding_move``: the opponent's row is empty and no move feeds it:
  ``play_on`` (default: any move is legal, the game ends at the opponent's
  turn and the mover takes the rest) | ``collect`` (the game ends at once and
  each player captures the seeds of his own row, as OpenSpiel does).
* ``repetitions``: the occurrence of the same pits with the same player to
  move that ends the game (default 3; the start position counts).
* ``repetition_end``: ``draw`` (default) | ``collect`` (each player captures
  the seeds of his own row; most captured wins, as OpenSpiel does).
* ``win_leftover``: the seeds left on the board when a player reaches 25:
  ``stay`` (default) | ``collect`` (each player captures his own row's, as
  OpenSpiel does; the winner is the same, the final score differs).
"""

from __future__ import annotations

from itertools import compress
from typing import Any, Callable, Sequence

from .. import events as ev
from .. import repetition
from ..errors import BadPosition
from ..layout import PLAYER_NAMES, Layout, two_row_layout
from ..position import Move, Position, Result, credited
from ..registry import register
from ..sowing import sow, track_path
from ..variant import Event, Option, Variant
from .kalah import QuickPlay, most_seeds_result, new_position

HOUSES = 6
SEEDS = 4


class Oware(QuickPlay, repetition.RepetitionRules, Variant):
    """Oware Abapa: sow CCW skipping the start hollow, capture 2s and 3s backwards in the opponent's row."""

    OPTIONS = (
        Option("grand_slam", "capture", "a move whose captures would empty the opponent's row",
               choices=("capture", "no_capture", "forbidden")),
        Option("no_feeding_move", "play_on", "the opponent's row is empty and no move feeds it",
               choices=("play_on", "collect")),
        Option("repetitions", 3, "occurrence of the same position that ends the game", bounds=(2, 3)),
        Option("repetition_end", "draw", "how a repetition ends the game", choices=("draw", "collect")),
        Option("win_leftover", "stay", "the seeds left on the board when a player reaches 25",
               choices=("stay", "collect")),
    )

    def _make_layout(self) -> Layout:
        return two_row_layout(HOUSES, "none")

    def __init__(self, name: str, description: str, /, **options: Any) -> None:
        super().__init__(name, description, **options)
        size = 2 * HOUSES
        self._rows = (tuple(range(HOUSES)), tuple(range(HOUSES, size)))
        self._row_start = (0, HOUSES)
        # the start hollow is skipped on every lap: it is always empty after the move
        self._paths = tuple(track_path(lambda pit: (pit + 1) % size, i, skip_start=True) for i in range(size))
        self._labels = self.layout.labels
        self._moves = tuple(Move(i, label) for i, label in enumerate(self._labels))
        self._row_moves = tuple(tuple(self._moves[i] for i in row) for row in self._rows)
        self._collect_unfed = self.options["no_feeding_move"] == "collect"
        self._win_at = HOUSES * SEEDS + 1
        self._slam = self.options["grand_slam"]
        self._repetitions = self.options["repetitions"]

    def start(self) -> Position:
        pits = (SEEDS,) * (2 * HOUSES)
        return Position(self, pits, 0, (0, 0), None, repetition.fresh(pits, 0))

    # -- moves -----------------------------------------------------------------
    def _feeds(self, pits: Sequence[int], player: int, i: int) -> bool:
        """Does the move from ``i`` sow at least one seed into the opponent's row?"""
        return pits[i] > self._row_start[player] + HOUSES - 1 - i

    def legal_moves(self, pos: Position) -> list[Move]:
        if pos.result is not None:
            return []
        pits, player = pos.pits, pos.to_move
        lo = self._row_start[player]
        moves = list(compress(self._row_moves[player], pits[lo:lo + HOUSES]))
        opponent = self._row_start[1 - player]
        if not any(pits[opponent:opponent + HOUSES]):  # must feed, if any move can
            moves = [m for m in moves if self._feeds(pits, player, m.pit)] or moves
        if self._slam == "forbidden":
            moves = [m for m in moves if not self._is_grand_slam(pits, player, m.pit)] or moves
        return moves

    def _capture_chain(self, pits: list[int], player: int, last: int) -> tuple[list[int], bool]:
        """The hollows the last seed captures (2s and 3s backwards, within the
        opponent's row) and whether that empties the row (a grand slam)."""
        lo = self._row_start[1 - player]
        chain: list[int] = []
        if lo <= last < lo + HOUSES:
            j = last
            while j >= lo and 2 <= pits[j] <= 3:
                chain.append(j)
                j -= 1
        grand = bool(chain) and sum(pits[j] for j in chain) == sum(pits[lo:lo + HOUSES])
        return chain, grand

    def _why_not_from(self, pos: Position, index: int) -> str | None:
        """Must feed, or a grand slam this game forbids: the two rules that refuse a hollow with seeds."""
        pits, player = pos.pits, pos.to_move
        opponent = PLAYER_NAMES[1 - player]
        lo = self._row_start[1 - player]
        if not any(pits[lo:lo + HOUSES]) and not self._feeds(pits, player, index):
            return f"{opponent} has no seeds, and a move from {self._labels[index]} gives him none"
        return (f"a move from {self._labels[index]} would capture every seed of {opponent}'s row, a grand slam, "
                "which this game forbids (grand_slam=forbidden)")

    def _is_grand_slam(self, pits: Sequence[int], player: int, i: int) -> bool:
        board = list(pits)
        last = sow(board, i, self._paths[i], None, ())
        return self._capture_chain(board, player, last)[1]

    # -- playing -----------------------------------------------------------------
    def _apply(self, pos: Position, move: Move, events: list[Event] | None) -> Position:
        player = pos.to_move
        pits = list(pos.pits)
        labels = self._labels
        last = sow(pits, move.pit, self._paths[move.pit], events, labels)
        to_move = 1 - player
        captured = pos.captured
        taken = 0
        opponent = self._row_start[to_move]
        if opponent <= last < opponent + HOUSES and 1 < pits[last] < 4:
            chain, grand = self._capture_chain(pits, player, last)
            if not (grand and self._slam == "no_capture"):
                for j in chain:
                    if events is not None:
                        events.append(ev.capture(labels[j], pits[j], player, "captured"))
                    taken += pits[j]
                    pits[j] = 0
                captured = credited(captured, player, taken)
        board = tuple(pits)
        if taken:  # captured seeds never come back: no earlier position can recur
            history, seen = repetition.fresh(board, to_move), 1
        else:
            history, seen = repetition.record(pos.state or repetition.fresh(pos.pits, player), board, to_move)
        result = None
        if taken or seen >= self._repetitions or not any(board[opponent:opponent + HOUSES]) or self._collect_unfed:
            score = list(captured)
            result = self._end_check(pits, score, player, seen, events)
            if result is not None:
                captured = (score[0], score[1])
                if tuple(pits) != board:  # swept: the final board is new
                    board = tuple(pits)
                    history = repetition.fresh(board, to_move)
        return new_position((self, board, to_move, captured, None, history, result))

    def _end_check(self, pits: list[int], captured: list[int], mover: int, seen: int,
                   events: list[Event] | None) -> Result | None:
        """RULES.md's end checks after a move, in order (sweeps change ``pits``/``captured``)."""
        to_move = 1 - mover
        if captured[mover] >= self._win_at:
            if self.options["win_leftover"] == "collect":
                self._sweep(pits, captured, self._owner, events)
            result = Result(mover, f"{PLAYER_NAMES[mover]} captured {self._win_at} or more", tuple(captured))
        elif not any(pits[i] for i in self._rows[to_move]):
            self._sweep(pits, captured, lambda i: mover, events)
            result = most_seeds_result(tuple(captured), f"{PLAYER_NAMES[to_move]} has no seeds")
        elif seen >= self._repetitions:
            reason = f"the position occurred {seen} times"
            if self.options["repetition_end"] == "draw":
                result = Result(None, reason, tuple(captured))
            else:
                self._sweep(pits, captured, self._owner, events)
                result = most_seeds_result(tuple(captured), reason)
        elif (self.options["no_feeding_move"] == "collect" and not any(pits[i] for i in self._rows[mover])
              and not any(self._feeds(pits, to_move, i) for i in self._rows[to_move])):
            self._sweep(pits, captured, self._owner, events)
            result = most_seeds_result(tuple(captured), f"{PLAYER_NAMES[to_move]} cannot feed")
        else:
            return None
        if events is not None:
            events.append(ev.game_end(result))
        return result

    @staticmethod
    def _owner(pit: int) -> int:
        return 0 if pit < HOUSES else 1

    def _sweep(self, pits: list[int], captured: list[int], taker: Callable[[int], int], events: list[Event] | None) -> None:
        """Move every seed left on the board to ``taker(pit)``'s captured seeds."""
        labels = self.layout.labels
        for i, seeds in enumerate(pits):
            if seeds:
                who = taker(i)
                if events is not None:
                    events.append(ev.sweep(labels[i], seeds, who))
                captured[who] += seeds
                pits[i] = 0

    def _check_invariants(self, pos: Position) -> None:
        if pos.result is None:
            if max(pos.captured) >= self._win_at:
                raise BadPosition(f"{self.name}: a player has captured {self._win_at} or more, "
                                  "so the game is over, but the position carries no result")
            if not any(pos.pits[i] for i in self._rows[pos.to_move]):
                raise BadPosition(f"{self.name}: {PLAYER_NAMES[pos.to_move]} is to move with no seeds, "
                                  "so the game is over, but the position carries no result")
            seen = pos.state[pos.to_move].count(pos.pits) if pos.state else 1
            if seen >= self._repetitions:
                raise BadPosition(f"{self.name}: the history shows this position {seen} times, "
                                  "so the game is over, but the position carries no result")


register("oware", Oware, "Oware Abapa: 2 x 6, 4 seeds, capture 2s and 3s, must feed, grand slam option, 25 wins")
