"""From the rectified board to seeds: which pixels are seeds, and how many seeds a pit holds.

A seed pixel is one that the light model cannot explain: compared with the
empty board under today's light, its colour has moved (a glass bead, a grey
pebble, a yellow chip) or it is much brighter or darker than any shadow.
Each pit is then counted one by one (seed cores split the mask) and by the
area its seeds cover; seeds that touch and pile up hide each other, so the
covered area grows more slowly than the count (a pile correction fitted on
rendered pits) and the one-by-one count misses seeds. The two are combined
by how each one errs, measured on rendered pits, into a probability over
counts, not a single guess: the referee chooses among legal results, and an
honest spread lets it.
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

    seeds: np.ndarray  # bool, on the pit mosaic: a seed (or something) is here that the empty board does not have
    changed: np.ndarray  # float32, half-resolution board: > 1 where bare wood no longer looks like wood (a hand)
    white: np.ndarray  # bool, on the pit mosaic: a seed pixel that is neutral and bright (a white chip)


SMOOTH = (5, 5)  # the frame and the empty board are smoothed by a Gaussian of 1 px, cut at 2 sigma
REGISTRATION_PX = 2  # the frame may sit this far off the empty board (a nudge, lens distortion)


@dataclass(frozen=True)
class Reference:
    """The empty board as :func:`seed_pixels` compares against it: per pixel and channel, the
    range (log) of the empty board's values within ``registration`` px, so that an edge of the
    wood grain or a hollow's rim landing a pixel or two away is not taken for a seed."""

    low: np.ndarray
    high: np.ndarray

    @classmethod
    def of(cls, empty: np.ndarray, registration: int = REGISTRATION_PX, blur: bool = True) -> "Reference":
        """From the empty board (float32 BGR, 0..1), smoothed as the frames it is compared with."""
        log_empty = cv2.log((cv2.GaussianBlur(empty, SMOOTH, 1.0) if blur else empty) + EPS)
        kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (2 * registration + 1,) * 2)
        return cls(cv2.erode(log_empty, kernel), cv2.dilate(log_empty, kernel))


_MEAN = np.full((1, 3), 1 / 3, np.float32)
_SUM = np.ones((1, 3), np.float32)


def _departure(board: np.ndarray, reference: Reference, log_gain: np.ndarray, blur: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """How far ``board`` (float32 BGR) departs from the empty board under the fitted light:
    the relit log image, its mean log departure (lum) and the size of its colour shift (chroma)."""
    log_board = cv2.log((cv2.GaussianBlur(board, SMOOTH, 1.0) if blur else board) + EPS)
    relit = log_board - log_gain
    log_ratio = relit - cv2.min(cv2.max(relit, reference.low), reference.high)
    lum = cv2.transform(log_ratio, _MEAN)
    chroma = cv2.sqrt(np.maximum(cv2.transform(log_ratio * log_ratio, _SUM) - 3 * lum * lum, 0))
    return relit, lum, chroma


def _noise(chroma: np.ndarray, lum: np.ndarray, surface: np.ndarray) -> tuple[float, float]:
    """Robust spread (MAD) of the colour shift and of the brightness change on bare wood,
    sampled on every third pixel; a typical value when no bare wood is in view."""
    sample = surface[::3, ::3]
    if not sample.any():
        return 0.05, 0.07
    return (float(np.median(chroma[::3, ::3][sample])) * 1.4826 + 1e-3,
            float(np.median(np.abs(lum[::3, ::3][sample]))) * 1.4826 + 1e-3)


def seed_pixels(pits: np.ndarray, reference: Reference, log_gain: np.ndarray, surface: np.ndarray,
                wood: np.ndarray, wood_reference: Reference, wood_gain: np.ndarray, wood_surface: np.ndarray,
                whites: bool = False) -> SeedPixels:
    """Compare the rectified frame with the empty board under the fitted light.

    ``pits`` is the pit mosaic (float32 BGR, with ``reference``, ``log_gain`` and its bare wood
    ``surface`` on the same mosaic): seeds are looked for there only. ``wood`` is the whole
    board at half resolution (with its own reference, gain and bare wood): a hand is big,
    so it is looked for there. The thresholds adapt to the frame: the noise of the bare wood sets
    how large a departure must be before it counts as a seed.
    """
    relit, lum, chroma = _departure(pits, reference, log_gain, blur=True)
    noise_c, noise_l = _noise(chroma, lum, surface)
    # in a hollow, seeds' own shadows are expected: darkening alone must be strong to count,
    # but a darkening with a shift of colour adds up (a dark red bean on reddish wood)
    seed_score = (chroma * (1 / max(0.16, 4.0 * noise_c))
                  + np.maximum(lum * (1 / max(0.28, 4.0 * noise_l)), lum * (-1 / max(0.9, 5.0 * noise_l))))
    seeds = cv2.morphologyEx((seed_score > 1.0).astype(np.uint8), cv2.MORPH_OPEN, _KERNEL).astype(bool)
    # on bare wood nothing should change at all: a dark hand is no darker than a shadow
    _, wood_lum, wood_chroma = _departure(wood, wood_reference, wood_gain, blur=False)
    noise_c, noise_l = _noise(wood_chroma, wood_lum, wood_surface)
    changed = cv2.max(wood_chroma * (1 / max(0.1, 4.0 * noise_c)), cv2.absdiff(wood_lum, 0) * (1 / max(0.2, 4.0 * noise_l)))
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
HEAP_COVER = 0.7  # above this cover the one-by-one count is not used: seeds hide each other


@dataclass(frozen=True)
class PitEstimate:
    """What one pit's seed pixels say: a continuous count and whether two measures agree."""

    count: float
    agreed: bool  # separate seeds counted one by one match the covered area
    cover: float = 0.0  # fraction of the hollow the seeds cover (a heap hides seeds under seeds)
    one_by_one: int | None = None  # seeds counted one by one (None: a heap, or not counted)
    evidence: np.ndarray | None = None  # P(count) given both measures, where seeds were counted one by one

    @property
    def hidden(self) -> float:
        """0 when every seed shows, rising to 1 for a hollow full of seeds piled up."""
        return float(np.clip((self.cover - 0.5) / 0.4, 0.0, 1.0))


CROWN = 0.9  # a crown pixel is at least this bright against the mean of its seed-sized neighbourhood
CORE_THICKNESS = 0.3  # ... and a core is where crown pixels are this many seed radii thick
CORE_MERGE = 1.2  # crowns closer than this many seed radii are one seed (a bean's ring round its highlight)
LONE_MIN = 0.4  # a blob without a crown is a seed if it covers this much of one (or is seed-thick)
LONE_SHIFT = 0.2  # a blob with one crown holds two seeds only from 1.7 seed areas (seeds vary +-20 %)


def count_seeds(mask: np.ndarray, brightness: np.ndarray, seed_area: float, pit_of: np.ndarray, pits: int) -> np.ndarray:
    """Seeds counted one by one in every pit at once (``mask``: seed pixels; ``pit_of``: pit
    number 1..``pits`` of each pixel, 0 outside the hollows; pits must not touch). Returns
    the count of each pit.

    A seed is a dome: brighter in its middle than at its rim, where it touches the next
    one; so the seed cores are the mask's pixels brighter than their seed-sized
    neighbourhood (``brightness``: gray level, smoothed by 1 px), kept where they are thick
    enough, and cores of one blob closer than a seed's size are one seed (a glossy bean is
    a ring of crown round its highlight). The mask is then split among the cores (watershed
    on the distance transform) and each region is worth its area in seeds (at least one).
    A blob that is one region is worth its area with a higher bar for "two": lone seeds
    vary in size, and two seeds touching nearly always show two crowns. A blob without a
    crown (a dark bean whose middle matches the wood, a seed blurred flat) is a seed too if
    it is big or thick enough. Exact for seeds that touch but do not pile."""
    counts = np.zeros(pits)
    if not mask.any():
        return counts
    m = mask.astype(np.uint8)
    radius = math.sqrt(seed_area / math.pi)
    local = _local_mean(brightness, m, 0.7 * radius)
    crown = ((brightness > CROWN * local) & mask).astype(np.uint8)
    core = cv2.distanceTransform(crown, cv2.DIST_L2, 3) > CORE_THICKNESS * radius
    dist = cv2.distanceTransform(m, cv2.DIST_L2, 3)
    # (components without OpenCV's statistics, which cost five times the labelling itself)
    blobs, blob_of = cv2.connectedComponents(m)
    blob_area = np.bincount(blob_of[mask], minlength=blobs)
    cores, markers = cv2.connectedComponents(core.view(np.uint8))
    ys, xs = np.nonzero(core)
    core_of = markers[ys, xs]
    size_of = np.maximum(np.bincount(core_of, minlength=cores), 1)
    centres = np.stack([np.bincount(core_of, xs, cores), np.bincount(core_of, ys, cores)], axis=1) / size_of[:, None]
    core_blob = np.zeros(cores, np.int32)
    core_blob[core_of] = blob_of[ys, xs]
    markers = _merge_close(markers, centres, core_blob, CORE_MERGE * radius)
    # a blob without a crown: left unmarked, the watershed would flood it as background
    crowned = np.zeros(blobs, bool)
    crowned[core_blob] = True  # core_blob[0] = 0: the background counts as crowned, never as a seed
    thickness = np.zeros(blobs, np.float32)
    np.maximum.at(thickness, blob_of[mask], dist[mask])
    seed_like = ~crowned & ((blob_area >= LONE_MIN * seed_area) | (thickness > 0.4 * radius))
    n = int(markers.max()) + 1
    extra = np.zeros(blobs, np.int32)
    extra[seed_like] = np.arange(n, n + int(seed_like.sum()))
    unmarked = mask & (markers == 0)
    markers[unmarked] = extra[blob_of[unmarked]]
    n += int(seed_like.sum())
    if n < 2:
        return counts
    markers[m == 0] = n  # background
    # 255 - 20 d, truncated: rounding instead changes which pixels tie (measured 4 points worse on 5-9)
    relief = cv2.cvtColor((255 - np.clip(dist * 20, 0, 255)).astype(np.uint8), cv2.COLOR_GRAY2BGR)
    cv2.watershed(relief, markers)
    inside = (markers > 0) & (markers < n)  # seed regions: not the background, not watershed lines
    areas = np.bincount(markers[inside], minlength=n)[1:n].astype(np.float64)  # labels 1..n-1
    region_blob = np.zeros(n, np.int32)
    region_blob[markers[inside]] = blob_of[inside]
    region_blob = region_blob[1:n]
    regions_in_blob = np.bincount(region_blob[areas > 0], minlength=blobs)
    # the background floods a blob's rim too: a blob that is one region is worth its whole area
    lone = regions_in_blob[region_blob] == 1
    areas[lone] = blob_area[region_blob[lone]]
    seeds = np.maximum(1, np.floor(areas / seed_area + 0.5 - np.where(lone, LONE_SHIFT, 0.0)))
    seeds[areas <= 0.25 * seed_area] = 0  # a speck, or a sliver the watershed cut off a seed
    blob_pit = np.zeros(blobs, np.int32)
    blob_pit[blob_of[mask]] = pit_of[mask]
    return np.bincount(blob_pit[region_blob], weights=seeds, minlength=pits + 1)[1:]


def _local_mean(image: np.ndarray, weight: np.ndarray, sigma: float) -> np.ndarray:
    """The mean of ``image`` over the pixels where ``weight`` (uint8 0/1) is set, Gaussian-weighted
    round each pixel (``sigma`` px). A neighbourhood of a seed's size is smooth, so it is
    worked out at half size (``image`` has even sides): a sixth of the cost at full size."""
    h, w = image.shape
    ones = weight.astype(np.float32)
    half = sigma / 2
    size = (2 * int(2 * half) + 1,) * 2  # cut at 2 sigma
    total = cv2.GaussianBlur(cv2.resize(image * ones, (w // 2, h // 2), interpolation=cv2.INTER_AREA), size, half)
    count = cv2.GaussianBlur(cv2.resize(ones, (w // 2, h // 2), interpolation=cv2.INTER_AREA), size, half)
    return cv2.resize(total / (count + 1e-3), (w, h), interpolation=cv2.INTER_LINEAR)


def _merge_close(labels: np.ndarray, centres: np.ndarray, group: np.ndarray, distance: float) -> np.ndarray:
    """``labels`` (int32, 0 = none) with components of one ``group`` whose centres lie closer
    than ``distance`` given one label, numbered 1.. without gaps."""
    count = len(centres)
    x, y = centres[1:, 0], centres[1:, 1]
    near = ((x[:, None] - x[None, :]) ** 2 + (y[:, None] - y[None, :]) ** 2 < distance * distance) & (group[1:, None] == group[1:])
    close = np.nonzero(np.triu(near, 1))
    if not len(close[0]):
        return labels
    parent = np.arange(count)
    for i, j in zip(close[0] + 1, close[1] + 1):
        ri, rj = _root(parent, i), _root(parent, j)
        parent[max(ri, rj)] = min(ri, rj)
    while not np.array_equal(parent[parent], parent):  # every label straight to its root
        parent = parent[parent]
    number = np.cumsum(parent == np.arange(count)) - 1  # roots numbered 0 (the background), 1, 2, ...
    return number[parent].astype(np.int32)[labels]


def _root(parent: np.ndarray, i: int) -> int:
    while parent[i] != i:
        i = parent[i]
    return int(i)


def estimate_from(area: float, one_by_one: int | None, seed_area: float, hollow_area: float) -> PitEstimate:
    """Seeds in a hollow from the area its seeds cover and their one-by-one count: both where
    they lie apart, the area corrected for piling where they heap up (``one_by_one`` is not
    used there: seeds hide each other, it never matches)."""
    if area == 0:
        return PitEstimate(0.0, True)
    cover = min(area / hollow_area, 1.0)
    by_area = area / seed_area * float(np.interp(cover, COVER_KNOTS, COVER_GAIN))
    if cover >= HEAP_COVER or one_by_one is None:
        return PitEstimate(by_area, False, cover)
    if max(one_by_one, by_area) <= EVIDENCE_MAX:
        evidence = _evidence(one_by_one, by_area)
        likely = int(np.argmax(evidence))
        return PitEstimate(float(likely), likely == one_by_one, cover, one_by_one, evidence)
    if abs(by_area - one_by_one) < 1.0:
        return PitEstimate(float(one_by_one), True, cover, one_by_one)
    return PitEstimate(by_area, False, cover, one_by_one)


# How the two measures err, measured on rendered pits of the tuning seeds (never the
# benchmark's): the one-by-one count misses seeds that touch or overlap, rarely up to 5,
# often from about 9 (logistic in the true count n), by one seed more often than by two;
# it finds a seed too many about 0.25 % x n of the time. The covered area (pile-corrected)
# is Gaussian round n (+5 % per seed above 4), its spread 0.12 + 0.075 n seeds, with a tail.
EVIDENCE_MAX = 10.5  # above, too sure: at 13.5 the 95 % sets of 10-19 seeds held the truth 95.2 % of the time (97.6 % without)
UNDERCOUNT_MID, UNDERCOUNT_WIDTH = 9.3, 1.1
OVERCOUNT_PER_SEED = 0.0025
AREA_BIAS_PER_SEED, AREA_SPREAD = 0.05, (0.12, 0.075)
AREA_TAIL = 1e-3  # a stray speck or a shadow can put the area far off: it never rules out a count alone


def _how_counts_err(size: int) -> tuple[np.ndarray, ...]:
    """For every count n < size: P(one-by-one count = n), = n + 1, = n - 1 (and the ratio of
    each further seed missed), and the area's expected value and spread."""
    n = np.arange(size, dtype=np.float64)
    under = 1 / (1 + np.exp(-(n - UNDERCOUNT_MID) / UNDERCOUNT_WIDTH))
    over = np.minimum(OVERCOUNT_PER_SEED * n, 0.05)
    depth = np.clip(0.25 + 0.05 * (n - 8), 0.15, 0.6)  # P(missing one more seed | missing some)
    mean = n + AREA_BIAS_PER_SEED * np.maximum(0.0, n - 4)
    return n, 1 - under - over, over, under * (1 - depth), depth, mean, AREA_SPREAD[0] + AREA_SPREAD[1] * n


_ERRORS = _how_counts_err(MAX_STORE)


def _evidence(one_by_one: int, by_area: float) -> np.ndarray:
    """P(count = n | one-by-one count, area) for n < MAX_STORE, from how each measure errs (flat prior)."""
    n, exact, over, missed, depth, mean, spread = _ERRORS
    k = one_by_one - n
    p_count = np.where(k == 0, exact, np.where(k == 1, over, 0.0))
    p_count = np.where(k < 0, missed * depth ** np.maximum(-k - 1, 0), p_count)
    p = np.maximum(p_count, 1e-6) * (np.exp(-0.5 * ((by_area - mean) / spread) ** 2) + AREA_TAIL) / spread
    return p / p.sum()


def count_distribution(estimate: PitEstimate, size: int) -> tuple[float, ...]:
    """P(count = k) for k < size: where seeds were counted one by one, how likely each count
    makes that count and the area (:func:`_evidence`); for a heap, a Gaussian round the area
    whose spread, measured on rendered boards, grows with the heap."""
    if estimate.evidence is not None:
        p = np.maximum(np.asarray(estimate.evidence[:size]), 1e-9)
        return tuple((p / p.sum()).tolist())
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
