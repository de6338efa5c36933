"""The camera's untouched pits, pinned to the counts the game knows.

The camera reads a heap of twenty within a seed, not exactly, and a board
that differs by one seed in such a heap (a Pass It On penalty chip taken from
a full outbox, a sowing that did or did not reach a full store) is a question
for the players. But the camera also says, of each pit, whether its seeds lie
exactly as they lay at the board's previous still moment (``kept``), whether a
spot the size of a seed changed (``moved``), or only some pixels (``changed``
and not ``moved``): :mod:`vision.live`, ``notes["still_board"]``. When the
game's position is known to be that previous board (its Reading was judged a
move, a takeback or unchanged, or the players chose among the referee's
candidates), a kept pit holds what the position says, and a moved one does not.

:class:`SettledBoard` remembers which still board the position shows and turns
the note into evidence: each look makes the position's count ``LOOKS[kind]``
times as likely as any other, as measured by ``benchmarks/looks_bench.py`` on
rendered frames (docs/vision.md, section 5; touched piles given or robbed of one
seed or two), with a margin:
- kept: a touched pile of seeds kept its look 0-0.3 % of the time, so the
  position's count is 50 times as likely; Pass It On's flat chips in a section
  may land square on one another (0.4-0.5 %, 1.9 % in clean pictures): 10
  times. One outbox given or robbed of chips in 456 kept its look: 50 times;
- moved: an untouched pile of seeds showed such a spot 0.08 % of the time (4 in
  4,921 playing pits), so what is left is a pile touched and left as many (a relay
  sowing that lifts a pit and later drops as many back, a hand that brushes a
  pile): 0.02 times. One untouched outbox of chips in 536 showed one (its chips'
  sharp edges), and 96-100 % of touched ones: 0.01 times there;
- changed, with no seed-sized spot: what noise, JPEG and a nudged board do to
  untouched piles, and a seed sown flat on a pile of its like to touched ones,
  in proportions that depend on the pit. A playing pit of seeds was touched 2
  to 12 times as often as not (0.5 times; 0.3 until two seeds were measured
  too); an outbox of chips, whose chips show
  large, some 14 times less often (22 % of untouched outboxes, 1.5 % of touched
  ones: 8 times); a section of chips or a store of seeds about as often: no
  evidence either way.
A moved pit's note also says how much of its window changed, and n seeds sown
or taken change about n times what one does: the counts other than the
position's are weighed by how well their number of seeds explains that area
(``SEED_AREAS[kind]``: log-normal around n times the median area of one seed,
with a floor for the outliers), and the position's count stays ``moved`` times
as likely as the likeliest of them. An outbox robbed of one chip changed 78-94
mm2 (median), of two 155-184 mm2, so a camera that saw no still board between
two passes tells one penalty chip from two.
A kept pile also keeps its white chips; a moved or changed one may have kept
them (yellow ones were sown on it), so only its count is weighed. Everything
else (no note, an older board, a game changed by hand) leaves the Reading as
it is.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple, Sequence

from rules import PitReading, Position, Reading
from rules.reading import STILL_BOARD


class LookWeights(NamedTuple):
    """How many times as likely as any other the position's count is, by how the pit looked."""

    kept: float
    changed: float  # changed, with no seed-sized spot
    moved: float


LOOKS = {  # (chips, store) -> weights
    (False, False): LookWeights(kept=50.0, changed=0.5, moved=0.02),  # a playing pit of seeds
    (False, True): LookWeights(kept=50.0, changed=1.0, moved=0.02),  # a store of seeds
    (True, False): LookWeights(kept=10.0, changed=1.0, moved=0.02),  # a Pass It On section
    (True, True): LookWeights(kept=50.0, changed=8.0, moved=0.01),  # a Pass It On outbox
}


class SeedArea(NamedTuple):
    """What the area a moved pit changed (mm2) says of how many seeds were sown on it or taken
    from it: n seeds change about n times what one does, spread log-normally."""

    sown: float  # the median area one seed sown changes
    taken: float  # ...one seed taken
    sown_spread: float  # the log-normal's sigma for seeds sown: wider, since two may land on one another
    taken_spread: float  # ...for seeds taken
    floor: float  # every number of seeds keeps this weight, however far its area (the outliers)

    def weight(self, moved_mm2: float, seeds: int, sown: bool) -> float:
        """How likely ``moved_mm2`` is for ``seeds`` seeds sown (or taken), relative to the likeliest."""
        one, spread = (self.sown, self.sown_spread) if sown else (self.taken, self.taken_spread)
        z = (math.log(max(moved_mm2, 1.0)) - math.log(seeds * one)) / spread
        return math.exp(-z * z / 2) + self.floor


SEED_AREAS = {  # (chips, store) -> areas
    (False, False): SeedArea(sown=79.0, taken=47.0, sown_spread=0.45, taken_spread=0.45, floor=0.05),  # a playing pit of seeds
    (False, True): SeedArea(sown=86.0, taken=47.0, sown_spread=0.45, taken_spread=0.45, floor=0.05),  # a store of seeds
    (True, False): SeedArea(sown=113.0, taken=81.0, sown_spread=0.55, taken_spread=0.4, floor=0.05),  # a Pass It On section
    (True, True): SeedArea(sown=142.0, taken=82.0, sown_spread=0.5, taken_spread=0.25, floor=0.01),  # a Pass It On outbox
}


class SettledBoard:
    """Which camera still board the game's current position is known to show."""

    def __init__(self) -> None:
        self._at: float | None = None

    def settle(self, reading: Reading | None) -> None:
        """The position now shows the board of ``reading`` (None: of no still board the camera gave)."""
        self._at = None if reading is None else reading.notes.get(STILL_BOARD, {}).get("at")

    def pinned(self, reading: Reading, position: Position) -> Reading:
        """``reading`` with the camera's kept, moved and changed pits weighed against ``position``, when
        the position shows the still board they were compared with; else ``reading`` itself."""
        note: dict[str, Any] = reading.notes.get(STILL_BOARD, {})
        if self._at is None or note.get("since") != self._at:
            return reading
        layout = position.variant.layout
        chips = position.white is not None
        moved: dict[str, float] = dict(note.get("moved", {}))
        looks = [(label, "kept") for label in note.get("kept", ())] + [(label, "moved") for label in moved]
        looks += [(label, "changed") for label in note.get("changed", ()) if label not in moved]
        pits = dict(reading.pits)
        for label, look in looks:
            pit = pits.get(label)
            if pit is not None and label in layout.labels:
                k = layout.index_of(label)
                kind = chips, layout.pits[k].is_store
                same = getattr(LOOKS[kind], look)
                weights = count_weights(len(pit.counts), position.pits[k], same, moved.get(label), SEED_AREAS[kind])
                white = pit.white
                if white is not None and position.white is not None and look == "kept":  # its white chips kept too
                    white = _weighed(white, [same if w == position.white[k] else 1.0 for w in range(len(white))])
                pits[label] = PitReading(_weighed(pit.counts, weights), white)
        return Reading(pits, reading.source, reading.time, reading.status, reading.notes)


def count_weights(size: int, count: int, same: float, moved_mm2: float | None, area: SeedArea) -> list[float]:
    """How likely a pit's look makes each count from 0 to ``size - 1``: the position's ``count``
    ``same`` times as likely as another; and, where a spot moved, the area that changed says how
    many seeds were sown on the pit or taken from it (``area``), the position's count staying
    ``same`` times as likely as the likeliest other."""
    if moved_mm2 is None:
        return [same if k == count else 1.0 for k in range(size)]
    weights = [area.weight(moved_mm2, abs(k - count), k > count) if k != count else 0.0 for k in range(size)]
    if count < size:
        weights[count] = same * max(weights)
    return weights


def _weighed(probabilities: Sequence[float], weights: Sequence[float]) -> tuple[float, ...]:
    """``probabilities`` times ``weights``, normalised (as they were if nothing is left)."""
    raw = [p * w for p, w in zip(probabilities, weights)]
    total = sum(raw)
    return tuple(p / total for p in raw) if total > 0 else tuple(probabilities)
