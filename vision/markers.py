"""Finding the board: ArUco markers at its corners, or four corners given by hand.

The board is located afresh in every frame, so a nudged board keeps reading.
Marker ids go round the board as seen from South's seat: 0 near-left,
1 near-right, 2 far-right, 3 far-left (``DICT_4X4_50``). Any three markers
are enough for a homography (their 12 corners); with fewer the frame is
reported as "board not found" rather than guessed.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Mapping, Sequence

import cv2
import numpy as np

from calibration.profiles import BoardProfile

MARKER_IDS = (0, 1, 2, 3)
MARKER_NAMES = {0: "near-left", 1: "near-right", 2: "far-right", 3: "far-left"}
# how the players are told the markers go round the board
STUCK_ORDER = "0 near-left, 1 near-right, 2 far-right, 3 far-left, as seen from South's seat"
_ACROSS_THE_BOARD = {0: 3, 1: 2, 2: 1, 3: 0}  # each marker's partner at its own end of the board
_ALONG_ITS_SIDE = {0: 1, 1: 0, 2: 3, 3: 2}  # ...and on its own side (near or far)
MarkerPlaces = Mapping[int, np.ndarray]  # per marker id, its four corners in ArUco's order on the board (mm, float32)
DICTIONARY = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
DETECT_WIDTH = 960  # frames wider than this are searched at half size (or less), corners refined at full size
NEAR_MIN_SIDE = 20  # px: a marker tracked near its last place is searched at half size if it stays this big


def marker_image(marker_id: int, side_px: int) -> np.ndarray:
    """The black-and-white marker ``marker_id`` as a ``side_px`` square (uint8, no quiet zone)."""
    return cv2.aruco.generateImageMarker(DICTIONARY, marker_id, side_px)


def _detector(min_perimeter: float, threshold_window: int | None = None) -> cv2.aruco.ArucoDetector:
    """A detector ignoring outlines shorter than ``min_perimeter`` x the image's larger side:
    wood grain and seeds make many small candidate outlines, and testing them is what costs.
    ``threshold_window``: one adaptive-threshold window (px) instead of OpenCV's three."""
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE
    params.minMarkerPerimeterRate = min_perimeter
    if threshold_window is not None:
        params.adaptiveThreshWinSizeMin = params.adaptiveThreshWinSizeMax = threshold_window
    return cv2.aruco.ArucoDetector(DICTIONARY, params)


_DETECTOR = _detector(0.05)  # whole frame: a marker side of at least ~1/80 of the frame
# a small window round a marker's last place, where its size is known: one threshold window
# of about two marker cells finds it as often as three (measured on rendered frames), for a third of the cost
_NEAR_DETECTOR = _detector(0.3, 7)


class MarkerTracker:
    """Finds the markers frame after frame, cheaply while the board stays where it was.

    A marker that has not moved since its corners were last measured keeps them; one that
    moved is searched for in a small window round its last place, and one not seen (a hand,
    a cup over it) round where the other markers put it; only when fewer than three are
    found so is the whole frame searched again, which costs as much as reading the frame
    does. Whether a marker moved is asked of its patch as it was when its corners were
    measured (an :class:`_Anchor`), not of the frame before: a board pushed slowly, half a
    pixel a frame, moves too little between two frames to notice, and its markers would be
    kept where they were while the board walked away.
    """

    def __init__(self, profile: BoardProfile, placed: MarkerPlaces | None = None) -> None:
        """``placed``: where calibration found the markers stuck (:func:`homography_from_markers`)."""
        self.profile, self.placed = profile, placed
        self.markers: dict[int, np.ndarray] = {}
        self._anchors: dict[int, _Anchor] = {}

    def find(self, gray: np.ndarray) -> dict[int, np.ndarray]:
        found = self._near(gray) if len(self.markers) >= 3 else None
        if found is None:
            found = detect_markers(gray)
            self._anchors = {}
        self.markers = found
        for marker_id, corners in found.items():
            if marker_id not in self._anchors and (anchor := _Anchor.of(gray, corners)) is not None:
                self._anchors[marker_id] = anchor
        return found

    def _near(self, gray: np.ndarray) -> dict[int, np.ndarray] | None:
        """The markers found near where they were (or, for one not seen, should be); None
        when fewer than three are."""
        found: dict[int, np.ndarray] = {}
        for marker_id, corners in {**self._expected(gray.shape), **self.markers}.items():
            anchor = self._anchors.get(marker_id)
            if anchor is not None and anchor.unmoved(gray):
                found[marker_id] = corners
                continue
            self._anchors.pop(marker_id, None)  # measured again below: a new anchor
            if (measured := _measured_near(gray, marker_id, corners)) is not None:
                found[marker_id] = measured
        return found if len(found) >= 3 else None

    def _expected(self, shape: tuple[int, ...]) -> dict[int, np.ndarray]:
        """Where the markers not seen in the last frame lie by the ones that were (image px),
        those that lie inside the frame."""
        missing = [i for i in MARKER_IDS if i not in self.markers]
        if not missing:
            return {}
        to_image = np.linalg.inv(homography_from_markers(self.markers, self.profile, self.placed))
        h, w = shape[:2]
        expected = {}
        for marker_id in missing:
            corners_mm = marker_place(marker_id, self.profile, self.placed).astype(np.float64).reshape(-1, 1, 2)
            corners = cv2.perspectiveTransform(corners_mm, to_image).reshape(4, 2).astype(np.float32)
            if (corners >= 0).all() and (corners[:, 0] < w).all() and (corners[:, 1] < h).all():
                expected[marker_id] = corners
        return expected


def _measured_near(gray: np.ndarray, marker_id: int, corners: np.ndarray) -> np.ndarray | None:
    """Marker ``marker_id`` looked for in a small window round ``corners`` (image px), at half
    size when it is big enough; its corners, refined at full size, or None."""
    box = _box(corners, gray.shape, 0.9, 16)
    patch = gray[box]
    side = float(np.linalg.norm(corners[0] - corners[2])) / np.sqrt(2)
    near = _search(patch, _NEAR_DETECTOR, patch.shape[1] // 2 if side >= 2 * NEAR_MIN_SIDE else patch.shape[1], False)
    if marker_id not in near:
        return None
    return near[marker_id] + np.float32((box[1].start, box[0].start))


@dataclass(frozen=True)
class _Anchor:
    """A marker's patch of the picture as it was when its corners were measured.

    Phase correlation against it says how far the marker has moved since, to a tenth of a
    pixel whatever the light does, and how alike the two patches are (the peak). Measured on
    rendered frames (all six boards, hard shots: sensor noise, JPEG, motion blur; a one-off
    probe, 2026-11-26): the next exposure of a still board moved a marker by 0.08 px in the
    median and 0.37 px at most, with a peak of at least 0.73; a board pushed by 0.25 mm
    (about half a pixel) moved it by 0.2-0.9 px; a hand over half the marker brought the
    peak down to 0.4-0.6 (over a quarter of it, 0.75-0.97: the marker is kept where it
    was, which is where it is, though ArUco no longer reads it). So a marker is kept while
    it has moved less than ``MOVED_PX`` and still looks itself, and measured again
    otherwise: a slow push is caught within about half a pixel, and never adds up.
    """

    MOVED_PX = 0.4
    SAME_PATTERN = 0.65  # a lower correlation peak: something else is over the marker (a hand)

    box: tuple[slice, slice]
    patch: np.ndarray  # float32

    @classmethod
    def of(cls, gray: np.ndarray, corners: np.ndarray) -> _Anchor | None:
        """The anchor of a marker whose corners were just measured, or None when a square patch
        round it does not fit in the frame (the marker is then measured every frame)."""
        side = float(np.linalg.norm(corners[0] - corners[2])) / np.sqrt(2)
        size = int(np.clip(2 ** np.ceil(np.log2(1.2 * side)), 16, 256))  # the marker and a little wood; a size the FFT likes
        x, y = np.round(corners.mean(axis=0)).astype(int) - size // 2
        h, w = gray.shape[:2]
        if x < 0 or y < 0 or x + size > w or y + size > h:
            return None
        box = (slice(y, y + size), slice(x, x + size))
        return cls(box, gray[box].astype(np.float32))

    def unmoved(self, gray: np.ndarray) -> bool:
        patch = gray[self.box]
        if patch.shape != self.patch.shape:
            return False
        (dx, dy), peak = cv2.phaseCorrelate(self.patch, patch.astype(np.float32), _hanning(self.patch.shape[0]))
        return bool(np.hypot(dx, dy) < self.MOVED_PX and peak >= self.SAME_PATTERN)


@functools.lru_cache(maxsize=8)
def _hanning(size: int) -> np.ndarray:
    """The window phase correlation weighs a square patch by, so that its edges do not count."""
    return cv2.createHanningWindow((size, size), cv2.CV_32F)


def _box(corners: np.ndarray, shape: tuple[int, ...], grow: float, margin: float) -> tuple[slice, slice]:
    """The window round a marker's corners, grown for a nudge of the board between frames."""
    (x0, y0), (x1, y1) = corners.min(axis=0), corners.max(axis=0)
    pad = max(x1 - x0, y1 - y0) * grow + margin
    h, w = shape[:2]
    return (slice(max(0, int(y0 - pad)), min(h, int(y1 + pad) + 1)), slice(max(0, int(x0 - pad)), min(w, int(x1 + pad) + 1)))


def detect_markers(gray: np.ndarray) -> dict[int, np.ndarray]:
    """Board markers seen in a grayscale frame: id -> 4x2 corners (image px, ArUco order).

    Searching a half-size copy keeps detection within a few milliseconds on a
    1280x720 frame; the corners are then refined on the full-size frame.
    """
    return _search(gray, _DETECTOR, DETECT_WIDTH, True)


def _search(gray: np.ndarray, detector: cv2.aruco.ArucoDetector, width: int, full_size_fallback: bool) -> dict[int, np.ndarray]:
    """Markers in ``gray`` found on a copy halved until it is at most ``width`` wide
    (halving exactly is several times cheaper than any other reduction, and markers of 4 x 4
    cells stay readable at half size), corners refined at full size. With fewer than three
    markers found, ``full_size_fallback`` looks again at full size and then at 3/4 size
    (blurred or far markers: one scale can read what another cannot)."""
    scale = 1.0
    small = gray
    while small.shape[1] > width:
        h, w = small.shape[0] // 2, small.shape[1] // 2
        small = cv2.resize(small[:2 * h, :2 * w], (w, h), interpolation=cv2.INTER_AREA)
        scale /= 2
    corners, ids, _ = detector.detectMarkers(small)
    for retry in (1.0, 0.75) if full_size_fallback and scale != 1.0 else ():
        if ids is not None and len(set(ids.ravel()) & set(MARKER_IDS)) >= 3:
            break
        image = gray if retry == 1.0 else cv2.resize(gray, None, fx=retry, fy=retry, interpolation=cv2.INTER_AREA)
        more, more_ids, _ = detector.detectMarkers(image)
        if more_ids is not None and (ids is None or len(set(more_ids.ravel())) > len(set(ids.ravel()))):
            corners, ids, scale = more, more_ids, retry
    found: dict[int, np.ndarray] = {}
    if ids is None:
        return found
    for quad, marker_id in zip(corners, ids.ravel()):
        if int(marker_id) in MARKER_IDS and int(marker_id) not in found:
            found[int(marker_id)] = (quad.reshape(4, 2).astype(np.float32) + 0.5) / scale - 0.5  # pixel centres
    if found:  # refined also when found at full size: an outline's corners are whole pixels, 1-2 px off
        points = np.concatenate(list(found.values())).reshape(-1, 1, 2)
        criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.05)
        cv2.cornerSubPix(gray, points, (3, 3), (-1, -1), criteria)
        for k, marker_id in enumerate(found):
            found[marker_id] = points[4 * k:4 * k + 4].reshape(4, 2)
    return found


MIRRORED = ("the picture is mirrored (its markers read only left-right reversed): turn off the camera's "
            "mirror or flip setting")


def is_mirrored(gray: np.ndarray) -> bool:
    """Whether ``gray``, in which no marker was found, shows two or more of the board's markers
    once turned left-right: a webcam that mirrors its picture, as many do for video calls (or
    flips it upside down, which is a mirror turned half round). A marker read in a mirror is no
    marker, so such a camera said only "markers missing". Asked only of a picture with no
    marker in it, at the detection's half size (a few milliseconds)."""
    return len(_search(cv2.flip(gray, 1), _DETECTOR, DETECT_WIDTH, False)) >= 2


def placement_fault(found: dict[int, np.ndarray]) -> str | None:
    """What is wrong with how the board's markers ``found`` are stuck, as the players are to be
    told, or None (and None with fewer than three: nothing to tell by).

    :func:`homography_from_markers` puts each marker's corners where the profile has them,
    upright as read from South's seat. Markers stuck otherwise put every pit somewhere else.
    Before this check (2026-12-04, rendered boards), a marker turned or two swapped made
    calibration say it found no hollows, or that the board was out of the picture. Markers stuck
    as read from North's seat calibrated without a word, and then South's pits were read as
    North's. So the marker centres must go round the board anticlockwise on the picture, as
    corners clicked by hand must (``calibration.outline.check_outline``), with the near side running
    left to right across the camera's side, and each marker's top must point across the board
    the way the board runs from its near marker to its far one.
    """
    centres = {i: found[i].mean(axis=0) for i in MARKER_IDS if i in found}
    if len(centres) < 3:
        return None
    points = list(centres.values())
    turns = [turn(points[k - 1], here, points[(k + 1) % len(points)]) for k, here in enumerate(points)]
    if any(t > 0 for t in turns) and any(t < 0 for t in turns):
        return f"the markers do not go round the board in their order ({STUCK_ORDER}): two of them are swapped"
    if turns[0] > 0:
        return (f"the markers go round the board the wrong way ({STUCK_ORDER}): they are stuck mirrored, or two "
                "across a diagonal are swapped")
    left, right = (centres[0], centres[1]) if 0 in centres and 1 in centres else (centres[3], centres[2])
    if right[0] - left[0] <= abs(right[1] - left[1]):
        return (f"the board's near side (markers 0 and 1) does not run left to right across the picture: the camera "
                f"stands on South's side of the board, and the markers go {STUCK_ORDER}; or the board is turned round: "
                "turn it so that markers 0 and 1 are on the camera's side")
    for marker_id, corners in found.items():
        if marker_id in centres and (turned := _quarter_turns(corners, centres, marker_id)):
            how = {1: "a quarter turn clockwise", 2: "upside down", 3: "a quarter turn anticlockwise"}[turned]
            return (f"marker {marker_id} ({MARKER_NAMES[marker_id]}) is stuck {how}: stick it upright as read from "
                    "South's seat, as the sheet prints it")
    return None


def turn(before: Sequence[float], here: Sequence[float], after: Sequence[float]) -> float:
    """Which way a path of picture points turns at ``here`` (the cross product of its two legs):
    below 0 anticlockwise on the picture (y grows downwards), as a board's outline goes round from
    near-left, whether its corners are markers or clicked by hand."""
    return float((here[0] - before[0]) * (after[1] - here[1]) - (here[1] - before[1]) * (after[0] - here[0]))


def _quarter_turns(corners: np.ndarray, centres: dict[int, np.ndarray], marker_id: int) -> int:
    """How many quarter turns clockwise (0-3) a marker is stuck from upright: the angle between its
    top (ArUco's first two corners are the upright marker's top) and the way the board runs from
    near to far where the marker is (:func:`_far_way`)."""
    way = _far_way(centres, marker_id)
    if way is None:
        return 0
    top = (corners[0] + corners[1]) / 2 - (corners[2] + corners[3]) / 2
    angle = np.degrees(np.arctan2(way[0] * top[1] - way[1] * top[0], way @ top))
    return int(round(angle / 90)) % 4


def _far_way(centres: dict[int, np.ndarray], marker_id: int) -> np.ndarray | None:
    """The way the board runs from near to far at marker ``marker_id`` on the picture, told by its
    neighbours alone: along its own end (to its partner there), or where that one is not seen,
    square to its own side (to its partner there, turned a quarter anticlockwise). Never by the
    board's other end: a steep camera's perspective and a wide lens bend the two ends' ways up to
    60 degrees apart, and until 2026-12-05 a marker whose end partner was not seen was judged by
    the other end, and called turned on 64 of 1,449 rendered views of markers stuck right, with
    one of them hidden, on cameras 35-40 degrees from overhead (a scratch sweep, 300 set-ups)."""
    here = centres[marker_id]
    if (across := _ACROSS_THE_BOARD[marker_id]) in centres:
        return centres[across] - here if marker_id in (0, 1) else here - centres[across]
    if (along := _ALONG_ITS_SIDE[marker_id]) in centres:
        right = centres[along] - here if marker_id in (0, 3) else here - centres[along]
        return np.array([right[1], -right[0]])  # left-to-right turned to near-to-far (y grows downwards)
    return None


def homography_from_markers(found: dict[int, np.ndarray], profile: BoardProfile,
                            placed: MarkerPlaces | None = None) -> np.ndarray | None:
    """Homography from image px to board mm, or ``None`` with fewer than three markers. Each
    marker's corners go where calibration found that marker stuck (``placed``), or where the
    profile has them (a marker calibration did not see, a file from before it measured them)."""
    if len(found) < 3:
        return None
    image_points = np.concatenate([found[i] for i in sorted(found)])
    board_points = np.concatenate([marker_place(i, profile, placed) for i in sorted(found)])
    homography, _ = cv2.findHomography(image_points, board_points, 0)
    return homography


def marker_place(marker_id: int, profile: BoardProfile, placed: MarkerPlaces | None = None) -> np.ndarray:
    """Where marker ``marker_id``'s corners lie on the board (mm, 4 x 2 float32): as calibration
    found it stuck, else the profile's place for it."""
    if placed is not None and marker_id in placed:
        return placed[marker_id]
    return np.array(profile.marker_corners(marker_id), np.float32)


def stayed(corners: np.ndarray, before: np.ndarray, reach_px: float) -> bool:
    """Whether a marker seen at ``corners`` is where it was ``before`` (image px): no corner more
    than ``reach_px`` away in x or y. How the reader tells a board that stood still from one that
    moved, and a marker that stayed from one that was pushed."""
    return float(np.abs(corners - before).max()) <= reach_px


def places_found(found: dict[int, np.ndarray], homography: np.ndarray) -> dict[int, np.ndarray]:
    """Where the markers ``found`` (image px) lie on the board, by ``homography`` (image px to
    board mm): calibration keeps them, so that any three markers put the board where all four
    did. Markers are stuck by hand, a few millimetres off the profile's places; the homography of
    all four spreads those errors over the board, and a homography of three (a hand over the
    fourth) spread them otherwise, moving every pit by up to a few millimetres."""
    return {marker_id: cv2.perspectiveTransform(corners.reshape(-1, 1, 2).astype(np.float64), homography)
            .reshape(4, 2).astype(np.float32) for marker_id, corners in found.items()}


# A board of another shape than the profile's, by its markers (measured on 48-58 rendered set-ups of every profile,
# hard shots, in depth and flat, markers stuck up to 4 mm off, 2026-12-07):
SQUARE_WITHIN = math.log(1.15)  # its markers come out this far from square (log of across over deep): the right
# profile's were at most 9 % off (the lens bends the markers at the board's ends), another 2-row board's 14.5-56 %
# (2x5+outboxes taken for 2x6+stores, 11.6 % apart, only by chance), a 4 x 8 board's twice


def marker_sides(places: dict[int, np.ndarray]) -> tuple[float, float]:
    """The markers' mean side across the board and deep into it (mm), where ``places`` (board mm)
    puts their corners: equal for square markers on the right board. The homography that puts the
    markers where a profile has them stretches a board of another shape to that one, and its
    square markers come out as rectangles (``benchmarks/board_shape_bench.py``)."""
    sides = [np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1) for corners in places.values()]
    across = float(np.mean([side[1::2] for side in sides]))  # ArUco's corners go round from the top-left
    return across, float(np.mean([side[0::2] for side in sides]))


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
