"""Noisy Readings for tests and benchmarks: a simple, honest model of a camera.

Honest means calibrated: a pit's reading is the likelihood of what the camera
saw, ``P(seen | count)``, normalised over counts, so the probability it gives
each count is what the model itself says. The model, at every heap size:

* count noise that grows with the heap: a heap of ``n`` is seen as ``n + e``,
  ``e`` a whole number drawn from a normal distribution of standard deviation
  ``sigma(n) = base_noise + count_noise * n`` (cut at 3 sigma; a count below
  0 is seen as 0). With the defaults an empty pit is misjudged about 1 time in
  1,500, a heap of 2 one time in 20, of 4 one in 5, of 10 one in 2, of 20
  three times in 4 (the camera's own figures are in docs/vision.md);
* misreads: with probability ``misread`` a pit is seen as any count from 0 to
  the game's total, uniformly (a reflection, seeds in a shadow). The Reading
  then gives the true count about ``misread / total``: it is confidently wrong;
* unseen pits: each pit is hidden with probability ``unseen``;
* colour confusion (Pass It On): the white count is seen one off with
  probability ``colour_confusion``.

Pure: the caller passes a seeded ``random.Random``; no global RNG, no clock.
The likelihood tables depend only on the model's figures and are worked out
once (the replay tests draw tens of thousands of Readings).
"""

from __future__ import annotations

import bisect
import math
import random
from functools import lru_cache
from itertools import accumulate
from typing import Any

from ..reading import PitReading, Reading


class Channel:
    """What the camera reports for each true count: ``rows[count][seen]`` = P(seen | count)
    for counts 0..total; :meth:`draw` what it sees, :meth:`reported` the Reading it gives."""

    def __init__(self, rows: list[list[float]]) -> None:
        self.rows = tuple(tuple(row) for row in rows)
        self._cumulative = tuple(tuple(accumulate(row)) for row in self.rows)
        self._reported: dict[int, tuple[float, ...]] = {}

    def draw(self, count: int, rng: random.Random) -> int:
        """A count seen for a true ``count``."""
        cumulative = self._cumulative[count]
        return min(len(cumulative) - 1, bisect.bisect_right(cumulative, rng.random() * cumulative[-1]))

    def reported(self, seen: int) -> tuple[float, ...]:
        """The Reading of a pit seen as ``seen``: the likelihood of every true count, normalised."""
        found = self._reported.get(seen)
        if found is None:
            column = [row[seen] for row in self.rows]
            norm = sum(column)
            found = self._reported[seen] = tuple(p / norm for p in column)
        return found


def sigma(count: int, base_noise: float, count_noise: float) -> float:
    """The standard deviation, in seeds, of the count seen for a heap of ``count``."""
    return base_noise + count_noise * count


@lru_cache(maxsize=64)
def count_channel(total: int, base_noise: float, count_noise: float, misread: float) -> Channel:
    """Count noise growing with the heap, and misreads, for counts 0..``total``."""
    rows = []
    for k in range(total + 1):
        sd = sigma(k, base_noise, count_noise)
        reach = max(1, math.ceil(3 * sd))
        weights = {e: (math.exp(-e * e / (2 * sd * sd)) if sd > 0 else float(e == 0)) for e in range(-reach, reach + 1)}
        norm = sum(weights.values())
        row = [misread / (total + 1)] * (total + 1)
        for e, w in weights.items():
            row[min(total, max(0, k + e))] += (1 - misread) * w / norm
        rows.append(row)
    return Channel(rows)


@lru_cache(maxsize=64)
def white_channel(total: int, confusion: float) -> Channel:
    """White chips seen right with 1 - confusion, else one off either way (one below 0 is seen
    as 0, one above ``total`` as ``total``)."""
    rows = []
    for k in range(total + 1):
        row = [0.0] * (total + 1)
        row[k] += 1 - confusion
        for s in (k - 1, k + 1):
            row[min(total, max(0, s))] += confusion / 2
        rows.append(row)
    return Channel(rows)


def noisy_reading(position: Any, rng: random.Random, *, count_noise: float = 0.06, base_noise: float = 0.25,
                  misread: float = 0.005, unseen: float = 0.03, colour_confusion: float = 0.01,
                  source: str = "noise") -> Reading:
    """A Reading of ``position`` as a noisy camera would report it (see the module's docstring)."""
    total = position.variant.total_seeds
    counts = count_channel(total, base_noise, count_noise, misread)
    whites = white_channel(total, colour_confusion)
    pits: dict[str, PitReading | None] = {}
    for i, label in enumerate(position.variant.layout.labels):
        if rng.random() < unseen:
            pits[label] = None
            continue
        white = None if position.white is None else whites.reported(whites.draw(position.white[i], rng))
        pits[label] = PitReading(counts.reported(counts.draw(position.pits[i], rng)), white)
    return Reading(pits, source)
