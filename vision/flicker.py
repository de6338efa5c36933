"""Mains flicker: bands of light that sweep down the picture from one frame to the next.

A lamp on mains power brightens and dims twice a cycle, 100 times a second on
50 Hz mains. A webcam's rolling shutter reads the picture's rows one after
another over most of a frame's time, so with an exposure shorter than the
light's cycle (a bright room, an automatic exposure) the picture shows bands of
rows lit brighter and darker, about three to a picture, and at 30 frames a
second they move a third of a band each frame. The stillness gate compares
each frame with the one before, and saw moving bands as motion all over the
board: with a swing of 3 % either way most still boards' Readings were never
given (docs/vision.md, section 5, *Mains flicker*). And the reader's light
model, a smooth surface over the board, missed bands of 25 % by enough to
misread a lone seed in a dark band.

The bands are the same all along each of the picture's rows. So the change of
light between two frames of the board is measured along the picture's rows
and divided out before they are compared (:class:`RowLight`): per bin of
``ROW_BIN`` rows, the median change of the board's pixels lying in those rows
that neither frame clipped (a seed moved, or a hand, changes a few of them),
refined by the mean of the pixels near it. The light model measures what its
smooth fit leaves along the rows the same way, and adds it where both halves of
the board see the same bands (``LightModel._with_bands``).
Where the brighter light pushed the sensor to its ceiling, a pixel only says
it was at least that bright, and would look darker than the frame it is
compared with: there it is taken to be what the other frame shows, in its
own light (:func:`unclipped`).
"""

from __future__ import annotations

import cv2
import numpy as np

ROW_BIN = 4  # picture rows per bin: a band (bright and dark) is some 200 rows of a 720-row picture
SPAN = 1.0  # the largest change of light (log) a bin's median is looked for in: 0.37 to 2.7 times as bright
STEPS = 200  # ...in steps of 0.01
NEAR = 0.04  # pixels this near (log) their bin's median are the light's change; farther ones are seeds, a hand
CLIPPED = 245  # a channel this bright may have reached the sensor's ceiling (less its noise)
MIN_PIXELS = 10  # a bin with fewer pixels measured takes its level from its neighbours
EVERY = 2  # the change is measured on every second pixel each way: a bin of rows still holds hundreds


def picture_rows(shape: tuple[int, int], image_to_board: np.ndarray, px_per_mm: float) -> np.ndarray:
    """The picture row (px, float32) each pixel of a rectified board of ``shape`` at ``px_per_mm``
    shows, through the homography ``image_to_board`` (picture px -> board mm)."""
    height, width = shape
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    board_mm = np.stack([(xs + 0.5) / px_per_mm, (ys + 0.5) / px_per_mm], axis=-1).reshape(-1, 1, 2)
    picture = cv2.perspectiveTransform(board_mm, np.linalg.inv(image_to_board))
    return picture[:, 0, 1].reshape(shape).astype(np.float32)


class RowLight:
    """Measures a change of light along the picture's rows on a board (or a grid of cells of it)
    that stays where it is in the picture (one placement: ``picture_rows``' homography)."""

    def __init__(self, rows: np.ndarray, measured: np.ndarray | None = None, row_bin: float = ROW_BIN) -> None:
        """``rows``: :func:`picture_rows`; ``measured``: where to measure (bool; None: every
        ``EVERY``-th pixel each way); ``row_bin``: the
        picture rows a level is measured over (more where fewer elements are measured)."""
        position = rows / np.float32(row_bin)
        first = int(np.floor(position.min()))
        bins = np.floor(position).astype(np.int32) - first
        self._count = int(bins.max()) + 1
        if measured is None:
            measured = np.zeros(rows.shape, bool)
            measured[::EVERY, ::EVERY] = True
        self._measured = np.flatnonzero(measured)  # flat indices of the pixels measured
        self._bins = bins.ravel()[self._measured]
        place = position - np.float32(first)  # each pixel's place in bins from the first one's start
        pixels = np.bincount(self._bins, minlength=self._count)
        self._middles = np.bincount(self._bins, weights=place.ravel()[self._measured], minlength=self._count) / np.maximum(pixels, 1)
        # where each bin's pixels lie on average: at the board's edges, off the bin's middle
        self._map = cv2.convertMaps(place + np.float32(0.5), np.zeros_like(place), cv2.CV_16SC2)  # fixed point: a faster
        # remap of levels given at every bin's middle and half a bin beyond the first and the last

    def change(self, now: np.ndarray, before: np.ndarray, trusted: np.ndarray | None = None) -> tuple[np.ndarray, float]:
        """The change of light from ``before`` to ``now`` (positive float32 boards of the rows'
        shape) that depends on the picture's row alone: per pixel, the gain to divide ``now`` by,
        and its swing (half the log of the brightest bin's gain over the darkest's). ``trusted``
        (bool, the rows' shape; None: all): the pixels to measure it on, those neither frame
        clipped. A marker's white paper, or wood whose red the sensor clipped, changes less than
        the light where a bright band clips it: where that fills much of a bin of rows (the
        picture's top rows cross a far corner's marker and little else) it pulled the bin's
        median off (by a tenth in the game where it was found, a quarter in the test)."""
        measured, bins = self._measured, self._bins
        if trusted is not None:
            kept = trusted.ravel()[measured]
            measured, bins = measured[kept], bins[kept]
        change = np.log(np.maximum(now.ravel()[measured], 1e-3) / np.maximum(before.ravel()[measured], 1e-3))
        level, swing = self._levels(change, bins)
        return cv2.exp(level), swing

    def along_rows(self, change: np.ndarray) -> tuple[np.ndarray, float]:
        """The part of ``change`` (a log change of light at the pixels measured, in their order)
        that depends on the picture's row alone, everywhere (float32, the rows' shape), and its
        swing; zero where nothing could be measured."""
        return self._levels(change, self._bins)

    def _levels(self, change: np.ndarray, bins: np.ndarray) -> tuple[np.ndarray, float]:
        """:meth:`along_rows` of ``change`` measured at pixels in ``bins`` (each one's bin of rows)."""
        steps = np.clip(((change + SPAN) * (STEPS / (2 * SPAN))).astype(np.int32), 0, STEPS - 1)
        histogram = np.bincount(bins * STEPS + steps, minlength=self._count * STEPS)
        below = histogram.reshape(self._count, STEPS).cumsum(axis=1)
        median = (np.count_nonzero(below < below[:, -1:] / 2, axis=1) + 0.5) * (2 * SPAN / STEPS) - SPAN
        near = np.abs(change - median[bins]) < NEAR
        pixels = np.bincount(bins[near], minlength=self._count)
        total = np.bincount(bins[near], weights=change[near], minlength=self._count)
        filled = np.flatnonzero(pixels >= MIN_PIXELS)
        if not len(filled):
            return np.zeros(self._map[0].shape[:2], np.float32), 0.0
        level = total[filled] / pixels[filled]
        grid = _straight_through(np.arange(-0.5, self._count + 0.5), self._middles[filled], level).astype(np.float32)
        return cv2.remap(grid[None, :], *self._map, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE), float(np.ptp(level) / 2)


def _straight_through(x: np.ndarray, at: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The broken line through (``at``, ``values``) at ``x``, continued straight beyond both ends."""
    if len(at) < 2:
        return np.full(x.shape, values[0])
    line = np.interp(x, at, values)
    for end, side in ((slice(0, 2), x < at[0]), (slice(-2, None), x > at[-1])):
        (a0, a1), (v0, v1) = at[end], values[end]
        line[side] = v0 + (x[side] - a0) * (v1 - v0) / (a1 - a0)
    return line


def brightest(board: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """The brightest channel of ``board`` (uint8 BGR) around each pixel of the same board at
    ``shape`` (smaller: each pixel the brightest it covers)."""
    blue, green, red = cv2.split(board)  # OpenCV's max of the channels: ten times numpy's over the last axis
    bright = cv2.dilate(cv2.max(cv2.max(blue, green), red), np.ones((3, 3), np.uint8))
    return cv2.resize(bright, shape[::-1], interpolation=cv2.INTER_NEAREST)


def unclipped(gray: np.ndarray, bright: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """``gray`` (a board's grey levels, float32) where its camera may have clipped (``bright``,
    :func:`brightest`, at ``CLIPPED`` or over) filled in with ``expected`` (what the other frame
    shows there, in this frame's light) where that is brighter: a clipped pixel only says it was
    at least that bright. A seed dropped with a glint of its own is still a change: the frame
    before shows the darker hollow there."""
    return np.where((bright >= CLIPPED) & (expected > gray), expected, gray)
