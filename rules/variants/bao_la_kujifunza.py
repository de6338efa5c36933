"""Bao la Kujifunza (seed 004): four ranks, mtaji (capturing) and kutakata turns.

Each player sows round his own 16 mashimo (front row and back row) in the
direction he chooses. A mtaji move ends its first sowing on an occupied shimo
of his front row facing an occupied shimo of the opponent: those kete are
captured and sown into his front row from the left or right end, and the turn
goes on with captures and laps until a kete falls into an empty shimo. When
no mtaji move exists the turn is kutakata: laps only, no captures, and from
the back row only when no front-row kutakata exists.

The engine works in *track positions*: ``player_tracks[p][k]`` is player
``p``'s k-th shimo going clockwise (k = 0..7 his front row from his left,
8..15 his back row from his right), so clockwise is ``k + 1`` and
anticlockwise ``k - 1``, and the column of a front shimo (from the owner's
left) is ``k + 1``. No extra state: captured kete stay on the board.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from .. import events as ev
from ..errors import BadPosition
from ..layout import PLAYER_NAMES, Layout, four_rank_layout
from ..position import Move, Position, Result
from ..registry import register
from ..sowing import NEVER_ENDING, WATCH_FROM, never_ends
from ..variant import Event, Variant

RING = 16  # mashimo per player: the track each player sows round
FRONT = 8  # track positions 0..7 are the front row
CW, CCW = 1, -1
STEP = {d: tuple((k + d) % RING for k in range(RING)) for d in (CW, CCW)}  # next track position
MTAJI_MAX = 15  # a shimo of 16 or more cannot start a mtaji

# what a turn came to
ENDED, NEVER_ENDS = "ended", "never ends"


class BaoLaKujifunza(Variant):
    """Bao la Kujifunza: 4 x 8, 2 kete each; mtaji captures sown in from the row ends, else kutakata."""

    def _make_layout(self) -> Layout:
        return four_rank_layout(8)

    def __init__(self, name: str, description: str, /, **options: Any) -> None:
        super().__init__(name, description, **options)
        layout = self.layout
        self._tracks = layout.player_tracks
        self._position = {pit: k for track in self._tracks for k, pit in enumerate(track)}
        labels = self._labels = layout.labels  # the property builds a new tuple on every call
        # A player's *view* of the board: his 16 mashimo in track order, then the opponent's
        # front shimo facing each of his front ones (view[16 + k] faces view[k]). The rest is
        # the opponent's back row, which a turn never touches.
        views = [track + tuple(layout.opposite[track[k]] for k in range(FRONT)) for track in self._tracks]
        rests = [self._tracks[1 - p][FRONT:] for p in (0, 1)]
        self._view = tuple(itemgetter(*view) for view in views)
        self._rest = tuple(itemgetter(*rest) for rest in rests)
        self._unview = tuple(itemgetter(*_inverse(view + rest)) for view, rest in zip(views, rests))
        self._names = tuple(tuple(labels[i] for i in view) for view in views)
        self._moves = tuple(
            tuple({CW: Move(pit, labels[pit] + "<", "cw"), CCW: Move(pit, labels[pit] + ">", "ccw")}
                  for pit in track)
            for track in self._tracks
        )
        # The moves of the two positions asked about last, newest first, each with the view it
        # leaves (working out the moves plays every candidate turn out: only turns that end
        # exist). legal_moves and then play ask about the same position; a search plays every
        # move of a position in turn, and the end check of each play may work out the moves of
        # its new position in between: two entries are enough, known by identity (no hashing).
        self._recent: tuple[tuple[Position | None, tuple], ...] = ((None, ()), (None, ()))
        self._ring = tuple(itemgetter(*track) for track in self._tracks)  # a player's 16 mashimo

    def start(self) -> Position:
        return Position(self, (2,) * (4 * FRONT), 0)

    # -- moves ----------------------------------------------------------------
    def legal_moves(self, pos: Position) -> list[Move]:
        if pos.result is not None:
            return []
        return list(self._outcomes(pos)[0])

    def _outcomes(self, pos: Position) -> tuple[list[Move], dict[Move, tuple]]:
        newest, older = self._recent
        if newest[0] is pos:
            return newest[1]
        if older[0] is pos:
            self._recent = (older, newest)
            return older[1]
        found = self._work_out(pos.pits, pos.to_move)
        self._recent = ((pos, found), newest)
        return found

    def _why_not_from(self, pos: Position, index: int) -> str | None:
        """The rules of turns, in the order they choose one: a capture if one ends, else a front
        row kutakata, else a back row one; each a turn that ends, of two kete or more."""
        if pos.pits[index] == 1:
            return "a single kete never starts a turn"
        if any(mtaji for _, mtaji in self._outcomes(pos)[1].values()):
            return "a capture (mtaji) can be made, so the turn must capture"
        if self._position[index] >= FRONT:
            return "the back row is sown only when no turn from the front row ends"
        return NEVER_ENDING

    def _can_move(self, pos: Position) -> bool:
        """Whether the player to move has a turn that ends: the end check of every move asks.

        Cheapest first: 2..15 kete sown into an empty shimo end the turn at once (fewer than
        16 never come back round, so the last shimo gets exactly one), and every shimo of 2
        or more starts a kutakata turn, so one such shimo answers without sowing. Most
        positions of a referee's search are answered so and never played on. Otherwise
        every move is worked out (and kept: whoever plays on asks for them next)."""
        ring = self._ring[pos.to_move](pos.pits)
        if 0 in ring:
            for k, n in enumerate(ring):  # a loop, not any(): half the time, and every play asks
                if 2 <= n <= MTAJI_MAX and not (ring[(k + n) % RING] and ring[(k - n) % RING]):
                    return True
        return bool(self._outcomes(pos)[0])

    def _work_out(self, pits: tuple[int, ...], player: int) -> tuple[list[Move], dict[Move, tuple]]:
        """Every legal move with the view it leaves: mtaji if any ends, else kutakata."""
        view = list(self._view[player](pits))
        # a mtaji start: 2..15 kete whose last one lands on an occupied front shimo (counts before
        # it drops; 15 or fewer never come back to the start) facing an occupied one
        starts = [(k, d) for k, n in enumerate(view[:RING]) if 2 <= n <= MTAJI_MAX
                  for d, land in ((CW, (k + n) % RING), (CCW, (k - n) % RING))
                  if land < FRONT and view[land] and view[RING + land]]
        outcomes = self._ending(view, player, starts, True)
        if not outcomes:
            front = [(k, d) for k in range(FRONT) if view[k] >= 2 for d in (CW, CCW)]
            outcomes = self._ending(view, player, front, False)
        if not outcomes:
            back = [(k, d) for k in range(FRONT, RING) if view[k] >= 2 for d in (CW, CCW)]
            outcomes = self._ending(view, player, back, False)
        return list(outcomes), outcomes

    def _ending(self, view: list[int], player: int, starts: list[tuple[int, int]],
                mtaji: bool) -> dict[Move, tuple]:
        """The moves among ``starts`` whose turn ends, with the view each leaves."""
        outcomes = {}
        moves = self._moves[player]
        for k, d in starts:
            after = view[:]
            if self._turn(after, player, k, d, mtaji, None) is ENDED:
                outcomes[moves[k][d]] = (after, mtaji)
        return outcomes

    def _turn(self, view: list[int], player: int, k: int, d: int, mtaji: bool,
              events: list[Event] | None) -> str:
        """Play a whole turn from track position ``k`` in direction ``d``, changing ``view``."""
        hand, view[k] = view[k], 0
        telling = events is not None
        if telling:
            names = self._names[player]
            events.append(ev.lift(names[k], hand))
        at, laps, seen = k, 0, set()  # ``at``: the shimo the next kete drops after
        step = STEP[d]
        while True:
            if telling:
                for _ in range(hand):
                    at = step[at]
                    view[at] += 1
                    events.append(ev.drop(names[at], view[at]))
            else:
                if hand >= RING:  # whole rounds of 16 at once
                    rounds, hand = divmod(hand, RING)
                    view[:RING] = [n + rounds for n in view[:RING]]
                for _ in range(hand):
                    at = step[at]
                    view[at] += 1
            if view[at] == 1:
                return ENDED
            laps += 1
            if mtaji and at < FRONT and view[RING + at]:
                hand, view[RING + at] = view[RING + at], 0
                from_left = _sow_from_left(at, d)
                if telling:  # the kete go into the hand, to be sown from one end of the front row
                    events.append(ev.capture(names[RING + at], hand, player, "hand",
                                             sow_from=names[0 if from_left else FRONT - 1]))
                d = CW if from_left else CCW
                step = STEP[d]
                at = RING - 1 if from_left else FRONT  # the first kete goes into the end shimo itself
            else:
                hand, view[at] = view[at], 0
                if telling:
                    events.append(ev.lap(names[at], hand))
            if laps >= WATCH_FROM and never_ends(seen, laps, view, at, hand, d):
                return NEVER_ENDS

    # -- playing ------------------------------------------------------------------
    def _apply(self, pos: Position, move: Move, events: list[Event] | None) -> Position:
        player = pos.to_move
        view, mtaji = self._outcomes(pos)[1][move]
        if events is not None:  # sow again, telling every drop
            view = list(self._view[player](pos.pits))
            d = CW if move.direction == "cw" else CCW
            self._turn(view, player, self._position[move.pit], d, mtaji, events)
        new = Position(self, self._unview[player](view + list(self._rest[player](pos.pits))), 1 - player)
        result = self._end_check(new, player, view)
        if result is not None:
            new = new._replace(result=result)
            if events is not None:
                events.append(ev.game_end(result))
        return new

    def _end_check(self, new: Position, mover: int, view: list[int]) -> Result | None:
        """RULES.md's order: the opponent's front row empty, the mover's front row empty, no move."""
        if not any(view[RING:]):
            return self._win(new, mover, f"{PLAYER_NAMES[1 - mover]}'s front row is empty")
        if not any(view[:FRONT]):
            return self._win(new, 1 - mover, f"{PLAYER_NAMES[mover]}'s front row is empty")
        if not self._can_move(new):
            return self._win(new, mover, f"{PLAYER_NAMES[1 - mover]} has neither a mtaji nor a kutakata move")
        return None

    def _win(self, pos: Position, winner: int, reason: str) -> Result:
        """Score: the kete each player holds in his rows."""
        kete = tuple(sum(pos.pits[i] for i in track) for track in self._tracks)
        return Result(winner, reason, (kete[0], kete[1]))

    def _check_invariants(self, pos: Position) -> None:
        if pos.captured != (0, 0):
            raise BadPosition(f"{self.name}: captured kete are sown into the capturer's rows, so captured must be 0 and 0")
        if pos.white is not None:
            raise BadPosition(f"{self.name}: kete have no colours, a position has no white counts")
        if pos.result is None:
            for player in (0, 1):
                if not any(pos.pits[i] for i in self._tracks[player][:FRONT]):
                    raise BadPosition(f"{self.name}: {PLAYER_NAMES[player]}'s front row is empty, so the game is over")
            if not self._can_move(pos):
                raise BadPosition(f"{self.name}: {PLAYER_NAMES[pos.to_move]} has neither a mtaji nor a kutakata move, "
                                  "so the game is over, but the position carries no result")


def _inverse(order: tuple[int, ...]) -> list[int]:
    """The permutation that puts values listed in ``order`` back in canonical order."""
    inverse = [0] * len(order)
    for j, i in enumerate(order):
        inverse[i] = j
    return inverse


def _sow_from_left(column: int, direction: int) -> bool:
    """Where captured kete are sown in: from the far left (CW) for the two left columns, from the
    far right (ACW) for the two right ones, and by the capturing segment's direction in between."""
    if column < 2:
        return True
    if column >= FRONT - 2:
        return False
    return direction == CW


register("bao-la-kujifunza", BaoLaKujifunza,
         "Bao la Kujifunza: 4 x 8, 2 kete each, mtaji captures sown in from the row ends, else kutakata")
