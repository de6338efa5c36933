"""How sharp the camera's picture is, from the edges of the printed markers.

A webcam whose autofocus hunts, or one focused by hand for another distance,
blurs the seeds into each other, and the counter, trained on pictures in
focus, then misreads pits of a few seeds and can be sure of it
(docs/vision.md, section 2). The markers are the one thing in every picture
whose true edge is known to be a step: a black square printed on white paper.
How far each side's step spreads across it is the picture's blur there, and,
divided by the marker's size in the picture, the blur in millimetres of board:
what matters for seeds of 8-12 mm, whatever the camera's resolution.

Motion blur spreads the sides across the motion and not along it, a lens out
of focus spreads them all: the median over the sides seen reports both, as the
counter suffers from both. Over ``BLURRED_MM`` the reader's status asks for the
camera to be focused, and the frame is counted by the networks trained also out of
focus (:mod:`vision.counter`, ``OUT_OF_FOCUS``); over ``TOO_BLURRED_MM`` (:func:`too_blurred_mm`) it counts no pit of the frame
(an autofocus that hunts gives a sharp frame again within a second, and the
stillness gate waits for it), and calibration refuses a picture over
``BLURRED_MM``. Seeds differ: where a board's start position, blurred at
calibration, was misread sooner, frames blurrier than that are read with every
count kept possible (``Calibration.blur_limit_mm``), so that the referee asks
rather than errs.

A board found by its corners has no markers to measure. Its wood's grain
tells instead (:meth:`vision.grain.Grain.blur_mm`): how far the empty board's
grain must be blurred to fade as much as a frame's has is how much blurrier
the frame is than the empty board's picture, which is taken to have been in
focus (``IN_FOCUS_MM``); the two add as a Gaussian's do (:func:`grain_blur_mm`).
The wood under a hand is left out (skin has no grain), and a board of wood
without any grain is not measured.
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.profiles import MARKER_MM

BLURRED_MM = 1.0  # blurrier than this, pits of 0-9 seeds are read exactly less than 99.5 % of the time by the
# networks trained in focus, so the status asks for focus and the networks trained also out of focus read it...
TOO_BLURRED_MM = 1.3  # ...and over this even they read pits of 0-9 under 93 % exactly on a board seen in depth,
# some surely, and the markers' measure nears where the markers are lost: such a picture is not counted. In a picture
TOO_BLURRED_SMALL_MM = 1.2  # smaller than 1280 x 720, whose coarser pixels blur it more, a tenth of a millimetre
# sooner (benchmarks/focus_bench.py; docs/vision.md, section 2)
MARKER_BITS = 6  # a DICT_4X4 marker is 4 x 4 bits inside a black border one bit wide
ACROSS_BITS = np.linspace(-0.9, 0.9, 37)  # where each side's step is sampled across it, in bits: the
# black border inside, the white paper (5 mm, a bit wide) outside
ALONG = np.linspace(0.2, 0.8, 12)  # where along each side its step is sampled: away from the corners
OUTER = np.abs(ACROSS_BITS) > 0.55  # the samples that show the black border or the white paper, clear of the step
LEAST_BIT_PX = 2.5  # a marker whose bit is smaller across a side (15 px a side) is too small to show its step
LEAST_CONTRAST = 20.0  # grey levels from black to white below which a side is not measured (a shadow, a glare)
LEAST_SIDES = 4  # fewer sides measured than this: no measure
QUARTILES_PER_SIGMA = 1.349  # a Gaussian blur of sigma spreads a step from its 25 % to its 75 % over 1.349 sigma
IN_FOCUS_MM = 0.3  # the blur taken for a board's empty picture when no marker measures it: the markers' median
# on rendered frames in focus (benchmarks/focus_bench.py)


def too_blurred_mm(small_picture: bool) -> float:
    """The blur over which a picture is not counted: ``TOO_BLURRED_MM``, or ``TOO_BLURRED_SMALL_MM``
    for a ``small_picture`` (smaller than 1280 x 720)."""
    return TOO_BLURRED_SMALL_MM if small_picture else TOO_BLURRED_MM


def measured_at(corners: bool) -> str:
    """What a picture's blur is measured at, for status messages: the markers' edges, or the
    wood's grain on a board found by its ``corners``."""
    return "the wood's grain" if corners else "the markers' edges"


def grain_blur_mm(added_mm: float) -> float:
    """The blur of a frame of a board found by its corners that its wood's grain says is
    ``added_mm`` blurrier than the empty board's picture, taken to be ``IN_FOCUS_MM``."""
    return float(np.hypot(IN_FOCUS_MM, added_mm))


def marker_blur_mm(gray: np.ndarray, found: dict[int, np.ndarray]) -> float | None:
    """The median blur (a Gaussian's sigma, in millimetres of board) of the sides of the markers
    ``found`` (id -> 4 x 2 corners in ``gray``'s pixels, as ArUco gives them, going round the
    marker); None when too few sides can be measured (markers too small or out of view, a hand's
    shadow over them)."""
    profiles = _side_profiles(gray, found)
    if profiles is None:
        return None
    black = profiles[:, OUTER & (ACROSS_BITS < 0)].mean(axis=1)
    white = profiles[:, OUTER & (ACROSS_BITS > 0)].mean(axis=1)
    clear = white - black >= LEAST_CONTRAST
    if clear.sum() < LEAST_SIDES:
        return None
    rise = np.maximum.accumulate((profiles[clear] - black[clear, None]) / (white - black)[clear, None], axis=1)
    spread_bits = _crossing(rise, 0.75) - _crossing(rise, 0.25)
    return float(np.median(spread_bits / QUARTILES_PER_SIGMA * MARKER_MM / MARKER_BITS))


def _side_profiles(gray: np.ndarray, found: dict[int, np.ndarray]) -> np.ndarray | None:
    """The step across every side of every marker big enough to show it, from its black border
    out to the white paper (one row per side, sampled at ``ACROSS_BITS`` of the bit across that
    side and averaged along it); None when no marker is. All sides are sampled in one remap: a
    frame's budget is milliseconds."""
    if not found:
        return None
    corners = np.array([np.asarray(c, np.float32).reshape(4, 2) for c in found.values()])  # markers x 4 x 2
    ends = np.roll(corners, -1, axis=1)
    sides = ends - corners
    lengths = np.linalg.norm(sides, axis=2)
    x, y = corners[..., 0], corners[..., 1]
    area = np.abs(np.sum(x * np.roll(y, -1, axis=1) - np.roll(x, -1, axis=1) * y, axis=1)) / 2
    bit_px = area[:, None] / lengths / MARKER_BITS  # a bit's size across each side: an oblique view foreshortens some
    big = bit_px.min(axis=1) >= LEAST_BIT_PX
    if not big.any():
        return None
    corners, ends, sides, lengths, bit_px = (v[big] for v in (corners, ends, sides, lengths, bit_px))
    normals = np.stack([-sides[..., 1], sides[..., 0]], axis=-1) / lengths[..., None]
    outward = np.sum(normals * ((corners + ends) / 2 - corners.mean(axis=1, keepdims=True)), axis=2) > 0
    normals *= np.where(outward, 1.0, -1.0)[..., None]  # from the black border out to the white paper
    points = corners[:, :, None, :] + ALONG[None, None, :, None] * sides[:, :, None, :]  # markers x 4 x along x 2
    offsets = ACROSS_BITS[None, None, None, :, None] * bit_px[:, :, None, None, None] * normals[:, :, None, None, :]
    where = (points[:, :, :, None, :] + offsets).astype(np.float32).reshape(-1, len(ACROSS_BITS), 2)
    samples = cv2.remap(gray, where[..., 0].copy(), where[..., 1].copy(), cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return samples.astype(np.float32).reshape(-1, len(ALONG), len(ACROSS_BITS)).mean(axis=1)


def _crossing(rise: np.ndarray, level: float) -> np.ndarray:
    """Where (in bits across the side) each row of ``rise`` (non-decreasing) first reaches ``level``."""
    after = np.argmax(rise >= level, axis=1).clip(1, rise.shape[1] - 1)
    rows = np.arange(len(rise))
    below, above = rise[rows, after - 1], rise[rows, after]
    fraction = np.clip((level - below) / np.maximum(above - below, 1e-6), 0, 1)
    return ACROSS_BITS[after - 1] + fraction * (ACROSS_BITS[1] - ACROSS_BITS[0])
