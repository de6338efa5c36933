"""The rectified view of a board that stays put: :class:`vision.rectify.BoardWarp` against
:func:`vision.rectify.warp_to_board`, on rendered camera frames."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.profiles import start_counts
from vision.reader import locate_board
from vision.render import Shot, random_counts, render
from vision.rectify import BoardWarp, warp_to_board


def placement_of(frame: np.ndarray, calibration) -> np.ndarray:
    homography, _ = locate_board(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), calibration)
    assert homography is not None
    return homography


def test_a_board_that_stays_put_is_warped_through_one_map_as_warpperspective_warps_it(kalah_setup):
    scene, calibration = kalah_setup
    start, _ = start_counts("kalah")
    played, _ = random_counts(calibration.profile, np.random.default_rng(5))
    first = render(scene, start, None, Shot(seed=3, noise=2.0, jpeg=90)).image
    placement = placement_of(first, calibration)
    nudged = render(scene, start, None, Shot(seed=3, noise=2.0, jpeg=90, nudge=(6.0, -4.0, 0.02))).image
    warp = BoardWarp(calibration.profile.size, calibration.px_per_mm)

    def warped(frame: np.ndarray, homography: np.ndarray) -> np.ndarray:
        return warp_to_board(frame, homography, calibration.profile.size, calibration.px_per_mm)

    assert np.array_equal(warp(first, placement), warped(first, placement))  # a placement's first frame
    for frame in (render(scene, played, None, Shot(seed=4, noise=2.0, jpeg=90)).image, first):  # then through the map
        off = np.abs(warp(frame, placement.copy()).astype(np.int16) - warped(frame, placement))
        assert off.max() <= 8 and np.mean(off > 2) < 0.005, (off.max(), np.mean(off > 2))
    moved = placement_of(nudged, calibration)
    assert np.array_equal(warp(nudged, moved), warped(nudged, moved))  # a new placement: not through the old map
