"""A rendered board without markers, for the board-corner tests of the app and the dashboard.

The renderer (``vision/render/``) always draws the four ArUco markers, so
here they are covered with patches of the board's own wood colour: the
picture then holds a board the marker detector cannot find, as at a club
table whose board never had markers. The board is calibrated the way
``pitwatch calibrate --corners`` does, with its true corners at rest; then
it is nudged on the table (:data:`MOVED`), so the saved corners are stale
until the player clicks the new ones.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

from calibration.calibfile import Calibration
from calibration.calibrate import calibrate
from calibration.profiles import MARKER_MM, MARKER_QUIET_MM, board_profile, start_counts
from vision.render import Scene, Shot, project, random_scene, render

VARIANT = "kalah"
SCENE_SEED = 6  # glass beads: a scene the reader reads exactly at the start position
AT_REST = Shot(noise=2.0, jpeg=90)
MOVED = Shot(noise=2.0, jpeg=90, nudge=(20.0, -38.0, 0.03), seed=3)  # the board pushed 4.3 cm and turned 2 degrees:
# too far to follow as a nudge (vision.nudge), so the reader asks for the corners again


@functools.lru_cache(maxsize=1)
def scene() -> Scene:
    return random_scene(board_profile(VARIANT).name, np.random.default_rng(SCENE_SEED))


def start() -> dict[str, int]:
    return start_counts(VARIANT)[0]


def frame(counts: dict[str, int], shot: Shot) -> np.ndarray:
    """The board showing ``counts``, its markers covered by wood-coloured patches."""
    image = render(scene(), counts, None, shot).image.copy()
    profile = scene().profile
    half = MARKER_MM / 2 + MARKER_QUIET_MM + 1.0
    for marker_id in range(4):
        cx, cy = profile.marker_centre(marker_id)
        patch = project(scene(), np.array([(cx - half, cy - half), (cx + half, cy - half), (cx + half, cy + half), (cx - half, cy + half)]), shot)
        around = project(scene(), np.array([(cx - half - 4, cy), (cx + half + 4, cy), (cx, cy - half - 4), (cx, cy + half + 4)]), shot)
        wood = np.median([image[int(y), int(x)] for x, y in around], axis=0)
        cv2.fillConvexPoly(image, np.round(patch).astype(np.int32), [float(c) for c in wood], cv2.LINE_AA)
    return image


def true_corners(shot: Shot) -> list[list[float]]:
    """The board's outline corners in the picture (near-left, near-right, far-right, far-left)."""
    return project(scene(), np.array(scene().profile.board_corners()), shot).tolist()


@functools.lru_cache(maxsize=1)
def moved_frame() -> np.ndarray:
    return frame(start(), MOVED)


@functools.lru_cache(maxsize=1)
def calibration() -> Calibration:
    """Calibrated at rest from the true corners, as ``pitwatch calibrate --corners`` would."""
    empty = frame({label: 0 for label in start()}, AT_REST)
    corners = [v for point in true_corners(AT_REST) for v in point]
    return calibrate(VARIANT, empty, frame(start(), AT_REST), corners)
