"""A lamp's reflection in the board's varnish: white where the sensor clipped every channel.

Seeds under a reflection cannot be seen, and read anyway they were read wrong
and sure of it (docs/vision.md, section 4). So the reader reports the pits a
reflection touches unseen, naming the glare (the rest of the board is still
read, and the referee judges from it), and calibration refuses an empty
board with one on or near a pit: the lamp and the camera stay put, so it would
wash out the same pits in every frame. On the empty board any such white is a reflection.
Over seeds it may be a white chip or bead under a bright lamp, so there white
counts where it reaches the bare wood or is wider than any seed, or more of it
lies in one piece than any seed's top could show (any seed at all, or this board's,
whose size calibration measures: :mod:`vision.seed_size`), and inside a
hollow where, with today's light divided out, it is whiter than any seed of
the start position was (calibration measures the whitest; every seed of a game
is on the board at its start). Seeds lying in a reflection break its white
into rings and arcs too thin for a patch: white of any shape counts where it
is far whiter than any seed. White the finder cannot tell from a seed's is a
doubt, its pit's reading hedged. Without the whitest seed's measure (an older
calibration file) a small reflection inside a hollow is such a doubt. A heap
sown over a reflection can hide it wholly; the pits one was seen on are
remembered (:class:`CoveredReflections`) and read hedged while seeds may hide it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

import cv2
import numpy as np

from calibration.profiles import BoardProfile

from .markers import MARKER_IDS
from .pieces import chosen_pieces, pieces_of
from .rectify import LightModel, board_light, in_empty_light

GLARE = 240  # every channel at least this bright: the sensor's ceiling, less its noise
GLARE_PATCH_MM = 3.0  # white in a patch this wide is no bead's highlight...
GLARE_SEED_MM = 18.0  # ...and over seeds a reflection where it reaches the bare wood or is wider than this, or
# covers more than a disc this wide: no seed's top does (real seeds run up to 17 mm marbles)
LARGEST_SEED_TOP_MM2 = np.pi * (GLARE_SEED_MM / 2) ** 2  # 254 mm2: the most white one seed can show, of any board
SEED_TOP_TIMES = 1.6  # a board whose seed size calibration measured (vision.seed_size): no seed shows more white than
# this many times its measure. A white seed's top clips whole at most, and the measure came out as low as 0.68 times
# the seeds' true area (dark beans; glass beads and chips, which can be white, 0.88), so a seed's white stays under
# 1.47 times it; 1.6 leaves a tenth more
LEAST_SEED_TOP_MM2 = 113.0  # ...and never less than a 12 mm disc: the largest white a seed showed without a lamp
# (92 mm2, a white chip) and a fifth more, should the measure fail (white seeds on pale wood change it little)
GLARE_MARGIN_MM = 6.0  # pits this close to a reflection are unseen: its halo washes seeds out beyond what clips
WHITER = 1.15  # white this much whiter than the whitest seed at calibration is no seed (seeds and light vary;
# a false reflection leaves one pit of a Reading unseen, the game goes on: docs/vision.md, section 4)
NO_SEED_WHITER = 1.3  # ...and this much whiter, not even a seed the frame's noise clips in specks: then a piece
# of white as large as a patch counts whatever its shape (a reflection rings the seeds lying in it, too thinly
# for a patch to fit: docs/vision.md, section 4)
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
    whiteness = in_empty_light(board, log_gain).min(axis=2)
    return float(cv2.erode(whiteness, _square(GLARE_PATCH_MM * px_per_mm))[hollows].max())


def seed_top_mm2(seed_area: float | None) -> float:
    """The most white one seed of a board can show (mm2), given its seeds' measured area (mm2;
    None: not measured, any seed up to the largest)."""
    if seed_area is None:
        return LARGEST_SEED_TOP_MM2
    return float(np.clip(SEED_TOP_TIMES * seed_area, LEAST_SEED_TOP_MM2, LARGEST_SEED_TOP_MM2))


def hedged(probabilities: np.ndarray) -> np.ndarray:
    """A reading of a pit where white clipped that may be a lamp's reflection rather than a seed:
    what lies under a reflection cannot be seen, and the counter (trained beside reflections
    since 2026-11-27, but never told which white is one) can read its white as seeds and be
    sure of it, so every count keeps a share (``DOUBT``) and the referee can still find the move
    that was played, which the other pits tell, rather than call it illegal (docs/vision.md,
    section 4)."""
    return (1 - DOUBT) * probabilities + DOUBT / len(probabilities)


def _square(side: float) -> np.ndarray:
    return cv2.getStructuringElement(cv2.MORPH_RECT, (round(side) | 1,) * 2)


@dataclass(frozen=True)
class Reflections:
    """What :meth:`GlareFinder.find` saw in one frame (bool masks of the rectified board, None: none)."""

    glare: np.ndarray | None  # a lamp's reflection, grown by GLARE_MARGIN_MM: its pits are unseen
    doubtful: np.ndarray | None  # clipped white inside a hollow that may be a white seed or a reflection


@dataclass
class CoveredReflections:
    """The pits of one board a lamp's reflection was seen on, for as long as seeds may hide it.

    A heap sown over a reflection in its hollow can cover it wholly: no clipped white is left to
    find, and the counter reads the seeds it lights several too many, and sure of it (a pit of 12
    read as 16, move after move: docs/vision.md, section 4). The lamp and the camera stay put, so
    a pit glared in one frame lies under the same reflection while seeds hide it, and its readings
    are hedged (:func:`hedged`). It is forgotten once the pit is read empty: a reflection in an
    empty hollow would show, so the lamp has gone or moved.
    """

    pits: set[str] = field(default_factory=set)

    def covers(self, label: str) -> bool:
        """Whether a reflection may lie under pit ``label``'s seeds."""
        return label in self.pits

    def update(self, glared: Iterable[str], read_empty: Iterable[str]) -> None:
        """After a frame: the pits a reflection was seen on (``glared``) are remembered, those read
        empty with none seen forgotten."""
        self.pits = (self.pits - set(read_empty)) | set(glared)


class GlareFinder:
    """Finds reflections on the rectified frames of one board (built once per board)."""

    def __init__(self, profile: BoardProfile, px_per_mm: float, shape: tuple[int, int],
                 wood: np.ndarray | None = None, whitest: float | None = None, seed_area: float | None = None) -> None:
        """``shape``: the rectified board's (rows, columns); ``wood``: its bare wood (bool), None
        for an empty board, where every reflection counts; ``whitest``: :func:`whitest_seed` of
        the start position, and ``seed_area``: one of its seeds' area (mm2,
        :func:`vision.seed_size.seed_area_mm2`), if calibration measured them."""
        self._off_paper = (~sticker_mask(shape, profile, px_per_mm)).view(np.uint8)  # 1 where no marker is
        self._wood = wood
        self._whitest = whitest
        if wood is not None and whitest is not None:
            self._light = board_light(shape)
        self._patch = _square(GLARE_PATCH_MM * px_per_mm)
        self._least = self._patch.size  # px: a piece of white this large may be a reflection, whatever its shape
        self._seed = _square(GLARE_SEED_MM * px_per_mm)
        self._seed_top = seed_top_mm2(seed_area) * px_per_mm ** 2  # px: the most white one seed can show
        self._margin = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (int(2 * GLARE_MARGIN_MM * px_per_mm) | 1,) * 2)

    def find(self, board: np.ndarray, log_gain: np.ndarray | None = None) -> Reflections:
        """The reflections on ``board`` (rectified BGR, in the light ``log_gain`` fitted: needed
        over seeds to compare with the whitest seed), and the white over seeds that may be one."""
        white = cv2.inRange(board, (GLARE,) * 3, (255,) * 3)
        white *= self._off_paper  # the markers' white paper is no reflection
        if cv2.countNonZero(white) < self._least:
            return Reflections(None, None)
        patches = cv2.morphologyEx(white, cv2.MORPH_OPEN, self._patch)
        if self._wood is None:  # the empty board: every patch of white is a reflection
            return Reflections(self._grown(patches > 0), None)
        # over seeds: a patch is a reflection where it reaches the wood or is wider than a seed ...
        count, pieces = cv2.connectedComponents(patches)
        kept = np.union1d(pieces[self._wood & (patches > 0)],
                          pieces[cv2.morphologyEx(patches, cv2.MORPH_OPEN, self._seed) > 0])
        large_count, large, any_shape = self._large(white)  # ... white of any shape in a piece larger than a seed ...
        if self._whitest is not None and log_gain is not None:  # ... or whiter than any seed
            box = _around(white)
            at_least = self._at_least(log_gain, box)
            kept = np.union1d(kept, _whiter(pieces[box], count, at_least, WHITER * self._whitest))
            any_shape = np.union1d(any_shape, _whiter(large[box], large_count, at_least, NO_SEED_WHITER * self._whitest))
        glare = chosen_pieces(pieces, count, kept) | chosen_pieces(large, large_count, any_shape)
        unexplained = (large > 0) & ~glare
        return Reflections(self._grown(glare), unexplained if unexplained.any() else None)

    def _large(self, white: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
        """The pieces of ``white`` (uint8) as large as a patch, whatever their shape, labelled (the
        smaller ones 0), how many labels there are, and the labels of those larger than any seed's
        top. Seeds lying in a reflection hide its middle, and the white left round them can be
        too thin for a patch to fit: where no seed of the game could be as white
        (``NO_SEED_WHITER``: beans, pebbles, coloured glass) it is a reflection all the same, and
        elsewhere a doubt, as a patch is. A piece larger than a seed's top (:func:`seed_top_mm2`) is
        a reflection however white: a reflection long and narrow in its hollow is no wider than a
        seed, and a white chip is as white as it (docs/vision.md, section 4)."""
        count, labels, areas = pieces_of(white)
        large = areas >= self._least
        large[0] = False
        large_labels = np.where(large, np.arange(count, dtype=labels.dtype), 0)[labels]
        return count, large_labels, np.flatnonzero(large & (areas > self._seed_top))

    def _at_least(self, log_gain: np.ndarray, box: tuple[slice, slice]) -> np.ndarray:
        """How white, today's light divided out, a pixel clipped at GLARE in every channel is at
        least: GLARE over the brightest channel's gain (float32), in the ``box`` of the rectified
        board only (:func:`_around`: the light sampled where it is asked, not over the board)."""
        cells_x, cells_y = self._light
        gain = LightModel.sample(np.ascontiguousarray(log_gain.max(axis=2)), (cells_x[box], cells_y[box]))
        return np.float32(GLARE) / np.exp(gain)

    def _grown(self, glare: np.ndarray) -> np.ndarray | None:
        """The reflection ``glare`` (bool) grown by ``GLARE_MARGIN_MM``, its halo; None for none."""
        if not glare.any():
            return None
        return cv2.dilate(glare.view(np.uint8), self._margin) > 0


def _around(white: np.ndarray) -> tuple[slice, slice]:
    """The rows and columns of the smallest box round every pixel of ``white`` (uint8)."""
    x, y, width, height = cv2.boundingRect(white)
    return slice(y, y + height), slice(x, x + width)


def _whiter(pieces: np.ndarray, count: int, at_least: np.ndarray, than: float) -> np.ndarray:
    """The labels of ``pieces`` whose pixels, clipped, are on average whiter than ``than`` at least
    (``at_least``, :meth:`GlareFinder._at_least`, cut to the same box as ``pieces``); measured over
    the pieces' pixels alone, a few hundred of the board's, so the background's label is never
    among them."""
    labelled = pieces > 0
    labels = pieces[labelled]
    whiteness = np.bincount(labels, at_least[labelled], minlength=count) / np.maximum(np.bincount(labels, minlength=count), 1)
    return np.flatnonzero(whiteness > than)
