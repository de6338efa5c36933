"""Where the wood's grain has gone: a hand the colour of the board still hides its grain.

The hand finder (:mod:`vision.hand`) sees a hand by its colour and brightness
against the empty wood. A hand or sleeve whose colour matches the wood's
(pale skin over beech, dark skin over walnut) passes that test in places,
and the pits under those places would be read as if nothing covered them.
What no hand has is the grain: the fine stripes of the wood, which the
empty board shows and which stay put while the board does. So each pixel of
bare wood is compared with the empty board in the grain's scales (a
difference of Gaussians of the log brightness: coarser than sensor noise,
finer than any light) over a small neighbourhood. Where the frame's grain
no longer follows the empty board's (low correlation) and has faded (low
energy against the frame's typical wood), something covers the wood.

The same comparison says where the grain plainly still shows, or kept its
strength: whatever changed there is the light, a shadow, not a hand. And it
says how sharp the picture is: a lens out of focus fades the grain all over
the wood, and the empty board's grain blurred more and more tells by how much
(:meth:`Grain.blur_mm`), which is how a board found by its corners, with no
markers to measure, is checked for focus (:mod:`vision.focus`).

Wood without grain (painted, or too smooth to show any) has nothing to lose
and is left to the colour test, and so is a frame too blurred or noisy for
the grain to show anywhere (its bare wood no longer correlates either).
What this buys, measured: docs/vision.md, section 4.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import cv2
import numpy as np

GRAIN_BAND_MM = (0.6, 3.0)  # the grain's scales: coarser than sensor noise, finer than any light
GRAIN_WINDOW_MM = 3.0  # radius over which a pixel's grain is compared with the empty board's
MIN_CONTRAST = 0.015  # spread (log brightness) of the empty board's grain below which there is none to lose
LOST_CORRELATION = 0.3  # below this the frame's grain no longer follows the empty board's...
KEPT_CORRELATION = 0.6  # at or above this it still does: whatever changed there is the light
FADED_ENERGY = 0.5  # ...and has faded under this share of the frame's typical energy on the wood
READABLE_CORRELATION = 0.6  # bare wood correlating less than this (median): the frame is too blurred for the cue
SAMPLE_EVERY = 3  # the frame's typical figures are medians over every third pixel of every third row
BLURS_MM = np.round(np.arange(0.0, 3.05, 0.1), 1)  # the blurs (Gaussian sigma) the empty board's grain is faded by
# to tell how blurred a frame is: from none to far past what the seed counter bears (vision.focus)


@dataclass(frozen=True)
class GrainCheck:
    """A frame's grained wood, judged: how much of the empty board's grain it shows and, when it
    still follows the empty board's (``readable``), where the grain has gone and where it stayed."""

    energy: float  # the grain's energy against the empty board's, median over the wood: under 1 in a blurred picture
    readable: bool  # the wood still correlates with the empty board's (else too blurred or noisy: no masks)
    sampled: tuple[np.ndarray, np.ndarray] = field(repr=False)  # the wood's pixels the medians are over (flat
    # indices) and the energy of each against the empty board's
    lost: np.ndarray | None = None  # bool: gone (faded, and correlating under LOST_CORRELATION)
    strong: np.ndarray | None = None  # bool: as strong as ever (not faded), whatever it correlates
    kept: np.ndarray | None = None  # bool: there (correlating at least KEPT_CORRELATION)

    def energy_outside(self, covered: np.ndarray) -> float | None:
        """:attr:`energy` over the wood not ``covered`` (bool, the size the grain was judged at):
        a hand has no grain to tell the picture's sharpness by. None where no wood is left."""
        where, energies = self.sampled
        free = ~covered.ravel()[where]
        return float(np.median(energies[free])) if free.any() else None


class Grain:
    """The empty board's grain, compared with every frame's (built once per calibrated board)."""

    def __init__(self, empty_brightness: np.ndarray, px_per_mm: float, wood: np.ndarray) -> None:
        """``empty_brightness``: the empty board's log brightness (float32), at ``px_per_mm``;
        ``wood``: its bare wood (bool, the same size)."""
        self._px_per_mm = px_per_mm
        self._empty_brightness = empty_brightness
        self._sigmas = tuple(mm * px_per_mm for mm in GRAIN_BAND_MM)
        side = 2 * max(1, round(GRAIN_WINDOW_MM * px_per_mm)) + 1
        self._window = (side, side)
        self._empty = self._band(empty_brightness)
        self._empty_mean, energy = self._energy(self._empty)
        self._grained = wood & (energy > MIN_CONTRAST ** 2)
        self._empty_energy = np.maximum(energy, MIN_CONTRAST ** 2)  # only the grained pixels are judged
        self._empty_spread = np.sqrt(self._empty_energy)
        rows, columns = np.mgrid[0:wood.shape[0]:SAMPLE_EVERY, 0:wood.shape[1]:SAMPLE_EVERY]
        sample = (rows * wood.shape[1] + columns).ravel()
        self._sample = sample[self._grained.ravel()[sample]]  # grained pixels whose medians tell the frame's state

    def check(self, brightness: np.ndarray, wood: np.ndarray) -> GrainCheck | None:
        """The grained ``wood`` in a frame (its log brightness, today's light divided out or
        not) judged, or None when the frame shows no grained wood anywhere."""
        sample = self._sample[wood.ravel()[self._sample]]
        if not len(sample):
            return None
        frame = self._band(brightness)
        frame_mean, energy = self._energy(frame)
        shared = self._mean(frame * self._empty)
        shared -= frame_mean * self._empty_mean
        spread = np.sqrt(energy)
        at = np.unravel_index(sample, wood.shape)
        energies = energy[at] / self._empty_energy[at]
        typical = float(np.median(energies))
        correlation = shared[at] / np.maximum(spread[at] * self._empty_spread[at], 1e-9)
        if np.median(correlation) < READABLE_CORRELATION:
            return GrainCheck(typical, False, (sample, energies))
        spread *= self._empty_spread  # correlation = shared / spread
        grained = self._grained & wood
        strong = energy >= (FADED_ENERGY * typical) * self._empty_energy
        strong &= grained
        lost = shared < LOST_CORRELATION * spread
        lost &= grained & ~strong
        kept = shared >= KEPT_CORRELATION * spread
        kept &= grained
        return GrainCheck(typical, True, (sample, energies), lost, strong, kept)

    def blur_mm(self, energy: float) -> float:
        """The blur (a Gaussian's sigma, mm of board) that fades the empty board's grain to
        ``energy`` (:attr:`GrainCheck.energy`): how much blurrier a frame is than the empty board's
        picture, up to the last of :data:`BLURS_MM`. A frame's sensor noise adds energy in the
        grain's scales, so a noisy frame seems sharper than it is, never blurrier."""
        return float(np.interp(-energy, -self._faded, BLURS_MM))

    @functools.cached_property
    def _faded(self) -> np.ndarray:
        """The empty board's grain energy (as :meth:`check` measures a frame's, on all its grained
        wood) blurred by each of :data:`BLURS_MM`, falling: worked out the first time a
        frame's blur is asked, as only a board without markers asks it."""
        at = np.unravel_index(self._sample, self._empty.shape)
        faded = [1.0]
        for mm in BLURS_MM[1:]:
            _, energy = self._energy(self._band(cv2.GaussianBlur(self._empty_brightness, (0, 0), mm * self._px_per_mm)))
            faded.append(float(np.median(energy[at] / self._empty_energy[at])))
        return np.minimum.accumulate(faded) - 1e-9 * np.arange(len(faded))  # falling, if by a hair: the least blur that fades so

    def _energy(self, band: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The local mean and energy (variance over ``GRAIN_WINDOW_MM``) of an image's grain (its :meth:`_band`)."""
        frame_mean = self._mean(band)
        energy = self._mean(band * band)
        energy -= frame_mean * frame_mean
        np.maximum(energy, 0, out=energy)
        return frame_mean, energy

    def _band(self, brightness: np.ndarray) -> np.ndarray:
        """The grain's scales of the brightness: a difference of Gaussians (:data:`GRAIN_BAND_MM`)."""
        fine, coarse = self._sigmas
        return cv2.GaussianBlur(brightness, (0, 0), fine) - cv2.GaussianBlur(brightness, (0, 0), coarse)

    def _mean(self, image: np.ndarray) -> np.ndarray:
        return cv2.blur(image, self._window)
