"""Where the camera stands over the board, judged from the homography that finds it
(pitwatch.placement): what ``pitwatch calibrate`` and ``pitwatch doctor`` tell the players.
The renderer's cameras stand in for real ones: their homographies are exact."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from calibration.profiles import PROFILE_LAYOUTS
from pitwatch.placement import (EXACT_5_9_BY_SIZE, FAR_EDGE_PX_PER_MM, far_edge_px_per_mm, judge_board_scale,
                                judge_camera_angle)
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
    assert ok and detail.startswith("20 degrees from overhead at the board's middle; ") and "99.25-99.67 %" in detail
    ok, detail = judged(30)
    assert not ok and detail.startswith("30 degrees from overhead at the board's middle: ")
    assert "98.26-98.68 % of the time from 25-33 degrees, against 99.25-99.67 % within 25" in detail
    assert detail.endswith("mount the camera higher, or nearer over the board's middle")
    assert "96.32-97.65 % of the time from 33-41 degrees" in judged(38)[1]
    ok, detail = judged(46)
    assert not ok and "46 degrees from overhead at the board's middle, beyond the 41 degrees the reader was measured at" in detail


def test_a_camera_straight_overhead_shows_no_perspective_to_measure_its_angle_by():
    overhead = np.array([[0.5, 0.0, -100.0], [0.0, 0.5, -50.0], [0.0, 0.0, 1.0]])
    assert judge_camera_angle(overhead, (1280, 720), (520.0, 230.0)) == (
        True, "not measured: the board shows too little perspective to tell, as from straight overhead (best)")


@pytest.mark.parametrize("size", list(FAR_EDGE_PX_PER_MM))
def test_the_scales_quoted_are_those_of_the_benchmark_s_cameras(size):
    """FAR_EDGE_PX_PER_MM is what the renderer's cameras give, every board, 300 set-ups each."""
    scales = []
    for board in PROFILE_LAYOUTS:
        rng = np.random.default_rng(1)
        for _ in range(300):
            scene = random_scene(board, rng, frame=size)
            scales.append(far_edge_px_per_mm(found_by(scene), scene.profile.size))
    assert (round(min(scales), 2), round(max(scales), 2)) == FAR_EDGE_PX_PER_MM[size]


def test_a_board_far_from_the_camera_is_seen_as_in_a_small_picture_and_the_players_told_to_move_it_nearer():
    """A camera far off (the board filling less of a 1280 x 720 picture's width than the
    benchmark's 72-90 %) shows seeds as a 640 x 480 picture does: said, with its figure."""
    near = scene_of(fill=0.85)
    ok, detail = judge_board_scale(found_by(near), near.profile.size)
    assert ok and detail.endswith("; the benchmark read 1.33-2.55 at 1280 x 720"), detail
    half = scene_of(fill=0.55)
    ok, detail = judge_board_scale(found_by(half), half.profile.size)
    assert not ok and "as a 1024 x 768 picture shows a board (1.07-2.04 on the benchmark" in detail, detail
    assert f"read exactly {EXACT_5_9_BY_SIZE[(1024, 768)]} of the time, against 99.50-99.75 % at 1.33-2.55" in detail
    far = scene_of(fill=0.35)
    ok, detail = judge_board_scale(found_by(far), far.profile.size)
    assert not ok and "as a 640 x 480 picture shows a board" in detail and "93.9-95.0 %" in detail, detail
    assert detail.endswith("move the camera nearer, or zoom in, until the board fills most of the picture's width")
    scale = float(detail.split("spans ")[1].split(" ")[0])
    assert scale == pytest.approx(far_edge_px_per_mm(found_by(far), far.profile.size), abs=0.005) and scale < 0.9
