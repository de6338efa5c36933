"""The camera's untouched pits, pinned to the counts the game knows.

The camera reads a heap of twenty within a seed, not exactly, and a board
that differs by one seed in such a heap (a Pass It On penalty chip taken from
a full outbox, a sowing that did or did not reach a full store) is a question
for the players. But the camera also says, of each pit, whether its seeds lie
exactly as they lay at the board's previous still moment (``kept``) or not
(``changed``): :mod:`vision.live`, ``notes["still_board"]``. When the game's
position is known to be that previous board (its Reading was judged a move, a
takeback or unchanged, or the players chose among the referee's candidates),
a kept pit holds what the position says, and a changed one probably does not.

:class:`SettledBoard` remembers which still board the position shows and turns
the note into evidence, multiplied into each pit's probabilities, as measured by
``benchmarks/looks_bench.py`` on rendered hard frames (docs/vision.md, section 5):
- kept: a count other than the position's is ``KEPT_IF_MOVED`` times as likely
  (``KEPT_IF_MOVED_CHIPS`` for Pass It On's chips), several times the rate at
  which a pile given or robbed of one seed kept its look;
- changed: the position's count is ``CHANGED_IF_SAME`` times as likely (noise,
  JPEG or a nudged board made an untouched pile look changed a few to a third
  of the time, and a pile may be touched and left as it was).
Everything else (no note, an older board, a game changed by hand) leaves the
Reading as it is.
"""

from __future__ import annotations

from typing import Any, Sequence

from rules import PitReading, Position, Reading
from rules.reading import STILL_BOARD

KEPT_IF_MOVED = 0.02  # seeds: a pile given or robbed of one kept its look 0.1-0.4 % of the time (looks_bench.py)
KEPT_IF_MOVED_CHIPS = 0.1  # flat chips: 1.3-4.8 % (a chip may land square on another, and then barely shows)
CHANGED_IF_SAME = 0.2  # an untouched pile looked changed 3 to 35 % of the time (noise, JPEG, a nudge)


class SettledBoard:
    """Which camera still board the game's current position is known to show."""

    def __init__(self) -> None:
        self._at: float | None = None

    def settle(self, reading: Reading | None) -> None:
        """The position now shows the board of ``reading`` (None: of no still board the camera gave)."""
        self._at = None if reading is None else reading.notes.get(STILL_BOARD, {}).get("at")

    def pinned(self, reading: Reading, position: Position) -> Reading:
        """``reading`` with the camera's kept and changed pits weighed against ``position``, when
        the position shows the still board they were compared with; else ``reading`` itself."""
        note: dict[str, Any] = reading.notes.get(STILL_BOARD, {})
        if self._at is None or note.get("since") != self._at:
            return reading
        layout = position.variant.layout
        pits = dict(reading.pits)
        kept_if_moved = KEPT_IF_MOVED if position.white is None else KEPT_IF_MOVED_CHIPS
        for noted, others, whites_too in ((note.get("kept", ()), kept_if_moved, True),
                                          (note.get("changed", ()), 1 / CHANGED_IF_SAME, False)):
            for label in noted:
                if pits.get(label) is not None and label in layout.labels:
                    k = layout.index_of(label)
                    white = None if position.white is None or not whites_too else position.white[k]
                    pits[label] = _weighed(pits[label], position.pits[k], white, others)
        return Reading(pits, reading.source, reading.time, reading.status, reading.notes)


def _weighed(pit: PitReading, count: int, white: int | None, others: float) -> PitReading:
    """``pit`` with every count but ``count`` (and, given ``white``, every white count but it)
    ``others`` times as likely. A changed pile may have kept its white chips (yellow ones were
    sown on it), so only a kept one says so of both."""
    return PitReading(_scaled(pit.counts, count, others), pit.white if pit.white is None or white is None
                      else _scaled(pit.white, white, others))


def _scaled(probabilities: Sequence[float], keep: int, others: float) -> tuple[float, ...]:
    raw = [p if k == keep else p * others for k, p in enumerate(probabilities)]
    total = sum(raw)
    return tuple(p / total for p in raw) if total > 0 else tuple(probabilities)
