"""How the camera is placed over the board, and what that costs the seed count.

Two things about a camera's place decide how well seeds are counted, and the
homography that finds the board tells both:
- its angle from overhead: seen from the side, the near rim of each hollow
  hides the near edge of its floor (:func:`vision.eye.angle_from_overhead`);
- how many of its pixels the board spans: a camera far from the board, or a
  wide lens, shows each seed in a few pixels, as a small picture does, though
  the picture itself is 1280 x 720.
``pitwatch calibrate`` and ``pitwatch doctor`` judge both and quote the
benchmark for what they measured, so the players can move the camera before a
game rather than wonder at its questions during one.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.eye import angle_from_overhead
from vision.picture_size import DEVICE_SIZE

# Pits of 0-9 seeds read exactly on the benchmark, by the camera's angle from overhead: each bin's
# range of degrees, then the figure (vision_bench.py --relief, seeds 1 / 2, no hand; README, vision table).
# Beyond the first bin the players are told to raise the camera.
EXACT_0_9_BY_ANGLE = (((15, 25), "99.25-99.67 %"), ((25, 33), "98.26-98.68 %"), ((33, 41), "96.32-97.65 %"))
# Pits of 5-9 seeds read exactly on the benchmark at the picture sizes it was run at
# (vision_bench.py --frame WxH, seeds 1 / 2; README, "The camera's picture size")
EXACT_5_9_BY_SIZE = {(640, 480): "93.9-95.0 %", (1024, 768): "99.3-99.5 %", DEVICE_SIZE: "99.50-99.75 %"}
# The camera pixels a millimetre of the board's far edge spanned in the benchmark's pictures of each
# size, least and most: the renderer's cameras (vision.render.random_scene, the board filling 72-90 %
# of the picture's width, 15-40 degrees from overhead) over every board (tests/pitwatch/test_app_placement.py)
FAR_EDGE_PX_PER_MM = {(640, 480): (0.67, 1.28), (1024, 768): (1.07, 2.04), DEVICE_SIZE: (1.33, 2.55)}


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


def far_edge_px_per_mm(image_to_board: np.ndarray, board_mm: tuple[float, float]) -> float:
    """Camera pixels a millimetre of the board's far edge spans (the far row of pits is the one
    seen smallest) in the picture where ``image_to_board`` found a board ``board_mm`` wide and deep."""
    width = board_mm[0]
    ends = cv2.perspectiveTransform(np.array([[[0.0, 0.0], [width, 0.0]]]), np.linalg.inv(image_to_board))[0]
    return float(np.linalg.norm(ends[1] - ends[0])) / width


def judge_board_scale(image_to_board: np.ndarray, board_mm: tuple[float, float]) -> tuple[bool, str]:
    """Whether the board spans enough of the camera's pixels to count seeds as the benchmark
    did at 1280 x 720, and a sentence saying how many, what the benchmark read at that scale
    (the largest picture size it read boards that small in), and what to do."""
    scale = far_edge_px_per_mm(image_to_board, board_mm)
    least, most = FAR_EDGE_PX_PER_MM[DEVICE_SIZE]
    said = f"the board's far edge spans {scale:.2f} camera pixels a millimetre"
    device = f"{DEVICE_SIZE[0]} x {DEVICE_SIZE[1]}"
    if scale >= least:
        return True, f"{said}; the benchmark read {least:.2f}-{most:.2f} at {device}"
    sizes = sorted(FAR_EDGE_PX_PER_MM, key=lambda size: size[0] * size[1])
    like = next((size for size in reversed(sizes) if FAR_EDGE_PX_PER_MM[size][0] <= scale), sizes[0])
    low, high = FAR_EDGE_PX_PER_MM[like]
    return False, (f"{said}, as a {like[0]} x {like[1]} picture shows a board ({low:.2f}-{high:.2f} on the benchmark, "
                   f"where pits of 5-9 seeds are read exactly {EXACT_5_9_BY_SIZE[like]} of the time, against "
                   f"{EXACT_5_9_BY_SIZE[DEVICE_SIZE]} at {least:.2f}-{most:.2f} in {device} pictures): move the camera "
                   "nearer, or zoom in, until the board fills most of the picture's width")
