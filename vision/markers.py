"""Finding the board: ArUco markers at its corners, or four corners given by hand.

The board is located afresh in every frame, so a nudged board keeps reading.
Marker ids go round the board as seen from South's seat: 0 near-left,
1 near-right, 2 far-right, 3 far-left (``DICT_4X4_50``). Any three markers
are enough for a homography (their 12 corners); with fewer the frame is
reported as "board not found" rather than guessed.
"""

from __future__ import annotations

from typing import Sequence

import cv2
import numpy as np

from calibration.profiles import BoardProfile

MARKER_IDS = (0, 1, 2, 3)
MARKER_NAMES = {0: "near-left", 1: "near-right", 2: "far-right", 3: "far-left"}
DICTIONARY = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
DETECT_WIDTH = 960  # frames wider than this are searched at reduced size, corners refined at full size


def marker_image(marker_id: int, side_px: int) -> np.ndarray:
    """The black-and-white marker ``marker_id`` as a ``side_px`` square (uint8, no quiet zone)."""
    return cv2.aruco.generateImageMarker(DICTIONARY, marker_id, side_px)


def _detector(min_perimeter: float) -> cv2.aruco.ArucoDetector:
    """A detector ignoring outlines shorter than ``min_perimeter`` x the image's larger side:
    wood grain and seeds make many small candidate outlines, and testing them is what costs."""
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE
    params.minMarkerPerimeterRate = min_perimeter
    return cv2.aruco.ArucoDetector(DICTIONARY, params)


_DETECTOR = _detector(0.05)  # whole frame: a marker side of at least ~1/80 of the frame
_NEAR_DETECTOR = _detector(0.3)  # a small window round a marker's last place


class MarkerTracker:
    """Finds the markers frame after frame, cheaply while the board stays where it was.

    A marker whose patch of the picture has not changed since the last frame is where it
    was; one that changed is searched for in a small window round its last place; only
    when that fails is the whole frame searched again.
    """

    STILL = 6.0  # mean grey-level change of a marker's patch below which it has not moved

    def __init__(self) -> None:
        self.markers: dict[int, np.ndarray] = {}
        self._patches: dict[int, tuple[tuple[slice, slice], np.ndarray]] = {}

    def find(self, gray: np.ndarray) -> dict[int, np.ndarray]:
        found = self._near(gray) if len(self.markers) == 4 else None
        if found is None:
            found = detect_markers(gray)
        self.markers = found
        self._patches = {i: (box, gray[box].copy()) for i, box in ((i, _box(c, gray.shape, 0.9, 16)) for i, c in found.items())}
        return found

    def _near(self, gray: np.ndarray) -> dict[int, np.ndarray] | None:
        found: dict[int, np.ndarray] = {}
        for marker_id, corners in self.markers.items():
            box, before = self._patches[marker_id]
            patch = gray[box]
            if patch.shape == before.shape and float(cv2.absdiff(patch, before).mean()) < self.STILL:
                found[marker_id] = corners
                continue
            top, left = box[0].start, box[1].start
            quads, ids, _ = _NEAR_DETECTOR.detectMarkers(patch)
            if ids is None or marker_id not in ids.ravel():
                return None
            quad = quads[list(ids.ravel()).index(marker_id)]
            found[marker_id] = quad.reshape(4, 2).astype(np.float32) + np.float32((left, top))
        return found


def _box(corners: np.ndarray, shape: tuple[int, ...], grow: float, margin: float) -> tuple[slice, slice]:
    """The window round a marker's corners, grown for a nudge of the board between frames."""
    (x0, y0), (x1, y1) = corners.min(axis=0), corners.max(axis=0)
    pad = max(x1 - x0, y1 - y0) * grow + margin
    h, w = shape[:2]
    return (slice(max(0, int(y0 - pad)), min(h, int(y1 + pad) + 1)), slice(max(0, int(x0 - pad)), min(w, int(x1 + pad) + 1)))


def detect_markers(gray: np.ndarray) -> dict[int, np.ndarray]:
    """Board markers seen in a grayscale frame: id -> 4x2 corners (image px, ArUco order).

    Searching a reduced copy keeps detection within a few milliseconds on a
    1280x720 frame; the corners are then refined on the full-size frame.
    """
    scale = min(1.0, DETECT_WIDTH / gray.shape[1])
    small = gray if scale == 1.0 else cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    corners, ids, _ = _DETECTOR.detectMarkers(small)
    if scale != 1.0 and (ids is None or len(set(ids.ravel()) & set(MARKER_IDS)) < 3):
        scale = 1.0  # blurred or far markers: look again at full size before giving up
        corners, ids, _ = _DETECTOR.detectMarkers(gray)
    found: dict[int, np.ndarray] = {}
    if ids is None:
        return found
    for quad, marker_id in zip(corners, ids.ravel()):
        if int(marker_id) in MARKER_IDS and int(marker_id) not in found:
            found[int(marker_id)] = quad.reshape(4, 2).astype(np.float32) / scale
    if found and scale != 1.0:
        points = np.concatenate(list(found.values())).reshape(-1, 1, 2)
        criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.05)
        cv2.cornerSubPix(gray, points, (3, 3), (-1, -1), criteria)
        for k, marker_id in enumerate(found):
            found[marker_id] = points[4 * k:4 * k + 4].reshape(4, 2)
    return found


def homography_from_markers(found: dict[int, np.ndarray], profile: BoardProfile) -> np.ndarray | None:
    """Homography from image px to board mm, or ``None`` with fewer than three markers."""
    if len(found) < 3:
        return None
    image_points = np.concatenate([found[i] for i in sorted(found)])
    board_points = np.array([c for i in sorted(found) for c in profile.marker_corners(i)], np.float32)
    homography, _ = cv2.findHomography(image_points, board_points, 0)
    return homography


def homography_from_corners(corners: Sequence[float], profile: BoardProfile) -> np.ndarray:
    """Homography from image px to board mm from the board's four outline corners, given
    as ``x, y`` pairs in the marker order (near-left, near-right, far-right, far-left)."""
    values = [float(v) for v in corners]
    if len(values) != 8:
        raise ValueError(f"corners: expected 8 numbers (4 x,y pairs: near-left, near-right, far-right, far-left), got {len(values)}")
    image_points = np.array(values, np.float32).reshape(4, 2)
    board_points = np.array(profile.board_corners(), np.float32)
    return cv2.getPerspectiveTransform(image_points, board_points)


def parse_corners(text: str) -> list[float]:
    """``"x,y,x,y,x,y,x,y"`` -> 8 floats; a clear error otherwise."""
    try:
        values = [float(v) for v in text.replace(";", ",").split(",") if v.strip()]
    except ValueError:
        raise ValueError(f"corners: {text!r} is not a list of numbers x,y,x,y,x,y,x,y") from None
    if len(values) != 8:
        raise ValueError(f"corners: expected 8 numbers (near-left, near-right, far-right, far-left x,y), got {len(values)}")
    return values
