"""A marker moved on the board since calibration: noticed, and the players told which and where.

Calibration keeps where every marker was found stuck (``Calibration.markers``), and the
board is found from there in every frame. A sticker a sleeve pushed along, or one that came
off and was stuck back elsewhere, breaks that: its corners pull the homography of all four
askew, by as much as the marker moved near it. Measured on rendered boards (a one-off probe,
2026-12-06, 48 hard frames on every board): a marker moved 6 mm made 18 of them read as a
hand over the board and 10 mm 45, for as long as it stayed there, with nothing to tell the
players why (4 mm: none, and pits of 0-9 read as well as unmoved). Placed right, the board
still does not read: the moved paper lies on wood the empty board's picture shows bare, and
reads as a seed on the wood or a hand. So such a frame is refused, and the players are told.

Which marker moved cannot be told reliably from one frame. With one moved 6 mm, the
homography of all four still fits their corners within 0.23-1.19 mm (0.07-0.39 mm with none
moved), and the three markers that fit best together leave out another marker than the one
that moved in 4 of 32 frames, most often its neighbour at the same end (the same probe). It
can be told from two: while the board stands still (the other markers where they were when
the board's placement was last found), a marker that moved in the picture moved on the board,
and that placement puts it where it now is. So the watch asks, of a marker that alone moved
(or came back into view) on a still board, how far from its calibrated place the board's
placement puts it. From ``MOVED_MM`` the frame is refused, naming the marker, how far and
which way it moved; the marker is then judged, as long as it stays in view, by the
homography of the other three, until it is back within ``MOVED_MM``. A marker that has not
moved comes out at most 1.46 mm from its place (a one-off probe, 2026-12-06: 18 set-ups in
depth on all six boards, hard shots, each marker hidden and found again on a nudged board,
judged by the placement of the other three).

Not caught: a marker moved while the camera was off or Pitwatch not running (the first frame
has no placement to judge it by), or moved and found again in a frame where the board moved
too. Either reads as before, most often as a hand over the board.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.profiles import BoardProfile

from .markers import MARKER_NAMES, MarkerPlaces, homography_from_markers, marker_place

MOVED_MM = 4.0  # a marker this far from its calibrated place has moved: 4 mm still reads (the probe), 6 mm no longer
MARKER_MOVED = "marker moved on the board"  # how the status of a frame refused for it begins


@dataclass(frozen=True)
class MovedMarker:
    """A marker found away from where calibration found it stuck."""

    marker_id: int
    offset_mm: tuple[float, float]  # how far its centre lies from its calibrated place, along the board's x and y

    @property
    def message(self) -> str:
        """What the players are told: the marker, how far and which way it moved, what to do."""
        name = f"marker {self.marker_id} ({MARKER_NAMES[self.marker_id]})"
        distance = float(np.hypot(*self.offset_mm))
        return (f"{MARKER_MOVED}: {name} lies {distance:.0f} mm {_which_way(self.offset_mm)} of where calibration "
                "found it stuck: stick it back where it was, or calibrate again (pitwatch calibrate)")


def _which_way(offset_mm: tuple[float, float]) -> str:
    """``offset_mm`` in words, as seen from South's seat (the board's x grows to the right, its y
    towards South): the way or ways it moved by at least a third of its distance."""
    dx, dy = offset_mm
    least = np.hypot(dx, dy) / 3
    ways = [way for way, along in (("to the right" if dx > 0 else "to the left", dx),
                                   ("towards South" if dy > 0 else "towards North", dy)) if abs(along) >= least]
    return " and ".join(ways)


class MovedMarkerWatch:
    """Watches the markers of one board frame after frame for one that moved on the board."""

    def __init__(self, profile: BoardProfile, places: MarkerPlaces | None, still_px: float) -> None:
        """``places``: where calibration found the markers stuck; ``still_px``: how close a marker
        stays to where the board's placement was found while the board has not moved."""
        self.profile, self.places, self.still_px = profile, places, still_px
        self._moved: MovedMarker | None = None  # the marker last found away from its place, until it is back

    def check(self, found: dict[int, np.ndarray], held: np.ndarray | None,
              held_markers: dict[int, np.ndarray]) -> MovedMarker | None:
        """The marker of ``found`` (image px) away from its place, or None. ``held``: the board's
        placement last found (image px to board mm), from the markers ``held_markers``."""
        moving = [marker_id for marker_id, corners in found.items()
                  if marker_id not in held_markers or float(np.abs(held_markers[marker_id] - corners).max()) > self.still_px]
        if self._moved is not None and self._moved.marker_id in found:
            suspect = self._moved.marker_id  # judged until it is back
        elif held is not None and len(moving) == 1 and len(found) >= 3:
            suspect = moving[0]
        else:
            return None
        if held is not None and moving == [suspect] and len(found) >= 3:
            board = held  # the board stood still, this marker alone moved: where the board was found puts it
        else:
            others = {marker_id: corners for marker_id, corners in found.items() if marker_id != suspect}
            board = homography_from_markers(others, self.profile, self.places)
            if board is None:
                return self._moved  # too few others in view to tell whether it is back
        corners_mm = cv2.perspectiveTransform(found[suspect].reshape(-1, 1, 2).astype(np.float64), board).reshape(4, 2)
        dx, dy = corners_mm.mean(axis=0) - marker_place(suspect, self.profile, self.places).mean(axis=0)
        if np.hypot(dx, dy) < MOVED_MM:
            if self._moved is not None and self._moved.marker_id == suspect:
                self._moved = None
            return None
        self._moved = MovedMarker(suspect, (float(dx), float(dy)))
        return self._moved
