"""Bao, the two Kenyan children's games of seed 004: ``bao-kenya`` and ``bao-kenya-laps``.

``bao-kenya``: 2 x 8 hollows, 3 seeds each, each player's store on his right
and on his own track only. The start hollow is skipped whenever a sowing
reaches it again (17 or more seeds). Last seed in your own store: you move
again. Last seed in an empty hollow of your row: the seeds opposite (if any)
go to your store, the last seed stays. 25 in store wins.

``bao-kenya-laps``: 2 x 8, 2 seeds each, no store on the track (captures
are kept aside). Last seed into an occupied hollow: a lap; into an empty
hollow: the move ends, capturing the seeds opposite if it is in your row.
Single seeds may start a move only when every non-empty hollow of yours holds
exactly one. No early win.

Both: the player to move with no seeds (or, with laps, no sowing that ends)
loses the rest of the board to the other player; most seeds wins; the third
occurrence of a position is a draw, and so is a draw agreed by the players.
"""

from __future__ import annotations

from typing import Any, Sequence

from .. import events as ev
from .. import repetition
from ..errors import BadPosition, IllegalMove
from ..layout import PLAYER_NAMES, Layout, two_row_layout
from ..position import Move, Position, Result, credited
from ..registry import register
from ..sowing import NEVER_ENDING, WATCH_FROM, Memo, never_ends, sow, track_path
from ..variant import Event, Variant
from .kalah import QuickPlay, most_seeds_result

HOUSES = 8
REPEATS_TO_DRAW = 3


class _KenyanBao(QuickPlay, repetition.RepetitionRules, Variant):
    """What both Kenyan games share: 2 x 8 hollows, CCW sowing, the end by an empty row, repetition."""

    SEEDS: int
    STORES: str

    def _make_layout(self) -> Layout:
        return two_row_layout(HOUSES, self.STORES)

    def __init__(self, name: str, description: str, /, **options: Any) -> None:
        super().__init__(name, description, **options)
        self._houses = (self.layout.houses(0), self.layout.houses(1))
        self._owner = tuple(-1 if p.is_store else p.owner for p in self.layout.pits)
        self._moves = tuple(Move(i, label) for i, label in enumerate(self.layout.labels))

    def start(self) -> Position:
        pits = tuple(0 if p.is_store else self.SEEDS for p in self.layout.pits)
        return Position(self, pits, 0, (0, 0), None, repetition.fresh(pits, 0))

    def _next_position(self, pos: Position, pits: list[int], captured: tuple[int, int], to_move: int,
                       irreversible: bool, events: list[Event] | None) -> Position:
        """Record the repetition history, run the end checks and build the position after a move."""
        board = tuple(pits)
        if irreversible:
            history, seen = repetition.fresh(board, to_move), 1
        else:
            history, seen = repetition.record(pos.state or repetition.fresh(pos.pits, pos.to_move), board, to_move)
        ended = self._end_check(pits, captured, to_move, seen)
        result = None
        if ended is not None:
            result, taker = ended
            if taker is not None:  # the final board is new
                captured = self._sweep(pits, captured, taker, events)
                board, history = tuple(pits), repetition.fresh(tuple(pits), to_move)
            if events is not None:
                events.append(ev.game_end(result))
        return Position(self, board, to_move, captured, None, history, result)

    def _scores(self, pits: Sequence[int], captured: tuple[int, int]) -> tuple[int, int]:
        raise NotImplementedError

    def _cannot_move(self, pits: Sequence[int], to_move: int) -> bool:
        raise NotImplementedError

    def _end_check(self, pits: Sequence[int], captured: tuple[int, int], to_move: int, seen: int
                   ) -> tuple[Result, int | None] | None:
        """RULES.md's order: an early win (bao-kenya only), no seeds (or no move), third repetition.

        The result, and the player who takes the seeds left on the board (None: they stay).
        """
        score = self._scores(pits, captured)
        if self._early_win(score):
            winner = 0 if score[0] > score[1] else 1
            return Result(winner, f"{PLAYER_NAMES[winner]} has {score[winner]} in store", score), None
        if self._cannot_move(pits, to_move):
            other = 1 - to_move
            rest = sum(p for i, p in enumerate(pits) if self._owner[i] >= 0)
            final = credited(score, other, rest)
            why = "has no seeds" if not any(pits[i] for i in self._houses[to_move]) else "cannot move"
            return most_seeds_result(final, f"{PLAYER_NAMES[to_move]} {why}"), other
        if seen >= REPEATS_TO_DRAW:
            return Result(None, f"the position occurred {seen} times", score), None
        return None

    def _early_win(self, score: tuple[int, int]) -> bool:
        return False

    def _sweep(self, pits: list[int], captured: tuple[int, int], taker: int,
               events: list[Event] | None) -> tuple[int, int]:
        """``taker`` takes every seed left in the hollows; returns the new captured counts."""
        labels = self.layout.labels
        taken = 0
        for i, seeds in enumerate(pits):
            if seeds and self._owner[i] >= 0:
                if events is not None:
                    events.append(ev.sweep(labels[i], seeds, taker))
                taken += seeds
                pits[i] = 0
        return self._credit(pits, captured, taker, taken)

    def _credit(self, pits: list[int], captured: tuple[int, int], player: int, seeds: int) -> tuple[int, int]:
        raise NotImplementedError

    def _check_invariants(self, pos: Position) -> None:
        if pos.result is None:
            seen = pos.state[pos.to_move].count(pos.pits) if pos.state else 1
            ended = self._end_check(pos.pits, pos.captured, pos.to_move, seen)
            if ended is not None:
                raise BadPosition(f"{self.name}: the game is over in this position ({ended[0].reason}) "
                                  "but it carries no result")


class BaoKenya(_KenyanBao):
    """Bao (Kenyan children's): stores on the track, start hollow skipped at 17+, extra turns, 25 wins."""

    SEEDS = 3
    STORES = "right"

    def __init__(self, name: str, description: str, /, **options: Any) -> None:
        super().__init__(name, description, **options)
        self._stores = (self.layout.store(0), self.layout.store(1))
        size = len(self.layout)
        self._paths = tuple(
            tuple(track_path(lambda pit: (pit + 1) % size, i, (self._stores[1 - p],), skip_start=True)
                  for i in range(size))
            for p in (0, 1)
        )

    def legal_moves(self, pos: Position) -> list[Move]:
        if pos.result is not None:
            return []
        pits, moves = pos.pits, self._moves
        return [moves[i] for i in self._houses[pos.to_move] if pits[i]]

    def _apply(self, pos: Position, move: Move, events: list[Event] | None) -> Position:
        player = pos.to_move
        pits = list(pos.pits)
        labels = self.layout.labels
        store = self._stores[player]
        stored = pits[store]
        last = sow(pits, move.pit, self._paths[player][move.pit], events, labels)
        to_move = 1 - player
        if last == store:
            to_move = player
        elif pits[last] == 1 and self._owner[last] == player:
            opp = self.layout.opposite[last]
            if pits[opp]:
                if events is not None:
                    events.append(ev.capture(labels[opp], pits[opp], player, labels[store]))
                pits[store] += pits[opp]
                pits[opp] = 0
        new = self._next_position(pos, pits, (0, 0), to_move, pits[store] != stored, events)
        if new.result is None and to_move == player and events is not None:
            events.append(ev.extra_turn(player))
        return new

    def _scores(self, pits: Sequence[int], captured: tuple[int, int]) -> tuple[int, int]:
        return (pits[self._stores[0]], pits[self._stores[1]])

    def _early_win(self, score: tuple[int, int]) -> bool:
        return max(score) > HOUSES * self.SEEDS

    def _cannot_move(self, pits: Sequence[int], to_move: int) -> bool:
        return not any(pits[i] for i in self._houses[to_move])

    def _credit(self, pits: list[int], captured: tuple[int, int], player: int, seeds: int) -> tuple[int, int]:
        pits[self._stores[player]] += seeds
        return captured

    def _check_invariants(self, pos: Position) -> None:
        if pos.captured != (0, 0):
            raise BadPosition(f"{self.name}: seeds are won into the stores S and N, 'captured' must be 0 and 0")
        super()._check_invariants(pos)


class BaoKenyaLaps(_KenyanBao):
    """Bao (Kenyan with laps): no stores on the track, laps, captures by an empty own hollow."""

    SEEDS = 2
    STORES = "none"

    def __init__(self, name: str, description: str, /, **options: Any) -> None:
        super().__init__(name, description, **options)
        size = len(self.layout)
        self._paths = tuple(track_path(lambda pit: (pit + 1) % size, i) for i in range(size))
        self._memo = Memo()

    def _sow(self, pits: list[int], player: int, i: int, events: list[Event] | None) -> int | None:
        """Play the move from ``i`` on ``pits``: the seeds captured, or None if it never ends."""
        labels = self.layout.labels
        laps = 0
        seen: set = set()
        while True:
            last = sow(pits, i, self._paths[i], events, labels, relay=laps > 0)
            if pits[last] == 1:
                break
            laps += 1
            if laps >= WATCH_FROM and never_ends(seen, laps, pits, last, pits[last]):
                return None
            i = last
        if self._owner[last] != player:
            return 0
        opp = self.layout.opposite[last]
        taken = pits[opp]
        if taken:
            if events is not None:
                events.append(ev.capture(labels[opp], taken, player, "captured"))
            pits[opp] = 0
        return taken

    def _starts(self, pits: Sequence[int], player: int) -> list[int]:
        """Hollows a move may start from: 2 or more, or singles when every non-empty one holds 1."""
        own = self._houses[player]
        starts = [i for i in own if pits[i] > 1]
        if not starts and not any(pits[i] > 1 for i in own):
            starts = [i for i in own if pits[i]]
        return starts

    def _why_not_from(self, pos: Position, index: int) -> str | None:
        if index not in self._starts(pos.pits, pos.to_move):
            return "a single seed is sown only when none of your hollows holds 2 or more"
        return NEVER_ENDING

    def _endings(self, pits: tuple[int, ...], player: int) -> tuple[tuple[Move, tuple[int, ...], int], ...]:
        """Every move whose sowing ends, with the pits it leaves and the seeds it captures (memoised)."""
        key = (pits, player)
        found = self._memo.get(key)
        if found is None:
            out = []
            for i in self._starts(pits, player):
                board = list(pits)
                taken = self._sow(board, player, i, None)
                if taken is not None:
                    out.append((self._moves[i], tuple(board), taken))
            found = self._memo.remember(key, tuple(out))
        return found

    def legal_moves(self, pos: Position) -> list[Move]:
        if pos.result is not None:
            return []
        return [move for move, _, _ in self._endings(pos.pits, pos.to_move)]

    def _apply(self, pos: Position, move: Move, events: list[Event] | None) -> Position:
        player = pos.to_move
        if events is None:
            found = next(((b, t) for m, b, t in self._endings(pos.pits, player) if m.pit == move.pit), None)
            if found is None:
                raise IllegalMove(self._why_illegal(pos, move.text))
            pits, taken = list(found[0]), found[1]
        else:
            pits = list(pos.pits)
            taken = self._sow(pits, player, move.pit, events)
        return self._next_position(pos, pits, credited(pos.captured, player, taken), 1 - player, taken > 0, events)

    def _scores(self, pits: Sequence[int], captured: tuple[int, int]) -> tuple[int, int]:
        return captured

    def _cannot_move(self, pits: Sequence[int], to_move: int) -> bool:
        return not self._endings(tuple(pits), to_move)

    def _credit(self, pits: list[int], captured: tuple[int, int], player: int, seeds: int) -> tuple[int, int]:
        return credited(captured, player, seeds)


register("bao-kenya", BaoKenya,
         "Bao (Kenyan children's): 2 x 8, 3 seeds, stores on the track, extra turns, 25 in store wins")
register("bao-kenya-laps", BaoKenyaLaps,
         "Bao (Kenyan with laps): 2 x 8, 2 seeds, laps, captures kept aside, most captured wins")
