"""Where the camera stands, from the homography that finds the board (vision.eye)."""

import math

import numpy as np
import pytest

from calibration.profiles import PROFILE_LAYOUTS
from vision.eye import angle_from_overhead, eye_from_homography
from vision.reader import BoardReader
from vision.render import camera_homography, eye_over_board, random_counts, random_scene, random_shot, render


@pytest.mark.parametrize("board", list(PROFILE_LAYOUTS))
def test_the_eye_comes_back_from_the_camera_s_own_homography(board):
    """The renderer's camera, 15-40 degrees from overhead: its homography of the board's plane
    gives back the point under the camera and its height, to a tenth of a millimetre."""
    rng = np.random.default_rng(11)
    for _ in range(3):
        scene = random_scene(board, rng)
        found = eye_from_homography(np.linalg.inv(camera_homography(scene)), scene.frame)
        assert found is not None
        assert np.allclose(found, eye_over_board(scene), atol=0.1)


@pytest.mark.parametrize("board", ["kalah", "4x8"])
def test_the_eye_from_a_read_frame_is_near_the_camera(setup_of, board):
    """From a frame the reader found by its markers, through a lens that bends it (the
    homography is fitted to distorted corners), the eye is within 5 % of the camera's distance."""
    scene, calibration = setup_of(board)
    rng = np.random.default_rng(4)
    shot = random_shot(rng, hard=True, hand=False)
    result = BoardReader(calibration).read(render(scene, *random_counts(scene.profile, rng), shot).image)
    found = eye_from_homography(result.image_to_board, scene.frame)
    truth = eye_over_board(scene, shot.nudge)
    width, height = scene.profile.size
    distance = math.dist(truth, (width / 2, height / 2, 0.0))
    assert found is not None and math.dist(found, truth) < 0.05 * distance


@pytest.mark.parametrize("board", ["kalah", "4x8"])
def test_the_camera_s_angle_from_overhead_comes_back_from_a_read_frame_within_a_degree_and_a_half(setup_of, board):
    """What ``pitwatch calibrate`` and ``doctor`` tell the players: how steeply the camera looks at
    the board's middle, from a hard frame through a lens that bends it, against the renderer's camera."""
    scene, calibration = setup_of(board)
    rng = np.random.default_rng(6)
    for _ in range(2):
        shot = random_shot(rng, hard=True, hand=False)
        result = BoardReader(calibration).read(render(scene, *random_counts(scene.profile, rng), shot).image)
        x, y, height = eye_over_board(scene, shot.nudge)
        width, depth = scene.profile.size
        truth = math.degrees(math.atan2(math.hypot(x - width / 2, y - depth / 2), height))
        found = angle_from_overhead(result.image_to_board, scene.frame, scene.profile.size)
        assert found is not None and abs(found - truth) < 1.5, (found, truth)


def test_a_camera_straight_overhead_has_no_eye_to_find():
    """Straight overhead the picture has no perspective and the focal length cannot be told from
    the height: no answer rather than a wrong one. A singular homography gives none either."""
    overhead = np.array([[0.5, 0.0, -100.0], [0.0, 0.5, -50.0], [0.0, 0.0, 1.0]])
    assert eye_from_homography(overhead, (1280, 720)) is None
    assert eye_from_homography(np.zeros((3, 3)), (1280, 720)) is None
