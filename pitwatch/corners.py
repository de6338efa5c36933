"""The board's four corners, clicked on the dashboard for a board without markers.

Why here and not in the web app: the corners decide where the camera looks
for every pit, so whoever sets them passes the same checks
(:func:`calibration.outline.check_outline`, which names the corner at fault);
:class:`LiveCorners` puts good corners to work on the running camera from its
next frame on and saves them into the calibration file, so they survive a
restart.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

import cv2

from calibration.calibfile import Calibration, CalibrationError, save_corners
from calibration.outline import check_outline

from .sources import CameraSource

STILL_QUALITY = 90  # JPEG quality of the picture the player clicks on

ReaderFactory = Callable[[Calibration], tuple[Callable[[Any], Any], Any]]


class CornersUnavailable(RuntimeError):
    """Corners cannot be set now (no picture yet, the calibration file cannot be written)."""


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
