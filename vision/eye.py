"""Where the camera stands over the board, from the homography that finds the board.

A board seen in depth shows what rises over its plane (a heap over its rim)
shifted away from the camera, and what lies below it (a hollow's floor)
shifted towards it; which way is "away" depends on where the camera stands.
The homography from the board's plane to the picture holds that: it is the
camera's intrinsics times its pose, and with the principal point at the
picture's middle, square pixels and no skew, the one unknown intrinsic (the
focal length) follows from the pose's first two columns being orthogonal and
of equal length (Zhang, "A flexible new technique for camera calibration",
2000, section 3.1). Lens distortion is ignored: the eye comes out a few per
cent off, which is plenty to tell which side of a hollow faces away, and to
tell the players how steeply their camera looks at the board (within about a
degree on rendered boards seen through a lens that bends them).
"""

from __future__ import annotations

import math

import numpy as np


def eye_from_homography(image_to_board: np.ndarray, picture: tuple[int, int]) -> tuple[float, float, float] | None:
    """The point of the board's plane under the camera (board mm, often off the board) and the
    camera's height over the plane (mm), from the homography ``image_to_board`` (image px ->
    board mm) of a ``picture`` (width, height px); None when the homography cannot say (a
    camera looking straight down, where the focal length is unobservable, or a degenerate one)."""
    width, height = picture
    to_middle = np.array([[1.0, 0.0, -width / 2], [0.0, 1.0, -height / 2], [0.0, 0.0, 1.0]])
    try:
        h = to_middle @ np.linalg.inv(image_to_board)  # board mm -> image px from the picture's middle
    except np.linalg.LinAlgError:
        return None
    (a11, a12, _), (a21, a22, _), (a31, a32, _) = h
    # r1 . r2 = 0 and |r1| = |r2|, each as a / f^2 + b = 0: least squares for 1 / f^2
    rows = np.array([[a11 * a12 + a21 * a22, a31 * a32],
                     [a11 * a11 + a21 * a21 - a12 * a12 - a22 * a22, a31 * a31 - a32 * a32]])
    weight = float(rows[:, 0] @ rows[:, 0])
    inverse_f2 = -float(rows[:, 0] @ rows[:, 1]) / weight if weight > 0 else 0.0
    if not inverse_f2 > 0:
        return None
    focal = 1.0 / np.sqrt(inverse_f2)
    columns = h / np.array([[focal], [focal], [1.0]])  # K^-1 h: the pose up to scale
    scale = 2.0 / (np.linalg.norm(columns[:, 0]) + np.linalg.norm(columns[:, 1]))
    r1, r2, t = (columns * scale).T
    if t[2] < 0:  # the board lies in front of the camera
        r1, r2, t = -r1, -r2, -t
    r3 = np.cross(r1, r2)
    eye = -np.array([r1 @ t, r2 @ t, r3 @ t])  # -R^T t: the camera's centre in board mm
    return float(eye[0]), float(eye[1]), float(abs(eye[2]))


def angle_from_overhead(image_to_board: np.ndarray, picture: tuple[int, int], board_mm: tuple[float, float]) -> float | None:
    """How far the camera stands from overhead, in degrees, as seen from the middle of a board
    ``board_mm`` (width, depth) wide: 0 straight above it. The nearer overhead, the less the near
    rim of each hollow hides its floor, and the better seeds are counted (the README's vision
    table bins its figures so). None where :func:`eye_from_homography` cannot say."""
    eye = eye_from_homography(image_to_board, picture)
    if eye is None:
        return None
    x, y, height = eye
    return math.degrees(math.atan2(math.hypot(x - board_mm[0] / 2, y - board_mm[1] / 2), height))
