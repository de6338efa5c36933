"""One seed's size on this board, learnt from the start position.

The seed counter needs no seed size: it learnt seeds of every kind it was shown. The glare
finder does: a piece of clipped white larger than any seed's top is a lamp's reflection, not a
white chip or bead (:mod:`vision.glare`). Without a measure it must allow the largest seed there
is, a disc 18 mm wide (real seeds run up to 17 mm marbles); a board of 11 mm glass beads then
lets a reflection of twice a bead's top pass as a seed. The start position, whose counts are known, shows this board's own seeds, so
calibration measures how much of the board one of them covers.

The measure is rough, and its use allows for that. Each playing pit's pixels that differ from
the empty board are shared among its seeds, and the median over the pits is kept. A seed's
shadow adds to what it covers, and seeds lying over others take from it. On rendered start
positions (a probe of the vision benchmark's 60 set-ups, seen in depth and painted flat,
2026-12-03; docs/vision.md, section 3) it came out 0.68-1.40 times the seeds' true area.
"""

from __future__ import annotations

import math
from typing import Mapping

import numpy as np

from .pits import HollowFit, hollow_mask
from .rectify import in_empty_light

CHANGED = 30.0  # a pixel differs from the empty board by this much in some channel (0..255, today's light
# divided out): a seed or its shadow; the wood's grain and the sensor's noise stay well under it
LEAST_PITS = 3  # fewer pits with seeds than this measure nothing (a variant's start always has more)


def seed_area_mm2(board: np.ndarray, log_gain: np.ndarray, empty: np.ndarray, hollows: Mapping[str, HollowFit],
                  counts: Mapping[str, int], px_per_mm: float) -> float | None:
    """How much of the board one seed covers seen from above (mm2), from the rectified start
    position ``board`` in the light ``log_gain`` fitted against the rectified ``empty`` board:
    each pit's changed pixels shared among its ``counts`` seeds, the median over the pits with
    seeds. None when fewer than ``LEAST_PITS`` pits hold seeds."""
    per_seed = []
    changed = np.abs(in_empty_light(board, log_gain) - empty.astype(np.float32)).max(axis=2) > CHANGED
    for label, fit in hollows.items():
        if (seeds := counts.get(label, 0)) > 0:
            per_seed.append(np.count_nonzero(changed & (hollow_mask(changed.shape, fit) > 0)) / seeds)
    if len(per_seed) < LEAST_PITS:
        return None
    return float(np.median(per_seed)) / px_per_mm ** 2


def seed_size_text(area_mm2: float) -> str:
    """A measured seed's size as a user can check it against the seeds on the table, the words
    ``pitwatch calibrate`` and ``pitwatch doctor`` both print."""
    return (f"one covers about {area_mm2:.0f} mm2 of the board seen from above (a disc "
            f"{2 * math.sqrt(area_mm2 / math.pi):.0f} mm across, its shadow included)")
