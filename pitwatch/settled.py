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
rendered frames (docs/vision.md, section 5), with a margin:
- kept: a pile given or robbed of one seed kept its look 0.1-0.4 % of the time,
  so the position's count is 50 times as likely; Pass It On's flat chips in a
  section may land square on one another (0.8-4.8 %): 10 times. Not one of the
  outboxes given or robbed of a chip kept its look: 50 times;
- moved: an untouched pile of seeds showed such a spot 0.06 % of the time (3 in
  4,698), so what is left is a pile touched and left as many (a relay sowing that
  lifts a pit and later drops as many back, a hand that brushes a pile): 0.02
  times. One untouched outbox of chips in 117 showed one (its chips' sharp
  edges): 0.05 times there;
- changed, with no seed-sized spot: what noise, JPEG and a nudged board do to
  untouched piles, and a seed sown flat on a pile of its like to touched ones,
  in proportions that depend on the pit. A playing pit of seeds was touched 3
  to 13 times as often as not (0.3 times); an outbox of chips, whose chips show
  large, 8 to 10 times less often (5 times); a section of chips (0.7 to 3.4
  times as often) or a store of seeds (0.7 to 1 times in hard frames) about as
  often: no evidence either way.
A kept pile also keeps its white chips; a moved or changed one may have kept
them (yellow ones were sown on it), so only its count is weighed. Everything
else (no note, an older board, a game changed by hand) leaves the Reading as
it is.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Sequence

from rules import PitReading, Position, Reading
from rules.reading import STILL_BOARD


class LookWeights(NamedTuple):
    """How many times as likely as any other the position's count is, by how the pit looked."""

    kept: float
    changed: float  # changed, with no seed-sized spot
    moved: float


LOOKS = {  # (chips, store) -> weights
    (False, False): LookWeights(kept=50.0, changed=0.3, moved=0.02),  # a playing pit of seeds
    (False, True): LookWeights(kept=50.0, changed=1.0, moved=0.02),  # a store of seeds
    (True, False): LookWeights(kept=10.0, changed=1.0, moved=0.02),  # a Pass It On section
    (True, True): LookWeights(kept=50.0, changed=5.0, moved=0.05),  # a Pass It On outbox
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
        moved = list(note.get("moved", ()))
        looks = [(label, "kept") for label in note.get("kept", ())] + [(label, "moved") for label in moved]
        looks += [(label, "changed") for label in note.get("changed", ()) if label not in moved]
        pits = dict(reading.pits)
        for label, look in looks:
            if pits.get(label) is not None and label in layout.labels:
                k = layout.index_of(label)
                same = getattr(LOOKS[chips, layout.pits[k].is_store], look)
                white = None if position.white is None or look != "kept" else position.white[k]
                pits[label] = _weighed(pits[label], position.pits[k], white, 1 / same)
        return Reading(pits, reading.source, reading.time, reading.status, reading.notes)


def _weighed(pit: PitReading, count: int, white: int | None, others: float) -> PitReading:
    """``pit`` with every count but ``count`` (and, given ``white``, every white count but it)
    ``others`` times as likely."""
    return PitReading(_scaled(pit.counts, count, others), pit.white if pit.white is None or white is None
                      else _scaled(pit.white, white, others))


def _scaled(probabilities: Sequence[float], keep: int, others: float) -> tuple[float, ...]:
    raw = [p if k == keep else p * others for k, p in enumerate(probabilities)]
    total = sum(raw)
    return tuple(p / total for p in raw) if total > 0 else tuple(probabilities)
