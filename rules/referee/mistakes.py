"""The catalogue of mistakes players make by hand, and how to recognise them.

When no legal explanation fits a Reading, the referee builds the boards that
each catalogued mistake would have produced from the current position, scores
them against the Reading like any explanation, and names the mistake whose
board explains it best (if it explains it clearly better than the nearest
legal result and than any move caught half-way). Mistaken sowings are *raw*:
seeds dropped one by one along the board, without the captures or laps that
would follow (a player who sowed the wrong way has already left the rules); a
pit skipped in a sowing with laps is the one exception that keeps the laps
played after it (the sowing goes on from where each lap picks up).

Sowing tracks come from the layout, the segments of a sowing from the engine's
events, who owns a pit from the position (Nam Nam hollows change hands);
whether the opponent's store is on the mover's track is asked of the engine
itself (one probe sowing per variant and player), so no variant's rules are
restated here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Iterator, Sequence

from ..layout import PLAYER_NAMES
from ..position import WHITE, YELLOW, Move, Position
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
    "not_set_up": "the board is not laid out as the game's start",
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
    (the ``n``-th chip white where ``colours[n]`` is ``WHITE``)."""
    pits = list(pos.pits)
    white = list(pos.white) if pos.white is not None else None
    pits[start] = 0
    if white is not None:
        white[start] = 0
    for n, i in enumerate(pits_in_order):
        pits[i] += 1
        if white is not None and n < len(colours) and colours[n] == WHITE:
            white[i] += 1
    return tuple(pits), (tuple(white) if white is not None else None)


def _drops(events: Sequence[Event]) -> list[str] | None:
    """The pits one single-segment sowing dropped into, or ``None`` for a move with laps."""
    if any(e.get("type") == "lap" for e in events):
        return None
    return [e["pit"] for e in events if e.get("type") == "drop"]


def _segments(events: Sequence[Event]) -> list[list[int]]:
    """The event numbers of the drops of each segment of a sowing. A segment starts where seeds
    are taken into the hand to be sown: the lift, every lap, and captured kete to be sown on
    (Bao la Kujifunza)."""
    segments: list[list[int]] = []
    for n, e in enumerate(events):
        kind = e.get("type")
        if kind in ("lift", "lap") or (kind == "capture" and e.get("to") == "hand"):
            segments.append([])
        elif kind == "drop" and segments:
            segments[-1].append(n)
    return [segment for segment in segments if segment]


@lru_cache(maxsize=64)
def _next_pits(variant: Variant, player: int, direction: str) -> dict[int, int]:
    """Each pit of ``player``'s ``direction`` track and the pit after it."""
    cycle = track(variant, player, direction)
    return {pit: cycle[(k + 1) % len(cycle)] for k, pit in enumerate(cycle)}


def _step(after: dict[int, int], pit: int, passed: set[int]) -> int | None:
    """The pit a seed dropped after ``pit`` falls into, passing over what the move passed over
    (a start pit on a long sowing)."""
    for _ in range(len(after)):
        pit = after[pit]
        if pit not in passed:
            return pit
    return None


def _one_further(pos: Position, pits: Sequence[int], passed: set[int]) -> int | None:
    """The pit one past a segment's last drop, along the way the segment ran (a lap or a capture
    sowing on four ranks may run either way; a segment of one drop shows no way, and has no pit
    to skip before its last)."""
    for direction in ("ccw", "cw"):
        after = _next_pits(pos.variant, pos.to_move, direction)
        if pits[0] in after and _step(after, pits[0], passed) == pits[1]:
            return _step(after, pits[-1], passed)
    return None


def _last_taken(events: Sequence[Event], index: dict[str, int], upto: int) -> dict[int, int]:
    """For every pit, the last event number before ``upto`` that lifted seeds from it or captured them."""
    taken: dict[int, int] = {}
    for n, e in enumerate(events[:upto]):
        if e.get("type") in ("lift", "lap", "capture") and e.get("pit") in index:
            taken[index[e["pit"]]] = n
    return taken


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
        _, events = variant.play(pos, move, check=False)
        yield from _sowing_slips(pos, move, events, me, other)
        yield from _capture_slips(pos, move, events)
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
    yield from _skipped_pits(pos, move, events, me)
    variant, layout = pos.variant, pos.variant.layout
    labels = layout.labels
    opponent_store = layout.store(1 - pos.to_move)
    cycle = track(variant, pos.to_move, move.direction or "ccw")
    if opponent_store is not None and opponent_store not in cycle and _drops(events):
        board = raw_sowing(pos, move.pit, track(variant, pos.to_move, move.direction or "ccw", True), move.colours)
        if board and board[0][opponent_store] > pos.pits[opponent_store]:
            yield Hypothesis("opponent_store", f"{me} sowed into {other}'s store {labels[opponent_store]} "
                             f"while sowing {move.text}", move.text, (labels[opponent_store],), board)


def _skipped_pits(pos: Position, move: Move, events: Sequence[Event], me: str) -> Iterator[Hypothesis]:
    """A pit skipped in any segment of the sowing: the first, or one a lap (or a capture) picks up.

    The seed meant for the skipped pit and every later seed of that segment go one pit further,
    so the skipped pit is one short and the pit past the segment's last drop one over. The
    sowing then goes on from where the next lap or capture picks up, as played, which is why a
    skip whose pit (or the pit one further) a later lap or capture takes from is no such story.
    A skip in the last segment forgoes the captures its last seed made (they depended on where
    it fell: raw). A seed that would land back in the pit skipped is no skip: it leaves the
    board of the sowing as played (a forgotten capture, or the legal move)."""
    segments = _segments(events)
    if not segments:
        return
    labels = pos.variant.layout.labels
    index = {label: i for i, label in enumerate(labels)}
    passed = {index[e["pit"]] for e in events if e.get("type") == "skip" and e.get("pit") in index}
    end = segments[-1][-1]  # the move's last drop: the captures after it are its last seed's
    raw_end = [e for n, e in enumerate(events) if n <= end or e.get("type") != "capture"]
    # indexed by "in the last segment": the board and the lifts as played, or without the last seed's captures
    bases = (sowing_boards(pos, move, events)[1], sowing_boards(pos, move, raw_end)[1])
    takes = (_last_taken(events, index, len(events)), _last_taken(events, index, end + 1))
    tried: set[tuple[int, int, int]] = set()
    for j, segment in enumerate(segments):
        pits = [index[events[n]["pit"]] for n in segment]
        further = _one_further(pos, pits, passed) if len(pits) > 1 else None
        if further is None:
            continue
        last = int(j == len(segments) - 1)
        for n, pit in zip(segment[:-1], pits[:-1]):
            if pit == further or (pit, further, last) in tried \
                    or takes[last].get(pit, -1) > n or takes[last].get(further, -1) > n:
                continue
            tried.add((pit, further, last))
            board = _moved_seed(pos, move, raw_end if last else events, bases[last], n, segment[-1], further)
            yield Hypothesis("skipped_pit", f"{me} skipped pit {labels[pit]} while sowing {move.text}",
                             move.text, (labels[pit],), board)


def _moved_seed(pos: Position, move: Move, events: Sequence[Event], base: Board, skipped: int, segment_end: int,
                further: int) -> Board:
    """``base`` (the board ``events`` leave) with the drop ``skipped`` made one pit past the
    segment's last drop (``segment_end``) instead. The seed counts only move by one; Pass It On
    chips keep the order they were dropped in, so each from the skip on lands one pit further."""
    pits = list(base[0])
    pits[pos.variant.layout.index_of(events[skipped]["pit"])] -= 1
    pits[further] += 1
    if base[1] is None:
        return tuple(pits), None
    extra = {"type": "drop", "pit": pos.variant.layout.labels[further]}
    moved = [x for n, e in enumerate(events) if n != skipped for x in ((e, extra) if n == segment_end else (e,))]
    return tuple(pits), sowing_boards(pos, move, moved)[1][1]


def _capture_slips(pos: Position, move: Move, events: Sequence[Event]) -> Iterator[Hypothesis]:
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


def pit_owners(pos: Position) -> tuple[int, ...]:
    """Who owns every pit now. The layout's row owners, unless the position itself records
    ownership: Nam Nam hollows change hands between rounds, and the position's JSON state names
    every hollow's owner (``owners``), so the rules are asked, not restated."""
    layout = pos.variant.layout
    named = pos.variant.state_to_json(pos.state).get("owners") if pos.state else None
    if not named:
        return tuple(p.owner for p in layout.pits)
    return tuple(PLAYER_NAMES.index(named[p.label]) if p.label in named else p.owner for p in layout.pits)


def _wrong_player(pos: Position, me: str, other: str) -> Iterator[Hypothesis]:
    """The opponent moved (out of turn); the mover sowed one of the opponent's pits, raw, along
    his own track (or, on four ranks, where it lies: the opponent's own rows)."""
    variant = pos.variant
    labels = variant.layout.labels
    owners = pit_owners(pos)
    turned = pos._replace(to_move=1 - pos.to_move)
    for move in variant.legal_moves(turned):
        if not move.is_pass:
            after, _ = variant.play(turned, move, events=False, check=False)
            yield Hypothesis("out_of_turn", f"{other} played {move.text} out of turn: it was {me}'s turn",
                             move.text, (labels[move.pit],), (after.pits, after.white))
    for pit in variant.layout.pits:
        if owners[pit.index] == pos.to_move or pit.is_store or not pos.pits[pit.index]:
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
            colours = "".join(WHITE if k in whites else YELLOW for k in range(n))
            if (i, colours) in permitted:
                continue
            board = raw_sowing(pos, i, cycle, colours)
            if board:
                last = cycle[(cycle.index(i) + n) % len(cycle)]
                yield Hypothesis("yellow_last", f"{me} sowed {labels[i]} as {colours}: the last chip, yellow, "
                                 f"fell into the empty pit {labels[last]}, where only white may land",
                                 f"{labels[i]}:{colours}", (labels[last],), board)


# -- choosing the likely mistake ------------------------------------------------------------
def diagnose(pos: Position, evidence: Evidence, nearest: Explanation, half_way: float = -math.inf) -> Mistake:
    """The catalogued mistake that best explains the Reading, or ``unknown``.

    A mistake is named only when its board explains the Reading clearly better (``MIN_GAIN``)
    than the nearest legal result and than every board of a move caught half-way (best log
    likelihood ``half_way``): a hand mid-sowing, or a misread, explains such a board as well.
    Mistakes that explain it equally well (the same board: the opponent's own move and his pit
    sown by the player to move, where his move neither laps nor captures) are named together,
    in the catalogue's order (a legal move by the wrong player before a raw sowing of his pit):
    ``code`` is the first, ``also`` the others."""
    scored = [(evidence.score(*h.board), h) for h in hypotheses(pos)]
    best_ll = max((ll for ll, _ in scored), default=-math.inf)
    if best_ll <= max(nearest.log_likelihood, half_way) + MIN_GAIN:
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
