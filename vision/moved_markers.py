"""A marker moved on the board since calibration: noticed, and the players told which and where.

Calibration keeps where every marker was found stuck (``Calibration.markers``), and the
board is found from there in every frame. A sticker a sleeve pushed along, or one that came
off and was stuck back elsewhere, breaks that: its corners pull the homography of all four
askew, by as much as the marker moved near it. Measured on rendered boards (a one-off probe,
2026-12-06, 48 hard frames on every board): a marker moved 6 mm made 18 of them read as a
hand over the board and 10 mm 45, for as long as it stayed there, with nothing to tell the
players why (4 mm: none, and pits of 0-9 read exactly 98.3 % in the mean frame, 99.3 %
unmoved). Placed right, the board still does not read: the moved paper lies on wood the
empty board's picture shows bare, and reads as a seed on the wood or a hand. So such a
frame is refused, and the players are told.

Which marker moved cannot be told reliably from one frame's marker corners alone. With one moved 6 mm, the
homography of all four still fits their corners within 0.23-1.19 mm (0.07-0.39 mm with none
moved), and the three markers that fit best together leave out another marker than the one
that moved in 4 of 32 frames, most often its neighbour at the same end (the same probe). It
can be told from two: while the board stands still (at least two of the markers it was last
placed by where they were then), a marker that moved in the picture moved on the board, and
that placement puts it where it now lies. From ``MOVED_MM`` off its calibrated place the
frame is refused, naming the marker, how far and which way it moved. A marker is judged only
by a placement found with it in view: that puts one that has not moved at most 0.65 mm off
(a one-off probe, 2026-12-06: 18 set-ups in depth on all six boards, hard shots, each marker
hidden and found again, with the camera at the usual distance and up to twice as far), where
the placement the other three give on a board nudged while it was hidden puts it up to 2.46
mm off, and 9.55 mm with the camera twice as far (a first version judged by those too, and
called unmoved markers moved).

Once named, the marker is followed, not judged again: the board's move since (the
picture-to-picture homography of the other three markers) is undone, and the
placement it was named by measures how far it moved on the board since, until it lies within
``MOVED_MM`` of its place. Two positions on one placement differ by what moved, whatever that
placement's own error.

A marker moved while Pitwatch was not watching has no placement before it to be judged by.
Its skew shows in the picture instead: rectified through the placement of all four markers,
the first frame's wood no longer lines up with the empty board's picture (grain, rims, the
board's edge), and through the placement of the other three it does again. So the first frame
that shows all four is rectified through each of the five placements and each compared with
the empty board on its bare wood (:class:`EmptyLikeness`); where one of three is liker than
the four by ``START_GAIN`` or more, the marker it leaves out is judged by it, and named and
followed as above. ``benchmarks/moved_marker_bench.py`` measures it. First measured on rendered
boards (a scratch probe, 2026-12-06: `vision_bench.py`'s
set-ups in depth, seed 4, two of every board, three hard frames each, with and without a hand,
one marker moved 6-10 mm towards the board's middle since calibration), with no marker moved
no placement of three was liker than the four by more than 0.035; with one moved, a placement of three was liker by
0.17-0.57 in 18 of 36 frames without a hand and 17 of 34 with one, each time the one that
leaves out the moved marker (by 0.10 at most in the others); of 356 first
frames of boards as calibrated (in depth, twice as far, painted flat) none named a marker.
In the other half no placement of three lines up much better (the three extrapolate to the fourth's end up
to 2.46 mm off, see above); those frames read as before, "ok" or as a hand over the board.

Not caught besides: a marker moved in the same frame as the board, or found again off its
place after the board moved while it was hidden, and one moved while Pitwatch was off whose
skew the first frame does not show (above), or that is out of view in the first frame. Those
read as before, most often as a hand over the board. While the board moves with one of the
other three out of view, a named marker stays named as it was.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.profiles import BoardProfile

from .markers import MARKER_IDS, MARKER_NAMES, MarkerPlaces, homography_from_markers, marker_place, stayed
from .nudge import standardised
from .rectify import to_rectified

MOVED_MM = 4.0  # a marker this far from its calibrated place has moved: 4 mm still reads (the probe), 6 mm no longer
START_GAIN = 0.15  # a placement by three markers this much liker the empty board than by all four: the fourth moved
GRAIN_MM = 4.0  # brightness changing over more than this (a Gaussian's sigma) is light, not the wood's grain or a rim
MARKER_MOVED = "marker moved on the board"  # how the status of a frame refused for it begins


@dataclass(frozen=True)
class MovedMarker:
    """A marker found away from where calibration found it stuck."""

    marker_id: int
    offset_mm: tuple[float, float]  # how far its centre lies from its calibrated place, along the board's x and y

    @property
    def distance_mm(self) -> float:
        return float(np.hypot(*self.offset_mm))

    @property
    def message(self) -> str:
        """What the players are told: the marker, how far and which way it moved, what to do."""
        name = f"marker {self.marker_id} ({MARKER_NAMES[self.marker_id]})"
        return (f"{MARKER_MOVED}: {name} lies {self.distance_mm:.0f} mm {_which_way(self.offset_mm)} of where calibration "
                "found it stuck: stick it back where it was, or calibrate again (pitwatch calibrate)")


def _which_way(offset_mm: tuple[float, float]) -> str:
    """``offset_mm`` in words, as seen from South's seat (the board's x grows to the right, its y
    towards South): the way or ways it moved by at least a third of its distance."""
    dx, dy = offset_mm
    least = np.hypot(dx, dy) / 3
    ways = [way for way, along in (("to the right" if dx > 0 else "to the left", dx),
                                   ("towards South" if dy > 0 else "towards North", dy)) if abs(along) >= least]
    return " and ".join(ways)


@dataclass(frozen=True)
class _Followed:
    """A marker named as moved, and what its later moves on the board are measured against."""

    moved: MovedMarker  # how far it lay from its place when ``corners`` were seen
    board: np.ndarray  # the board's placement then (image px to board mm)
    corners: dict[int, np.ndarray]  # every marker in view then (image px)


class EmptyLikeness:
    """How alike a picture, rectified through a placement of the board, is to the empty board's
    picture on its bare wood: the correlation of their grain and rims, the light taken out."""

    def __init__(self, empty: np.ndarray, wood: np.ndarray, px_per_mm: float) -> None:
        """``empty``: the rectified empty board (uint8 BGR) at ``px_per_mm``; ``wood``: its bare wood (bool)."""
        self._wood, self._px_per_mm = wood, px_per_mm
        self._size = (empty.shape[1], empty.shape[0])
        self._empty = self._grain(cv2.cvtColor(empty, cv2.COLOR_BGR2GRAY))

    def __call__(self, gray: np.ndarray, placement: np.ndarray) -> float:
        """``gray`` (the camera picture) rectified through ``placement`` (image px to board mm):
        1 for the empty board's very grain, about 0.75-0.96 for a hard frame placed right."""
        rectified = cv2.warpPerspective(gray, to_rectified(placement, self._px_per_mm), self._size, flags=cv2.INTER_LINEAR)
        return float(np.mean(self._grain(rectified) * self._empty))

    def _grain(self, gray: np.ndarray) -> np.ndarray:
        """The bare wood's brightness less the light's, standardised (mean 0, deviation 1)."""
        picture = gray.astype(np.float32)
        grain = picture - cv2.GaussianBlur(picture, (0, 0), GRAIN_MM * self._px_per_mm)
        return standardised(grain, self._wood)[self._wood]


class MovedMarkerWatch:
    """Watches the markers of one board frame after frame for one that moved on the board."""

    def __init__(self, profile: BoardProfile, places: MarkerPlaces | None, still_px: float,
                 likeness: EmptyLikeness) -> None:
        """``places``: where calibration found the markers stuck; ``still_px``: how close a marker
        stays to where the board's placement was found while the board has not moved;
        ``likeness``: how a placement lines the picture up with the empty board."""
        self.profile, self.places, self.still_px, self.likeness = profile, places, still_px, likeness
        self._followed: _Followed | None = None  # the marker found away from its place, until it is back

    def check(self, gray: np.ndarray, found: dict[int, np.ndarray], held: np.ndarray | None,
              held_markers: dict[int, np.ndarray]) -> MovedMarker | None:
        """The marker of ``found`` (image px, in the picture ``gray``) away from its place, or
        None. ``held``: the board's placement last found (image px to board mm), from the markers
        ``held_markers`` (image px); None before the first."""
        if self._followed is not None and self._followed.moved.marker_id in found:
            return self._follow(self._followed, found)
        if held is None:
            return self._at_start(gray, found)
        placed_with = [marker_id for marker_id in found if marker_id in held_markers]  # markers the board was placed by
        moving = [marker_id for marker_id in placed_with if not stayed(found[marker_id], held_markers[marker_id], self.still_px)]
        if len(moving) != 1 or len(placed_with) < 3:
            return None  # judged only where the board stood still (two of those markers, at least, where they were)
        moved = self._judged(moving[0], found[moving[0]], held)
        if moved.distance_mm < MOVED_MM:
            return None
        self._followed = _Followed(moved, held, dict(found))
        return moved

    def _at_start(self, gray: np.ndarray, found: dict[int, np.ndarray]) -> MovedMarker | None:
        """The marker moved before the first frame, judged by the placement of the other three
        where that one lines the picture up with the empty board better than all four (module
        docstring), or None; asked of the first frame that places the board, if it shows all four."""
        if sorted(found) != list(MARKER_IDS):
            return None
        all_four = self.likeness(gray, homography_from_markers(found, self.profile, self.places))
        liker, left_out, placement = max(
            (self.likeness(gray, placement), marker_id, placement) for marker_id in MARKER_IDS
            if (placement := homography_from_markers({i: c for i, c in found.items() if i != marker_id},
                                                     self.profile, self.places)) is not None)
        if liker < all_four + START_GAIN:
            return None
        moved = self._judged(left_out, found[left_out], placement)
        if moved.distance_mm < MOVED_MM:
            return None
        self._followed = _Followed(moved, placement, dict(found))
        return moved

    def _follow(self, followed: _Followed, found: dict[int, np.ndarray]) -> MovedMarker | None:
        """The marker named before, followed to where it lies now, or None once it is back: the
        board's move since it was named (none while the other markers stay put, else their
        picture-to-picture homography) undone, the placement it was named by measures how far
        it moved on the board since."""
        marker_id = followed.moved.marker_id
        others = [i for i in found if i != marker_id and i in followed.corners]
        if len(others) >= 2 and all(stayed(found[i], followed.corners[i], self.still_px) for i in others):
            board_moved = np.eye(3)
        elif len(others) >= 3:
            now = np.concatenate([found[i] for i in others]).astype(np.float64)
            then = np.concatenate([followed.corners[i] for i in others]).astype(np.float64)
            board_moved, _ = cv2.findHomography(now, then, 0)
            if board_moved is None:
                return followed.moved
        else:
            return followed.moved  # the board moved, and too few of the others are in view to follow it
        back = cv2.perspectiveTransform(found[marker_id].reshape(-1, 1, 2).astype(np.float64), board_moved).reshape(4, 2)
        shift = _on_board(back, followed.board).mean(axis=0) - _on_board(followed.corners[marker_id], followed.board).mean(axis=0)
        moved = MovedMarker(marker_id, (followed.moved.offset_mm[0] + float(shift[0]), followed.moved.offset_mm[1] + float(shift[1])))
        if moved.distance_mm < MOVED_MM:
            self._followed = None
            return None
        return moved

    def _judged(self, marker_id: int, corners: np.ndarray, board: np.ndarray) -> MovedMarker:
        """How far from its calibrated place the placement ``board`` puts the marker seen at ``corners``."""
        dx, dy = _on_board(corners, board).mean(axis=0) - marker_place(marker_id, self.profile, self.places).mean(axis=0)
        return MovedMarker(marker_id, (float(dx), float(dy)))


def _on_board(corners: np.ndarray, board: np.ndarray) -> np.ndarray:
    """A marker's corners (image px) on the board (mm) by the placement ``board``."""
    return cv2.perspectiveTransform(corners.reshape(-1, 1, 2).astype(np.float64), board).reshape(4, 2)
