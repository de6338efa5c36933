"""A hand over the board: a large change on the bare wood; and seeds lying on it, small ones.

Between the hollows nothing but light should ever change. The board is
compared with the empty board under today's fitted light (see
:mod:`vision.rectify`), at half size (a hand is big): a pixel has changed
when its colour moved away from the wood's or its brightness did beyond
what the frame's own noise explains. A connected change larger than
``HAND_MIN_MM2`` is a hand, an arm or a sleeve; pits near it are unseen,
because fingers cast shadows and hide seeds, and a reading of them would be
a guess. A hand the colour of the wood is seen where the wood's grain has
gone (:mod:`vision.grain`). An arm across a hollow shows on the wood as two
pieces, one each side, and each may be smaller than that: pieces that meet
the rim of one hollow are taken together. A change that light explains
almost throughout (the grain still shows in it) is a shade, someone leaning
over the board, which the light model then follows instead
(:meth:`HandFinder.find`). A small, solid patch of another colour, with no
hand in view, is a seed that rolled out of a hollow while it was sown
(:meth:`HandFinder._strays`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Iterable

import cv2
import numpy as np

from calibration.calibfile import HollowFit

from .grain import Grain, GrainCheck
from .pieces import Pieces, chosen_pieces, pieces_of
from .pits import hollow_mask
from .rectify import LightModel, reduce

HAND_MIN_MM2 = 250.0  # a change on the bare wood bigger than this is a hand (or an arm, a sleeve)
HAND_MARGIN_MM = 6.0  # pits this close to a hand are unseen: fingers cast shadows and hide seeds
PIECE_MIN_MM2 = 40.0  # smaller changes on the wood are not joined across a hollow: noise, a grain's edge
RIM_SCALE = 1.35  # the wood round a hollow out to this many times its axes: where an arm across it shows
UNLIT_MIN_MM2 = 50.0  # a change with less than this that no light explains, over the whole wood, is a shadow
UNLIT_WIDTH_MM = 4.0  # ...counted only in patches this wide: skin lies in patches, a shadow leaves specks (noise, JPEG)
STRAY_CORE_MM2 = 20.0  # a change too small for a hand, with this much in such patches, is a seed lying on the wood...
STRAY_CHANGE = 75.0  # ...if its patches' area (mm2) times their median change (in the frame's noise) is this much
STRAY_MARGIN_MM = 4.0  # ...and its rim and shadow lie this far round those patches
SPILL_MM2 = 20.0  # ...unless seeds' colour joins it to this much of a hollow's inside...
SPILL_ANGLE = 60.0  # ...and it lies beyond the hollow within this many degrees of straight away from the camera
SHADE_STEP = 0.04  # light the smooth fit left out (log brightness, over SHADE_WINDOW_MM) that makes a shade
SHADE_WINDOW_MM = 5.0  # the light the smooth fit missed is averaged over this (the grain averages out)
EPS = np.float32(0.03)
Eye = Callable[[], tuple[float, float] | None]  # where the camera stands over the board (rectified px), if it can tell
REGISTRATION_PX = 1  # at half size: the frame may sit 2 board px off the empty board (a nudge, lens distortion)
_MEAN = np.full((1, 3), 1 / 3, np.float32)
_SUM = np.ones((1, 3), np.float32)


@dataclass(frozen=True)
class Reference:
    """The empty board as the frames are compared with it: per pixel and channel, the range
    (log) of the empty board's values within ``registration`` px, so that an edge of the
    wood grain landing a pixel away is not taken for a change."""

    low: np.ndarray
    high: np.ndarray

    @classmethod
    def of(cls, log_empty: np.ndarray, registration: int = REGISTRATION_PX) -> "Reference":
        """From the empty board's log (float32 BGR, log of 0..1 + ``EPS``)."""
        kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (2 * registration + 1,) * 2)
        return cls(cv2.erode(log_empty, kernel), cv2.dilate(log_empty, kernel))


@dataclass(frozen=True)
class Cover:
    """What lies over the board in one frame, as the hand finder sees it: a hand, a shade or nothing."""

    hand: np.ndarray | None  # the hand's mask on the rectified board (bool, grown by HAND_MARGIN_MM)
    shade: np.ndarray | None  # a shadow and no hand: the wood whose grain shows, on which the light
    # model is to follow the light closely (bool, rectified board)
    strays: tuple[tuple[float, float], ...] = ()  # seeds lying on the bare wood: their centres (rectified board px)
    stray_mask: np.ndarray | None = None  # ...and where they lie, shadows included (bool, rectified board)
    grain: GrainCheck | None = None  # the wood's grain against the empty board's, which tells how sharp the frame
    # is (HandFinder.blur_mm); None where no grain shows


class HandFinder:
    """Finds a hand over one calibrated board (built once, used every frame)."""

    def __init__(self, empty: np.ndarray, surface: np.ndarray, px_per_mm: float, hollows: Iterable[HollowFit]) -> None:
        """``empty``: the rectified empty board (uint8 BGR); ``surface``: its bare wood (bool);
        ``hollows``: where calibration found them, so that an arm across one is seen whole."""
        hollows = tuple(hollows)
        self._shape = surface.shape
        log_empty = cv2.log(reduce(empty, 2).astype(np.float32) * np.float32(1 / 255) + EPS)
        self._reference = Reference.of(log_empty)
        self._surface = half_mask(surface)
        self._empty_brightness = cv2.transform(log_empty, _MEAN)
        self._grain = Grain(self._empty_brightness, px_per_mm / 2, self._surface)
        self._shade_window = (2 * round(SHADE_WINDOW_MM * px_per_mm / 2) + 1,) * 2
        self._rims = [np.flatnonzero(half_mask(hollow_mask(surface.shape, fit, RIM_SCALE) > 0) & self._surface) for fit in hollows]
        self._inside = np.zeros(self._surface.shape, np.int32)  # which hollow (1, 2, ...) each pixel lies in; 0: none
        for number, fit in enumerate(hollows, 1):
            self._inside[half_mask(hollow_mask(surface.shape, fit) > 0)] = number
        self._hollow_middles = np.array([(0.0, 0.0)] + [fit.centre for fit in hollows]) / 2  # half size px, by number
        self._min_spill = SPILL_MM2 * px_per_mm * px_per_mm / 4
        self._min_piece = PIECE_MIN_MM2 * px_per_mm * px_per_mm / 4
        hh, hw = self._surface.shape
        yy, xx = np.mgrid[0:hh, 0:hw].astype(np.float32)
        self._light = LightModel.sampler(2 * xx + 0.5, 2 * yy + 0.5)  # a half-size pixel: a 2 x 2 block
        self._min_px = HAND_MIN_MM2 * px_per_mm * px_per_mm / 4
        self._min_unlit = UNLIT_MIN_MM2 * px_per_mm * px_per_mm / 4
        self._min_stray = STRAY_CORE_MM2 * px_per_mm * px_per_mm / 4
        self._min_stray_change = STRAY_CHANGE * px_per_mm * px_per_mm / 4
        self._patch = cv2.getStructuringElement(cv2.MORPH_RECT, (max(3, round(UNLIT_WIDTH_MM * px_per_mm / 2) | 1),) * 2)
        self._grow = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (int(2 * HAND_MARGIN_MM * px_per_mm) | 1,) * 2)
        self._grow_stray = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (int(2 * STRAY_MARGIN_MM * px_per_mm) | 1,) * 2)

    def find(self, board: np.ndarray, log_gain: np.ndarray, seen: np.ndarray | None,
             eye: Eye | None = None) -> Cover:
        """The hand over the rectified board, or the shade on it, in a frame whose light was
        fitted as ``log_gain``, and the seeds lying on its wood (``eye``: gives the point of the
        board under the camera, rectified px, which tells a heap seen over its rim from them,
        asked only when a patch on the wood could be either; None: not known).

        A change on the wood as large as a hand is a hand, its shadow included, unless light
        explains nearly all of it (a change where the grain still shows, or a change of
        brightness alone where the grain has not gone): with less than ``UNLIT_MIN_MM2`` of the
        whole wood, in patches, of another colour or with its grain gone, it is a shade
        (someone leaning over the board) for the light model to follow. A patch that only
        darkened, its grain faded but not gone, counts for a shade: in a dark shadow the
        frame's noise and JPEG fade the grain so; skin changes the colour, and a hand the
        wood's colour hides the grain altogether. A change too small to be a hand is a shade
        too where the smooth light model missed the light by more than ``SHADE_STEP``. The
        whole wood is counted, not each piece: a hand held over the hollows shows on the wood as
        its shadow and a fingertip (docs/vision.md, section 4). It also says how much of the
        empty board's grain the wood shows, which tells how blurred the frame is (:meth:`blur_mm`)."""
        surface = self._surface if seen is None else self._surface & half_mask(seen)
        relit = self._relit(board, log_gain)
        colour, brightness = self.change(relit, surface)
        brightness_now = cv2.transform(relit, _MEAN)
        grain = self._grain.check(brightness_now, surface)
        cover = self._cover(surface, colour, brightness, brightness_now, grain if grain is not None and grain.readable else None,
                            eye)
        return cover if grain is None else replace(cover, grain=grain)

    def blur_mm(self, cover: Cover) -> float | None:
        """How much blurrier (a Gaussian's sigma, mm of board) the frame that ``cover`` was found
        in is than the empty board's picture, by the grain of the wood not under a hand (skin has
        none; :meth:`vision.grain.Grain.blur_mm`); None where no grain shows. Asked only of a
        board without markers, which has nothing else to tell it by."""
        if cover.grain is None:
            return None
        energy = cover.grain.energy if cover.hand is None else cover.grain.energy_outside(half_mask(cover.hand))
        return None if energy is None else self._grain.blur_mm(energy)

    def _cover(self, surface: np.ndarray, colour: np.ndarray, brightness: np.ndarray, brightness_now: np.ndarray,
               grain: GrainCheck | None, eye: Eye | None) -> Cover:
        """What :meth:`find` finds, from the change in ``colour`` and ``brightness`` of each
        half-size pixel of the wood in view (``surface``) and the ``grain`` of it (None when
        there is none, or it no longer follows the empty board's)."""
        recoloured = colour > 1.0  # another colour than the wood's, beyond the frame's noise
        over = recoloured | (brightness > 1.0)
        if grain is not None:
            unlit = over & ~grain.kept & (recoloured | ~grain.strong)  # what no light explains
            unlit |= grain.lost
            over |= grain.lost
        over &= surface
        changed = pieces_of(over.view(np.uint8))
        big = self._hand_pieces(changed.labels, changed.areas)
        if grain is None:
            return Cover(self._grown(changed, big), None)
        patches = self._patches_of(unlit & surface) > 0
        recoloured &= patches  # what only darkened, its grain faded but not gone, is a shadow's
        if big and np.count_nonzero(recoloured | (patches & grain.lost)) >= self._min_unlit:
            return Cover(self._grown(changed, big), None)
        strays, where = self._strays(recoloured & ~grain.lost, colour, brightness, eye)
        light_left = cv2.blur(brightness_now - self._empty_brightness, self._shade_window)  # what the fit missed
        if big or np.count_nonzero((cv2.absdiff(light_left, 0) > SHADE_STEP) & grain.kept) >= self._min_px:
            return Cover(None, self._full_size(grain.kept), strays, where)
        return Cover(None, None, strays, where)

    def _patches_of(self, unlit: np.ndarray) -> np.ndarray:
        """The half-size pixels of ``unlit`` that lie in patches at least ``UNLIT_WIDTH_MM`` wide
        (a morphological opening; uint8): in a shadow, what no light explains is specks of noise
        and JPEG where the wood went dark, on a hand it is skin, and on a seed its top."""
        return cv2.morphologyEx(unlit.view(np.uint8), cv2.MORPH_OPEN, self._patch)

    def _strays(self, recoloured: np.ndarray, colour: np.ndarray, brightness: np.ndarray,
                eye: Eye | None) -> tuple[tuple[tuple[float, float], ...], np.ndarray | None]:
        """Patches of another colour than the wood's (``recoloured``, half size; a faded grain
        alone is blur, not a seed, and wood that only darkened is a shadow's) of
        ``STRAY_CORE_MM2``, smaller than a hand and changed enough (``STRAY_CHANGE``, the larger
        of ``colour`` and ``brightness`` change; the light model's misses at the board's ends
        and between hollows leave patches as large, a little above the noise): seeds lying on
        the wood. Where they lie with their rims and shadows (``STRAY_MARGIN_MM`` round them;
        None for none), and the centre of each piece of that (rectified board px): one seed, or
        seeds touching (a chip's glint can split it in two patches). Not the top of a heap seen
        over its rim (:meth:`_spilled_from_a_hollow`)."""
        count, labels, areas = pieces_of(recoloured.view(np.uint8))
        found = [k for k in range(1, count) if self._min_stray <= areas[k] < self._min_px
                 and areas[k] * _median_change(labels == k, colour, brightness) >= self._min_stray_change]
        camera = eye() if found and eye is not None else None
        if camera is not None:
            joined = cv2.connectedComponents(((colour > 1.0) | (labels > 0)).view(np.uint8))[1]  # by seeds' colour
            found = [k for k in found if not self._spilled_from_a_hollow(labels == k, joined, camera)]
        if not found:
            return (), None
        where = cv2.dilate(self._full_size(chosen_pieces(labels, count, found)).view(np.uint8), self._grow_stray)
        pieces, _, _, centres = cv2.connectedComponentsWithStats(where)
        return tuple((float(x), float(y)) for x, y in centres[1:pieces]), where > 0

    def _spilled_from_a_hollow(self, patch: np.ndarray, joined: np.ndarray, eye: tuple[float, float]) -> bool:
        """Whether ``patch`` (bool, half size) is the top of a hollow's heap, not a seed lying on
        the wood. Seen in depth, a heap that rises over its hollow's rim shows beyond the rim on the
        side away from the camera (``eye``: the point under it, rectified board px), on the wood
        of the rectified picture, and runs on into the rest of the heap; a seed that rolled out
        lies apart, the rim's bare wood between it and the hollow. So a patch is a heap's when
        seeds' colour joins it (``joined``: the board's pieces of colour other than the wood's,
        labelled) to at least ``SPILL_MM2`` inside a hollow's rim (colour alone: a seed's shadow
        changes the brightness) and it lies beyond that hollow within ``SPILL_ANGLE`` degrees
        of straight away from the camera. A seed that rolled out right against a heap's far
        rim is taken for the heap: seen in depth, the picture cannot tell them apart."""
        inside = self._inside[joined == joined[patch][0]]
        inside = inside[inside > 0]
        if len(inside) < self._min_spill:
            return False
        middle = self._hollow_middles[int(np.bincount(inside).argmax())]  # the hollow it joins most of
        ys, xs = np.nonzero(patch)
        beyond = np.array([xs.mean(), ys.mean()]) - middle
        away = middle - np.asarray(eye) / 2
        return float(beyond @ away) >= np.cos(np.radians(SPILL_ANGLE)) * float(np.linalg.norm(beyond) * np.linalg.norm(away))

    def _grown(self, changed: Pieces, hand: list[int]) -> np.ndarray | None:
        """The ``hand``'s pieces (labels of the ``changed`` pieces, at half size) as a mask of the
        rectified board, grown by ``HAND_MARGIN_MM``; None for no pieces."""
        if not hand:
            return None
        return cv2.dilate(self._full_size(chosen_pieces(changed.labels, changed.count, hand)).view(np.uint8), self._grow) > 0

    def _full_size(self, mask: np.ndarray) -> np.ndarray:
        """A half-size bool mask at the rectified board's size."""
        height, width = self._shape
        full = cv2.resize(mask.view(np.uint8), (2 * mask.shape[1], 2 * mask.shape[0]), interpolation=cv2.INTER_NEAREST)
        return cv2.copyMakeBorder(full, 0, height - full.shape[0], 0, width - full.shape[1], cv2.BORDER_REPLICATE) > 0

    def _hand_pieces(self, labels: np.ndarray, areas: np.ndarray) -> list[int]:
        """The changes (component labels) that are a hand: with the pieces that meet the rim of
        one hollow taken together, at least ``HAND_MIN_MM2``."""
        group = np.arange(len(areas))  # each piece's group: the smallest label joined with it
        if np.count_nonzero(areas[1:] >= self._min_piece) > 1:
            for rim in self._rims:
                met = np.unique(labels.ravel()[rim])
                met = met[(met > 0) & (areas[met] >= self._min_piece)]
                if len(met) > 1:
                    joined = np.unique(group[met])
                    group[np.isin(group, joined)] = joined[0]
        group_area = np.bincount(group[1:], weights=areas[1:], minlength=len(areas))
        return [k for k in range(1, len(areas)) if group_area[group[k]] >= self._min_px]

    def _relit(self, board: np.ndarray, log_gain: np.ndarray) -> np.ndarray:
        """The board at half size, its log with today's light divided out (float32 BGR)."""
        wood = reduce(board, 2).astype(np.float32) * np.float32(1 / 255)
        return cv2.log(wood + EPS) - LightModel.sample(log_gain, self._light)

    def change(self, relit: np.ndarray, surface: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """How far each half-size pixel of the ``relit`` board departs from the empty wood in
        colour and in brightness, in units of the frame's own noise (> 1: changed). A dark hand
        is no darker than a shadow can make a seed, but on bare wood nothing should change at all."""
        log_ratio = relit - cv2.min(cv2.max(relit, self._reference.low), self._reference.high)
        lum = cv2.transform(log_ratio, _MEAN)
        chroma = cv2.sqrt(np.maximum(cv2.transform(log_ratio * log_ratio, _SUM) - 3 * lum * lum, 0))
        noise_c, noise_l = _noise(chroma, lum, surface)
        return chroma * (1 / max(0.1, 4.0 * noise_c)), cv2.absdiff(lum, 0) * (1 / max(0.2, 4.0 * noise_l))


def _noise(chroma: np.ndarray, lum: np.ndarray, surface: np.ndarray) -> tuple[float, float]:
    """Robust spread (MAD) of the colour shift and of the brightness change on bare wood,
    sampled on every third pixel; a typical value when no bare wood is in view."""
    sample = surface[::3, ::3]
    if not sample.any():
        return 0.05, 0.07
    return (float(np.median(chroma[::3, ::3][sample])) * 1.4826 + 1e-3,
            float(np.median(np.abs(lum[::3, ::3][sample]))) * 1.4826 + 1e-3)


def _median_change(patch: np.ndarray, colour: np.ndarray, brightness: np.ndarray) -> float:
    """The median over ``patch`` (bool) of the larger of the colour and brightness change: only
    for the few patches that may be a seed, not the whole board every frame."""
    return float(np.median(np.maximum(colour[patch], brightness[patch])))


def half_mask(mask: np.ndarray) -> np.ndarray:
    """A bool mask at half size: true where the whole 2 x 2 block was."""
    return reduce(mask.astype(np.uint8) * np.uint8(255), 2) == 255
