"""The camera's picture of what lies before it: the light over the frame (gain, gradient,
tint, vignetting, a mains lamp's flicker), motion blur, and the sensor's noisy 8-bit exposure.
The per-pixel work runs in bands of rows (:func:`row_bands`) to keep memory low."""

from __future__ import annotations

import functools
import math
from typing import Iterator

import cv2
import numpy as np

from .scene import Shot

FLICKER_BAND = 0.3  # mains light's bands across a rolling shutter: one band (bright and dark) this share of
# the picture's height apart (100 Hz light, the rows read out over a 30 fps frame's 33 ms)
FLICKER_DRIFT = 1 / 3  # ...and moving this share of a band from one frame to the next (100 / 30 = 3 1/3 bands)
_BAND_ROWS = 90  # see row_bands


def light_frame(frame: np.ndarray, shot: Shot) -> None:
    """Light the frame in place: the shot's gain, gradient and tint, vignetting and mains flicker."""
    fh, fw = frame.shape[:2]
    yy = np.arange(fh, dtype=np.float32)[:, None]  # a column and a row: broadcasting gives
    xx = np.arange(fw, dtype=np.float32)[None, :]  # the full grid without keeping one
    light = shot.gain * (1 + shot.gradient[0] * (xx / fw - 0.5) + shot.gradient[1] * (yy / fh - 0.5))
    light *= 1 - 0.25 * (((xx - fw / 2) / fw) ** 2 + ((yy - fh / 2) / fh) ** 2)  # vignetting
    if shot.flicker:  # a row is read out later the lower it lies: the lamp is brighter or dimmer by then
        phase = FLICKER_DRIFT * (shot.seed if shot.exposure is None else shot.exposure) % 1.0  # before float32 rounds it
        light *= 1 + shot.flicker * np.cos(np.float32(2 * math.pi) * (yy / (FLICKER_BAND * fh) + np.float32(phase)))
    for rows in row_bands(fh):
        frame[rows] = cv2.multiply(frame[rows], cv2.merge([light[rows] * np.float32(t) for t in shot.tint]))


def motion_blur(frame: np.ndarray, shot: Shot, px_scale: float) -> np.ndarray:
    """The frame smeared along a line of ``shot.blur`` px (of a 1280 px wide picture: times
    ``px_scale``): a camera or hand that moved."""
    length = int(round(shot.blur * px_scale))
    kernel = np.zeros((2 * length + 1, 2 * length + 1), np.float32)
    c = length
    cv2.line(kernel, (int(c - math.cos(shot.blur_angle) * length / 2), int(c - math.sin(shot.blur_angle) * length / 2)),
             (int(c + math.cos(shot.blur_angle) * length / 2), int(c + math.sin(shot.blur_angle) * length / 2)), 1.0, 1)
    return cv2.filter2D(frame, -1, kernel / kernel.sum())


def expose(frame: np.ndarray, noise: np.ndarray, sigma: float) -> np.ndarray:
    """The sensor's 8-bit image of ``frame`` (0..1) with shot noise that grows with brightness."""
    image = np.empty(frame.shape, np.uint8)
    for rows in row_bands(frame.shape[0]):
        part = frame[rows]
        grain = cv2.multiply(noise[rows] * np.float32(sigma), 0.5 + cv2.sqrt(np.maximum(part, 0)))
        image[rows] = np.clip(part * 255 + grain, 0, 255).astype(np.uint8)
    return image


def sensor_noise(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """Unit Gaussian noise for one frame of ``size`` (width, height): a window of the noise bank
    at an offset drawn from ``rng``."""
    fw, fh = size
    y, x = int(rng.integers(fh)), int(rng.integers(fw))
    return _noise_bank(size)[y:y + fh, x:x + fw]


@functools.lru_cache(maxsize=1)
def _noise_bank(size: tuple[int, int]) -> np.ndarray:
    """Unit Gaussian noise, twice a frame's ``size``, made once: a frame's sensor noise is a window
    of it at a random offset (drawing fresh noise per pixel would dominate render time). Kept in
    half precision: at 1280 x 720 the bank is 22 MB instead of 44 MB, a demo's largest cache, and
    its rounding (a few thousandths of a grey level at the sensor's sigma) is far below the 8-bit
    image's step."""
    fw, fh = size
    rng = np.random.default_rng(12345)
    bank = np.empty((2 * fh, 2 * fw, 3), np.float16)
    for rows in row_bands(2 * fh):  # drawn band by band: no full-size float32 copy on the way
        bank[rows] = rng.standard_normal(bank[rows].shape, dtype=np.float32)
    return bank


def row_bands(height: int) -> Iterator[slice]:
    """Row bands of a frame. The per-pixel finishing (light, hand, noise) runs band by band:
    its float temporaries then take a few MB instead of several frame-sized (11 MB) layers,
    which set the demo's memory peak. The arithmetic per pixel is the same either way."""
    return (slice(top, min(top + _BAND_ROWS, height)) for top in range(0, height, _BAND_ROWS))
