"""The rectified board: a top-down view in board millimetres, and the light on it.

Every frame is warped to the same top-down view (``px_per_mm`` pixels per
millimetre, origin at the board's far-left corner), so pits sit at fixed
places whatever the camera angle or a nudge of the board. Lighting changes
between frames (a cloud, a lamp switched on, a coloured bulb) are modelled as
a smooth per-channel gain against the empty board photographed at
calibration: the gain is fitted on the bare wood between the hollows, where
nothing but light can change, and then explains what the empty hollows
should look like now.
"""

from __future__ import annotations

import cv2
import numpy as np

from .flicker import RowLight

DEFAULT_PX_PER_MM = 1.5  # the rectified view's scale unless a calibration is made at another (calibration.calibrate)
GAIN_CELL_PX = 8  # the light field is fitted on cells of this many rectified pixels
CLIPPED = 250  # a channel this bright has met the sensor's ceiling: it shows less than the light's gain
CLIPPED_REFIT_SHARE = 0.3  # a clipped channel is fitted again without its clipped cells if this share is left
SHADE_CELLS = (2.0, 6.0)  # a shadow is followed over this many cells (Gaussian sigma): close by, and into a store
BANDS_SEEN = 0.03  # light left along the picture's rows swinging this much (log) is a mains lamp's flicker in bands
BAND_ROWS = 16  # ...measured over bins of this many picture rows (a cell is 8-12 of them; a band some 200)
HALVES_DIFFER = 0.3  # ...and seen alike by the board's two halves, within this share of its swing
BAND_WOOD = 0.2  # ...on cells this much wood: the rims between hollows, where a board's rows of pits show the light
BACKFITS = 6  # the smooth fit is made again without the bands up to this many times...
SETTLED = 0.005  # ...until they change by less than this (log)


def warp_to_board(frame: np.ndarray, image_to_mm: np.ndarray, size_mm: tuple[float, float], px_per_mm: float) -> np.ndarray:
    """The top-down view of the board (uint8 BGR, like the frame); outside the frame is black."""
    return cv2.warpPerspective(frame, to_rectified(image_to_mm, px_per_mm), rectified_size(size_mm, px_per_mm), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_CONSTANT)


def to_rectified(image_to_mm: np.ndarray, px_per_mm: float) -> np.ndarray:
    """The homography from picture px to rectified px, from one to board mm."""
    return np.diag([px_per_mm, px_per_mm, 1.0]) @ image_to_mm


def rectified_size(size_mm: tuple[float, float], px_per_mm: float) -> tuple[int, int]:
    """The rectified view's width and height (px) of a board ``size_mm`` wide and deep."""
    return int(round(size_mm[0] * px_per_mm)), int(round(size_mm[1] * px_per_mm))


class BoardWarp:
    """The top-down view of one board (:func:`warp_to_board`) frame after frame, cheaper while
    the board stays put.

    A board that has not moved keeps its placement: ``BoardReader._held`` hands back the very
    homography it found last. So the picture position each rectified pixel comes from is the
    same too: it is worked out the second time a placement is used, and each frame after that
    is only remapped through it (``cv2.remap``): 1.0 ms where ``cv2.warpPerspective`` takes 1.7,
    1.9 where it takes 3.3 on a 4 x 8 board (1280 x 720 pictures, one thread; a scratch timing,
    2026-12-06). A placement used once, as while the board moves, is warped as before. The map
    holds positions to 1/32 px, as ``cv2.convertMaps`` makes them: 5-7 % of the pixels come out
    a level (of 255) off what ``warpPerspective`` gives, a few in a thousand more (at most 4, on
    sharp edges), far below a camera's noise.
    """

    def __init__(self, size_mm: tuple[float, float], px_per_mm: float) -> None:
        self.size_mm, self.px_per_mm = size_mm, px_per_mm
        self._placement: bytes | None = None  # the homography warped by last (its bytes)
        self._map: tuple[np.ndarray, np.ndarray] | None = None  # ...and its map, once it was used twice

    def __call__(self, frame: np.ndarray, image_to_mm: np.ndarray) -> np.ndarray:
        placement = image_to_mm.tobytes()
        if placement != self._placement:
            self._placement, self._map = placement, None
            return warp_to_board(frame, image_to_mm, self.size_mm, self.px_per_mm)
        if self._map is None:
            self._map = self._picture_positions(image_to_mm)
        return cv2.remap(frame, *self._map, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)

    def _picture_positions(self, image_to_mm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Where in the picture each rectified pixel lies, in ``cv2.remap``'s fixed-point form.
        Worked out row by column (0.5 ms; ``cv2.perspectiveTransform`` of every pixel took 3.9)."""
        width, height = rectified_size(self.size_mm, self.px_per_mm)
        to_picture = np.linalg.inv(to_rectified(image_to_mm, self.px_per_mm)).astype(np.float32)
        x, y = np.arange(width, dtype=np.float32)[None, :], np.arange(height, dtype=np.float32)[:, None]

        def row(k: int) -> np.ndarray:  # row k of the homography, at every rectified pixel
            return to_picture[k, 0] * x + to_picture[k, 1] * y + to_picture[k, 2]

        depth = row(2)
        return cv2.convertMaps(row(0) / depth, row(1) / depth, cv2.CV_16SC2)


def visible_mask(frame_shape: tuple[int, ...], image_to_mm: np.ndarray, size_mm: tuple[float, float], px_per_mm: float) -> np.ndarray:
    """Which rectified pixels the camera actually sees (the rest of the board is out of frame)."""
    ones = np.full(frame_shape[:2], 255, np.uint8)
    return cv2.warpPerspective(ones, to_rectified(image_to_mm, px_per_mm), rectified_size(size_mm, px_per_mm), flags=cv2.INTER_NEAREST) > 0


def _robust_fit(basis: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Quadratic coefficients (6 x channels) of ``target`` (cells x channels) over ``basis``,
    refitted twice without the cells explained worst in any channel."""
    use = np.ones(len(target), bool)
    coeffs = np.zeros((basis.shape[1], target.shape[1]))
    for _ in range(3):
        if np.count_nonzero(use) < 12:
            break
        fit = basis[use]
        try:  # least squares by the normal equations: 6 unknowns, well conditioned on a spread of cells
            coeffs = np.linalg.solve(fit.T @ fit, fit.T @ target[use])
        except np.linalg.LinAlgError:
            break
        residual = np.abs(target - basis @ coeffs).max(axis=1)
        use = residual < np.median(residual[use]) * 3 + 0.03
    return coeffs


def _whole_cells(mask: np.ndarray) -> np.ndarray:
    """Per cell of the light field (flattened), whether all of it is in ``mask`` (bool, rectified board)."""
    return (reduce(mask.astype(np.float32), GAIN_CELL_PX) > 0.99).ravel()


def _cells_in_view(seen: np.ndarray | None) -> np.ndarray | None:
    """:func:`_whole_cells` of ``seen`` (bool, rectified board), None when all of it is in view."""
    return None if seen is None else _whole_cells(seen)


def board_light(shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Where every pixel of a rectified board of ``shape`` lies on the light field's cells
    (:meth:`LightModel.sampler`), to divide a whole board's light out."""
    rows, columns = np.mgrid[0:shape[0], 0:shape[1]].astype(np.float32)
    return LightModel.sampler(columns, rows)


def in_empty_light(board: np.ndarray, log_gain: np.ndarray) -> np.ndarray:
    """The rectified ``board`` (uint8 BGR) with today's light ``log_gain`` divided out: as the
    empty board's light would show it (float32, 0..255 where nothing changed)."""
    return board.astype(np.float32) / np.exp(LightModel.sample(log_gain, board_light(board.shape[:2])))


def reduce(image: np.ndarray, factor: int) -> np.ndarray:
    """``image`` shrunk by a whole ``factor``, each output pixel the mean of a factor x factor
    block (the few rows and columns beyond the last whole block are dropped): the exact
    block mean is several times cheaper than a resize by any other ratio."""
    h, w = image.shape[0] // factor, image.shape[1] // factor
    return cv2.resize(image[:h * factor, :w * factor], (w, h), interpolation=cv2.INTER_AREA)


class LightModel:
    """Today's light relative to the empty board, as a smooth per-channel log gain.

    A quadratic surface per channel, fitted to log(board/reference) on
    bare-wood cells and refitted without the cells it explains worst (a hand,
    a stray seed), so an arm over the board does not tint the whole reading.
    A channel the camera clipped somewhere on the wood is fitted again on the
    wood it did not clip, when enough is left: bright wood stuck at 255 says
    the light rose less than it did, and the darker hollows, divided by too
    small a gain, would look redder than the empty board (a lone bean then
    reads as none).
    Everything that depends only on the reference is computed once.
    """

    EPS = np.float32(0.02)

    def __init__(self, reference: np.ndarray, surface: np.ndarray) -> None:
        """``reference``: the rectified empty board (uint8 BGR); ``surface``: its bare wood (bool)."""
        self._log_reference_cells = self._log_cells(reference)
        wood = reduce(surface.astype(np.float32), GAIN_CELL_PX)
        surface_cells = wood > 0.99
        self._band_cells = (wood > BAND_WOOD).ravel()
        self._cells_shape = surface_cells.shape
        self._surface_cells = surface_cells.ravel()
        ch, cw = self._cells_shape
        yy, xx = np.mgrid[0:ch, 0:cw].astype(np.float64)
        xx, yy = (xx / max(cw - 1, 1) - 0.5).ravel(), (yy / max(ch - 1, 1) - 0.5).ravel()
        self._basis = np.stack([np.ones_like(xx), xx, yy, xx * xx, yy * yy, xx * yy], axis=-1)  # cells x 6

    def _log_cells(self, board: np.ndarray) -> np.ndarray:
        return np.log(reduce(board, GAIN_CELL_PX).astype(np.float32) * np.float32(1 / 255) + self.EPS).reshape(-1, 3)

    @property
    def cells_shape(self) -> tuple[int, int]:
        """The grid of cells the light is fitted on (rows, columns)."""
        return self._cells_shape

    def log_gain(self, board: np.ndarray, seen: np.ndarray | None = None, rows: np.ndarray | None = None) -> np.ndarray:
        """The log gain (float32, 3 channels, one value per cell) turning the reference into
        ``board``'s light (uint8 BGR); :meth:`sample` makes it an image. ``rows``: the picture
        row of every cell (:func:`vision.flicker.picture_rows`), to follow a mains lamp's bands
        across the picture, which no smooth surface does."""
        ratio = self._log_ratio(board)
        in_view = _cells_in_view(seen)
        usable = self._usable(in_view)
        clipped = self._clipped_cells(board)
        gain = self._smooth(ratio, usable, usable[:, None] & clipped)
        if rows is not None:
            gain = self._with_bands(gain, ratio, usable, clipped, in_view, rows)
        return gain.astype(np.float32).reshape(self._cells_shape + (3,))

    def _smooth(self, ratio: np.ndarray, usable: np.ndarray, clipped: np.ndarray) -> np.ndarray:
        """The quadratic surface per channel (cells x 3) fitted to ``ratio`` on the ``usable`` cells,
        a channel ``clipped`` (cells x 3) on some of them fitted again on the rest where enough is left."""
        coeffs = _robust_fit(self._basis[usable], ratio[usable])
        for channel in np.nonzero(clipped.any(axis=0))[0]:
            unclipped = usable & ~clipped[:, channel]
            if np.count_nonzero(unclipped) >= CLIPPED_REFIT_SHARE * np.count_nonzero(usable):
                coeffs[:, channel] = _robust_fit(self._basis[unclipped], ratio[unclipped, channel:channel + 1])[:, 0]
        return self._basis @ coeffs

    def _with_bands(self, smooth: np.ndarray, ratio: np.ndarray, usable: np.ndarray, clipped: np.ndarray,
                    in_view: np.ndarray | None, rows: np.ndarray) -> np.ndarray:
        """``smooth``, the fit of :meth:`_smooth`, with what it leaves of the light along the
        picture's ``rows`` (a mains lamp's bands, vision.flicker; grey: the channels' mean) where
        that swings by ``BANDS_SEEN`` and the board's two halves see it alike (``HALVES_DIFFER``:
        a shadow or a patch of sun lies over part of a row, bands along all of it).

        The bands are measured on the cells of some wood (``BAND_WOOD``) in view: across a board's
        rows of pits, cells wholly of wood are few or none. Cells the sensor clipped are measured
        too: they read a few percent darker than their light, while left out, a bright lamp's band
        lost its peak, guessed from its flanks 7-14 % off. And a smooth surface bends to follow a
        band's hump, leaving the bands in part and unevenly, so it is fitted again without the
        bands measured, and the bands measured again on what it leaves, until they settle
        (``BACKFITS``, ``SETTLED``)."""
        banded = self._band_cells if in_view is None else self._band_cells & in_view
        if not banded.any():
            return smooth
        row_light = RowLight(rows, banded.reshape(self._cells_shape), BAND_ROWS)
        bands, swing = row_light.along_rows((ratio - smooth).mean(axis=1)[banded])
        if swing < BANDS_SEEN:
            return smooth
        gain = smooth
        for _ in range(BACKFITS):
            gain = self._smooth(ratio - bands.reshape(-1, 1), usable, usable[:, None] & clipped)
            before, (bands, swing) = bands, row_light.along_rows((ratio - gain).mean(axis=1)[banded])
            if np.abs(bands - before).max() < SETTLED:
                break
        residual = (ratio - gain).mean(axis=1)
        if swing < BANDS_SEEN or not self._same_in_halves(residual, banded.reshape(self._cells_shape), rows, swing):
            return smooth
        return gain + bands.reshape(-1, 1)

    @staticmethod
    def _same_in_halves(residual: np.ndarray, banded: np.ndarray, rows: np.ndarray, swing: float) -> bool:
        """Whether the board's left and right halves see the same light along the picture's ``rows``
        in ``residual`` (per cell, flattened), measured on the ``banded`` cells (bool, the cells'
        grid), within ``HALVES_DIFFER`` of its ``swing``."""
        left = banded.copy()
        left[:, rows.shape[1] // 2:] = False
        halves = [RowLight(rows, half, BAND_ROWS).along_rows(residual[half.ravel()])[0] for half in (left, banded & ~left)]
        return bool(np.abs(halves[0] - halves[1])[banded].mean() <= HALVES_DIFFER * swing)

    def followed(self, board: np.ndarray, log_gain: np.ndarray, seen: np.ndarray | None, shade: np.ndarray) -> np.ndarray:
        """``log_gain``, this board's smooth fit (:meth:`log_gain`, with the same ``seen``), with
        the light followed closely over the wood ``shade`` (bool), as over a shadow: each channel
        on the shaded wood it did not clip (see :meth:`_local`). The fit is not made again."""
        gain = log_gain.astype(np.float64)
        in_view = _cells_in_view(seen)
        cells = (self._usable(in_view) & _whole_cells(shade))[:, None] & ~self._clipped_cells(board)
        residual = self._log_ratio(board).reshape(gain.shape) - gain
        return (gain + self._local(residual, cells.reshape(gain.shape))).astype(np.float32)

    def _log_ratio(self, board: np.ndarray) -> np.ndarray:
        """log(board / reference) per cell (cells x 3, float64)."""
        return (self._log_cells(board) - self._log_reference_cells).astype(np.float64)

    def _usable(self, in_view: np.ndarray | None) -> np.ndarray:
        """The cells (flattened) of bare wood wholly in view (``in_view``: per cell, from
        :func:`_whole_cells`; None when all is)."""
        return self._surface_cells if in_view is None else self._surface_cells & in_view

    @staticmethod
    def _local(residual: np.ndarray, cells: np.ndarray) -> np.ndarray:
        """What the smooth fit leaves out of the light (cells x 3) on the wood ``cells`` (bool,
        per channel: a shadow's edge, a patch of sun), spread from them over the rest (the
        hollows) by normalised convolution: closely from nearby wood, and from farther off into
        the middle of a store."""
        weight = cells.astype(np.float32)
        weighted = residual.astype(np.float32) * weight
        local = np.zeros_like(weighted)
        covered = np.zeros_like(weight)  # how much of each cell the closer scales already explain
        for sigma in SHADE_CELLS:
            support = cv2.GaussianBlur(weight, (0, 0), sigma)
            spread = cv2.GaussianBlur(weighted, (0, 0), sigma) / np.maximum(support, 1e-6)
            share = np.clip(support / 0.2, 0, 1) * (1 - covered)
            local += spread * share
            covered += share
        return local

    @staticmethod
    def _clipped_cells(board: np.ndarray) -> np.ndarray:
        """Per cell (flattened) and channel, whether more than half its pixels met the sensor's
        ceiling. (Any clipped pixel at all, with sensor noise, drops so much bright wood that the
        fit is worse: on the benchmark 1-4 seeds 99.5 % exact against 99.8 %.)"""
        clipped = cv2.threshold(board, CLIPPED - 1, 255, cv2.THRESH_BINARY)[1]
        return reduce(clipped, GAIN_CELL_PX).reshape(-1, 3) > 128  # the mean of a cell of 0s and 255s

    @staticmethod
    def sampler(xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Where the board pixels (``xs``, ``ys``: float32 images of board pixel coordinates) lie
        on the grid of cells, as fixed-point maps for :meth:`sample` (cell k covers board
        pixels 8k .. 8k+7 and is centred at 8k + 3.5)."""
        return cv2.convertMaps((xs + 0.5) / GAIN_CELL_PX - 0.5, (ys + 0.5) / GAIN_CELL_PX - 0.5, cv2.CV_16SC2)

    @staticmethod
    def sample(field: np.ndarray, sampler: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        """The per-cell ``field`` interpolated where ``sampler`` says: an image of the log gain."""
        return cv2.remap(field, sampler[0], sampler[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
