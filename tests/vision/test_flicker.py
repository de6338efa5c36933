"""Mains flicker: the change of light along the picture's rows, measured and divided out."""

import cv2
import numpy as np
import pytest

from vision.flicker import CLIPPED, RowLight, brightest, picture_rows, unclipped

TILTED = np.array([[0.9, 0.12, -40.0], [-0.05, 1.6, -150.0], [0.0, 0.0006, 1.0]])  # picture px -> board mm


def test_picture_rows_follow_the_homography():
    """Each board pixel's row in the picture, as the homography's inverse places it."""
    rows = picture_rows((50, 120), TILTED, 0.75)
    to_picture = np.linalg.inv(TILTED)
    for y, x in [(0, 0), (49, 119), (20, 60)]:
        board_mm = np.array([[[(x + 0.5) / 0.75, (y + 0.5) / 0.75]]])
        assert abs(rows[y, x] - cv2.perspectiveTransform(board_mm, to_picture)[0, 0, 1]) < 1e-3


def test_a_light_that_changes_along_the_rows_is_measured_and_a_seed_moved_is_not_taken_for_it():
    """Bands of light 30 % either way, drawn along the picture's rows of a tilted board: the gain
    measured is the bands', to half a percent (at the board's far and near edges too, which cover
    bins of rows only in part), even where a seed-sized spot of the board changed too."""
    rng = np.random.default_rng(4)
    shape = (90, 300)
    rows = picture_rows(shape, TILTED, 0.75)
    before = cv2.GaussianBlur(rng.uniform(0.4, 1.6, shape).astype(np.float32), (0, 0), 1.5)
    bands = (1 + 0.3 * np.cos(2 * np.pi * rows / 216)).astype(np.float32)
    now = before * bands
    now[40:47, 100:107] *= 1.8  # a seed dropped: a spot of 7 x 7 px changed far beyond the light
    gain, swing = RowLight(rows).change(now, before)
    outside = np.ones(shape, bool)
    outside[40:47, 100:107] = False
    assert np.abs(gain / bands - 1)[outside].max() < 0.005
    assert np.abs(now / gain - before)[40:47, 100:107].min() > 0.3  # the seed is still a change
    assert abs(swing - 0.5 * np.log(bands.max() / bands.min())) < 0.01


@pytest.mark.parametrize("phase", [0.17, 0.5, 0.67])
def test_a_marker_clipped_in_a_bright_band_does_not_pull_the_light_measured_off(phase):
    """A marker's white paper at the board's far-left corner, where the picture's top rows cross
    little else, clipped where a band of 25 % brightens it: measured on every pixel, its bins of
    rows took the paper's change, less than the light's, for the light, 16-24 % off on the wood
    beside it (the gate then saw that wood change). Measured on the pixels neither frame clipped,
    the gain is the bands' to 1 % on the wood."""
    rng = np.random.default_rng(4)
    shape = (90, 300)
    rows = picture_rows(shape, TILTED, 0.75)
    board = cv2.GaussianBlur(rng.uniform(90, 150, shape).astype(np.float32), (0, 0), 1.5)
    board[0:24, 0:50] = 245  # the marker's paper, in grey levels
    before_bands, now_bands = (1 + 0.25 * np.cos(2 * np.pi * (rows / 216 + phase + shift)) for shift in (0, 1 / 3))
    before, now = (np.minimum(board * bands, 255).astype(np.float32) for bands in (before_bands, now_bands))
    gain, _ = RowLight(rows).change(now, before, (before < CLIPPED) & (now < CLIPPED))
    wood = board < 245
    assert np.abs(gain / (now_bands / before_bands) - 1)[wood].max() < 0.01


@pytest.mark.parametrize("phase", [0.0, 0.25, 0.5, 0.75])
def test_bins_of_rows_with_nothing_to_measure_take_their_level_from_their_neighbours(phase):
    """A strip of picture rows where every pixel measured was clipped in one frame or the other
    (three bins of rows with nothing left to measure): the gain there is the line through its
    neighbours' levels, the bands' to 2 % (a level of nothing, no change of light, would be up
    to a third off), and the wood elsewhere keeps its gain to 2 %."""
    rng = np.random.default_rng(4)
    shape = (90, 300)
    rows = picture_rows(shape, TILTED, 0.75)
    board = cv2.GaussianBlur(rng.uniform(90, 150, shape).astype(np.float32), (0, 0), 1.5)
    before_bands, now_bands = (1 + 0.25 * np.cos(2 * np.pi * (rows / 216 + phase + shift)) for shift in (0, 1 / 3))
    before, now = (board * bands for bands in (before_bands, now_bands))
    strip = (rows > 150) & (rows < 162)
    gain, _ = RowLight(rows).change(now, before, ~strip)
    error = np.abs(gain / (now_bands / before_bands) - 1)
    assert error[strip].max() < 0.02
    assert error[~strip].max() < 0.02


def test_no_change_of_light_is_a_gain_of_one():
    rng = np.random.default_rng(5)
    board = rng.uniform(0.5, 1.5, (40, 80)).astype(np.float32)
    gain, swing = RowLight(picture_rows(board.shape, TILTED, 0.75)).change(board, board)
    assert np.allclose(gain, 1.0, atol=1e-3) and swing < 1e-3


def test_a_clipped_pixel_is_taken_as_bright_as_the_other_frame_says_and_no_brighter_pixel_is_dimmed():
    """Clipped, a pixel only says it was at least that bright: it is filled in with the other
    frame's value in this light where that is brighter, never where it is darker (a new seed
    with a glint of its own), and a pixel not clipped keeps its value."""
    gray = np.array([[250.0, 250.0, 120.0]], np.float32)
    bright = np.array([[255, 255, 130]], np.uint8)
    expected = np.array([[290.0, 100.0, 160.0]], np.float32)
    assert unclipped(gray, bright, expected).tolist() == [[290.0, 250.0, 120.0]]


def test_brightest_is_the_brightest_channel_around_each_smaller_pixel():
    board = np.zeros((8, 8, 3), np.uint8)
    board[5, 2, 1] = CLIPPED  # one clipped green pixel
    small = brightest(board, (4, 4))
    assert small.shape == (4, 4) and small[2, 1] == CLIPPED and (small >= CLIPPED).sum() <= 4
