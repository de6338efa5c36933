"""Finding the board: markers in rendered frames, homographies, and hand-given corners."""

from dataclasses import replace

import numpy as np
import pytest

from calibration.profiles import board_profile
from vision import markers
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



@pytest.mark.parametrize("seed", range(6))
def test_markers_stuck_right_have_no_fault_whichever_one_is_covered(seed):
    """Six of the renderer's cameras (15-40 degrees from overhead, hard shots): no fault with all
    four markers seen, nor with any one of them under a hand; a marker turned is still named, in a
    picture to calibrate from, with any other one covered, from the end whose two markers are seen."""
    rng = np.random.default_rng(seed)
    scene = random_scene(("2x6+stores", "2x5+outboxes", "4x8")[seed % 3], rng)
    shot = random_shot(rng, hard=True, hand=False)
    found = detect_markers(cv2.cvtColor(render(scene, {}, None, shot).image, cv2.COLOR_BGR2GRAY))
    assert sorted(found) == [0, 1, 2, 3]
    assert markers.placement_fault(found) is None
    for covered in found:
        assert markers.placement_fault({i: c for i, c in found.items() if i != covered}) is None, covered
    turned = replace(scene, markers=((0, 0), (1, 0), (2, 1), (3, 0)))  # in a picture to calibrate from
    found = detect_markers(cv2.cvtColor(render(turned, {}, None, random_shot(rng, hard=False, hand=False)).image,
                                        cv2.COLOR_BGR2GRAY))
    assert sorted(found) == [0, 1, 2, 3]
    for covered in (0, 1, 3):
        fault = markers.placement_fault({i: c for i, c in found.items() if i != covered})
        assert fault is not None and fault.startswith("marker 2 (far-right) is stuck a quarter turn clockwise"), covered


@pytest.mark.parametrize("board, seed, relief", [("2x8+stores", 207, True), ("2x5+outboxes", 284, False)])
def test_a_steep_wide_camera_s_perspective_is_not_taken_for_a_marker_turned(board, seed, relief):
    """Cameras 39-40 degrees from overhead, the board filling the picture through a wide lens: the
    board's two ends run far apart on the picture. With one marker hidden, its partner across the
    board was judged by the other end's way and called turned (64 of 1,449 views of markers stuck
    right in a sweep of 300 set-ups, these two among them); it is judged by its neighbours now. A
    marker really turned is still named, with any other one hidden."""
    rng = np.random.default_rng(seed)
    scene = replace(random_scene(board, rng), relief=relief)
    shot = random_shot(rng, hard=False, hand=False)
    assert np.degrees(scene.tilt) > 38
    found = detect_markers(cv2.cvtColor(render(scene, {}, None, shot).image, cv2.COLOR_BGR2GRAY))
    assert sorted(found) == [0, 1, 2, 3]
    for covered in found:
        assert markers.placement_fault({i: c for i, c in found.items() if i != covered}) is None, covered
    for turned_id in found:
        turned = replace(scene, markers=tuple((i, 3 if i == turned_id else 0) for i in range(4)))
        found = detect_markers(cv2.cvtColor(render(turned, {}, None, shot).image, cv2.COLOR_BGR2GRAY))
        for covered in set(found) - {turned_id}:
            fault = markers.placement_fault({i: c for i, c in found.items() if i != covered})
            assert fault == (f"marker {turned_id} ({markers.MARKER_NAMES[turned_id]}) is stuck a quarter turn "
                             "anticlockwise: stick it upright as read from South's seat, as the sheet prints it"), covered


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
    tracker = MarkerTracker(scene.profile)
    for nudge in ((0.0, 0.0, 0.0), (6.0, -4.0, 0.01), (-5.0, 3.0, -0.015)):
        frame = cv2.cvtColor(render(scene, {"C": 3}, None, Shot(nudge=nudge, noise=2, seed=4)).image, cv2.COLOR_BGR2GRAY)
        tracked, fresh = tracker.find(frame), detect_markers(frame)
        assert sorted(tracked) == sorted(fresh) == [0, 1, 2, 3]
        assert max(float(np.abs(tracked[i] - fresh[i]).max()) for i in fresh) < 1.0
    corners = project(scene, np.array(board_profile("2x8+stores").marker_corners(2)), Shot(nudge=(-5.0, 3.0, -0.015)))
    assert np.abs(tracked[2] - corners).max() < 2.0  # and where the marker truly is (px)


def test_a_board_pushed_slowly_is_followed_not_left_behind():
    """A quarter of a millimetre a frame (7.5 mm/s at 30 frames/s, a slow push) changes a marker's
    patch too little from one frame to the next to notice; the tracker must still measure the
    marker again before the drift adds up (asked of the patch as it was when last measured).
    Its markers (35 px) are looked for at full size near their last place, where the corners
    must be refined too (2 px off otherwise)."""
    rng = np.random.default_rng(5)
    scene = random_scene("2x6+stores", rng)
    corners_mm = {i: np.array(scene.profile.marker_corners(i)) for i in range(4)}
    tracker = MarkerTracker(scene.profile)
    worst = 0.0
    for k in range(24):
        shot = Shot(nudge=(0.25 * k, 0.0, 0.0), noise=2, seed=4, exposure=k)
        tracked = tracker.find(cv2.cvtColor(render(scene, {"C": 3}, None, shot).image, cv2.COLOR_BGR2GRAY))
        assert sorted(tracked) == [0, 1, 2, 3]
        worst = max(worst, max(float(np.abs(tracked[i] - project(scene, corners_mm[i], shot)).max()) for i in tracked))
    assert worst < 1.2  # px; 11 px after 6 mm when each frame was compared with the one before


def test_markers_of_a_still_board_are_kept_through_sensor_noise():
    """The next exposure of a still board (new sensor noise and JPEG) keeps every marker's corners
    exactly, so the board's homography does not jitter and no marker is searched again; the
    noisiest and most compressed shot the benchmark renders."""
    rng = np.random.default_rng(21)
    scene = random_scene("4x8", rng)
    shot = replace(random_shot(rng, hard=True, hand=False), noise=8.0, jpeg=40)
    tracker = MarkerTracker(scene.profile)
    first = tracker.find(cv2.cvtColor(render(scene, {"A": 4}, None, shot).image, cv2.COLOR_BGR2GRAY))
    for exposure in range(1, 6):
        frame = render(scene, {"A": 4}, None, replace(shot, exposure=shot.seed + exposure)).image
        again = tracker.find(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
        assert sorted(again) == sorted(first) == [0, 1, 2, 3]
        assert all(np.array_equal(again[i], first[i]) for i in first)


def test_a_marker_half_under_a_hand_is_not_taken_for_one_that_stayed():
    """Half of a marker hidden (the board not moved) is no longer that marker's picture: it is
    looked for again, not kept, so the status does not claim a marker the camera cannot see."""
    rng = np.random.default_rng(3)
    scene = random_scene("2x6+stores", rng)
    gray = cv2.cvtColor(render(scene, {"C": 3}, None, random_shot(rng, hard=True, hand=False)).image, cv2.COLOR_BGR2GRAY)
    tracker = MarkerTracker(scene.profile)
    corners = tracker.find(gray)[1]
    (x0, y0), (x1, y1) = corners.min(axis=0).astype(int) - 4, corners.max(axis=0).astype(int) + 4
    covered = gray.copy()
    covered[y0:y1, x0:(x0 + x1) // 2] = 150  # skin over the marker's left half: it has not moved (0.1 px), peak 0.5
    assert sorted(tracker.find(covered)) == [0, 2, 3]


def test_a_marker_under_a_cup_costs_no_whole_frame_search_and_is_found_again(monkeypatch):
    """With three markers in view the board is found near where it was, frame after frame;
    the fourth is looked for where the other three put it, so it is back as soon as it shows,
    and the whole frame (as costly as reading it) is never searched."""
    rng = np.random.default_rng(8)
    scene = random_scene("2x5+outboxes", rng)
    shot = random_shot(rng, hard=True, hand=False)
    tracker = MarkerTracker(scene.profile)
    gray = cv2.cvtColor(render(scene, {"A": 2}, None, shot).image, cv2.COLOR_BGR2GRAY)
    corners = tracker.find(gray)[3]
    (x0, y0), (x1, y1) = corners.min(axis=0).astype(int) - 6, corners.max(axis=0).astype(int) + 6
    searches = []
    monkeypatch.setattr(markers, "detect_markers", lambda image: searches.append(1) or detect_markers(image))
    for exposure in range(1, 5):
        frame = cv2.cvtColor(render(scene, {"A": 2}, None, replace(shot, exposure=exposure)).image, cv2.COLOR_BGR2GRAY)
        if exposure < 4:
            frame[y0:y1, x0:x1] = 90  # a cup over marker 3
        assert sorted(tracker.find(frame)) == ([0, 1, 2] if exposure < 4 else [0, 1, 2, 3])
    assert np.abs(tracker.markers[3] - corners).max() < 1.0
    assert searches == []
