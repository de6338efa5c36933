"""What the dashboard draws over a camera frame to show how it was read: every pit outlined
and labelled with what was counted in it, what was taken for a hand outlined, every seed lying
on the wood ringed.

The reader works on the rectified board (:mod:`vision.rectify`); the dashboard shows the camera's
picture, so all of it is put back in picture px here, once per frame read, and drawn on demand
(:meth:`vision.reader.FrameResult.draw`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import cv2
import numpy as np

from rules.reading import PitReading

from .rectify import to_rectified

OUTLINE_MM = 1.5  # what was taken for a hand is outlined on the camera view to within this
HAND_COLOUR = (255, 0, 255)  # BGR: magenta, a colour neither a pit's outline nor the wood takes


@dataclass(frozen=True)
class PitOverlay:
    """One pit as drawn on the camera view: its outline in image px and what was read."""

    label: str
    outline: np.ndarray  # (N, 2) image px
    count: int | None
    probability: float
    white: int | None


def pit_overlays(outlines: Mapping[str, np.ndarray], pits: Mapping[str, PitReading | None], homography: np.ndarray,
                 px_per_mm: float) -> list[PitOverlay]:
    """Every pit's ``outlines`` (rectified px) in picture px, with its most likely count (and
    white chips) and how likely that is, from ``pits`` (None: unseen)."""
    to_image = board_to_image(homography, px_per_mm)
    overlay = []
    for label, outline in outlines.items():
        outline = cv2.perspectiveTransform(outline.reshape(-1, 1, 2), to_image).reshape(-1, 2)
        reading = pits[label]
        count = None if reading is None else reading.most_likely
        overlay.append(PitOverlay(label, outline, count, 0.0 if reading is None else reading.counts[count],
                                  None if reading is None else reading.most_likely_white))
    return overlay


def points_in_picture(points: list[tuple[float, float]], homography: np.ndarray, px_per_mm: float) -> list[tuple[float, float]]:
    """Rectified board px as image px."""
    if not points:
        return []
    image = cv2.perspectiveTransform(np.array(points, np.float64).reshape(-1, 1, 2), board_to_image(homography, px_per_mm))
    return [(float(x), float(y)) for x, y in image.reshape(-1, 2)]


def outlines_in_picture(mask: np.ndarray, homography: np.ndarray, px_per_mm: float) -> list[np.ndarray]:
    """The outline of each piece of ``mask`` (bool, rectified board) in image px, simplified
    to within ``OUTLINE_MM``: a few dozen points a piece rather than one a pixel."""
    contours, _ = cv2.findContours(mask.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    to_image = board_to_image(homography, px_per_mm)
    tolerance = OUTLINE_MM * px_per_mm
    return [np.round(cv2.perspectiveTransform(cv2.approxPolyDP(contour, tolerance, True).astype(np.float64), to_image)
                     ).astype(np.int32).reshape(-1, 2) for contour in contours]


def board_to_image(homography: np.ndarray, px_per_mm: float) -> np.ndarray:
    """From rectified px back to picture px: where the overlay draws each pit."""
    return np.linalg.inv(to_rectified(homography, px_per_mm))


def draw_overlay(frame: np.ndarray, pits: Sequence[PitOverlay], hand_outlines: Sequence[np.ndarray],
                 strays: Sequence[tuple[float, float]], message: str) -> np.ndarray:
    """A copy of ``frame`` with what was taken for a hand outlined in magenta, every pit
    outlined (green: p >= 0.9, orange: less sure, red: unseen) and labelled with its most
    likely count (and white chips), every seed lying on the wood ringed in red, and the
    status ``message`` written at the top left."""
    out = frame.copy()
    cv2.polylines(out, hand_outlines, True, HAND_COLOUR, 2)
    for x, y in strays:
        cv2.circle(out, (int(round(x)), int(round(y))), 16, (0, 0, 255), 2)
    for pit in pits:
        colour = (0, 200, 0) if pit.count is not None and pit.probability >= 0.9 else (0, 200, 255)
        if pit.count is None:
            colour = (0, 0, 255)
        cv2.polylines(out, [pit.outline.astype(np.int32)], True, colour, 2)
        text = "?" if pit.count is None else f"{pit.count}" + ("" if pit.white is None else f"/{pit.white}w")
        x, y = pit.outline.mean(axis=0).astype(int)
        cv2.putText(out, f"{pit.label}:{text}", (int(x) - 20, int(y)), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (0, 0, 0), 3)
        cv2.putText(out, f"{pit.label}:{text}", (int(x) - 20, int(y)), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (255, 255, 255), 1)
    cv2.putText(out, message, (10, 25), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (255, 255, 255), 2)
    return out
