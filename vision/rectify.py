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

GAIN_CELL_PX = 8  # the light field is fitted on cells of this many rectified pixels


def warp_to_board(frame: np.ndarray, image_to_mm: np.ndarray, size_mm: tuple[float, float], px_per_mm: float) -> np.ndarray:
    """The top-down view of the board (float32 BGR, 0..1); outside the frame is NaN-free black."""
    scale = np.diag([px_per_mm, px_per_mm, 1.0])
    size = (int(round(size_mm[0] * px_per_mm)), int(round(size_mm[1] * px_per_mm)))
    warped = cv2.warpPerspective(frame, scale @ image_to_mm, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    return warped.astype(np.float32) * np.float32(1 / 255)


def visible_mask(frame_shape: tuple[int, ...], image_to_mm: np.ndarray, size_mm: tuple[float, float], px_per_mm: float) -> np.ndarray:
    """Which rectified pixels the camera actually sees (the rest of the board is out of frame)."""
    ones = np.full(frame_shape[:2], 255, np.uint8)
    scale = np.diag([px_per_mm, px_per_mm, 1.0])
    size = (int(round(size_mm[0] * px_per_mm)), int(round(size_mm[1] * px_per_mm)))
    return cv2.warpPerspective(ones, scale @ image_to_mm, size, flags=cv2.INTER_NEAREST) > 0


def _cells(image: np.ndarray) -> np.ndarray:
    h, w = image.shape[:2]
    return cv2.resize(image, (w // GAIN_CELL_PX, h // GAIN_CELL_PX), interpolation=cv2.INTER_AREA)


class LightModel:
    """Today's light relative to the empty board, as a smooth per-channel log gain.

    A quadratic surface per channel, fitted to log(board/reference) on
    bare-wood cells and refitted without the cells it explains worst (a hand,
    a stray seed), so an arm over the board does not tint the whole reading.
    Everything that depends only on the reference is computed once.
    """

    EPS = np.float32(0.02)

    def __init__(self, reference: np.ndarray, surface: np.ndarray) -> None:
        self.shape = reference.shape[:2]
        self._log_reference_cells = np.log(_cells(reference) + self.EPS)
        self._surface_cells = _cells(surface.astype(np.float32)) > 0.99
        ch, cw = self._surface_cells.shape
        yy, xx = np.mgrid[0:ch, 0:cw].astype(np.float32)
        xx, yy = xx / max(cw - 1, 1) - 0.5, yy / max(ch - 1, 1) - 0.5
        self._basis = np.stack([np.ones_like(xx), xx, yy, xx * xx, yy * yy, xx * yy], axis=-1)

    def log_gain(self, board: np.ndarray, seen: np.ndarray | None = None) -> np.ndarray:
        """Per-pixel log gain (float32, 3 channels) turning the reference into ``board``'s light."""
        ratio = np.log(_cells(board) + self.EPS) - self._log_reference_cells
        usable = self._surface_cells if seen is None else self._surface_cells & (_cells(seen.astype(np.float32)) > 0.99)
        use = usable.copy()
        coeffs = np.zeros((6, 3), np.float32)
        for _ in range(3):
            if use.sum() < 12:
                break
            coeffs, *_ = np.linalg.lstsq(self._basis[use], ratio[use], rcond=None)
            residual = np.abs(ratio - self._basis @ coeffs).max(axis=-1)
            use = usable & (residual < np.median(residual[use]) * 3 + 0.03)
        field = (self._basis @ coeffs).astype(np.float32)
        return cv2.resize(field, (self.shape[1], self.shape[0]), interpolation=cv2.INTER_LINEAR)
