"""Shared sowing helpers: the never-ending-sowing rule and track tables (other variants may import it).

RULES.md: a sowing whose relays come back to a state they were already in
during the same move never ends, so the move is illegal; a sowing that has
neither ended nor repeated after ``MAX_LAPS`` laps counts as never-ending too.

Remembering every lift would cost a tuple of all pit counts per lap, on every
move. A sowing is deterministic, so if a state repeats anywhere the sowing is
periodic from then on and repeats again after any later lap too: remembering
the lifts only from lap ``WATCH_FROM`` on finds exactly the same moves illegal,
while ordinary sowings (a handful of laps) never pay for it.
"""

from __future__ import annotations

from typing import Any, Callable, Collection, Hashable, NamedTuple, Sequence

from . import events as ev

MAX_LAPS = 10_000
WATCH_FROM = 48
NEVER_ENDING = "its sowing would never end, and only a move that ends may be played"  # why such a move is refused


def never_ends(seen: set, laps: int, pits: Sequence[int], pit: int, hand: int, direction: int = 0) -> bool:
    """Call at lap number ``laps`` (once ``laps >= WATCH_FROM``), before lifting ``hand`` seeds at ``pit``.

    True when the sowing must be treated as never-ending: this lift (all pit
    counts, the pit, the seeds in hand, the direction) was already seen in
    ``seen`` (one set per move), or the move has run past ``MAX_LAPS`` laps.
    """
    if laps > MAX_LAPS:
        return True
    key = (tuple(pits), pit, hand, direction)
    if key in seen:
        return True
    seen.add(key)
    return False


class Path(NamedTuple):
    """One lap of a sowing from one start pit, precomputed per variant.

    ``drops``: the pits a lap drops into, in order; ``skipped[k]``: the pits
    passed over just before ``drops[k]`` on the first lap (a store off the
    track); ``wrap``: the pits passed over between one lap and the next (the
    start pit when it is skipped, then ``skipped[0]``).
    """

    drops: tuple[int, ...]
    skipped: tuple[tuple[int, ...], ...]
    wrap: tuple[int, ...]


def track_path(step: Callable[[int], int], start: int, off_track: Collection[int] = (),
               skip_start: bool = False) -> Path:
    """Walk the board from ``start`` with ``step`` (the next pit in the sowing direction)
    once round, leaving out ``off_track`` pits and, if ``skip_start``, the start pit."""
    drops: list[int] = []
    skipped: list[tuple[int, ...]] = []
    pending: list[int] = []
    pit = start
    while True:
        pit = step(pit)
        if pit in off_track or (pit == start and skip_start):
            pending.append(pit)
        else:
            drops.append(pit)
            skipped.append(tuple(pending))
            pending = []
        if pit == start:
            break
    return Path(tuple(drops), tuple(skipped), tuple(pending) + skipped[0])


def sow(pits: list[int], start: int, path: Path, events: list | None, labels: Sequence[str],
        relay: bool = False) -> int:
    """Lift ``start`` and sow its seeds along ``path`` lap after lap; return the last pit sown.

    ``relay``: the lift continues the move from the pit the last seed fell in
    (logged as a ``lap`` event rather than a ``lift``).

    Without an event list the laps are counted, not walked: a slice and a
    few additions, whatever the number of seeds.
    """
    seeds = pits[start]
    pits[start] = 0
    drops = path.drops
    lap = len(drops)
    if events is None:
        if seeds <= lap:  # the common case: less than one lap
            for j in drops[:seeds]:
                pits[j] += 1
            return drops[seeds - 1]
        full, rest = divmod(seeds, lap)
        if full:
            for j in drops:
                pits[j] += full
        for j in drops[:rest]:
            pits[j] += 1
        return drops[rest - 1] if rest else drops[-1]
    events.append((ev.lap if relay else ev.lift)(labels[start], seeds))
    j = start
    for k in range(seeds):
        r = k % lap
        for passed in (path.wrap if r == 0 and k else path.skipped[r]):
            events.append(ev.skip(labels[passed]))
        j = drops[r]
        pits[j] += 1
        events.append(ev.drop(labels[j], pits[j]))
    return j


class Memo(dict):
    """A small bounded memo of finished sowings, for variants with laps.

    Where a sowing can be never-ending, legality needs every candidate move
    played out, and the end check after a move needs the same for the next
    player. Keeping those results (keyed by pits and player) lets
    ``legal_moves`` and ``play`` reuse them instead of sowing every move twice.
    Values are immutable, so a shared memo is safe; it forgets everything when full.
    """

    def __init__(self, limit: int = 4096) -> None:
        super().__init__()
        self.limit = limit

    def remember(self, key: Hashable, value: Any) -> Any:
        if len(self) >= self.limit:
            self.clear()
        self[key] = value
        return value
