"""How steeply the camera looks at the board, and what that costs the seed count.

Seen from the side, the near rim of each hollow hides the near edge of its
floor, and seeds there are counted worse: on the benchmark's boards seen in
depth, pits of 0-9 seeds are read exactly 99.25-99.67 % of the time from a
camera within 25 degrees of overhead, 96.32-97.65 % from 33-41 degrees.
``pitwatch calibrate`` and ``pitwatch doctor`` measure the angle from the
homography that finds the board (:func:`vision.eye.angle_from_overhead`) and
quote the benchmark for it, so the players can raise the camera before a game
rather than wonder at its questions during one.
"""

from __future__ import annotations

import numpy as np

from vision.eye import angle_from_overhead

# Pits of 0-9 seeds read exactly on the benchmark, by the camera's angle from overhead: each bin's
# range of degrees, then the figure (vision_bench.py --relief, seeds 1 / 2, no hand; README, vision table).
# Beyond the first bin the players are told to raise the camera.
EXACT_0_9_BY_ANGLE = (((15, 25), "99.25-99.67 %"), ((25, 33), "98.26-98.68 %"), ((33, 41), "96.32-97.65 %"))


def judge_camera_angle(image_to_board: np.ndarray, picture: tuple[int, int],
                       board_mm: tuple[float, float]) -> tuple[bool, str]:
    """Whether the camera of a picture (``picture``: width, height px) in which the board
    (``board_mm``: width, depth) was found by ``image_to_board`` stands near enough overhead,
    and a sentence saying how far from it, what the benchmark measured there, and what to do."""
    angle = angle_from_overhead(image_to_board, picture, board_mm)
    (_, steepest_good), best = EXACT_0_9_BY_ANGLE[0]
    if angle is None:
        return True, "not measured: the board shows too little perspective to tell, as from straight overhead (best)"
    said = f"{angle:.0f} degrees from overhead at the board's middle"
    if angle <= steepest_good:
        return True, (f"{said}; on the benchmark pits of 0-9 seeds are read exactly {best} of the time within "
                      f"{steepest_good} degrees")
    (low, high), figure = next((each for each in EXACT_0_9_BY_ANGLE if angle <= each[0][1]), EXACT_0_9_BY_ANGLE[-1])
    beyond = "" if angle <= high else f", beyond the {high} degrees the reader was measured at"
    return False, (f"{said}{beyond}: the near rim of each hollow hides part of its floor, and on the benchmark pits "
                   f"of 0-9 seeds are read exactly {figure} of the time from {low}-{high} degrees, against {best} "
                   f"within {steepest_good}; mount the camera higher, or nearer over the board's middle")
