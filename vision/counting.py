"""From the rectified board to seeds: which pixels are seeds, and how many seeds a pit holds.

A seed pixel is one that the light model cannot explain: compared with the
empty board under today's light, its colour has moved (a glass bead, a grey
pebble, a yellow chip) or it is much brighter or darker than any shadow.
Seeds that touch and pile up hide each other, so the covered area grows
more slowly than the count; the estimate inverts a random-cover model
(area = capacity * (1 - exp(-n * seed / capacity))) and the uncertainty grows
with the heap. The result is a probability over counts, not a single guess:
the referee chooses among legal results, and an honest spread lets it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

EPS = np.float32(0.03)
MAX_PIT = 48  # largest count a pit's distribution covers
MAX_STORE = 80


@dataclass
class SeedPixels:
    """Per-pixel evidence of one rectified frame."""

    seeds: np.ndarray  # bool: a seed (or something) is here that the empty board does not have
    changed: np.ndarray  # float32, half resolution: > 1 where bare wood no longer looks like wood (a hand)
    white: np.ndarray  # bool: a seed pixel that is neutral and bright (a white chip)



REGISTRATION_PX = 2  # the frame may sit this far off the empty board (a nudge, lens distortion)


@dataclass(frozen=True)
class Reference:
    """The empty board as :func:`seed_pixels` compares against it: per pixel and channel, the
    range (log) of the empty board's values within ``REGISTRATION_PX``, so that an edge of the
    wood grain or a hollow's rim landing a pixel or two away is not taken for a seed."""

    low: np.ndarray
    high: np.ndarray

    @classmethod
    def of(cls, empty: np.ndarray) -> "Reference":
        log_empty = cv2.log(cv2.GaussianBlur(empty, (0, 0), 1.0) + EPS)
        kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (2 * REGISTRATION_PX + 1,) * 2)
        return cls(cv2.erode(log_empty, kernel), cv2.dilate(log_empty, kernel))


_MEAN = np.full((1, 3), 1 / 3, np.float32)
_SUM = np.ones((1, 3), np.float32)


def seed_pixels(board: np.ndarray, reference: Reference, log_gain: np.ndarray, surface: np.ndarray,
                whites: bool = False) -> SeedPixels:
    """Compare the rectified frame with the empty board under the fitted light.

    The thresholds adapt to the frame: the noise of the bare wood (``surface``)
    sets how large a departure must be before it counts as a seed.
    """
    log_board = cv2.log(cv2.GaussianBlur(board, (0, 0), 1.0) + EPS)
    relit = log_board - log_gain
    log_ratio = relit - cv2.min(cv2.max(relit, reference.low), reference.high)
    lum = cv2.transform(log_ratio, _MEAN)
    chroma = cv2.sqrt(np.maximum(cv2.transform(log_ratio * log_ratio, _SUM) - 3 * lum * lum, 0))
    sample = surface[::3, ::3]
    noise_c = float(np.median(chroma[::3, ::3][sample])) * 1.4826 + 1e-3
    noise_l = float(np.median(np.abs(lum[::3, ::3][sample]))) * 1.4826 + 1e-3
    # in a hollow, seeds' own shadows are expected: darkening alone must be strong to count,
    # but a darkening with a shift of colour adds up (a dark red bean on reddish wood)
    seed_score = (chroma * (1 / max(0.16, 4.0 * noise_c))
                  + np.maximum(lum * (1 / max(0.28, 4.0 * noise_l)), lum * (-1 / max(0.9, 5.0 * noise_l))))
    seeds = cv2.morphologyEx((seed_score > 1.0).astype(np.uint8), cv2.MORPH_OPEN, _KERNEL).astype(bool)
    # on bare wood nothing should change at all: a dark hand is no darker than a shadow (a hand
    # is big, so it is looked for at half resolution)
    changed = cv2.max(chroma[::2, ::2] * (1 / max(0.1, 4.0 * noise_c)), cv2.absdiff(lum[::2, ::2], 0) * (1 / max(0.2, 4.0 * noise_l)))
    white = np.zeros_like(seeds)
    if whites:  # neutral and bright under the reference light: a white chip
        b, g, r = cv2.split(cv2.exp(relit))
        top, low = cv2.max(cv2.max(b, g), r), cv2.min(cv2.min(b, g), r)
        white = seeds & ((top - low) < 0.3 * (top + 1e-3)) & (lum > 0.25)
    return SeedPixels(seeds, changed, white)


_KERNEL = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))


# Pile correction: seeds per seed-area of visible cover, as a function of how much of the
# hollow is covered (piecewise linear at COVER_KNOTS). Fitted by least squares on ~4,000
# rendered pits of every seed kind and board (seeds other than the benchmark's);
# above ~60 % cover, seeds hide under seeds and each visible seed stands for more.
COVER_KNOTS = (0.0, 0.2, 0.35, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
COVER_GAIN = (0.98, 0.97, 0.98, 1.0, 1.11, 1.32, 1.51, 1.98, 2.45)
HEAP_COVER = 0.7  # above this cover seeds are not counted one by one (saves time, loses nothing)


@dataclass(frozen=True)
class PitEstimate:
    """What one pit's seed pixels say: a continuous count and whether two measures agree."""

    count: float
    agreed: bool  # separate seeds counted one by one match the covered area
    cover: float = 0.0  # fraction of the hollow the seeds cover (a heap hides seeds under seeds)

    @property
    def hidden(self) -> float:
        """0 when every seed shows, rising to 1 for a hollow full of seeds piled up."""
        return float(np.clip((self.cover - 0.5) / 0.4, 0.0, 1.0))


def count_objects(mask: np.ndarray, brightness: np.ndarray, seed_area: float) -> int:
    """Seeds counted one by one. A seed is a dome: brighter in its middle than at its rim,
    where it touches the next one; so the seed cores are the mask's pixels brighter than
    their seed-sized neighbourhood (``brightness``: the pit's gray level, smoothed by 1 px),
    kept where they are thick enough. The whole mask is then split among the cores
    (watershed on the distance transform) and each region is worth its area in seeds (at
    least one). Exact for seeds that touch but do not pile."""
    if not mask.any():
        return 0
    m = mask.astype(np.uint8)
    radius = math.sqrt(seed_area / math.pi)
    weight = m.astype(np.float32)
    local = cv2.GaussianBlur(brightness * weight, (0, 0), 0.7 * radius) / (cv2.GaussianBlur(weight, (0, 0), 0.7 * radius) + 1e-3)
    crown = ((brightness > 0.9 * local) & mask).astype(np.uint8)
    core = (cv2.distanceTransform(crown, cv2.DIST_L2, 3) > 0.3 * radius).astype(np.uint8)
    n, markers = cv2.connectedComponents(core)
    dist = cv2.distanceTransform(m, cv2.DIST_L2, 3)
    if n < 2:  # no crown (a blurred seed): one seed if the mask is at least seed-thick somewhere
        return 1 if float(dist.max()) > 0.4 * radius else 0
    # a separate blob without a crown (a dark bean whose middle matches the wood, a seed blurred
    # flat) is a seed too: left unmarked, the watershed would flood it as background
    blobs, blob_of = cv2.connectedComponents(m)
    crowned = np.zeros(blobs, bool)
    crowned[blob_of[core > 0]] = True
    for blob in np.flatnonzero(~crowned[1:]) + 1:  # label 0 is the background
        inside = blob_of == blob
        if float(dist[inside].max()) > 0.4 * radius:
            markers[inside] = n
            n += 1
    markers = markers.astype(np.int32)
    markers[m == 0] = n  # background
    relief = cv2.cvtColor((255 - np.clip(dist * 20, 0, 255)).astype(np.uint8), cv2.COLOR_GRAY2BGR)
    cv2.watershed(relief, markers)
    areas = np.bincount(markers.ravel() + 1, minlength=n + 2)[2:n + 1]  # labels 1..n-1
    return int(sum(max(1, round(a / seed_area)) for a in areas if a > 0.25 * seed_area))


def estimate_count(mask: np.ndarray, brightness: np.ndarray, seed_area: float, hollow_area: float) -> PitEstimate:
    """Seeds in a hollow from its seed mask: one by one where they lie apart (if the covered
    area agrees), by covered area corrected for piling where they heap up."""
    area = float(np.count_nonzero(mask))
    if area == 0:
        return PitEstimate(0.0, True)
    cover = min(area / hollow_area, 1.0)
    by_area = area / seed_area * float(np.interp(cover, COVER_KNOTS, COVER_GAIN))
    if cover >= HEAP_COVER:  # a heap: seeds hide each other, one by one never matches the area
        return PitEstimate(by_area, False, cover)
    one_by_one = count_objects(mask, brightness, seed_area)
    if abs(by_area - one_by_one) < 1.0:
        return PitEstimate(float(one_by_one), True, cover)
    return PitEstimate(by_area, False, cover)


def count_distribution(estimate: PitEstimate, size: int) -> tuple[float, ...]:
    """P(count = k) for k < size around ``estimate``: a spread measured on rendered boards,
    narrow when the one-by-one count and the area agree, growing with the heap."""
    n = estimate.count
    if estimate.agreed:  # seeds apart: nearly always exact up to 4, within one up to 9; beyond
        # 9 a one-by-one count that matches the area is still off by one or two seeds as often
        # as not (measured spread ~1 seed at 10, ~2 at 13), so it is not trusted as sharply
        sigma = 0.22 + 0.04 * n + 0.35 * max(0.0, n - 9)
    else:  # a heap read by area: hidden seeds make it wide
        sigma = 0.3 + 0.13 * n
    return _gaussian(estimate.count, sigma, size)


def _gaussian(mean: float, sigma: float, size: int) -> tuple[float, ...]:
    k = np.arange(size, dtype=np.float64)
    p = np.maximum(np.exp(-0.5 * ((k - mean) / sigma) ** 2), 1e-9)
    return tuple((p / p.sum()).tolist())


def white_distribution(visible: float, count_max: int, hidden: float = 0.0) -> tuple[float, ...]:
    """P(white chips = k) from the white chips ``visible`` (in chip areas). Narrow where every
    chip shows; in a heap (``hidden`` up to 1) a white chip may lie under yellow ones, so
    counts above what is visible keep real probability."""
    k = np.arange(max(3, count_max + 1), dtype=np.float64)
    sigma = 0.25 + 0.05 * visible
    above = sigma + 0.9 * hidden
    spread = np.where(k >= visible, above, sigma)
    p = np.maximum(np.exp(-0.5 * ((k - visible) / spread) ** 2), 1e-9)
    return tuple((p / p.sum()).tolist())
