"""A board without markers that moved a little since its corners were given.

With markers the board is found anew in every frame. Without them its four
corners are fixed (given once at calibration or on the dashboard), so a board
nudged by a few millimetres while seeds are laid out would be cut a few
millimetres off, and the seed counter would take a hollow's rim, now where
the empty board had wood, for seeds. The rectified board is therefore matched
against the empty board by phase correlation (the hollows' rims and the
grain line up whatever lies in the hollows), and a small shift found with a
clear peak is taken back into the homography.
"""

from __future__ import annotations

import cv2
import numpy as np

from .rectify import reduce

MAX_NUDGE_MM = 15.0  # a larger move is not a nudge: the corners must be given again
MIN_RESPONSE = 0.08  # phase-correlation peak below which the match is not trusted (a hand, a dark frame)
MIN_SHIFT_PX = 0.5  # full-size rectified px: less is not worth a second warp


class NudgeFinder:
    """Finds how far a rectified board sits from the empty board of its calibration."""

    def __init__(self, empty: np.ndarray, px_per_mm: float) -> None:
        self._px_per_mm = px_per_mm
        self._empty = self._prepared(empty)
        self._window = cv2.createHanningWindow(self._empty.shape[::-1], cv2.CV_32F)

    @staticmethod
    def _prepared(board: np.ndarray) -> np.ndarray:
        """Half size, grey, float: a nudge is millimetres, the fine texture adds nothing."""
        return reduce(cv2.cvtColor(board, cv2.COLOR_BGR2GRAY), 2).astype(np.float32)

    def offset_mm(self, board: np.ndarray) -> tuple[float, float] | None:
        """How far (x, y, board mm) ``board`` (rectified, uint8 BGR) is shifted from the empty
        board, or None when it is not (or not clearly) shifted."""
        (dx, dy), response = cv2.phaseCorrelate(self._empty, self._prepared(board), self._window)
        dx_mm, dy_mm = 2 * dx / self._px_per_mm, 2 * dy / self._px_per_mm
        if response < MIN_RESPONSE or np.hypot(dx_mm, dy_mm) > MAX_NUDGE_MM:
            return None
        if np.hypot(dx_mm, dy_mm) * self._px_per_mm < MIN_SHIFT_PX:
            return None
        return dx_mm, dy_mm


def shifted(homography: np.ndarray, offset_mm: tuple[float, float]) -> np.ndarray:
    """``homography`` (image px -> board mm) followed by moving the board back by ``offset_mm``."""
    back = np.array([[1.0, 0.0, -offset_mm[0]], [0.0, 1.0, -offset_mm[1]], [0.0, 0.0, 1.0]])
    return back @ homography
