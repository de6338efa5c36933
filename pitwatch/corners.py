"""The board's four corners, clicked on the dashboard for a board without markers.

Why here and not in the web app: the corners decide where the camera looks
for every pit, so whoever sets them (the dashboard today, maybe the command
line tomorrow) must pass the same checks. :func:`check_outline` refuses
anything that cannot be a board seen from South's seat, naming the corner at
fault; :class:`LiveCorners` puts good corners to work on the running camera
from its next frame on and saves them into the calibration file, so they
survive a restart.
"""

from __future__ import annotations

import math
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

import cv2

from calibration.calibfile import Calibration, CalibrationError, save_corners
from vision.markers import MARKER_NAMES, turn

from .sources import CameraSource

CORNER_NAMES = tuple(MARKER_NAMES[i] for i in range(4))  # near-left, near-right, far-right, far-left
ORDER = ", ".join(CORNER_NAMES)
MIN_SIDE_PX = 20.0  # a board side shorter than this in the camera picture cannot be read
MIN_TURN = math.sin(math.radians(10))  # an outline flatter than 10 degrees at a corner is a line, not a corner
STILL_QUALITY = 90  # JPEG quality of the picture the player clicks on

Point = tuple[float, float]
ReaderFactory = Callable[[Calibration], tuple[Callable[[Any], Any], Any]]


class CornersError(ValueError):
    """Corners that cannot be a board seen from South's seat; the message says which and why."""


class CornersUnavailable(RuntimeError):
    """Corners cannot be set now (no picture yet, the calibration file cannot be written)."""


def check_outline(corners: Any, size: tuple[int, int]) -> list[Point]:
    """Four ``[x, y]`` camera pixels in the order near-left, near-right, far-right, far-left
    (as seen from South's seat, the camera side), checked; :class:`CornersError` otherwise.

    ``size`` is the camera picture's (width, height). The outline must be a
    convex quadrilateral going round the board anticlockwise on the picture
    (y grows downwards), its near side running left to right across the
    bottom: a mirrored or turned order would read every pit under the wrong
    label, so it is refused rather than guessed.
    """
    if not isinstance(corners, list) or len(corners) != 4:
        got = f"{len(corners)} points" if isinstance(corners, list) else type(corners).__name__
        raise CornersError(f"corners: expected 4 points [x, y] ({ORDER}), got {got}")
    points = [_point(value, k, size) for k, value in enumerate(corners)]
    for i in range(4):
        for j in range(i + 1, 4):
            gap = math.dist(points[i], points[j])
            if gap < MIN_SIDE_PX:
                raise CornersError(f"corners: {CORNER_NAMES[i]} and {CORNER_NAMES[j]} are only {gap:.0f} px apart: "
                                   f"click the board's four different corners")
    turns = []
    for k in range(4):
        before, here, after = points[k - 1], points[k], points[(k + 1) % 4]
        sine = turn(before, here, after) / (math.dist(before, here) * math.dist(here, after))
        if abs(sine) < MIN_TURN:
            raise CornersError(f"corners: the outline is almost straight or folded back at {CORNER_NAMES[k]}: "
                               f"that is not a corner of the board")
        turns.append(sine)
    if any(t > 0 for t in turns) and any(t < 0 for t in turns):
        raise CornersError(f"corners: the four points do not outline the board (the outline crosses itself or bends "
                           f"inwards): click the corners in the order {ORDER}")
    if turns[0] > 0:
        raise CornersError(f"corners: the points go round clockwise on the picture: start at near-left "
                           f"(South's left, nearest the camera) and go {ORDER}")
    (x0, y0), (x1, y1) = points[0], points[1]
    if x1 - x0 <= abs(y1 - y0):
        raise CornersError("corners: the first two points must be the near side (near-left, then near-right), "
                           "running left to right across the picture on the camera's side of the board")
    return points


def _point(value: Any, k: int, size: tuple[int, int]) -> Point:
    where = f"corners[{k}] ({CORNER_NAMES[k]})"
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value)):
        raise CornersError(f"{where}: expected [x, y], two numbers in camera pixels, got {value!r}")
    x, y = float(value[0]), float(value[1])
    width, height = size
    if not (0 <= x <= width and 0 <= y <= height):
        raise CornersError(f"{where}: ({x:g}, {y:g}) lies outside the {width} x {height} camera picture")
    return (x, y)


class LiveCorners:
    """The running camera's board outline: shown, set and saved from the dashboard.

    ``make_reader(calibration)`` gives a fresh ``(read, stillness gate)`` pair
    for the camera loop. Thread-safe: requests may come from several browsers.
    """

    def __init__(self, camera: CameraSource, calibration: Calibration, path: Path, make_reader: ReaderFactory) -> None:
        self.camera = camera
        self.calibration = calibration
        self.path = Path(path)
        self._make_reader = make_reader
        self._lock = threading.Lock()

    def state(self) -> dict[str, Any]:
        """What the corner page needs: the picture's size, the corners in use (or null: markers), the file."""
        frame = self.camera.latest_frame()
        corners = self.calibration.corners
        return {
            "frame": None if frame is None else {"width": frame.shape[1], "height": frame.shape[0]},
            "corners": None if corners is None else [[corners[i], corners[i + 1]] for i in range(0, 8, 2)],
            "calibration": str(self.path),
            "status": self.camera.status,
        }

    def picture(self) -> bytes | None:
        """The newest camera frame as taken (no overlay): the player clicks on it, at full size."""
        frame = self.camera.latest_frame()
        if frame is None:
            return None
        ok, jpeg = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, STILL_QUALITY])
        return jpeg.tobytes() if ok else None

    def use(self, corners: Any) -> dict[str, Any]:
        """Check ``corners`` (or ``None``: find the board by its markers again), save them into
        the calibration file, then read the board from them from the camera's next frame on.

        Saved first: corners in use but not on disk would be lost at the next start, and the
        player would not know it.
        """
        flat, picture = None, None
        if corners is not None:
            frame = self.camera.latest_frame()
            if frame is None:
                raise CornersUnavailable("the camera has not delivered a picture yet: wait for it and click again")
            picture = (frame.shape[1], frame.shape[0])
            points = check_outline(corners, picture)
            flat = tuple(round(v, 1) for point in points for v in point)
        with self._lock:
            try:
                save_corners(self.path, flat, picture)
            except OSError as error:
                raise CornersUnavailable(f"the corners were not saved to {self.path} ({error.strerror or error}); "
                                         "nothing changed") from None
            except CalibrationError as error:
                raise CornersUnavailable(f"the corners were not saved: {error}; nothing changed") from None
            self.calibration = replace(self.calibration, corners=flat, corners_picture=picture)
            self.camera.use_reader(*self._make_reader(self.calibration))
            return self.state()
