"""Calibration from two pictures: the empty board, then the start position.

The empty board shows where every hollow is and what bare wood and empty
hollows look like under this lamp. The start position, whose counts are
known from the variant, shows what one seed looks like here: how many
rectified pixels a seed covers (and, on a Pass It On board, a white chip).
"""

from __future__ import annotations

from typing import Sequence

import cv2
import numpy as np

from vision.markers import MARKER_NAMES
from vision.pits import find_hollows
from vision.reader import BoardReader, locate_board
from vision.rectify import warp_to_board

from .calibfile import Calibration, CalibrationError
from .profiles import PROFILE_LAYOUTS, board_profile, start_counts

DEFAULT_PX_PER_MM = 1.5


def _rectified(frame: np.ndarray, name: str, probe: Calibration, what: str) -> np.ndarray:
    if frame is None or not isinstance(frame, np.ndarray) or frame.ndim != 3:
        raise CalibrationError(f"{what}: not a colour image")
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    homography, found = locate_board(gray, probe)
    if homography is None:
        missing = [MARKER_NAMES[i] for i in MARKER_NAMES if i not in found]
        raise CalibrationError(f"{what}: board markers not found (missing {', '.join(missing)}); "
                               "print them with `pitwatch markers` or give --corners")
    board = warp_to_board(frame, homography, probe.profile.size, probe.px_per_mm)
    if (board.max(axis=2) == 0).mean() > 0.02:
        raise CalibrationError(f"{what}: part of the {name} board is out of the picture")
    return board


def calibrate(name: str, empty: np.ndarray, start: np.ndarray, corners: Sequence[float] | None = None,
              px_per_mm: float = DEFAULT_PX_PER_MM) -> Calibration:
    """Build a :class:`Calibration` for variant or board ``name`` from two BGR frames.

    ``corners`` (8 numbers, image x,y of near-left, near-right, far-right,
    far-left board corners) replaces the markers for a board without them.
    Raises :class:`CalibrationError` naming what is wrong.
    """
    profile = board_profile(name)
    shape = (int(round(profile.size[1] * px_per_mm)), int(round(profile.size[0] * px_per_mm)), 3)
    probe = Calibration(profile.name, None, px_per_mm, {}, 1.0, None, np.zeros(shape, np.uint8),
                        None if corners is None else tuple(float(c) for c in corners))
    empty_board = _rectified(empty, profile.name, probe, "empty image")
    hollows = find_hollows(empty_board, profile, px_per_mm)
    variant = None if name in PROFILE_LAYOUTS else name
    draft = Calibration(profile.name, variant, px_per_mm, hollows, 1.0, 1.0 if profile.chips else None, empty_board, probe.corners)

    start_board = _rectified(start, profile.name, draft, "start image")
    reader = BoardReader(draft)
    pixels = reader.seed_pixels(start_board)
    counts, white = start_counts(name)
    per_seed = [reader.pits[label].area(pixels.seeds) / n for label, n in counts.items() if n > 0]
    if not per_seed:
        raise CalibrationError(f"start position of {name}: no pit holds seeds, nothing to learn from")
    seed_area = float(np.median(per_seed))
    if seed_area < 4 * px_per_mm**2:
        raise CalibrationError("start image: no seeds found in the pits; is it the start position, on the same board as the empty image?")
    white_area = None
    if profile.chips:
        whites = [reader.pits[label].area(pixels.white) / n for label, n in (white or {}).items() if n > 0]
        white_area = float(np.median(whites)) if whites else seed_area
        if white_area < 0.3 * seed_area:
            raise CalibrationError("start image: no white chip found where the start position has one (pits A and a)")
    return Calibration(profile.name, variant, px_per_mm, hollows, seed_area, white_area, empty_board, probe.corners)
