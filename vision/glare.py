"""A lamp's reflection in the board's varnish: white where the sensor clipped every channel.

Seeds under a reflection cannot be seen, and read anyway they were read wrong
and sure of it (docs/vision.md, section 4). So the reader reports the pits a
reflection touches unseen, naming the glare (the rest of the board is still
read, and the referee judges from it), and calibration refuses an empty
board with one on or near a pit: the lamp and the camera stay put, so it would
wash out the same pits in every frame. On the empty board any such white is a reflection.
Over seeds it may be a white chip or bead under a bright lamp, so there white
counts where it reaches the bare wood or is wider than any seed, and inside a
hollow where, with today's light divided out, it is whiter than any seed of
the start position was (calibration measures the whitest; every seed of a game
is on the board at its start). Without that measure (an older calibration
file) a small reflection inside a hollow is not told from a white seed.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.profiles import BoardProfile

from .markers import MARKER_IDS
from .rectify import LightModel

GLARE = 240  # every channel at least this bright: the sensor's ceiling, less its noise
GLARE_PATCH_MM = 3.0  # white in a patch this wide is no bead's highlight...
GLARE_SEED_MM = 18.0  # ...and over seeds a reflection where it reaches the bare wood or is wider than this
GLARE_MARGIN_MM = 6.0  # pits this close to a reflection are unseen: its halo washes seeds out beyond what clips
WHITER = 1.15  # white this much whiter than the whitest seed at calibration is no seed (seeds and light vary;
# a false reflection leaves one pit of a Reading unseen, the game goes on: docs/vision.md, section 4)
DOUBT = 0.15  # a pit with white that may be a reflection: its reading mixed with an even spread by this much
# (a count of a store's 81 then keeps 0.19 %, more than the referee's 0.1 % that rules a count out)
STICKER_MARGIN_MM = 6.0  # a printed marker's white border (5 mm) and a millimetre more


def sticker_mask(shape: tuple[int, int], profile: BoardProfile, px_per_mm: float) -> np.ndarray:
    """Rectified pixels of the printed markers and their white border (bool): paper, not wood."""
    stickers = np.zeros(shape, bool)
    for marker_id in MARKER_IDS:
        corners = np.array(profile.marker_corners(marker_id)) * px_per_mm
        (x0, y0) = corners.min(axis=0) - STICKER_MARGIN_MM * px_per_mm
        (x1, y1) = corners.max(axis=0) + STICKER_MARGIN_MM * px_per_mm
        stickers[max(0, int(y0)):int(y1) + 1, max(0, int(x0)):int(x1) + 1] = True
    return stickers


def whitest_seed(board: np.ndarray, log_gain: np.ndarray, hollows: np.ndarray, px_per_mm: float) -> float:
    """How white the whitest seed of a start position is, its light divided out (the least of its
    channels, 0..255 in the empty board's light), over a patch ``GLARE_PATCH_MM`` wide (a glint is
    smaller). ``hollows``: the board's hollows (bool, rectified)."""
    gain = np.exp(LightModel.sample(log_gain, _board_light(hollows.shape)))
    whiteness = (board.astype(np.float32) / gain).min(axis=2)
    return float(cv2.erode(whiteness, _square(GLARE_PATCH_MM * px_per_mm))[hollows].max())


def hedged(probabilities: np.ndarray) -> np.ndarray:
    """A reading of a pit where white clipped that may be a lamp's reflection rather than a seed:
    what lies under a reflection cannot be seen, and the counter (trained beside reflections
    since 2026-11-27, but never told which white is one) can read its white as seeds and be
    sure of it, so every count keeps a share (``DOUBT``) and the referee can still find the move
    that was played, which the other pits tell, rather than call it illegal (docs/vision.md,
    section 4)."""
    return (1 - DOUBT) * probabilities + DOUBT / len(probabilities)


def _board_light(shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Where every pixel of a rectified board of ``shape`` lies on the light field's cells
    (:meth:`LightModel.sampler`)."""
    rows, columns = np.mgrid[0:shape[0], 0:shape[1]].astype(np.float32)
    return LightModel.sampler(columns, rows)


def _square(side: float) -> np.ndarray:
    return cv2.getStructuringElement(cv2.MORPH_RECT, (round(side) | 1,) * 2)


@dataclass(frozen=True)
class Reflections:
    """What :meth:`GlareFinder.find` saw in one frame (bool masks of the rectified board, None: none)."""

    glare: np.ndarray | None  # a lamp's reflection, grown by GLARE_MARGIN_MM: its pits are unseen
    doubtful: np.ndarray | None  # clipped white inside a hollow that may be a white seed or a reflection


class GlareFinder:
    """Finds reflections on the rectified frames of one board (built once per board)."""

    def __init__(self, profile: BoardProfile, px_per_mm: float, shape: tuple[int, int],
                 wood: np.ndarray | None = None, whitest: float | None = None) -> None:
        """``shape``: the rectified board's (rows, columns); ``wood``: its bare wood (bool), None
        for an empty board, where every reflection counts; ``whitest``: :func:`whitest_seed` of
        the start position, if calibration measured it."""
        self._off_paper = (~sticker_mask(shape, profile, px_per_mm)).view(np.uint8)  # 1 where no marker is
        self._wood = wood
        self._whitest = whitest
        if wood is not None and whitest is not None:
            self._light = _board_light(shape)
        self._patch = _square(GLARE_PATCH_MM * px_per_mm)
        self._seed = _square(GLARE_SEED_MM * px_per_mm)
        self._margin = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (int(2 * GLARE_MARGIN_MM * px_per_mm) | 1,) * 2)

    def find(self, board: np.ndarray, log_gain: np.ndarray | None = None) -> Reflections:
        """The reflections on ``board`` (rectified BGR, in the light ``log_gain`` fitted: needed
        over seeds to compare with the whitest seed), and the white over seeds that may be one."""
        white = cv2.inRange(board, (GLARE,) * 3, (255,) * 3)
        white *= self._off_paper  # the markers' white paper is no reflection
        if cv2.countNonZero(white) < self._patch.size:
            return Reflections(None, None)
        white = cv2.morphologyEx(white, cv2.MORPH_OPEN, self._patch)
        doubtful = None
        if self._wood is not None:  # over seeds: what reaches the wood or is wider than a seed
            count, pieces = cv2.connectedComponents(white)
            kept = np.union1d(pieces[self._wood & (white > 0)],
                              pieces[cv2.morphologyEx(white, cv2.MORPH_OPEN, self._seed) > 0])
            if self._whitest is not None and log_gain is not None:
                kept = np.union1d(kept, self._whiter_than_seeds(pieces, count, log_gain))
            glare = np.isin(pieces, kept[kept > 0])
            unexplained = (white > 0) & ~glare
            doubtful = unexplained if cv2.countNonZero(unexplained.view(np.uint8)) else None
            white = glare.view(np.uint8)
        if not cv2.countNonZero(white):
            return Reflections(None, doubtful)
        return Reflections(cv2.dilate(white, self._margin) > 0, doubtful)

    def _whiter_than_seeds(self, pieces: np.ndarray, count: int, log_gain: np.ndarray) -> np.ndarray:
        """The white pieces (labels) that, today's light divided out, are whiter than any seed the
        start position showed, by ``WHITER``: clipped at GLARE in every channel, a piece is at
        least GLARE over the brightest channel's gain that white."""
        at_least = np.float32(GLARE) / np.exp(LightModel.sample(np.ascontiguousarray(log_gain.max(axis=2)), self._light))
        whiteness = np.bincount(pieces.ravel(), at_least.ravel(), minlength=count) / np.maximum(np.bincount(pieces.ravel(), minlength=count), 1)
        return np.flatnonzero(whiteness > WHITER * self._whitest)
