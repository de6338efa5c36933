"""Nigerian (seed 002): both stores on every track, owners take every house that reaches 4, laps.

Any drop that makes a house hold exactly 4 sends those 4 at once to the
house owner's store, whoever sows (the start house too, on a later lap). The
last seed ends the move in a store, in an empty house, or on a 4; otherwise
the mover lifts that house and sows on (a lap). No extra turns. The game ends
when the player to move has no seeds in his houses (or only never-ending
sowings); seeds left on the board count for nobody.
"""

from __future__ import annotations

from typing import Any

from .. import events as ev
from ..errors import BadPosition, IllegalMove
from ..layout import PLAYER_NAMES, Layout, two_row_layout
from ..position import Move, Position, Result
from ..registry import register
from ..sowing import NEVER_ENDING, WATCH_FROM, Memo, never_ends
from ..variant import Event, Variant
from .kalah import QuickPlay, most_seeds_result

CAPTURE_AT = 4


class Nigerian(QuickPlay, Variant):
    """Kalah board, 4 per house; both stores on the track; 4s go to the house owner; laps."""

    def _make_layout(self) -> Layout:
        return two_row_layout(6, "right")

    def __init__(self, name: str, description: str, /, **options: Any) -> None:
        super().__init__(name, description, **options)
        pits = self.layout.pits
        size = len(pits)
        self._next = tuple((i + 1) % size for i in range(size))
        self._stores = (self.layout.store(0), self.layout.store(1))
        self._houses = (self.layout.houses(0), self.layout.houses(1))
        # the store a house's 4 go to, or -1 for a store (stores never capture)
        self._store_of_owner = tuple(-1 if p.is_store else self._stores[p.owner] for p in pits)
        self._moves = tuple(Move(i, p.label) for i, p in enumerate(pits))
        self._memo = Memo()

    def start(self) -> Position:
        return Position(self, (4,) * 6 + (0,) + (4,) * 6 + (0,), 0)

    # -- sowing ----------------------------------------------------------------
    def _sow(self, pits: list[int], i: int, events: list[Event] | None) -> bool:
        """Play the move from house ``i`` on ``pits``; False if the sowing never ends."""
        nxt, store_of = self._next, self._store_of_owner
        labels = self.layout.labels
        seeds = pits[i]
        pits[i] = 0
        if events is not None:
            events.append(ev.lift(labels[i], seeds))
        laps = 0
        seen: set = set()
        while True:
            while seeds:
                i = nxt[i]
                pits[i] += 1
                seeds -= 1
                if events is not None:
                    events.append(ev.drop(labels[i], pits[i]))
                if pits[i] == CAPTURE_AT and store_of[i] >= 0:
                    store = store_of[i]
                    pits[store] += CAPTURE_AT
                    pits[i] = 0
                    if events is not None:
                        owner = 0 if store == self._stores[0] else 1
                        events.append(ev.capture(labels[i], CAPTURE_AT, owner, labels[store]))
                    if not seeds:
                        return True  # the last seed made 4: captured, the move ends
            if store_of[i] < 0 or pits[i] == 1:
                return True  # the last seed fell into a store or an empty house
            laps += 1
            if laps >= WATCH_FROM and never_ends(seen, laps, pits, i, pits[i]):
                return False
            seeds = pits[i]
            pits[i] = 0
            if events is not None:
                events.append(ev.lap(labels[i], seeds))

    def _endings(self, pits: tuple[int, ...], player: int) -> tuple[tuple[Move, tuple[int, ...]], ...]:
        """Every move of ``player`` whose sowing ends, with the pits it leaves (memoised)."""
        key = (pits, player)
        found = self._memo.get(key)
        if found is None:
            out = []
            for i in self._houses[player]:
                if pits[i]:
                    board = list(pits)
                    if self._sow(board, i, None):
                        out.append((self._moves[i], tuple(board)))
            found = self._memo.remember(key, tuple(out))
        return found

    # -- the variant API ---------------------------------------------------------
    def legal_moves(self, pos: Position) -> list[Move]:
        if pos.result is not None:
            return []
        return [move for move, _ in self._endings(pos.pits, pos.to_move)]

    def _why_not_from(self, pos: Position, index: int) -> str | None:
        return NEVER_ENDING

    def _apply(self, pos: Position, move: Move, events: list[Event] | None) -> Position:
        player = pos.to_move
        if events is None:
            pits = next((board for m, board in self._endings(pos.pits, player) if m.pit == move.pit), None)
            if pits is None:
                raise IllegalMove(self._why_illegal(pos, move.text))
        else:
            board = list(pos.pits)
            self._sow(board, move.pit, events)
            pits = tuple(board)
        to_move = 1 - player
        result = self._end_check(pits, to_move)
        if result is not None and events is not None:
            events.append(ev.game_end(result))
        return Position(self, pits, to_move, (0, 0), None, (), result)

    def _end_check(self, pits: tuple[int, ...], to_move: int) -> Result | None:
        """The game ends when the player to move has no seeds, or only never-ending sowings."""
        if self._endings(pits, to_move):
            return None
        has_seeds = any(pits[i] for i in self._houses[to_move])
        why = "cannot move (every sowing is never-ending)" if has_seeds else "has no seeds"
        score = (pits[self._stores[0]], pits[self._stores[1]])
        return most_seeds_result(score, f"{PLAYER_NAMES[to_move]} {why}")

    def _check_invariants(self, pos: Position) -> None:
        if pos.captured != (0, 0):
            raise BadPosition(f"{self.name}: seeds are won into the stores S and N, 'captured' must be 0 and 0")
        ended = self._end_check(pos.pits, pos.to_move) if pos.result is None else None
        if ended is not None:
            raise BadPosition(f"{self.name}: the game is over in this position ({ended.reason}) "
                              "but it carries no result")


register("nigerian", Nigerian,
         "Nigerian: Kalah board, both stores on the track, every house reaching 4 goes to its owner, laps")
