"""Finding the board: markers in rendered frames, homographies, and hand-given corners."""

import numpy as np
import pytest

from calibration.profiles import board_profile
from vision.markers import MarkerTracker, detect_markers, homography_from_corners, homography_from_markers, parse_corners
from vision.render import Shot, project, random_scene, random_shot, render

import cv2


@pytest.mark.parametrize("board", ["2x6+stores", "2x5+outboxes", "4x8"])
def test_markers_found_and_homography_maps_pits_to_their_place(board):
    rng = np.random.default_rng(21)
    scene = random_scene(board, rng)
    shot = random_shot(rng, hard=False, hand=False)
    frame = render(scene, {}, None, shot).image
    found = detect_markers(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
    assert sorted(found) == [0, 1, 2, 3]
    profile = board_profile(board)
    homography = homography_from_markers(found, profile)
    centres = np.array([h.centre for h in profile.hollows])
    in_image = project(scene, centres, shot)
    back = cv2.perspectiveTransform(in_image.reshape(-1, 1, 2), homography).reshape(-1, 2)
    assert np.abs(back - centres).max() < 4.0  # mm, lens distortion included


def test_marker_ids_go_round_the_board_from_souths_seat():
    rng = np.random.default_rng(5)
    scene = random_scene("2x6", rng)
    found = detect_markers(cv2.cvtColor(render(scene, {}, None, Shot()).image, cv2.COLOR_BGR2GRAY))
    centre = {i: c.mean(axis=0) for i, c in found.items()}
    assert centre[0][0] < centre[1][0] and centre[3][0] < centre[2][0]  # left of right
    assert centre[0][1] > centre[3][1] and centre[1][1] > centre[2][1]  # near is lower in the picture


def test_three_markers_are_enough_two_are_not():
    rng = np.random.default_rng(6)
    scene = random_scene("2x6", rng)
    found = detect_markers(cv2.cvtColor(render(scene, {}, None, Shot()).image, cv2.COLOR_BGR2GRAY))
    profile = board_profile("2x6")
    assert homography_from_markers({i: found[i] for i in (0, 1, 2)}, profile) is not None
    assert homography_from_markers({i: found[i] for i in (0, 2)}, profile) is None


def test_corners_given_by_hand():
    rng = np.random.default_rng(8)
    scene = random_scene("2x8", rng)
    profile = board_profile("2x8")
    corners = project(scene, np.array(profile.board_corners()))
    homography = homography_from_corners(corners.ravel(), profile)
    centre = project(scene, np.array([profile.hollow("C").centre]))
    back = cv2.perspectiveTransform(centre.reshape(-1, 1, 2), homography).reshape(2)
    assert np.abs(back - profile.hollow("C").centre).max() < 6.0
    with pytest.raises(ValueError, match="expected 8 numbers"):
        parse_corners("1,2,3")
    with pytest.raises(ValueError, match="not a list of numbers"):
        parse_corners("1,2,x,4,5,6,7,8")


def test_tracked_markers_follow_a_nudged_board_as_a_fresh_search_finds_them():
    """Frame after frame the markers are looked for round their last place (at half size,
    corners refined at full size): they must land where a whole-frame search puts them."""
    rng = np.random.default_rng(13)
    scene = random_scene("2x8+stores", rng)
    tracker = MarkerTracker()
    for nudge in ((0.0, 0.0, 0.0), (6.0, -4.0, 0.01), (-5.0, 3.0, -0.015)):
        frame = cv2.cvtColor(render(scene, {"C": 3}, None, Shot(nudge=nudge, noise=2, seed=4)).image, cv2.COLOR_BGR2GRAY)
        tracked, fresh = tracker.find(frame), detect_markers(frame)
        assert sorted(tracked) == sorted(fresh) == [0, 1, 2, 3]
        assert max(float(np.abs(tracked[i] - fresh[i]).max()) for i in fresh) < 1.0
    corners = project(scene, np.array(board_profile("2x8+stores").marker_corners(2)), Shot(nudge=(-5.0, 3.0, -0.015)))
    assert np.abs(tracked[2] - corners).max() < 2.0  # and where the marker truly is (px)
