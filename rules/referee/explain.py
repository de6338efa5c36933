"""Candidate explanations of a board: moves, sequences, takebacks, moves in progress.

Everything here asks the rules engine (``legal_moves`` / ``play``) and never
re-implements a rule, so every variant is explained by its own rules as soon
as it is registered. The :class:`Explorer` caches the legal successors of
positions: the live session judges the same position many times (every stable
Reading until a move is committed), and sequence searches share prefixes.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from typing import Callable, Iterable, Iterator, Sequence

from ..position import WHITE, Move, Position
from ..variant import Event

Board = tuple[tuple[int, ...], "tuple[int, ...] | None"]
Sequence_ = tuple[tuple[Move, ...], Position, int, bool]  # moves, position, board changes shown, last silent


def board_of(pos: Position) -> Board:
    """What a camera can see of a position: the pit counts and the white chips."""
    return pos.pits, pos.white


def state_key(pos: Position) -> tuple:
    """A position's identity within one variant, hashed without the Variant object (faster)."""
    return pos[1:]


class Explorer:
    """Legal successors of positions, cached (least recently used first out).

    The default size holds a whole three-move search (at most about 200 positions are
    expanded: the current one, its b successors, and at most b * b or budget / b positions
    after two moves), so judging the same position again costs no engine call. It is no larger
    because every cached position is an object the garbage collector walks: with 2,048
    entries a full collection in the middle of a verdict took the Ethiopian 99th
    percentile from 8-11 ms to 12-17 ms (benchmarks/referee_bench.py).
    """

    def __init__(self, cache_size: int = 512) -> None:
        self._cache: OrderedDict[tuple, tuple[tuple[Move, Position], ...]] = OrderedDict()
        self._size = cache_size

    def successors(self, pos: Position) -> tuple[tuple[Move, Position], ...]:
        """Every legal move of ``pos`` with the position it leads to (none once the game is over)."""
        # a cached entry keeps its variant alive (its positions refer to it), so ids stay unique;
        # a game-over entry holds no position, but a game-over position has no successors anyway
        key = (id(pos.variant), pos[1:])
        cached = self._cache.get(key)
        if cached is not None:
            self._cache.move_to_end(key)
            return cached
        found = tuple(pos.variant.successors(pos))
        self._cache[key] = found
        if len(self._cache) > self._size:
            self._cache.popitem(last=False)
        return found

    def extend(self, level: list[Sequence_], budget: int, score_all: Callable[[Iterable[Position]], list[float]],
               within: float = math.inf) -> tuple[list[tuple[Sequence_, float]], bool]:
        """Every sequence one legal move longer than those of ``level``, one per resulting
        position, with the ``score_all(positions)`` of its board; those scoring ``within`` or more
        below the best are left out (the last level of a search wants no others, and most of its
        positions are never kept: nothing is built for them).

        A sequence is ``(moves, position, shown, silent)``: ``shown`` counts the moves that
        changed the board, ``silent`` says the last one did not (a forced pass that leaves the
        board as it was: the camera cannot miss a board that never changed).

        Exhaustive while it needs at most ``budget`` engine calls (estimated from
        the first few positions); past that, only the best-scoring positions of
        ``level`` are expanded (a beam) and the second value is ``False``.
        """
        if not level:
            return [], True
        sample = level[:8]
        branching = max(1.0, sum(len(self.successors(s[1])) for s in sample) / len(sample))
        exhaustive = len(level) * branching <= budget
        if not exhaustive:
            lls = score_all(s[1] for s in level)
            best = sorted(range(len(level)), key=lls.__getitem__, reverse=True)  # stable: ties keep their order
            level = [level[i] for i in best[:max(1, int(budget / branching))]]
        children = [self.successors(s[1]) for s in level]
        lls = score_all([q for kids in children for _, q in kids])  # one call for the whole level
        floor = max(lls, default=0.0) - within
        seen: set[tuple] = set()
        longer: list[tuple[Sequence_, float]] = []
        scores = iter(lls)  # in step with the children: zip asks ``kids`` first, so none is skipped
        for (moves, p, shown, _), kids in zip(level, children):
            for (m, q), ll in zip(kids, scores):
                if ll > floor:
                    key = q[1:]
                    if key not in seen:
                        seen.add(key)
                        silent = m.is_pass and q.pits == p.pits and q.white == p.white
                        longer.append(((moves + (m,), q, shown + (not silent), silent), ll))
        return longer, exhaustive


def takebacks(positions: Sequence[Position]) -> Iterator[tuple[int, Position]]:
    """Earlier positions of the game, nearest first, as ``(moves to undo, position)``, one per board."""
    seen = {board_of(positions[-1])}
    for undo in range(1, len(positions)):
        pos = positions[-1 - undo]
        board = board_of(pos)
        if board not in seen:
            seen.add(board)
            yield undo, pos


def sowing_boards(pos: Position, move: Move, events: Sequence[Event]) -> tuple[list[tuple[int, Board]], Board]:
    """The boards seen while ``move`` is played, replayed from its events.

    Returns ``(partial, settled)``: ``partial`` is the board after every
    lift and every drop that leaves seeds in the hand, and after every
    capture lifted on its way to a store (a capture is made by hand too), as
    ``(seeds in hand, board)``; ``settled`` is the board once the sowing and its captures are
    done but before an end-of-game sweep or a Nam Nam round set-up (players
    sweep and refill by hand after the move). ``lift``/``lap`` take seeds
    into the hand, ``drop`` puts one down, ``capture`` moves seeds to a
    store, off the board or into the hand; Pass It On chips are dropped in
    the move's colour order.
    """
    layout = pos.variant.layout
    index = {label: i for i, label in enumerate(layout.labels)}
    pits = list(pos.pits)
    white = list(pos.white) if pos.white is not None else None
    hand = dropped = 0
    partial: list[tuple[int, Board]] = []

    def board() -> Board:
        return tuple(pits), (tuple(white) if white is not None else None)

    for event in events:
        kind = event.get("type")
        if kind in ("lift", "lap"):
            i = index[event["pit"]]
            pits[i] -= event["seeds"]
            hand += event["seeds"]
            if white is not None:
                white[i] = 0
        elif kind == "drop":
            i = index[event["pit"]]
            pits[i] += 1
            hand -= 1
            if white is not None and dropped < len(move.colours) and move.colours[dropped] == WHITE:
                white[i] += 1
            dropped += 1
        elif kind == "capture" and event.get("pit") in index:
            i = index[event["pit"]]
            pits[i] -= event["seeds"]
            if event.get("to") in index:  # carried by hand to a store: seen on the way, in the hand
                partial.append((hand + event["seeds"], board()))
                pits[index[event["to"]]] += event["seeds"]
            if event.get("to") != "hand":
                continue
            hand += event["seeds"]  # captured into the hand, to be sown on (Bao la Kujifunza)
        elif kind == "penalty" and event.get("outbox") in index:
            i = index[event["outbox"]]
            pits[i] -= 1
            if white is not None and event.get("colour") == WHITE:
                white[i] -= 1
            continue
        elif kind in ("sweep", "round_end", "setup", "game_end"):
            break
        else:
            continue
        if hand > 0:
            partial.append((hand, board()))
    return partial, board()
