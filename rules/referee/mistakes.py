"""The catalogue of mistakes players make by hand, and how to recognise them.

When no legal explanation fits a Reading, the referee builds the boards that
each catalogued mistake would have produced from the current position, scores
them against the Reading like any explanation, and names the mistake whose
board explains it best (if it explains it clearly better than the nearest
legal result). Mistaken sowings are *raw*: seeds dropped one by one along the
board, without the captures or laps that would follow (a player who sowed the
wrong way has already left the rules).

Sowing tracks come from the layout; whether the opponent's store is on the
mover's track is asked of the engine itself (one probe sowing per variant and
player), so no variant's rules are restated here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Iterator, Sequence

from ..layout import PLAYER_NAMES
from ..position import Move, Position
from ..variant import Event, Variant
from .explain import Board, sowing_boards
from .likelihood import Evidence
from .verdict import Explanation, Mistake

CATALOGUE: dict[str, str] = {
    "skipped_pit": "skipped a pit",
    "opponent_store": "sowed into the opponent's store",
    "forgot_capture": "forgot a capture",
    "bad_capture": "captured what may not be captured",
    "wrong_direction": "sowed in the wrong direction",
    "out_of_turn": "played out of turn",
    "opponent_side": "played from the opponent's side",
    "yellow_last": "a non-white last chip into an empty section",
    "unknown": "seeds moved in a way no catalogued mistake explains (or a misread)",
}
MIN_GAIN = 2.0  # log-likelihood lead over the nearest legal result needed to name a mistake
SAME = 1e-9     # mistakes whose boards explain the Reading within this (log) are equally likely


@dataclass(frozen=True)
class Hypothesis:
    """The board one mistake would leave."""

    code: str
    words: str
    move: str | None
    pits: tuple[str, ...]
    board: Board


# -- sowing tracks --------------------------------------------------------------------
@lru_cache(maxsize=64)
def _opponent_store_on_track(variant: Variant, player: int) -> bool:
    """Ask the engine: does a full lap sown by ``player`` from his first house (CCW) drop into
    the opponent's store?"""
    layout = variant.layout
    store = layout.store(1 - player)
    if store is None:
        return False
    start = variant.start()
    house = layout.houses(player)[0]
    pits = list(start.pits)
    pits[house] = len(layout) + 1
    probe = start._replace(pits=tuple(pits), to_move=player)
    move = next(m for m in variant.legal_moves(probe) if m.pit == house and m.direction in ("", "ccw"))
    _, events = variant.play(probe, move, check=False)
    label = layout.labels[store]
    return any(e.get("type") == "drop" and e.get("pit") == label for e in events)


def track(variant: Variant, player: int, direction: str = "ccw", with_opponent_store: bool = False) -> tuple[int, ...]:
    """The cycle of pits ``player`` sows along in ``direction`` (``"ccw"``/``"cw"``, as seen from above)."""
    layout = variant.layout
    if layout.player_tracks is not None:  # four ranks: each player's own clockwise cycle
        cycle = layout.player_tracks[player]
        return cycle if direction == "cw" else tuple(reversed(cycle))
    opponent_store = layout.store(1 - player)
    keep = with_opponent_store or _opponent_store_on_track(variant, player)
    cycle = tuple(i for i in layout.track if keep or i != opponent_store)
    return tuple(reversed(cycle)) if direction == "cw" else cycle


def raw_sowing(pos: Position, start: int, cycle: Sequence[int], colours: str = "") -> Board | None:
    """Lift ``start`` and drop its seeds one by one along ``cycle`` (no captures, no laps)."""
    if start not in cycle or not pos.pits[start]:
        return None
    k = cycle.index(start)
    return dropped(pos, start, [cycle[(k + 1 + n) % len(cycle)] for n in range(pos.pits[start])], colours)


def dropped(pos: Position, start: int, pits_in_order: Sequence[int], colours: str = "") -> Board:
    """The board after lifting ``start`` and dropping one seed in each of ``pits_in_order``
    (the ``n``-th chip white where ``colours[n]`` is ``w``)."""
    pits = list(pos.pits)
    white = list(pos.white) if pos.white is not None else None
    pits[start] = 0
    if white is not None:
        white[start] = 0
    for n, i in enumerate(pits_in_order):
        pits[i] += 1
        if white is not None and n < len(colours) and colours[n] == "w":
            white[i] += 1
    return tuple(pits), (tuple(white) if white is not None else None)


def _drops(events: Sequence[Event]) -> list[str] | None:
    """The pits one single-segment sowing dropped into, or ``None`` for a move with laps."""
    if any(e.get("type") == "lap" for e in events):
        return None
    return [e["pit"] for e in events if e.get("type") == "drop"]


# -- the hypotheses -----------------------------------------------------------------------
def hypotheses(pos: Position) -> Iterator[Hypothesis]:
    """Every catalogued mistake the player to move could have made in ``pos``."""
    variant = pos.variant
    layout = variant.layout
    labels = layout.labels
    mover = pos.to_move
    me, other = PLAYER_NAMES[mover].capitalize(), PLAYER_NAMES[1 - mover].capitalize()
    legal = variant.legal_moves(pos)
    directions = {m.direction for m in legal}
    choose_direction = bool(directions & {"cw", "ccw"}) and len(directions) > 1
    for move in legal:
        if move.is_pass:
            continue
        after, events = variant.play(pos, move, check=False)
        yield from _sowing_slips(pos, move, events, me, other)
        yield from _capture_slips(pos, move, after, events)
        if not choose_direction:
            cw = "cw" if move.direction != "cw" else "ccw"
            board = raw_sowing(pos, move.pit, track(variant, mover, cw), move.colours)
            if board:
                way = "clockwise" if cw == "cw" else "counterclockwise"
                yield Hypothesis("wrong_direction", f"{me} sowed {move.text} {way}, the wrong way",
                                 move.text, (labels[move.pit],), board)
    yield from _wrong_player(pos, me, other)
    if pos.white is not None:
        yield from _yellow_last(pos, legal, me)


def _sowing_slips(pos: Position, move: Move, events: Sequence[Event], me: str, other: str) -> Iterator[Hypothesis]:
    """A pit skipped along the way; the opponent's store sown into."""
    variant, layout = pos.variant, pos.variant.layout
    labels = layout.labels
    drops = _drops(events)
    if not drops:
        return
    cycle = track(variant, pos.to_move, move.direction or "ccw")
    index = {label: i for i, label in enumerate(labels)}
    last = index[drops[-1]]
    after_last = labels[cycle[(cycle.index(last) + 1) % len(cycle)]] if last in cycle else None
    for k in range(len(drops) - 1):
        if after_last is None or drops[k] == drops[-1]:
            continue
        sown = [index[label] for label in drops[:k] + drops[k + 1:] + [after_last]]
        board = dropped(pos, move.pit, sown, move.colours)
        yield Hypothesis("skipped_pit", f"{me} skipped pit {drops[k]} while sowing {move.text}",
                         move.text, (drops[k],), board)
    opponent_store = layout.store(1 - pos.to_move)
    if opponent_store is not None and opponent_store not in cycle:
        board = raw_sowing(pos, move.pit, track(variant, pos.to_move, move.direction or "ccw", True), move.colours)
        if board and board[0][opponent_store] > pos.pits[opponent_store]:
            yield Hypothesis("opponent_store", f"{me} sowed into {other}'s store {labels[opponent_store]} "
                             f"while sowing {move.text}", move.text, (labels[opponent_store],), board)


def _capture_slips(pos: Position, move: Move, after: Position, events: Sequence[Event]) -> Iterator[Hypothesis]:
    """A capture forgotten (all of it, or the end of a chain); a pit taken that may not be."""
    layout = pos.variant.layout
    labels = layout.labels
    captures = [k for k, e in enumerate(events) if e.get("type") == "capture"]
    for first in range(len(captures)):
        forgotten = set(captures[first:])
        pits = tuple(dict.fromkeys(events[k]["pit"] for k in captures[first:]))
        words = f"after {move.text} the capture of {', '.join(pits)} was forgotten"
        # the captures skipped and the sowing carried on; or the move stopped where the capture was due
        for kept in ([e for k, e in enumerate(events) if k not in forgotten], events[:captures[first]]):
            _, board = sowing_boards(pos, move, kept)
            yield Hypothesis("forgot_capture", words, move.text, pits, board)
    _, settled = sowing_boards(pos, move, events)
    pits, white = settled
    store = layout.store(pos.to_move)
    for pit in layout.pits:
        i = pit.index
        if pit.is_store or not pits[i]:
            continue
        taken = list(pits)
        if store is not None:
            taken[store] += taken[i]
        taken[i] = 0
        chips = list(white) if white is not None else None
        if chips is not None:
            chips[i] = 0
        yield Hypothesis("bad_capture", f"after {move.text} the {pits[i]} seed{'s' if pits[i] > 1 else ''} "
                         f"of pit {labels[i]} were taken, which the rules do not allow", move.text, (labels[i],),
                         (tuple(taken), tuple(chips) if chips is not None else None))


def _wrong_player(pos: Position, me: str, other: str) -> Iterator[Hypothesis]:
    """The opponent moved (out of turn); the mover sowed one of the opponent's pits, raw, along
    his own track (or, on four ranks, where it lies: the opponent's own rows)."""
    variant = pos.variant
    labels = variant.layout.labels
    turned = pos._replace(to_move=1 - pos.to_move)
    for move in variant.legal_moves(turned):
        if not move.is_pass:
            after, _ = variant.play(turned, move, events=False, check=False)
            yield Hypothesis("out_of_turn", f"{other} played {move.text} out of turn: it was {me}'s turn",
                             move.text, (labels[move.pit],), (after.pits, after.white))
    for pit in variant.layout.pits:
        if pit.owner == pos.to_move or pit.is_store or not pos.pits[pit.index]:
            continue
        for direction in ("ccw", "cw"):
            cycle = track(variant, pos.to_move, direction)
            if pit.index not in cycle:
                cycle = track(variant, 1 - pos.to_move, direction)
            board = raw_sowing(pos, pit.index, cycle)
            if board:
                yield Hypothesis("opponent_side", f"{me} sowed {other}'s pit {pit.label} ({direction})",
                                 pit.label, (pit.label,), board)


def _yellow_last(pos: Position, legal: Sequence[Move], me: str) -> Iterator[Hypothesis]:
    """Pass It On: a hand sown so that a yellow chip is the last, into an empty pit."""
    assert pos.white is not None
    variant = pos.variant
    labels = variant.layout.labels
    permitted = {(m.pit, m.colours) for m in legal}
    cycle = track(variant, pos.to_move)
    for i in variant.layout.houses(pos.to_move):
        n, w = pos.pits[i], pos.white[i]
        if not n:
            continue
        for whites in combinations(range(n - 1), w):  # the last chip is yellow
            colours = "".join("w" if k in whites else "y" for k in range(n))
            if (i, colours) in permitted:
                continue
            board = raw_sowing(pos, i, cycle, colours)
            if board:
                last = cycle[(cycle.index(i) + n) % len(cycle)]
                yield Hypothesis("yellow_last", f"{me} sowed {labels[i]} as {colours}: the last chip, yellow, "
                                 f"fell into the empty pit {labels[last]}, where only white may land",
                                 f"{labels[i]}:{colours}", (labels[last],), board)


# -- choosing the likely mistake ------------------------------------------------------------
def diagnose(pos: Position, evidence: Evidence, nearest: Explanation) -> Mistake:
    """The catalogued mistake that best explains the Reading, or ``unknown``. Mistakes that
    explain it equally well (the same board: the opponent's own move and his pit sown by the
    player to move, where his move neither laps nor captures) are named together, in the
    catalogue's order (a legal move by the wrong player before a raw sowing of his pit):
    ``code`` is the first, ``also`` the others."""
    scored = [(evidence.score(*h.board), h) for h in hypotheses(pos)]
    best_ll = max((ll for ll, _ in scored), default=-math.inf)
    if best_ll <= nearest.log_likelihood + MIN_GAIN:
        differing = [d.pit for d in evidence.differences(*nearest.seen_board)]
        return Mistake("unknown", f"{CATALOGUE['unknown']}; pits that differ: {', '.join(differing) or 'none'}",
                       None, tuple(differing), nearest.log_likelihood)
    order = list(CATALOGUE)
    tied: dict[str, Hypothesis] = {}
    for ll, h in sorted(scored, key=lambda item: order.index(item[1].code)):
        if ll >= best_ll - SAME:
            tied.setdefault(h.code, h)
    first, *others = tied.values()
    words = "; or ".join(f"{CATALOGUE[h.code]}: {h.words}" for h in tied.values())
    return Mistake(first.code, words, first.move, first.pits, best_ll, tuple(h.code for h in others))
