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

"Unchanged" is strong evidence: a pile given one seed on top, or robbed of
its top one, kept its look in 0.1-0.4 % of such pits with seeds and 1.3-4.8 %
with Pass It On's flat chips, which may land square on one another
(``benchmarks/looks_bench.py``; docs/vision.md, section 5). "Changed" is weak
evidence: a pile may be touched and left as many (a lap lifts and sows it
back), and an untouched one looked changed in 3 to 35 % of the benchmark's
pits (sensor noise, JPEG, a board nudged by 3 mm, where the lens bends the
windows apart). The comparison allows for what changes between two still
moments of an untouched pile: the light (the windows are relit, and what is
left of the light is taken out as the window's median), sensor noise and JPEG,
and the board placed a fraction of a millimetre apart (each pixel is compared
with the earlier window's range within ``REGISTRATION_PX``). Smoothing both
windows first and a lower threshold (0.7 px, 0.15, 12 px) kept no touched pile
on the benchmark, but left more untouched ones looking changed, and games
refereed by the camera alone went no better (``camera_referee_bench.py``: 98.1
and 98.8 % of moves committed right against 98.2 and 98.9 %).
"""

from __future__ import annotations

from typing import Mapping

import cv2
import numpy as np

CHANGE = 0.25  # log brightness beyond the earlier window's own range that is a change, not noise
MIN_CHANGED_PX = 10  # a window with this many changed pixels (1 px = 1 mm2: a seed shows 50 or more) changed
REGISTRATION_PX = 1  # the board found a pixel apart (a nudge, lens distortion) is no change
BORDER_PX = 2  # the window's edge, where a shifted board replicates its border, is not compared


def kept_look(before: np.ndarray, now: np.ndarray) -> bool:
    """Whether the window ``now`` (uint8 BGR) shows the same seeds as ``before``, lying as they lay."""
    if before.shape != now.shape:
        return False
    b = cv2.log(before.astype(np.float32) + np.float32(4))
    n = cv2.log(now.astype(np.float32) + np.float32(4))
    n -= np.median((n - b).reshape(-1, 3), axis=0).astype(np.float32)  # what the light model left
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (2 * REGISTRATION_PX + 1,) * 2)
    low, high = cv2.erode(b, kernel), cv2.dilate(b, kernel)
    beyond = np.maximum(n - high, low - n).max(axis=2)
    inner = beyond[BORDER_PX:-BORDER_PX, BORDER_PX:-BORDER_PX]
    return int(np.count_nonzero(inner > CHANGE)) < MIN_CHANGED_PX


def compare_looks(before: Mapping[str, np.ndarray], now: Mapping[str, np.ndarray]) -> tuple[list[str], list[str]]:
    """The pits seen at both moments (labels, in the order of ``now``) whose windows kept their
    look, and those whose look changed."""
    kept: list[str] = []
    changed: list[str] = []
    for label, window in now.items():
        if label in before:
            (kept if kept_look(before[label], window) else changed).append(label)
    return kept, changed
