"""Scoring a candidate position against a Reading: how likely is what was seen?

A Reading gives, for every seen pit, a probability over seed counts (and over
white-chip counts for Pass It On). Pits are read independently, so the log
likelihood of a whole board is the sum over seen pits of ``log P(count)``;
unseen pits say nothing and add nothing. The Reading is compiled once into an
:class:`Evidence` (one padded table per pit, all zeros for an unseen one) so that scoring a candidate
is a handful of tuple look-ups: the referee scores hundreds of candidates per
verdict.

A probability of exactly zero would make one misread pit outweigh the whole
board, so every probability is floored at ``FLOOR`` (the chance that a pit was
simply misread). A pit whose count has probability below ``RULED_OUT`` is
*ruled out* by the Reading: a candidate with such a pit does not *fit*.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from operator import getitem
from typing import Any, Iterable, Sequence

from ..layout import Layout
from ..reading import BadReading, PitReading, Reading

FLOOR = 1e-9
LOG_FLOOR = math.log(FLOOR)
RULED_OUT = 1e-3
LOG_RULED_OUT = math.log(RULED_OUT)


@lru_cache(maxsize=1024)
def _log_table(probs: tuple[float, ...], size: int) -> tuple[float, ...]:
    """``log max(p[k], FLOOR)`` for k in 0..size-1 (counts beyond the list have p = 0).

    Remembered (a bounded cache): pits read alike share one table, within a Reading and
    from one Reading to the next (a board read again, an empty pit), and every verdict
    compiles its Reading before anything else."""
    log = math.log
    table = [log(p) if p > FLOOR else LOG_FLOOR for p in probs[:size]]
    return tuple(table + [LOG_FLOOR] * (size - len(table)))


@dataclass(frozen=True)
class PitDifference:
    """One seen pit where a position and the Reading disagree.

    ``seen`` is the Reading's most likely count, ``probability`` what the
    Reading gives the ``expected`` count; the white fields are set only where
    the white-chip counts disagree (Pass It On).
    """

    pit: str
    expected: int
    seen: int
    probability: float
    expected_white: int | None = None
    seen_white: int | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"pit": self.pit, "expected": self.expected, "seen": self.seen,
                                "probability": round(self.probability, 6)}
        if self.expected_white is not None:
            data["expected_white"] = self.expected_white
            data["seen_white"] = self.seen_white
        return data

    def words(self) -> str:
        if self.expected_white is not None and self.expected == self.seen:
            return f"pit {self.pit}: expected {self.expected_white} white, seen {self.seen_white}"
        return f"pit {self.pit}: expected {self.expected}, seen {self.seen}"


class Evidence:
    """A Reading compiled against one board layout for fast scoring.

    Raises ``BadReading`` for a label the board does not have. A pit missing
    from the Reading counts as unseen, like an explicit ``null``.
    """

    def __init__(self, layout: Layout, reading: Reading, total: int) -> None:
        labels = layout.labels
        unknown = [label for label in reading.pits if label not in labels]
        if unknown:
            raise BadReading(f"the Reading names pits {unknown} that a {layout.name} board does not have; "
                             f"pits are {', '.join(labels)}")
        empty = [label for label, pit in reading.pits.items() if pit is not None and not sum(pit.counts)]
        if empty:
            raise BadReading(f"the Reading gives pits {empty} no probability for any count")
        size = total + 1
        self.layout = layout
        self.reading = reading
        self.seen: tuple[int, ...] = tuple(
            i for i, label in enumerate(labels) if reading.pits.get(label) is not None)
        pits: list[PitReading] = [reading.pits[labels[i]] for i in self.seen]  # type: ignore[misc]
        # one table per pit in canonical order; an unseen pit's table is all zeros (it says nothing)
        nothing = (0.0,) * size
        counts = {i: _log_table(p.counts, size) for i, p in zip(self.seen, pits)}
        whites = {i: _log_table(p.white, size) for i, p in zip(self.seen, pits) if p.white is not None}
        self._counts = tuple(counts.get(i, nothing) for i in range(len(labels)))
        self._whites = tuple(whites.get(i, nothing) for i in range(len(labels))) if whites else None
        # the fewest seeds a fitting board can hold on the seen pits
        self.least_total = sum(next((k for k, x in enumerate(t) if x >= LOG_RULED_OUT), size)
                               for t in counts.values())

    @property
    def unseen_fraction(self) -> float:
        return 1.0 - len(self.seen) / len(self.layout)

    def score(self, pits: Sequence[int], white: Sequence[int] | None = None) -> float:
        """Log likelihood of the Reading if the board held ``pits`` (and ``white``)."""
        total = sum(map(getitem, self._counts, pits))
        if white is not None and self._whites is not None:
            total += sum(map(getitem, self._whites, white))
        return total

    def score_all(self, positions: Iterable[Any]) -> list[float]:
        """``score`` of the board of every position (anything with ``pits`` and ``white``), in
        one call: a sequence search scores every position it reaches, hundreds per verdict."""
        counts = self._counts
        if self._whites is None:
            return [sum(map(getitem, counts, p.pits)) for p in positions]
        return [self.score(p.pits, p.white) for p in positions]

    def fits(self, pits: Sequence[int], white: Sequence[int] | None = None) -> bool:
        """True when no seen pit rules the board out."""
        if min(map(getitem, self._counts, pits)) < LOG_RULED_OUT:
            return False
        return white is None or self._whites is None or min(map(getitem, self._whites, white)) >= LOG_RULED_OUT

    def differences(self, pits: Sequence[int], white: Sequence[int] | None = None) -> list[PitDifference]:
        """Every seen pit whose most likely reading differs from the board (counts or whites)."""
        labels = self.layout.labels
        out = []
        for i in self.seen:
            pit = self.reading.pits[labels[i]]
            assert pit is not None
            seen = pit.most_likely
            white_differs = (white is not None and pit.white is not None and pit.most_likely_white != white[i])
            if seen != pits[i] or white_differs:
                out.append(PitDifference(
                    labels[i], pits[i], seen, pit.probability(pits[i]),
                    white[i] if white_differs and white is not None else None,
                    pit.most_likely_white if white_differs else None))
        return out

    def total_short_probability(self, least_total: int) -> float:
        """P(the board holds fewer than ``least_total`` seeds), normal approximation.

        Only meaningful when every pit is seen; the referee uses it to notice
        seeds held in a hand (a move in progress).
        """
        mean = var = 0.0
        for i in self.seen:
            pit = self.reading.pits[self.layout.labels[i]]
            assert pit is not None
            m = sum(k * p for k, p in enumerate(pit.counts))
            mean += m
            var += sum((k - m) ** 2 * p for k, p in enumerate(pit.counts))
        sd = math.sqrt(var + 1 / 12)  # counts are whole numbers: at least the rounding spread
        return 0.5 * (1 + math.erf((least_total - 0.5 - mean) / (sd * math.sqrt(2))))
