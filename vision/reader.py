"""The board reader: one camera frame in, one :class:`rules.Reading` out, never an exception.

``BoardReader(calibration).read(frame)`` locates the board (markers, or the
calibrated corners), rectifies it, fits today's light against the empty
board, marks pits a hand hides as unseen, and has the seed counter
(:mod:`vision.counter`) read every other pit: a probability over counts (and
white chips on a Pass It On board). Whatever the frame (None, black, no board, half a board) the result
carries a status saying what was seen, so a live loop never has to catch.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

import cv2
import numpy as np

from calibration.calibfile import Calibration, HollowFit
from rules.reading import PitReading, Reading

from .camera import BLACK_FRAME, is_black, too_small
from .counter import SeedCounter, shared_counter, widened
from .eye import eye_from_homography
from .focus import BLURRED_MM, grain_blur_mm, marker_blur_mm, measured_at, too_blurred_mm
from .flicker import picture_rows
from .glare import CoveredReflections, GlareFinder, hedged, sticker_mask
from .hand import Cover, HandFinder
from .markers import (MARKER_IDS, MARKER_NAMES, MIRRORED, SQUARE_WITHIN, MarkerTracker, detect_markers,
                      homography_from_corners, homography_from_markers, is_mirrored, marker_sides, placement_fault,
                      places_found, stayed)
from .moved_markers import EmptyLikeness, MovedMarkerWatch
from .nudge import BOARD_MOVED, LOST, NudgeFinder, moved_back
from .overlay import PitOverlay, draw_overlay, outlines_in_picture, pit_overlays, points_in_picture
from .patches import PatchCutter
from .picture_size import DEVICE_SIZE
from .pits import hollow_mask, in_hollows, rim_gap
from .rectify import DEFAULT_PX_PER_MM, GAIN_CELL_PX, BoardWarp, LightModel, visible_mask

DARK = 0.025 * 255  # rectified brightness (0..255) below which nothing can be read
STRAY_GLARE_MM = 10.0  # a seed on the wood this close to a lamp's reflection is its halo
EDGE_MM = 8.0  # the board's edge band is not bare wood: its bevel, bent by the lens where no homography follows it
HOLD_PX = 1.0  # markers in view this close to where the last homography was found: the board has not moved
HELD_FEW_PX = 3.0  # ...and with only one or two in view, this close (no homography can be found from them)
DARK_PATCH_MM = 20.0  # dark counts as unlit in patches this wide: a covered lens, not a marker's black or a seed's shadow


@dataclass(frozen=True)
class FrameStatus:
    """What the reader could see in a frame."""

    board_found: bool
    markers_seen: tuple[int, ...]
    pits_unseen: tuple[str, ...]
    hand: bool
    message: str  # "ok" or a short reason, e.g. "hand over board", "board not found"
    strays: tuple[str, ...] = ()  # the pit beside each seed lying on the bare wood (rolled out while sowing)
    glared: tuple[str, ...] = ()  # of the pits unseen, those a lamp's reflection washes out
    blur_mm: float | None = None  # how blurred the picture is (vision.focus: at the markers, or by the wood's grain on a
    # board found by its corners); None: not measured (no markers in view; no grain in view beside a hand)

    def to_json(self) -> dict[str, Any]:
        return {
            "board_found": self.board_found,
            "markers_seen": list(self.markers_seen),
            "markers_missing": [MARKER_NAMES[i] for i in MARKER_IDS if i not in self.markers_seen],
            "pits_unseen": list(self.pits_unseen),
            "hand": self.hand,
            "strays": list(self.strays),
            "pits_glared": list(self.glared),
            "blur_mm": None if self.blur_mm is None else round(self.blur_mm, 2),
            "message": self.message,
        }


NO_COLOUR = ("no colour in the picture (a greyscale camera, or a greyscale file): seeds are counted and chips told "
             "apart in colour; use a colour camera")
MARKERS_MISSING = "board not found: markers missing"  # how the status of a frame with markers out of view begins
STUCK_WRONG = "markers stuck wrong"  # how the status of a frame refused by BoardReader._check_placement begins
SMALLEST_PICTURE_PX = 32  # a picture narrower or lower than this holds no four markers (each needs 16 px or more)
ANOTHER_BOARD = "another board under the camera"  # ...or of one of another shape than the calibrated board
# Markers farther from square than this (log of across over deep) are a board of another shape. Measured on rendered
# set-ups of every profile (2026-12-07, 48 hard frames of the calibrated boards, 60 of other layouts' boards, a scratch
# script): the calibrated boards' came out at most 12 % off square (the lens bends the markers at a long board's
# ends); other layouts' from 1 % off (a board of the same size) up, 32 of 60 beyond 30 % (every 4 x 8 board, and most
# boards of another length). Most of the others read as a hand over the board, frame after frame (their hollows are
# not where the empty picture has them).
OTHER_SHAPE_BEYOND = math.log(1.3)


class FrameUnreadable(Exception):
    """No board can be read in this frame; ``message`` says why for the status line."""

    def __init__(self, message: str, markers: tuple[int, ...] = ()) -> None:
        super().__init__(message)
        self.message, self.markers = message, markers


@dataclass(frozen=True)
class BoardView:
    """The board as one frame shows it, before anything is counted."""

    board: np.ndarray  # rectified top-down view, uint8 BGR
    homography: np.ndarray  # image px -> board mm
    markers: tuple[int, ...]  # marker ids seen
    seen: np.ndarray | None  # rectified pixels in view and lit; None when all of them are
    log_gain: np.ndarray  # today's light against the empty board's, per cell (LightModel.log_gain)
    glare: np.ndarray | None = None  # rectified pixels a lamp's reflection washes out (bool); None: none
    refined: bool = False  # the board did not move, its placement was refined (a marker found again)
    doubtful: np.ndarray | None = None  # clipped white in hollows, a white seed or a reflection (bool); None: none
    picture: tuple[int, int] = DEVICE_SIZE  # the camera picture's width and height (px)
    blur_mm: float | None = None  # the picture's blur at the markers (vision.focus); None: not measured (on a board
    # found by its corners, filled in from its grain once the hand finder has looked: BoardReader._read_view)
    lined_up: bool = True  # False: a board found by its corners could not be lined up with its empty picture


@dataclass
class FrameResult:
    """A reading plus what the dashboard needs to show how it was read."""

    reading: Reading
    status: FrameStatus
    overlay: list[PitOverlay] = field(default_factory=list)
    board: np.ndarray | None = None  # rectified view (uint8 BGR) for motion detection
    image_to_board: np.ndarray | None = None  # homography image px -> board mm
    strays: list[tuple[float, float]] = field(default_factory=list)  # seeds on the bare wood (image px)
    views: dict[str, np.ndarray] = field(default_factory=dict)  # each pit counted, as the counter saw it
    # (uint8 BGR window, light divided out): which kept its look, :mod:`vision.unchanged`
    px_per_mm: float = DEFAULT_PX_PER_MM  # the scale of ``board``: the calibration's (the default in a frame not read)
    refined: bool = False  # ``board`` is placed a little better than the frame before's, which did not move
    hand_outlines: list[np.ndarray] = field(default_factory=list)  # what was taken for a hand over the board,
    # each piece's outline (N x 2 image px, int32): shown, so that players see what keeps the board from being read

    def draw(self, frame: np.ndarray) -> np.ndarray:
        """A copy of ``frame`` showing how it was read, for the dashboard (:func:`vision.overlay.draw_overlay`)."""
        return draw_overlay(frame, self.overlay, self.hand_outlines, self.strays, self.status.message)


def is_colourless(frame: np.ndarray) -> bool:
    """Whether the BGR ``frame``'s three channels are one picture: a greyscale camera (an infrared
    one), or a greyscale file read as colour. The counter learnt seeds in colour: a greyscale start
    position of Kalah read "ok" with its 4s as 2s and 3s at 65-100 % (a review, 2026-12-07), so such
    a frame is refused, not read. Every 8th pixel each way is enough: a colour camera's channels
    differ nearly everywhere, even on grey wood, by its noise. Asked of every frame (an infrared
    camera turns grey when the room goes dark): 0.02 ms for a colour 1280 x 720 frame, which the
    first comparison settles, 0.06 ms for a grey one (a one-off timing of 2,000 calls, 2026-12-07). A flat frame
    (a blown-out picture, one colour all over) is no greyscale camera's, and is left to the markers."""
    sample = frame[::8, ::8]
    blue, green, red = sample[..., 0], sample[..., 1], sample[..., 2]
    return np.array_equal(blue, green) and np.array_equal(green, red) and int(np.ptp(green)) > 0


def locate_board(gray: np.ndarray, calibration: Calibration,
                 tracker: MarkerTracker | None = None) -> tuple[np.ndarray | None, dict[int, np.ndarray]]:
    """Homography image px -> board mm from the markers (or the calibrated corners), and the
    markers seen; a ``tracker`` (kept from frame to frame) makes the search local and fast."""
    profile = calibration.profile
    if calibration.corners is not None:
        return homography_from_corners(calibration.corners, profile), {}
    found = tracker.find(gray) if tracker is not None else detect_markers(gray)
    return homography_from_markers(found, profile, calibration.markers), found


class BoardReader:
    """Reads frames of one calibrated board set-up. Not thread-safe: one reader per camera loop."""

    def __init__(self, calibration: Calibration, counter: SeedCounter | None = None) -> None:
        """``counter``: the seed counter networks (when not given, the ones every reader shares,
        loaded on the first frame read: loading them takes longer than reading a frame)."""
        self.calibration = calibration
        self.profile = calibration.profile
        self.labels = self.profile.layout.labels
        empty = calibration.empty
        shape = empty.shape[:2]
        self.pits = {label: _PitArea(hollow_mask(shape, calibration.hollows[label]) > 0, calibration.hollows[label])
                     for label in self.labels}
        surface = _bare_wood(shape, calibration)
        self._off_hollows = ~in_hollows(shape, calibration.hollows.values())
        self._warp = BoardWarp(self.profile.size, calibration.px_per_mm)
        self._light = LightModel(empty, surface)
        self._hands = HandFinder(empty, surface, calibration.px_per_mm, calibration.hollows.values())
        self._cutter = PatchCutter(calibration)
        self._heap_cutter = PatchCutter(calibration, kinds=("heap",))
        self._counter = counter
        self._tracker = MarkerTracker(self.profile, calibration.markers)
        self._moved_markers = MovedMarkerWatch(self.profile, calibration.markers, HOLD_PX,
                                               EmptyLikeness(empty, surface, calibration.px_per_mm))
        self._dark_patch = cv2.getStructuringElement(cv2.MORPH_RECT, (round(DARK_PATCH_MM * calibration.px_per_mm) | 1,) * 2)
        self._glare = GlareFinder(self.profile, calibration.px_per_mm, shape, surface, calibration.whitest_seed,
                                  calibration.seed_area_mm2)
        self._glare_reach = round(STRAY_GLARE_MM * calibration.px_per_mm)
        self._covered = CoveredReflections()
        self._nudges = NudgeFinder(empty, calibration.px_per_mm, surface) if calibration.corners is not None else None
        self._last_homography: np.ndarray | None = None
        self._rows_of: tuple[bytes, np.ndarray] | None = None  # a homography, and the picture row of every light cell
        self._last_markers: dict[int, np.ndarray] = {}
        self._markers_in_view: set[int] = set()  # in the frame before, once their placement was checked
        self._marker_sides: tuple[float, float] | None = None  # their mean side across and deep (mm), as checked

    def read(self, frame: np.ndarray | None, when: float | None = None, known: Reading | None = None) -> FrameResult:
        """Read one BGR frame; never raises for a bad frame, the status says what went wrong.

        ``known``: what this board read when it was last found still, given while it has
        stayed still since (as a stillness gate tells, :mod:`vision.live`). The frame is then
        located, rectified and checked for a hand as always (which is how the gate sees the
        board move), but the seed counter, two thirds of a frame's time, is not run again:
        every pit in view keeps its known reading.
        """
        when = time.time() if when is None else when
        try:
            view = self.view(frame)
        except FrameUnreadable as why:
            return self._unseen(why.message, when, why.markers)
        return self._read_view(view, when, known)

    def view(self, frame: np.ndarray | None) -> BoardView:
        """The board in ``frame`` rectified, with today's light; :class:`FrameUnreadable` says
        why there is none (no frame, a black one, markers missing, a degenerate view)."""
        frame, gray = self._checked(frame)
        try:
            placed = self._placed(gray)
            homography = placed.homography
            board = self._warp(frame, homography)
            seen = self._visible(frame.shape, homography, cv2.cvtColor(board, cv2.COLOR_BGR2GRAY))
            rows = self._cell_rows(homography)
            log_gain = self._light.log_gain(board, seen, rows)
            reflections = self._glare.find(board, log_gain)
            if (glare := reflections.glare) is not None:  # nothing shows there, least of all today's light
                seen = ~glare if seen is None else seen & ~glare
                log_gain = self._light.log_gain(board, seen, rows)
            return BoardView(board, homography, tuple(sorted(placed.found)), seen, log_gain, glare, placed.refined,
                             reflections.doubtful, (frame.shape[1], frame.shape[0]), marker_blur_mm(gray, placed.found),
                             placed.lined_up)
        except (cv2.error, np.linalg.LinAlgError) as error:  # a degenerate view (markers in a line, ...)
            raise FrameUnreadable(f"board not readable in this frame ({type(error).__name__})") from None

    def _checked(self, frame: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """``frame`` as 8-bit BGR and its grey; :class:`FrameUnreadable` for what cannot hold a board
        (nothing, another pixel type, a black or colourless picture, another size than the one the
        board's corners were set on)."""
        if frame is None or not isinstance(frame, np.ndarray) or frame.ndim not in (2, 3) or frame.size == 0:
            raise FrameUnreadable("no frame")
        if frame.dtype != np.uint8:
            raise FrameUnreadable(f"unsupported frame: {frame.dtype} pixels, expected 8-bit BGR")
        if min(frame.shape[:2]) < SMALLEST_PICTURE_PX:  # OpenCV's "error" was all a 1-pixel-high picture got said
            raise FrameUnreadable(f"a {frame.shape[1]} x {frame.shape[0]} picture: too small to hold a board "
                                  f"({SMALLEST_PICTURE_PX} pixels a side at least)")
        if frame.ndim == 2:
            frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
        frame = frame[..., :3]
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        if is_black(gray):
            raise FrameUnreadable(BLACK_FRAME)
        corners_picture = self.calibration.corners_picture
        if corners_picture is not None and (frame.shape[1], frame.shape[0]) != corners_picture:
            raise FrameUnreadable(f"the board's corners were set on a {corners_picture[0]} x {corners_picture[1]} picture, "
                                  f"this one is {frame.shape[1]} x {frame.shape[0]}: set them again "
                                  "(dashboard: Set the board corners)")
        if is_colourless(frame):
            raise FrameUnreadable(NO_COLOUR)
        return frame, gray

    def _placed(self, gray: np.ndarray) -> _Placement:
        """Where the board lies in the picture ``gray``: by its markers (held while the board has
        not moved, :meth:`_held`), then, for a board found by its corners, followed where it was
        nudged. :class:`FrameUnreadable` when it cannot be placed: markers missing, stuck otherwise
        than at calibration or moved on the wood, a board without markers moved too far."""
        homography, found = locate_board(gray, self.calibration, self._tracker)
        if homography is not None and not found.keys() <= self._markers_in_view:
            self._check_placement(found, homography)
        self._markers_in_view = set(found)
        if (moved := self._moved_markers.check(gray, found, self._last_homography, self._last_markers)) is not None:
            raise FrameUnreadable(moved.message, tuple(sorted(found)))
        homography, refined = self._held(homography, found)
        if homography is None:
            if not found and is_mirrored(gray):
                raise FrameUnreadable(f"board not found: {MIRRORED}")
            missing = [MARKER_NAMES[i] for i in MARKER_IDS if i not in found]
            raise FrameUnreadable(f"{MARKERS_MISSING} ({', '.join(missing)})", tuple(sorted(found)))
        lined_up = True
        if self._nudges is not None and (shift := self._nudges.shift(gray, homography)) is not None:
            if not shift.nudge:  # its corners no longer say where its pits are
                raise FrameUnreadable(BOARD_MOVED)
            homography = moved_back(homography, shift.motion_mm)  # a board without markers, nudged: follow it
            lined_up = shift.sure
        return _Placement(homography, found, refined, lined_up)

    def _check_placement(self, found: dict[int, np.ndarray], homography: np.ndarray) -> None:
        """Refuses markers ``found`` stuck otherwise than calibration took them: a marker that fell
        off and was stuck back turned, two swapped, the board turned round on the table. Each puts
        every pit elsewhere; before this check (2026-12-05, rendered boards) such a frame read as
        a hand over the board, frame after frame, and a board turned round read "ok" with South's
        pits taken for North's. A marker cannot be restuck without leaving the picture first, so
        this is asked only when one comes into view (0.17 ms each time), and again every frame
        while it is refused.

        Refuses too a board of another shape than the calibrated one under the camera, told by its
        markers, which the ``homography`` to the calibrated board stretches out of square
        (``OTHER_SHAPE_BEYOND``): a 4 x 8 board read with a Kalah calibration read "ok", its counts
        made up (2026-12-07)."""
        if (fault := placement_fault(found)) is not None:
            raise FrameUnreadable(f"{STUCK_WRONG}: {fault}", tuple(sorted(found)))
        across, deep = self._marker_sides = marker_sides(places_found(found, homography))
        if abs(math.log(across / deep)) > OTHER_SHAPE_BEYOND:
            raise FrameUnreadable(f"{ANOTHER_BOARD}: its markers come out {across:.0f} mm across and {deep:.0f} mm deep, "
                                  f"where they are square on the calibrated {self.profile.name} board: put that board "
                                  "back, or calibrate this one (pitwatch calibrate)", tuple(sorted(found)))

    def _or_another_board(self) -> str:
        """What a hand over the board may be instead: a board of another layout whose markers come out
        too far from square to be this one (as calibration refuses, ``SQUARE_WITHIN``), but not so far
        that the board is refused (``OTHER_SHAPE_BEYOND``). Its hollows are not where the empty picture
        has them, so it reads as a hand, frame after frame: an Oware board under a Kalah calibration
        came out 29 % off square, and the players were told only of a hand (a CLI audit, 2026-12-07)."""
        if self._marker_sides is None:
            return ""
        across, deep = self._marker_sides
        if abs(math.log(across / deep)) <= SQUARE_WITHIN:
            return ""
        return (f", or {ANOTHER_BOARD} (its markers come out {across:.0f} mm across and {deep:.0f} mm deep, where they "
                f"are square on the calibrated {self.profile.name} board)")

    def _held(self, homography: np.ndarray | None, found: dict[int, np.ndarray]) -> tuple[np.ndarray | None, bool]:
        """The board's homography: the one found last while the board has not moved since, else
        the one found now. The board has not moved while all but one of the markers in view, and
        at least two, are within ``HOLD_PX`` of where they were when it was found: a board is
        rigid, and one marker alone cannot move. So a marker at the edge of being seen (blur,
        dim light) that comes and goes, or one measured a few pixels apart in a noisy frame, no
        longer shifts the board: the stillness gate took such a jump for motion and waited for
        ever. With only one or two markers in view (a hand over the others) there is no
        homography to find, and the last one is kept while those are within ``HELD_FEW_PX``.

        Also says whether the homography found now only refines the last one: more markers are
        in view than when that was found, and those stayed within ``HOLD_PX`` (a marker found
        again). The board did not move, but its placement improves, by up to a few pixels: the
        stillness gate is not to take that for motion."""
        refined = False
        if self._last_homography is not None and found:
            reach = HOLD_PX if homography is not None else HELD_FEW_PX
            still = sum(marker_id in self._last_markers and stayed(corners, self._last_markers[marker_id], reach)
                        for marker_id, corners in found.items())
            if homography is None or len(found) <= len(self._last_markers):
                if (still == len(found)) if homography is None else (still >= max(2, len(found) - 1)):
                    return self._last_homography, False
            else:
                refined = still == len(self._last_markers)
        if homography is not None:
            self._last_homography, self._last_markers = homography, found
        return homography, refined

    def _eye_px(self, view: BoardView) -> tuple[float, float] | None:
        """The point of the board's plane under the camera (rectified px) by ``view``'s homography
        (:func:`vision.eye.eye_from_homography`); None where it cannot tell."""
        eye = eye_from_homography(view.homography, view.picture)
        ppm = self.calibration.px_per_mm
        return None if eye is None else (eye[0] * ppm, eye[1] * ppm)

    def _unseen(self, message: str, when: float, markers: tuple[int, ...] = ()) -> FrameResult:
        reading = Reading({label: None for label in self.labels}, "vision", when, message)
        return FrameResult(reading, FrameStatus(False, markers, self.labels, False, message))

    def without_hand(self, view: BoardView) -> tuple[Cover, BoardView]:
        """What lies over the board in ``view`` (a hand, a shadow, seeds on the wood) and the view
        with today's light fitted again without the hand (skin is not today's light), or closely
        over a shadow. The seed counter's training pictures are cut from this view too."""
        cover = self._hands.find(view.board, view.log_gain, view.seen, lambda: self._eye_px(view))
        if cover.shade is not None:
            return cover, replace(view, log_gain=self._light.followed(view.board, view.log_gain, view.seen, cover.shade))
        if cover.hand is None:
            return cover, view
        seen = ~cover.hand if view.seen is None else view.seen & ~cover.hand
        return cover, replace(view, log_gain=self._light.log_gain(view.board, seen, self._cell_rows(view.homography)))

    def _cell_rows(self, homography: np.ndarray) -> np.ndarray:
        """The picture row of every cell the light is fitted on, through ``homography``: a mains
        lamp's flicker lights the picture in bands of rows (:mod:`vision.flicker`)."""
        key = homography.tobytes()
        if self._rows_of is None or self._rows_of[0] != key:
            cells_per_mm = self.calibration.px_per_mm / GAIN_CELL_PX
            self._rows_of = (key, picture_rows(self._light.cells_shape, homography, cells_per_mm))
        return self._rows_of[1]

    def _read_view(self, view: BoardView, when: float, known: Reading | None) -> FrameResult:
        cover, view = self.without_hand(view)
        hand = cover.hand
        if self.calibration.corners is not None and (added_mm := self._hands.blur_mm(cover)) is not None:
            view = replace(view, blur_mm=grain_blur_mm(added_mm))  # no markers: the grain tells
        measured = measured_at(self.calibration.corners is not None)
        small = too_small(view.picture)
        blur, blur_limit = view.blur_mm or 0.0, too_blurred_mm(small)
        lost = not view.lined_up and hand is None  # not a hand: the board is not where its corners say
        in_view = {label for label, pit in self.pits.items()  # a picture too blurred has no pit in view
                   if not (hand is not None and pit.touches(hand)) and (view.seen is None or pit.inside(view.seen))
                   } if blur <= blur_limit and not lost else set()
        board_limit = self.calibration.blur_limit_mm  # over it this board's seeds are misread: read hedged
        blurred = board_limit is not None and blur > board_limit
        views: dict[str, np.ndarray] = {}
        if known is None:
            off_hollows = None if cover.stray_mask is None else cover.stray_mask & self._off_hollows  # seeds on the wood
            pits, views = self._count(view, in_view, off_hollows, blurred, out_of_focus=blur > BLURRED_MM)
        else:
            pits = {label: known.pits.get(label) if label in in_view else None for label in self.labels}
        unseen = tuple(label for label, pit in pits.items() if pit is None)
        missing = [MARKER_NAMES[i] for i in MARKER_IDS if i not in view.markers] if self.calibration.corners is None else []
        glared = [label for label in unseen if view.glare is not None and self.pits[label].touches(view.glare)]
        self._covered.update(glared, [label for label, pit in pits.items() if pit is not None and pit.most_likely == 0])
        lying = [point for point in cover.strays if not _near(view.glare, point, self._glare_reach)]  # not the halo of a reflection
        strays = [self._beside(point) for point in lying]
        if blur > blur_limit:  # first: blur changes the wood as a hand does, and a hand is no reason to refocus
            message = (f"picture too blurred to count seeds ({measured} blurred over {blur:.2f} mm, "
                       f"at most {blur_limit:.2f}): focus the camera")
        elif hand is not None:
            message = "hand over board" + self._or_another_board()
        elif lost:
            message = LOST
        elif glared:
            message = f"glare on pits {', '.join(glared)}: a lamp's reflection; move the lamp or turn the board"
        elif unseen:
            message = f"pits out of view: {', '.join(unseen)}"
        elif strays:
            message = self._strays_message(strays)
        elif missing:
            message = f"ok (marker {', '.join(missing)} not seen)"
        elif small:
            message = (f"ok (a {view.picture[0]} x {view.picture[1]} picture, too small to count seeds well: "
                       "see pitwatch doctor)")
        elif blur > BLURRED_MM or blurred:
            message = f"ok (picture blurred: {measured} over {blur:.2f} mm; focus the camera, see pitwatch doctor)"
        else:
            message = "ok"
        reading = Reading(pits, "vision", when, message)
        status = FrameStatus(True, view.markers, unseen, hand is not None, message, tuple(strays), tuple(glared), view.blur_mm)
        ppm = self.calibration.px_per_mm
        outlines = {label: pit.outline for label, pit in self.pits.items()}
        return FrameResult(reading, status, pit_overlays(outlines, pits, view.homography, ppm), view.board,
                           view.homography, points_in_picture(lying, view.homography, ppm), views, ppm, view.refined,
                           [] if hand is None else outlines_in_picture(hand, view.homography, ppm))

    def _beside(self, point: tuple[float, float]) -> str:
        """The pit (or store) a seed lying on the wood at ``point`` (rectified px) is beside."""
        return min(self.labels, key=lambda label: rim_gap(self.calibration.hollows[label], point))

    def _strays_message(self, beside: list[str]) -> str:
        """``seed on the wood by C: put it where it belongs`` (chips on a Pass It On board)."""
        piece = "chip" if self.profile.chips else "seed"
        if len(beside) == 1:
            return f"{piece} on the wood by {beside[0]}: put it where it belongs"
        return f"{len(beside)} {piece}s on the wood by {', '.join(dict.fromkeys(beside))}: put them where they belong"

    def _count(self, view: BoardView, in_view: set[str], strays: np.ndarray | None, blurred: bool,
               out_of_focus: bool) -> tuple[dict[str, PitReading | None], dict[str, np.ndarray]]:
        """The seed counter's reading of every pit in view (None for the others; heaps in playing
        pits read again at the board's own scale, :meth:`SeedCounter.read_pits`), widened as
        calibration found this board needs and hedged where white clipped that may be a lamp's
        reflection (:func:`~vision.glare.hedged`) or where one was seen and seeds may hide it now
        (:class:`~vision.glare.CoveredReflections`), every pit hedged where the picture is
        ``blurred`` beyond what this board's seeds bear (``Calibration.blur_limit_mm``), and each
        such pit's window as the counter saw it; a picture ``out_of_focus`` (over ``BLURRED_MM``) is
        read by the networks trained also out of focus, which read it better (docs/vision.md, section 2);
        seeds lying on the wood (``strays``, a mask) are shown to it as the empty wood, or a
        pit's window that reaches one would count it."""
        pits: dict[str, PitReading | None] = {label: None for label in self.labels}
        views: dict[str, np.ndarray] = {}
        counter = self._counter or shared_counter()
        temperature = self.calibration.temperature
        for kind, relit in self._cutter.relit(view.board, view.log_gain, strays).items():
            labels = self._cutter.labels[kind]
            chosen = [k for k, label in enumerate(labels) if label in in_view]
            if not chosen:
                continue
            height = relit.shape[0] // len(labels)
            windows = self._cutter.stack(relit, kind)[chosen]
            if kind == "pit":
                reads = counter.read_pits(windows, lambda heaps: self._heap_windows(view, strays, [chosen[k] for k in heaps]),
                                          out_of_focus)
            else:
                reads = counter.read(kind, windows, out_of_focus)
            for k, read in zip(chosen, reads):
                probabilities = [widened(p, temperature) for p in (read.counts, read.whites)[:1 + self.profile.chips]]
                if (blurred or self._covered.covers(labels[k])
                        or (view.doubtful is not None and self.pits[labels[k]].touches(view.doubtful))):
                    probabilities = [hedged(p) for p in probabilities]
                pits[labels[k]] = PitReading(*(tuple(p.tolist()) for p in probabilities))
                views[labels[k]] = relit[k * height:(k + 1) * height]
        return pits, views

    def _heap_windows(self, view: BoardView, strays: np.ndarray | None, pits: list[int]) -> np.ndarray:
        """The heap network's input for the playing pits ``pits`` (indices into the pit labels),
        cut as :meth:`_count` cuts every pit's window, at the board's own scale."""
        cut = self._heap_cutter.relit(view.board, view.log_gain, strays, {"heap": pits})
        return self._heap_cutter.stack(cut["heap"], "heap", pits)

    def _visible(self, shape: tuple[int, ...], homography: np.ndarray, brightness: np.ndarray) -> np.ndarray | None:
        """The rectified pixels in view and lit, or None when the whole board is (the usual case).

        Out of view: beyond the frame's edge. Unlit: black over ``DARK_PATCH_MM`` or more,
        as behind a covered half of the lens; a light model could otherwise explain it as
        shade. Smaller black (a marker's squares, the shadows between seeds) is what a dim frame
        shows, and its pits are read: counting it made a dim frame's pits "out of view"
        (docs/vision.md, section 4).
        """
        seen = None
        corners = np.array(self.profile.board_corners(), np.float64).reshape(-1, 1, 2)
        image = cv2.perspectiveTransform(corners, np.linalg.inv(homography)).reshape(-1, 2)
        h, w = shape[:2]
        if not ((image[:, 0] >= 0).all() and (image[:, 0] < w).all() and (image[:, 1] >= 0).all() and (image[:, 1] < h).all()):
            seen = visible_mask(shape, homography, self.profile.size, self.calibration.px_per_mm)
        dark = (brightness < DARK).view(np.uint8)
        if cv2.countNonZero(dark) > dark.size // 200:
            dark = cv2.morphologyEx(dark, cv2.MORPH_OPEN, self._dark_patch)
            if cv2.countNonZero(dark) > dark.size // 200:
                lit = cv2.dilate(dark, None, iterations=2) == 0
                seen = lit if seen is None else seen & lit
        return seen


class _Placement(NamedTuple):
    """Where a frame shows the board (:meth:`BoardReader._placed`)."""

    homography: np.ndarray  # image px -> board mm
    found: dict[int, np.ndarray]  # the markers seen, by id: their corners (image px)
    refined: bool  # the board did not move, its placement was refined (BoardView.refined)
    lined_up: bool  # False: a board found by its corners could not be lined up (BoardView.lined_up)


class _PitArea:
    """A hollow's mask, cut to its bounding box so that per-frame checks stay small."""

    def __init__(self, mask: np.ndarray, fit: HollowFit) -> None:
        ys, xs = np.nonzero(mask)
        self.box = (slice(ys.min(), ys.max() + 1), slice(xs.min(), xs.max() + 1))
        self.mask = mask[self.box]
        angles = np.linspace(0, 2 * np.pi, 24, endpoint=False)
        self.outline = np.stack([fit.centre[0] + fit.axes[0] * np.cos(angles), fit.centre[1] + fit.axes[1] * np.sin(angles)], axis=1)

    def touches(self, mask: np.ndarray) -> bool:
        return bool((mask[self.box] & self.mask).any())

    def inside(self, seen: np.ndarray) -> bool:
        return bool(seen[self.box][self.mask].all())


def _near(mask: np.ndarray | None, point: tuple[float, float], reach: int) -> bool:
    """Whether ``mask`` (bool, rectified board; None: empty) is set within ``reach`` px of ``point``."""
    if mask is None:
        return False
    x, y = int(round(point[0])), int(round(point[1]))
    return bool(mask[max(0, y - reach):y + reach + 1, max(0, x - reach):x + reach + 1].any())


def _bare_wood(shape: tuple[int, int], calibration: Calibration) -> np.ndarray:
    """Rectified pixels of bare wood: not a hollow (with a margin), not a marker, not the board's edge."""
    ppm = calibration.px_per_mm
    wood = ~in_hollows(shape, calibration.hollows.values(), 1.12)
    wood &= ~sticker_mask(shape, calibration.profile, ppm)
    edge = int(EDGE_MM * ppm)
    wood[:edge], wood[-edge:], wood[:, :edge], wood[:, -edge:] = False, False, False, False
    return wood
