"""Calibration from two pictures: hollows found and matched, the seed learned, bad input refused."""

import math

import numpy as np
import pytest

from calibration.calibfile import CalibrationError
from calibration.calibrate import calibrate
from calibration.profiles import PROFILE_LAYOUTS, board_profile, start_counts
from vision.render import project, random_scene, random_shot, render


@pytest.mark.parametrize("board", list(PROFILE_LAYOUTS))
def test_every_hollow_found_near_its_true_place(board, setup_of):
    scene, calibration = setup_of(board)
    profile = board_profile(board)
    ppm = calibration.px_per_mm
    for hollow in profile.hollows:
        fit = calibration.hollows[hollow.label]
        assert math.dist(fit.centre, (hollow.centre[0] * ppm, hollow.centre[1] * ppm)) < 4 * ppm, hollow.label
        assert 0.8 < fit.axes[0] * fit.axes[1] / (hollow.axes[0] * hollow.axes[1] * ppm * ppm) < 1.3, hollow.label
    seed_mm2 = calibration.seed_area / ppm**2
    assert 40 < seed_mm2 < 200, "one seed of 8-12 mm covers roughly 50-150 mm2"
    assert (calibration.white_area is not None) == profile.chips


def _frames(board, seed=3, kind=None):
    rng = np.random.default_rng(seed)
    scene = random_scene(board, rng, kind)
    empty = render(scene, {}, None, random_shot(rng, hard=False, hand=False)).image
    counts, white = start_counts(board)
    start = render(scene, counts, white, random_shot(rng, hard=False, hand=False)).image
    return scene, empty, start


def test_start_image_without_seeds_is_refused():
    _, empty, _ = _frames("2x6")
    with pytest.raises(CalibrationError, match="no seeds found"):
        calibrate("2x6", empty, empty)


def test_wrong_board_type_is_refused():
    _, empty, start = _frames("2x8+stores")
    with pytest.raises(CalibrationError, match="no hollow found"):
        calibrate("2x6+stores", empty, start)


def test_no_markers_needs_corners_and_corners_work():
    scene, empty, start = _frames("2x6", seed=4)
    blank = empty.copy()
    blank[:] = 120
    with pytest.raises(CalibrationError, match="markers not found"):
        calibrate("2x6", blank, start)
    corners = project(scene, np.array(board_profile("2x6").board_corners())).ravel()
    calibration = calibrate("2x6", empty, start, corners=corners)
    assert calibration.corners is not None and len(calibration.hollows) == 12
