"""How the camera is placed over the board, and what that costs the seed count.

Two things about a camera's place decide how well seeds are counted, and the
homography that finds the board tells both:
- its angle from overhead: seen from the side, the near rim of each hollow
  hides the near edge of its floor (:func:`vision.eye.angle_from_overhead`);
- how many of its pixels the board spans: a camera far from the board, or a
  wide lens, shows each seed in a few pixels, though the picture itself is
  1280 x 720.
``pitwatch calibrate`` and ``pitwatch doctor`` judge both and quote the
benchmark for what they measured, so the players can move the camera before a
game rather than wonder at its questions during one; the dashboard shows them
again from every still board during play, for a tripod knocked askew.
"""

from __future__ import annotations

from typing import NamedTuple

import cv2
import numpy as np

from vision.camera import too_small
from vision.eye import angle_from_overhead
from vision.picture_size import DEVICE_SIZE, picture_size_text

# Pits of 5-9 seeds (the counts an oblique camera hides most of) read exactly on the benchmark, by the
# camera's angle from overhead: each bin's range of degrees, then the figure (vision_bench.py --relief,
# seeds 1 / 2, no hand over them, 2026-12-06; README, vision table). Beyond the first bin the players are told to raise
# the camera.
EXACT_5_9_BY_ANGLE = (((15, 25), "97.32-98.96 %"), ((25, 33), "94.70-96.18 %"), ((33, 41), "90.11-93.41 %"))
# The benchmark's 1280 x 720 cameras where the renderer puts them (the board filling 72-90 % of the picture's
# width) and one and a half and twice as far (vision_bench.py --far TIMES): how many times as far, the camera
# pixels a millimetre of the board's far edge spanned, least and most (every board, 300 set-ups each:
# tests/pitwatch/test_app_placement.py), and the pits of 5-9 seeds read exactly (painted flat, seeds 1 / 2;
# README, Benchmarks). Under the first row's least the players are told to move the camera nearer.
EXACT_5_9_BY_DISTANCE = ((1.0, (1.33, 2.55), "99.25-99.59 %"),
                         (1.5, (0.91, 1.73), "95.87-96.94 %"),
                         (2.0, (0.69, 1.31), "85.35-88.32 %"))


def judge_camera_angle(image_to_board: np.ndarray, picture: tuple[int, int],
                       board_mm: tuple[float, float]) -> tuple[bool, str]:
    """Whether the camera of a picture (``picture``: width, height px) in which the board
    (``board_mm``: width, depth) was found by ``image_to_board`` stands near enough overhead,
    and a sentence saying how far from it, what the benchmark measured there, and what to do."""
    angle = angle_from_overhead(image_to_board, picture, board_mm)
    (_, steepest_good), best = EXACT_5_9_BY_ANGLE[0]
    if angle is None:
        return True, "not measured: the board shows too little perspective to tell, as from straight overhead (best)"
    said = f"{angle:.0f} degrees from overhead at the board's middle"
    if angle <= steepest_good:
        return True, (f"{said}; on the benchmark pits of 5-9 seeds are read exactly {best} of the time within "
                      f"{steepest_good} degrees")
    (low, high), figure = next((each for each in EXACT_5_9_BY_ANGLE if angle <= each[0][1]), EXACT_5_9_BY_ANGLE[-1])
    beyond = "" if angle <= high else f", beyond the {high} degrees the reader was measured at"
    return False, (f"{said}{beyond}: the near rim of each hollow hides part of its floor, and on the benchmark pits "
                   f"of 5-9 seeds are read exactly {figure} of the time from {low}-{high} degrees, against {best} "
                   f"within {steepest_good}; mount the camera higher, or nearer over the board's middle")


def far_edge_px_per_mm(image_to_board: np.ndarray, board_mm: tuple[float, float]) -> float | None:
    """Camera pixels a millimetre of the board's far edge spans (the far row of pits is the one
    seen smallest) in the picture where ``image_to_board`` found a board ``board_mm`` wide and deep;
    None for a degenerate homography, which maps no board back into the picture."""
    width = board_mm[0]
    try:
        board_to_image = np.linalg.inv(image_to_board)
    except np.linalg.LinAlgError:
        return None
    ends = cv2.perspectiveTransform(np.array([[[0.0, 0.0], [width, 0.0]]]), board_to_image)[0]
    return float(np.linalg.norm(ends[1] - ends[0])) / width


def judge_board_scale(image_to_board: np.ndarray, board_mm: tuple[float, float]) -> tuple[bool, str]:
    """Whether the board spans as many of the camera's pixels as the benchmark's cameras gave,
    and a sentence saying how many, what the benchmark read with cameras far enough to see the
    board that small (the nearest such), and what to do."""
    scale = far_edge_px_per_mm(image_to_board, board_mm)
    if scale is None:
        return True, "not measured: the homography that found the board is degenerate"
    said = f"the board's far edge spans {scale:.2f} camera pixels a millimetre"
    (_, (least, most), best), *farther = EXACT_5_9_BY_DISTANCE
    if scale >= least:
        return True, f"{said}; the benchmark's cameras gave {least:.2f}-{most:.2f}"
    times, (low, high), figure = next((row for row in farther if row[1][0] <= scale), farther[-1])
    fewer = "" if scale >= low else f", fewer than the benchmark's cameras gave even {times:g} times as far"
    return False, (f"{said}{fewer}: on the benchmark, cameras {times:g} times as far as its own ({low:.2f}-{high:.2f}) "
                   f"read pits of 5-9 seeds exactly {figure} of the time, against {best} at {least:.2f}-{most:.2f}; "
                   "move the camera nearer, or zoom in, until the board fills most of the picture's width")


class Judged(NamedTuple):
    """One thing judged of the camera's place: what (``camera angle``, ``board in the picture``),
    whether it is as good as the benchmark's cameras, and the sentence for the players."""

    name: str
    ok: bool
    said: str


def judge_placement(image_to_board: np.ndarray, picture: tuple[int, int],
                    board_mm: tuple[float, float]) -> list[Judged]:
    """The camera's angle and how much of the picture the board fills, judged from a picture
    (``picture``: width, height px) in which a board ``board_mm`` wide and deep was found by
    ``image_to_board``. In a picture smaller than the reader is measured at, the board's scale
    is not judged (the benchmark's figures by distance are of 1280 x 720 cameras): the picture's
    size is then what to fix first."""
    judged = [Judged("camera angle", *judge_camera_angle(image_to_board, picture, board_mm))]
    if too_small(picture):
        best = f"{DEVICE_SIZE[0]} x {DEVICE_SIZE[1]}"
        judged.append(Judged("board in the picture", False, (
            f"not judged in a {picture[0]} x {picture[1]} picture: the reader is measured at {best} and counts "
            f"seeds worse in a smaller one; ask the camera for {best} "
            f"(camera.size = \"{picture_size_text(DEVICE_SIZE)}\"), or record the board at that size")))
    else:
        judged.append(Judged("board in the picture", *judge_board_scale(image_to_board, board_mm)))
    return judged
