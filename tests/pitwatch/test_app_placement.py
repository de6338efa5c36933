"""Where the camera stands over the board, judged from the homography that finds it
(pitwatch.placement): what ``pitwatch calibrate`` and ``pitwatch doctor`` tell the players.
The renderer's cameras stand in for real ones: their homographies are exact."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from calibration.profiles import PROFILE_LAYOUTS
from pitwatch.placement import (EXACT_5_9_BY_DISTANCE, Judged, far_edge_px_per_mm, judge_board_scale, judge_camera_angle,
                                judge_placement)
from vision.render import Scene, camera_homography, random_scene


def scene_of(board: str = "kalah", **changes: float) -> Scene:
    return replace(random_scene(board, np.random.default_rng(2)), **changes)


def found_by(scene: Scene) -> np.ndarray:
    """The homography the reader finds the board by (image px -> board mm), here the camera's own."""
    return np.linalg.inv(camera_homography(scene))


def test_beyond_25_degrees_from_overhead_the_players_are_told_to_raise_the_camera():
    def judged(degrees: float) -> tuple[bool, str]:
        scene = scene_of(tilt=math.radians(degrees))
        return judge_camera_angle(found_by(scene), scene.frame, scene.profile.size)

    ok, detail = judged(20)
    assert ok and detail.startswith("20 degrees from overhead at the board's middle; ") and "97.32-98.96 %" in detail
    ok, detail = judged(30)
    assert not ok and detail.startswith("30 degrees from overhead at the board's middle: ")
    assert "94.70-96.18 % of the time from 25-33 degrees, against 97.32-98.96 % within 25" in detail
    assert detail.endswith("mount the camera higher, or nearer over the board's middle")
    assert "90.11-93.41 % of the time from 33-41 degrees" in judged(38)[1]
    ok, detail = judged(46)
    assert not ok and "46 degrees from overhead at the board's middle, beyond the 41 degrees the reader was measured at" in detail


def test_a_camera_straight_overhead_shows_no_perspective_to_measure_its_angle_by():
    overhead = np.array([[0.5, 0.0, -100.0], [0.0, 0.5, -50.0], [0.0, 0.0, 1.0]])
    assert judge_camera_angle(overhead, (1280, 720), (520.0, 230.0)) == (
        True, "not measured: the board shows too little perspective to tell, as from straight overhead (best)")


@pytest.mark.parametrize("times, scales", [(times, scales) for times, scales, _ in EXACT_5_9_BY_DISTANCE])
def test_the_scales_quoted_are_those_of_the_benchmark_s_cameras(times, scales):
    """The far-edge scales quoted are what the renderer's cameras give, as ``vision_bench.py --far
    TIMES`` places them (the board filling 1 / TIMES as much of the picture): every board, 300 set-ups."""
    found = []
    for board in PROFILE_LAYOUTS:
        rng = np.random.default_rng(1)
        for _ in range(300):
            scene = random_scene(board, rng)
            scene = replace(scene, fill=scene.fill / times)
            found.append(far_edge_px_per_mm(found_by(scene), scene.profile.size))
    assert (round(min(found), 2), round(max(found), 2)) == scales


def test_a_board_far_from_the_camera_spans_few_pixels_and_the_players_are_told_to_move_it_nearer():
    """A camera farther off than the benchmark's (the board filling less of the picture's width
    than 72-90 %): said, with what the benchmark read with cameras that far, and what to do."""
    def judged(fill: float) -> tuple[bool, str]:
        scene = scene_of(fill=fill)
        return judge_board_scale(found_by(scene), scene.profile.size)

    ok, detail = judged(0.85)
    assert ok and detail.endswith("camera pixels a millimetre; the benchmark's cameras gave 1.33-2.55"), detail
    (_, _, best), (_, _, half_again), (_, _, twice) = EXACT_5_9_BY_DISTANCE
    ok, detail = judged(0.55)
    assert not ok and f"cameras 1.5 times as far as its own (0.91-1.73) read pits of 5-9 seeds exactly {half_again}" in detail
    assert f"against {best} at 1.33-2.55; move the camera nearer, or zoom in" in detail, detail
    ok, detail = judged(0.35)
    assert not ok and f"cameras 2 times as far as its own (0.69-1.31) read pits of 5-9 seeds exactly {twice}" in detail
    far = scene_of(fill=0.35)
    assert detail.startswith(f"the board's far edge spans {far_edge_px_per_mm(found_by(far), far.profile.size):.2f} ")
    ok, detail = judged(0.25)
    assert not ok and ", fewer than the benchmark's cameras gave even 2 times as far: " in detail, detail
    assert detail.endswith("until the board fills most of the picture's width")


def test_in_a_picture_smaller_than_the_reader_is_measured_at_the_board_s_scale_is_not_judged():
    """The figures by distance are of 1280 x 720 cameras: in a 640 x 480 picture the board spans
    few pixels however near the camera stands, and the picture's size is what to fix."""
    scene = scene_of(tilt=math.radians(20))
    judged = judge_placement(found_by(scene), scene.frame, scene.profile.size)
    assert scene.frame == (1280, 720)
    assert judged == [Judged("camera angle", *judge_camera_angle(found_by(scene), scene.frame, scene.profile.size)),
                      Judged("board in the picture", *judge_board_scale(found_by(scene), scene.profile.size))]
    small = replace(scene, frame=(640, 480))
    angle, scale = judge_placement(found_by(small), small.frame, small.profile.size)
    assert angle == Judged("camera angle", True, (
        "20 degrees from overhead at the board's middle; on the benchmark pits of 5-9 seeds are read exactly "
        "97.32-98.96 % of the time within 25 degrees"))
    assert scale == Judged("board in the picture", False, (
        "not judged in a 640 x 480 picture: the reader is measured at 1280 x 720 and counts seeds worse in a smaller "
        "one; ask the camera for 1280 x 720 (camera.size = \"1280x720\"), or record the board at that size"))


def test_a_degenerate_homography_is_not_judged_and_raises_nothing():
    """The camera loop judges every still board's homography: a singular one (no board maps
    back into the picture) must cost no Reading, only the judgement."""
    singular = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]])
    angle, scale = judge_placement(singular, (1280, 720), (520.0, 230.0))
    assert angle.ok and angle.said.startswith("not measured: ")
    assert scale == Judged("board in the picture", True, "not measured: the homography that found the board is degenerate")
