"""Which pits look exactly as they did when the board was last still: their seeds were not touched.

A heap of 20 seeds is read within one seed, not exactly: the picture alone
cannot always tell 20 from 21. But seeds lie still unless a hand moves them,
and a pile nobody touched looks the same as before, seed for seed, while one
seed added to it or taken from it changes its look plainly. So when the
board settles after a move, each pit's window (as the seed counter saw it:
:meth:`vision.patches.PatchCutter.relit`, today's light divided out) is
compared with the same window at the board's previous still moment; the pits
that kept their look hold what they held then, which the game knows exactly
(the session pins them: :mod:`pitwatch.settled`).

"Unchanged" is strong evidence: a pile given one or two seeds on top, or robbed
of its top one or two, kept its look in 0-0.3 % of such pits with seeds (a store
once in 93) and 0.4-1.9 % with Pass It On's flat chips, which may land square on
one another (``benchmarks/looks_bench.py``; docs/vision.md, section 5). So is
"moved": a spot the size of a seed's top (``SEED_SPOT_PX``) changed, which a seed
added, taken or shifted makes in 82-100 % of touched piles and noise or a nudge
almost never (0.08 % of untouched piles of seeds). A change without such a spot is weak
evidence: noise, JPEG and a board nudged by 3 mm (the lens bends the windows
apart) change thin rims and scattered pixels of 3 to 35 % of untouched piles,
and a seed sown flat on a pile of its like changes little more. The comparison
allows for what changes between two still moments of an untouched pile: the
light (the windows are relit, and what is left of the light is taken out as
the window's median), sensor noise and JPEG, and the board placed a fraction
of a millimetre apart (each pixel is compared with the earlier window's range
within ``REGISTRATION_PX``). Smoothing both windows first and a lower
threshold (0.7 px, 0.15, 12 px) kept no touched pile on the benchmark, but
left more untouched ones looking changed, and games refereed by the camera
alone went no better (``camera_referee_bench.py``: 98.1 and 98.8 % of moves
committed right against 98.2 and 98.9 %).
"""

from __future__ import annotations

from typing import Mapping, NamedTuple

import cv2
import numpy as np

from .pieces import pieces_of

CHANGE = 0.25  # log brightness beyond the earlier window's own range that is a change, not noise
MIN_CHANGED_PX = 10  # a window with this many changed pixels (1 px = 1 mm2: a seed shows 50 or more) changed
SEED_SPOT_PX = 20  # a spot this big changed, its narrow parts opened away, is a seed that moved (looks_bench.py)
REGISTRATION_PX = 1  # the board found a pixel apart (a nudge, lens distortion) is no change
BORDER_PX = 2  # the window's edge, where a shifted board replicates its border, is not compared
KEPT, CHANGED, MOVED = "kept", "changed", "moved"  # how a pit's look compares with its look before


class Look(NamedTuple):
    """How a pit's window compares with its window at the board's previous still moment."""

    name: str  # KEPT, CHANGED or MOVED
    moved_mm2: int = 0  # the area the opening left changed (1 px = 1 mm2): more for two seeds moved than for one


def compared_look(before: np.ndarray, now: np.ndarray) -> Look:
    """How the window ``now`` (uint8 BGR) compares with ``before``: ``KEPT`` (the same seeds,
    lying as they lay), ``MOVED`` (a spot the size of a seed's top changed: a seed was added,
    taken or moved) or else ``CHANGED`` (pixels changed, as noise, JPEG or a nudge also change
    them: weak evidence). A nudge changes thin rims around the seeds and noise scattered pixels;
    opening the changed pixels (3 x 3) takes both away and leaves what a seed changes, whose
    area (``Look.moved_mm2``) says how many seeds moved: two seeds taken or sown change about
    twice what one does (``benchmarks/looks_bench.py``)."""
    if before.shape != now.shape:
        return Look(CHANGED)
    b = cv2.log(before.astype(np.float32) + np.float32(4))
    n = cv2.log(now.astype(np.float32) + np.float32(4))
    n -= np.median((n - b).reshape(-1, 3), axis=0).astype(np.float32)  # what the light model left
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (2 * REGISTRATION_PX + 1,) * 2)
    low, high = cv2.erode(b, kernel), cv2.dilate(b, kernel)
    beyond = np.maximum(n - high, low - n).max(axis=2)
    changed = (beyond[BORDER_PX:-BORDER_PX, BORDER_PX:-BORDER_PX] > CHANGE).astype(np.uint8)
    if int(np.count_nonzero(changed)) < MIN_CHANGED_PX:
        return Look(KEPT)
    spots = cv2.morphologyEx(changed, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3)))
    if largest_spot(spots) < SEED_SPOT_PX:
        return Look(CHANGED)
    return Look(MOVED, int(np.count_nonzero(spots)))


def compare_looks(before: Mapping[str, np.ndarray], now: Mapping[str, np.ndarray]) -> dict[str, Look]:
    """How each pit seen at both moments compares (:func:`compared_look`), by label in the order of ``now``."""
    return {label: compared_look(before[label], window) for label, window in now.items() if label in before}


def largest_spot(mask: np.ndarray) -> int:
    """The area (px) of the largest 8-connected spot of ``mask``."""
    areas = pieces_of(mask).areas
    return int(areas[1:].max()) if len(areas) > 1 else 0
