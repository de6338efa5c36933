"""A board without markers that moved a little since its corners were given.

With markers the board is found anew in every frame. Without them its four
corners are fixed (given once at calibration or on the dashboard), so a board
nudged by a few millimetres while seeds are laid out would be cut a few
millimetres off, and the seed counter would take a hollow's rim, now where
the empty board had wood, for seeds, and the hand finder the wood's edge for a
hand. The rectified board is therefore aligned with the empty board on its
bare wood (the rims and the grain line up whatever lies in the hollows), and
the move found is taken back into the homography.

A player's nudge turns the board as well as shifting it, and on a board half a
metre long a turn of two degrees moves its ends by 9 mm. So the alignment
starts from how far each end of the board moved (phase correlation of its
outer quarters: together a shift and a turn), and OpenCV's ECC
(``findTransformECCWithMask``, a rigid motion) finds the motion exactly from
there. A hand or a shadow's edge over the board is not the board: where the
aligned picture is most unlike the empty board, it is left out, and ECC
aligns the rest again. Where ECC is sure of no alignment, the board is not
lined up (:data:`NOT_LINED_UP`): the reader reads no pit unless a hand
explains it.

All of it runs at a quarter of the rectified size, on the picture with its
light's changes over more than a few millimetres taken out: ECC matches
brightness, and neither a lamp's gradient nor a shadow is a move; the grain
and the rims' edges are what line up. A board moved farther than a nudge is
not read from its stale corners (:data:`BOARD_MOVED`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import cv2
import numpy as np

from .rectify import reduce

MAX_NUDGE_MM = 35.0  # the board's middle moved farther, or turned more than MAX_TURN (radians), is not a nudge:
MAX_TURN = 0.06  # the corners must be given again (a nudge of the benchmarks: up to 16 mm and 3 degrees from where
# the corners were given, as an easy shot of the empty board and a hard frame are each nudged)
MIN_RESPONSE = 0.08  # phase-correlation peak below which the whole board's shift is not clear (a hand, a dark frame)
LEAST_ALIGNED = 0.8  # ECC's correlation of the aligned wood under which its move is not trusted (aligned: 0.9-0.99)
MIN_SHIFT_PX = 0.5  # full-size rectified px: a move of less anywhere on the board is not followed (the corners' view
# stands, free of ECC's jitter from frame to frame)
ALIGN_EVERY = 4  # the board is aligned at a quarter of its rectified size
LIGHT_MM = 6.0  # brightness changing more slowly than over this (a Gaussian's sigma) is the light, not the board
END_SHARE = 0.25  # each end of the board whose shift is found: a quarter of its length
UNLIKE = 2.0  # blocks of wood this many times more unlike the empty board than the median are a hand or a shadow
UNLIKE_BLOCK = 4  # ...blocks of this many aligned pixels (about 11 mm) a side
LEAST_WOOD = 0.3  # with less of the wood left, the alignment is not done again
MAX_REFINED_PX = 2.0  # aligning again without what covers the wood moves a corner at most this much (aligned px)
ALIGNMENT = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 50, 1e-4)  # ECC: at most 50 steps, or until this still
BOARD_MOVED = "board moved since its corners were set: set them again (dashboard: Set the board corners)"
LOST = ("board not lined up with its empty picture: if it was moved, set its corners again "
        "(dashboard: Set the board corners)")


@dataclass(frozen=True)
class BoardShift:
    """How a board without markers has shifted (and turned) since its corners were given."""

    motion_mm: np.ndarray  # a rigid motion of board mm (3 x 3): the empty board's point -> where it is now
    nudge: bool  # within MAX_NUDGE_MM and MAX_TURN: followed; else the corners must be given again
    sure: bool = True  # False: not lined up with the empty board (no motion; no pit is read unless a hand explains it)


class NudgeFinder:
    """Finds how far a rectified board has moved from the empty board of its calibration. It
    keeps the last alignment it was sure of: one per reader, not shared between threads."""

    def __init__(self, empty: np.ndarray, px_per_mm: float, wood: np.ndarray) -> None:
        """``empty``: the rectified empty board (uint8 BGR); ``wood``: its bare wood (bool)."""
        self._px_per_mm = px_per_mm
        self._mm_per_px = ALIGN_EVERY / px_per_mm  # at the size aligned
        self._empty = self._without_light(reduce(cv2.cvtColor(empty, cv2.COLOR_BGR2GRAY), ALIGN_EVERY))
        self._to_rectified = np.diag([px_per_mm, px_per_mm, 1.0])
        self._rectified_size = (empty.shape[1], empty.shape[0])
        whole = cv2.erode(wood.astype(np.uint8) * np.uint8(255), np.ones((5, 5), np.uint8))
        self._wood = (reduce(whole, ALIGN_EVERY) == 255).astype(np.uint8)  # blocks of wood only, clear of the rims
        self._anywhere = np.ones_like(self._wood)
        self._is_wood = self._wood > 0
        self._least_wood = LEAST_WOOD * np.count_nonzero(self._is_wood)
        self._empty_standard = standardised(self._empty, self._is_wood)
        self._wood_share = cv2.blur(self._wood.astype(np.float32), (UNLIKE_BLOCK, UNLIKE_BLOCK))  # of each block
        self._window = cv2.createHanningWindow(self._empty.shape[::-1], cv2.CV_32F)
        height, width = self._empty.shape
        end = int(width * END_SHARE)
        self._ends = (slice(0, end), slice(width - end, width))
        self._end_window = cv2.createHanningWindow((end, height), cv2.CV_32F)
        self._end_middles = np.float64([[end / 2, height / 2], [width - end / 2, height / 2]])  # aligned px
        self._aligned_corners = np.float32([[0, 0], [width, 0], [width, height], [0, height]]).reshape(-1, 1, 2)
        height, width = empty.shape[:2]
        self._middle = np.float64([width, height]) / 2 / px_per_mm  # board mm
        self._corners = np.float64([[0, 0], [width, 0], [width, height], [0, height]]) / px_per_mm
        self._last_aligned: np.ndarray | None = None  # the last alignment ECC was sure of (a 2 x 3 warp)

    def _without_light(self, small: np.ndarray) -> np.ndarray:
        """A quarter-size grey picture of the board, float, the light's changes over more than a
        few millimetres taken out: a nudge is millimetres, the finest texture adds nothing,
        and neither the light nor a shadow is the board."""
        small = small.astype(np.float32)
        return small - cv2.GaussianBlur(small, (0, 0), LIGHT_MM / self._mm_per_px)

    def shift(self, gray: np.ndarray, homography: np.ndarray) -> BoardShift | None:
        """How the board in ``gray`` (the camera picture, grey) seen through ``homography``
        (image px -> board mm, from the corners given) has moved from the empty board: None when
        it has not, :data:`NOT_LINED_UP` when it could not be lined up with it. Every frame is
        aligned afresh (starting from where the board was last found saved half a millisecond
        a still frame but read pits worse on the benchmark, docs/vision.md, section 1)."""
        # the grey picture warped at full size, then shrunk: a third of a colour warp's work, and
        # warping at a smaller size straight away aliases the grain and aligned hard frames worse
        rectified = cv2.warpPerspective(gray, self._to_rectified @ homography, self._rectified_size, flags=cv2.INTER_LINEAR)
        now = self._without_light(reduce(rectified, ALIGN_EVERY))
        ends = [_Shift(*cv2.phaseCorrelate(self._empty[:, end], now[:, end], self._end_window)) for end in self._ends]
        aligned, warp = self._best_alignment(now, self._starts(now, self._turned(ends)))
        if aligned < LEAST_ALIGNED:  # a hand over most of it, a dark frame, or moved farther than ECC aligns from
            return NOT_LINED_UP
        self._last_aligned = warp
        motion = self._in_mm(warp)
        most_moved = np.abs(cv2.perspectiveTransform(self._corners.reshape(-1, 1, 2), motion).reshape(-1, 2) - self._corners).max()
        return None if most_moved * self._px_per_mm < MIN_SHIFT_PX else BoardShift(motion, self._nudge(motion))

    def _best_alignment(self, now: np.ndarray, starts: Iterator[np.ndarray]) -> tuple[float, np.ndarray]:
        """ECC's best alignment (its correlation and a 2 x 3 warp; 0 and no move where it never
        converged) from each of ``starts`` in turn, until one is sure."""
        best = (0.0, np.eye(2, 3, dtype=np.float32))
        for start in starts:
            best = max(best, self._without_cover(now, *self._aligned(now, self._wood, start)), key=lambda tried: tried[0])
            if best[0] >= LEAST_ALIGNED:
                break
        return best

    def _starts(self, now: np.ndarray, both: np.ndarray) -> Iterator[np.ndarray]:
        """Where ECC starts (2 x 3 warps of aligned pixels), each tried only if ECC was not sure
        from the ones before: both ends' shifts (a shift and a turn); the whole board's shift,
        where it is clear (an end's shift can mistake a hollow for its neighbour); the last
        alignment ECC was sure of (where this frame's shifts mislead: a hand or a shadow over a
        board moved 10-20 mm and turned; docs/vision.md, section 1); no move."""
        yield both
        whole = _Shift(*cv2.phaseCorrelate(self._empty, now, self._window))
        if whole.clear:
            yield whole.warp
        if self._last_aligned is not None:
            yield self._last_aligned
        yield np.eye(2, 3, dtype=np.float32)

    def _turned(self, ends: list[_Shift]) -> np.ndarray:
        """The rigid motion (a 2 x 3 warp of aligned pixels) that moves the middles of the
        board's two ends by their shifts: a shift and a turn."""
        moved = self._end_middles + [end.shift for end in ends]
        before, after = self._end_middles[1] - self._end_middles[0], moved[1] - moved[0]
        turn = np.arctan2(after[1], after[0]) - np.arctan2(before[1], before[0])
        rotation = np.float64([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
        return np.hstack([rotation, (moved.mean(axis=0) - rotation @ self._end_middles.mean(axis=0))[:, None]]).astype(np.float32)

    def _without_cover(self, now: np.ndarray, aligned: float, warp: np.ndarray) -> tuple[float, np.ndarray]:
        """The alignment done again on the wood that, aligned, looks like the empty board's:
        a hand or a shadow's edge pulls ECC towards itself. Kept only when it moves no
        corner far (it refines, it does not jump) and aligns at least as well."""
        if aligned <= 0:  # ECC did not converge: nothing to refine
            return aligned, warp
        height, width = now.shape
        back = cv2.warpAffine(now, warp, (width, height), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
        wood = self._is_wood
        unlike = np.abs(self._empty_standard - standardised(back, wood)) * wood
        unlike = cv2.blur(unlike, (UNLIKE_BLOCK, UNLIKE_BLOCK)) / np.maximum(self._wood_share, 1e-3)
        like = wood & (unlike < UNLIKE * np.median(unlike[wood]))
        if np.count_nonzero(like) < self._least_wood:
            return aligned, warp
        again, refined = self._aligned(now, like.astype(np.uint8), warp)
        corners_moved = np.abs(cv2.transform(self._aligned_corners, refined) - cv2.transform(self._aligned_corners, warp)).max()
        return (again, refined) if again >= aligned and corners_moved <= MAX_REFINED_PX else (aligned, warp)

    def _aligned(self, now: np.ndarray, wood: np.ndarray, start: np.ndarray) -> tuple[float, np.ndarray]:
        """ECC's alignment of ``wood`` (uint8 mask) of the empty board with ``now``
        (:meth:`_without_light`) from ``start`` (a 2 x 3 warp of their pixels): its correlation (0
        where it did not converge) and warp."""
        try:
            return cv2.findTransformECCWithMask(self._empty, now, wood, self._anywhere, start.copy(),
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


@dataclass(frozen=True)
class _Shift:
    """What phase correlation found between the empty board and the board now (or a part)."""

    shift: tuple[float, float]  # aligned px
    response: float  # its peak: how clear the shift is

    @property
    def clear(self) -> bool:
        return self.response >= MIN_RESPONSE

    @property
    def warp(self) -> np.ndarray:
        """The shift as a 2 x 3 warp of aligned pixels."""
        return np.float32([[1, 0, self.shift[0]], [0, 1, self.shift[1]]])


NOT_LINED_UP = BoardShift(np.eye(3), nudge=True, sure=False)


def standardised(picture: np.ndarray, where: np.ndarray) -> np.ndarray:
    """``picture`` less its mean over ``where``, over its standard deviation there."""
    values = picture[where]
    return (picture - values.mean()) / (values.std() + 1e-6)


def moved_back(homography: np.ndarray, motion_mm: np.ndarray) -> np.ndarray:
    """``homography`` (image px -> board mm) followed by undoing the board's ``motion_mm``
    (:attr:`BoardShift.motion_mm`): image px -> the empty board's mm."""
    return np.linalg.inv(motion_mm) @ homography
