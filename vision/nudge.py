"""A board without markers that moved a little since its corners were given.

With markers the board is found anew in every frame. Without them its four
corners are fixed (given once at calibration or on the dashboard), so a board
nudged by a few millimetres while seeds are laid out would be cut a few
millimetres off, and the seed counter would take a hollow's rim, now where
the empty board had wood, for seeds, and the hand finder the wood's edge for a
hand. The rectified board is therefore aligned with the empty board on its
bare wood (the rims and the grain line up whatever lies in the hollows), and
the move found is taken back into the homography. A player's nudge turns the
board as well as shifting it, and on a board half a metre long a turn of one
degree moves its ends by 4 mm: the alignment finds both, with OpenCV's ECC
(``findTransformECCWithMask``, a rigid motion), started from the shift phase
correlation finds (ECC needs a start near the answer).

Both run at a quarter of the rectified size, where ECC converges (at half size
it often does not) in about a millisecond, on the picture with its light's slow
changes taken out: ECC matches brightness, and a lamp's gradient across the
board is not a move. A board moved farther than a nudge is not read from its
stale corners (:data:`BOARD_MOVED`). On the benchmark's boards found by their
corners (``vision_bench.py --corners``, seeds 1 / 2; docs/vision.md, section 1)
pits with no hand over the board were read 84.3 / 79.8 % of the time with the
shift alone and 97.2 / 97.0 % with the turn as well.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .rectify import reduce

MAX_NUDGE_MM = 25.0  # the board's middle moved farther, or turned more than MAX_TURN (radians), is not a nudge:
MAX_TURN = 0.06  # the corners must be given again (a nudge of the benchmarks: up to 16 mm and 3 degrees from where
# the corners were given, as an easy shot of the empty board and a hard frame are each nudged)
LEAST_ALIGNED = 0.8  # ECC's correlation of the aligned wood under which its move is not trusted (aligned: 0.9-0.99)
MIN_RESPONSE = 0.08  # phase-correlation peak below which the shift is not trusted (a hand, a dark frame)
MIN_SHIFT_PX = 0.5  # full-size rectified px: a move of less anywhere on the board is not worth a second warp
ALIGN_EVERY = 4  # the board is aligned at a quarter of its rectified size
LIGHT_MM = 20.0  # brightness changing more slowly than over this (a Gaussian's sigma) is the light, not the board
ALIGNMENT = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 50, 1e-4)  # ECC: at most 50 steps, or until this still
BOARD_MOVED = "board moved since its corners were set: set them again (dashboard: Set the board corners)"


@dataclass(frozen=True)
class Move:
    """How a board without markers has moved since its corners were given."""

    motion_mm: np.ndarray  # a rigid motion of board mm (3 x 3): the empty board's point -> where it is now
    nudge: bool  # within MAX_NUDGE_MM and MAX_TURN: followed; else the corners must be given again


class NudgeFinder:
    """Finds how far a rectified board has moved from the empty board of its calibration. It
    keeps the last alignment it was sure of: one per reader, not shared between threads."""

    def __init__(self, empty: np.ndarray, px_per_mm: float, wood: np.ndarray) -> None:
        """``empty``: the rectified empty board (uint8 BGR); ``wood``: its bare wood (bool)."""
        self._px_per_mm = px_per_mm
        self._mm_per_px = ALIGN_EVERY / px_per_mm  # at the size aligned
        self._empty = self._prepared(empty)
        whole = cv2.erode(wood.astype(np.uint8) * np.uint8(255), np.ones((5, 5), np.uint8))
        self._wood = (reduce(whole, ALIGN_EVERY) == 255).astype(np.uint8)  # blocks of wood only, clear of the rims
        self._anywhere = np.ones_like(self._wood)
        self._window = cv2.createHanningWindow(self._empty.shape[::-1], cv2.CV_32F)
        height, width = empty.shape[:2]
        self._middle = np.float64([width, height]) / 2 / px_per_mm  # board mm
        self._corners = np.float64([[0, 0], [width, 0], [width, height], [0, height]]) / px_per_mm
        self._last_aligned: np.ndarray | None = None  # the last alignment ECC was sure of (a 2 x 3 warp)

    def _prepared(self, board: np.ndarray) -> np.ndarray:
        """A quarter size, grey, float, the light's slow changes taken out: a nudge is
        millimetres, the fine texture adds nothing, and the light is not the board."""
        small = reduce(cv2.cvtColor(board, cv2.COLOR_BGR2GRAY), ALIGN_EVERY).astype(np.float32)
        return small - cv2.GaussianBlur(small, (0, 0), LIGHT_MM / self._mm_per_px)

    def move(self, board: np.ndarray) -> Move | None:
        """How the board in ``board`` (rectified with the corners given, uint8 BGR) has moved
        from the empty board, or None when it has not (or not clearly: a hand, a dark frame).
        A move is trusted when ECC aligns the wood (``LEAST_ALIGNED``), or, where it does not, a
        clear shift within a nudge is taken alone. Every frame is aligned afresh: a board that
        stays nudged costs a second warp a frame (starting from where it was found saved half a
        millisecond a still frame but read pits worse on the benchmark, docs/vision.md, section
        1). Where ECC is not sure from the shift (a board turned by 3 degrees, blurred: phase
        correlation sees no turn), it starts again from the last alignment it was sure of."""
        now = self._prepared(board)
        (dx, dy), response = cv2.phaseCorrelate(self._empty, now, self._window)
        shift = np.float32([[1, 0, dx], [0, 1, dy]]) if response >= MIN_RESPONSE else np.eye(2, 3, dtype=np.float32)
        aligned, warp = self._aligned(now, shift)
        if aligned < LEAST_ALIGNED and self._last_aligned is not None:  # a turn phase correlation does not see:
            aligned, warp = max((aligned, warp), self._aligned(now, self._last_aligned), key=lambda tried: tried[0])
        if aligned >= LEAST_ALIGNED:
            self._last_aligned = warp
        motion = self._in_mm(warp if aligned >= LEAST_ALIGNED else shift)
        nudge = self._nudge(motion)
        if aligned < LEAST_ALIGNED and (response < MIN_RESPONSE or not nudge):
            return None
        most_moved = np.abs(cv2.perspectiveTransform(self._corners.reshape(-1, 1, 2), motion).reshape(-1, 2) - self._corners).max()
        return None if most_moved * self._px_per_mm < MIN_SHIFT_PX else Move(motion, nudge)

    def _aligned(self, now: np.ndarray, start: np.ndarray) -> tuple[float, np.ndarray]:
        """ECC's alignment of the wood of ``now`` (:meth:`_prepared`) with the empty board's from
        ``start`` (a 2 x 3 warp of their pixels): its correlation (0 where it did not converge) and warp."""
        try:
            return cv2.findTransformECCWithMask(self._empty, now, self._wood, self._anywhere, start.copy(),
                                                cv2.MOTION_EUCLIDEAN, ALIGNMENT, 5)
        except cv2.error:
            return 0.0, start

    def _in_mm(self, warp: np.ndarray) -> np.ndarray:
        """A 2 x 3 warp of the aligned pictures' pixels as a 3 x 3 motion of board mm."""
        to_mm = np.diag([self._mm_per_px, self._mm_per_px, 1.0])
        return to_mm @ np.vstack([warp, [0, 0, 1]]).astype(np.float64) @ np.linalg.inv(to_mm)

    def _nudge(self, motion: np.ndarray) -> bool:
        """Whether ``motion`` moved the board's middle at most ``MAX_NUDGE_MM`` and turned it at most ``MAX_TURN``."""
        middle_moved = np.hypot(*(motion[:2, :2] @ self._middle + motion[:2, 2] - self._middle))
        return bool(middle_moved <= MAX_NUDGE_MM and abs(np.arctan2(motion[1, 0], motion[0, 0])) <= MAX_TURN)


def moved_back(homography: np.ndarray, motion_mm: np.ndarray) -> np.ndarray:
    """``homography`` (image px -> board mm) followed by undoing the board's ``motion_mm``
    (:attr:`Move.motion_mm`): image px -> the empty board's mm."""
    return np.linalg.inv(motion_mm) @ homography
