"""Noisy Readings for tests and benchmarks: a simple, honest model of a camera.

Honest means calibrated: a pit's reading is the likelihood of what the camera
saw, ``P(seen | count)``, normalised over counts, so the true count always
has a non-zero probability. The model:

* count noise that grows with heap size: a heap of ``n`` is seen as
  ``n + e`` with ``|e| <= spread(n) = floor(n * count_noise)``, with weights
  falling linearly away from 0 (a triangle);
* unseen pits: each pit is hidden with probability ``unseen``;
* colour confusion (Pass It On): the white count is seen one off with
  probability ``colour_confusion``.

Pure: the caller passes a seeded ``random.Random``; no global RNG, no clock.
"""

from __future__ import annotations

import random
from typing import Any

from ..reading import PitReading, Reading


def spread(count: int, count_noise: float) -> int:
    """How far a heap of ``count`` seeds may be miscounted."""
    return int(count * count_noise)


def _triangle(offset: int, radius: int) -> float:
    return max(0.0, radius + 1 - abs(offset)) / (radius + 1) ** 2


def _seen_count(count: int, count_noise: float, rng: random.Random) -> int:
    r = spread(count, count_noise)
    offsets = list(range(-r, r + 1))
    return max(0, count + rng.choices(offsets, [_triangle(e, r) for e in offsets])[0])


def count_likelihood(seen: int, total: int, count_noise: float) -> tuple[float, ...]:
    """``P(seen | count)`` for every count 0..total (normalised by the PitReading)."""
    return tuple(_triangle(seen - k, spread(k, count_noise)) for k in range(total + 1))


def white_likelihood(seen: int, chips: int, confusion: float) -> tuple[float, ...]:
    """``P(seen whites | whites)`` for 0..chips whites: right with 1 - confusion, else one off."""
    return tuple((1 - confusion) if k == seen else (confusion / 2 if abs(k - seen) == 1 else 0.0)
                 for k in range(max(chips, seen) + 1))


def noisy_reading(position: Any, rng: random.Random, *, count_noise: float = 0.1, unseen: float = 0.03,
                  colour_confusion: float = 0.03, source: str = "noise") -> Reading:
    """A Reading of ``position`` as a noisy camera would report it."""
    total = position.variant.total_seeds
    labels = position.variant.layout.labels
    pits: dict[str, PitReading | None] = {}
    for i, label in enumerate(labels):
        if rng.random() < unseen:
            pits[label] = None
            continue
        seen = _seen_count(position.pits[i], count_noise, rng)
        likelihood = count_likelihood(seen, total, count_noise)
        white = None
        if position.white is not None:
            whites = position.white[i]
            seen_white = whites
            if rng.random() < colour_confusion:
                seen_white = max(0, whites + rng.choice((-1, 1)))
            white = _norm(white_likelihood(seen_white, total, colour_confusion))
        pits[label] = PitReading(_norm(likelihood), white)
    return Reading(pits, source)


def _norm(weights: tuple[float, ...]) -> tuple[float, ...]:
    total = sum(weights)
    return tuple(w / total for w in weights)
