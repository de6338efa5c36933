"""The board reader: one camera frame in, one :class:`rules.Reading` out, never an exception.

``BoardReader(calibration).read(frame)`` locates the board (markers, or the
calibrated corners), rectifies it, fits today's light against the empty
board, marks pits a hand hides as unseen, and turns the seed pixels of every
other pit into a probability over counts (and white chips on a Pass It On
board). Whatever the frame (None, black, no board, half a board) the result
carries a status saying what was seen, so a live loop never has to catch.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from calibration.calibfile import Calibration, HollowFit
from rules.reading import PitReading, Reading

from .counting import (MAX_PIT, MAX_STORE, SMOOTH, Reference, SeedPixels, count_distribution, count_seeds, estimate_from,
                       seed_pixels, white_distribution)
from .markers import MARKER_IDS, MARKER_NAMES, MarkerTracker, detect_markers, homography_from_corners, homography_from_markers
from .mosaic import PitMosaic
from .pits import hollow_mask
from .rectify import LightModel, reduce, visible_mask, warp_to_board

HAND_MIN_MM2 = 250.0  # a change on the bare wood bigger than this is a hand (or an arm, a sleeve)
DARK = 0.025 * 255  # rectified brightness (0..255) below which nothing can be read
HAND_MARGIN_MM = 6.0  # pits this close to a hand are unseen: fingers cast shadows and hide seeds


@dataclass(frozen=True)
class FrameStatus:
    """What the reader could see in a frame."""

    board_found: bool
    markers_seen: tuple[int, ...]
    pits_unseen: tuple[str, ...]
    hand: bool
    message: str  # "ok" or a short reason, e.g. "hand over board", "board not found"

    def to_json(self) -> dict[str, Any]:
        return {
            "board_found": self.board_found,
            "markers_seen": list(self.markers_seen),
            "markers_missing": [MARKER_NAMES[i] for i in MARKER_IDS if i not in self.markers_seen],
            "pits_unseen": list(self.pits_unseen),
            "hand": self.hand,
            "message": self.message,
        }


@dataclass(frozen=True)
class PitOverlay:
    """One pit as drawn on the camera view: its outline in image px and what was read."""

    label: str
    outline: np.ndarray  # (N, 2) image px
    count: int | None
    probability: float
    white: int | None


@dataclass
class FrameResult:
    """A reading plus what the dashboard needs to show how it was read."""

    reading: Reading
    status: FrameStatus
    overlay: list[PitOverlay] = field(default_factory=list)
    board: np.ndarray | None = None  # rectified view (uint8 BGR) for motion detection
    image_to_board: np.ndarray | None = None  # homography image px -> board mm
    hand_mask: np.ndarray | None = None  # rectified bool mask of the hand, if any

    def draw(self, frame: np.ndarray) -> np.ndarray:
        """A copy of ``frame`` with every pit outlined (green: p >= 0.9, orange: less sure,
        red: unseen) and labelled with its most likely count (and white chips)."""
        out = frame.copy()
        for pit in self.overlay:
            colour = (0, 200, 0) if pit.count is not None and pit.probability >= 0.9 else (0, 200, 255)
            if pit.count is None:
                colour = (0, 0, 255)
            cv2.polylines(out, [pit.outline.astype(np.int32)], True, colour, 2)
            text = "?" if pit.count is None else f"{pit.count}" + ("" if pit.white is None else f"/{pit.white}w")
            x, y = pit.outline.mean(axis=0).astype(int)
            cv2.putText(out, f"{pit.label}:{text}", (int(x) - 20, int(y)), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (0, 0, 0), 3)
            cv2.putText(out, f"{pit.label}:{text}", (int(x) - 20, int(y)), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (255, 255, 255), 1)
        cv2.putText(out, self.status.message, (10, 25), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (255, 255, 255), 2)
        return out


def locate_board(gray: np.ndarray, calibration: Calibration,
                 tracker: MarkerTracker | None = None) -> tuple[np.ndarray | None, dict[int, np.ndarray]]:
    """Homography image px -> board mm from the markers (or the calibrated corners), and the
    markers seen; a ``tracker`` (kept from frame to frame) makes the search local and fast."""
    profile = calibration.profile
    if calibration.corners is not None:
        return homography_from_corners(calibration.corners, profile), {}
    found = tracker.find(gray) if tracker is not None else detect_markers(gray)
    return homography_from_markers(found, profile), found


class BoardReader:
    """Reads frames of one calibrated board set-up. Not thread-safe: one reader per camera loop."""

    def __init__(self, calibration: Calibration) -> None:
        self.calibration = calibration
        self.profile = calibration.profile
        self.labels = self.profile.layout.labels
        empty = calibration.empty
        shape = empty.shape[:2]
        ppm = calibration.px_per_mm
        hollows = {label: hollow_mask(shape, calibration.hollows[label]) > 0 for label in self.labels}
        boxes = {label: _bounding_box(mask) for label, mask in hollows.items()}
        self._mosaic = PitMosaic(boxes, shape)
        self.pits = {label: _PitArea(label, calibration.hollows[label], hollows[label][boxes[label]], self.profile.hollow(label).is_store,
                                     boxes[label], self._mosaic.inner(label, boxes[label])) for label in self.labels}
        self._pit_of = np.zeros(self._mosaic.shape, np.int32)  # pit number (1..) of every hollow pixel of the mosaic
        for number, pit in enumerate(self.pits.values(), 1):
            self._pit_of[pit.tile][pit.mask] = number
        self._surface = _bare_wood(shape, calibration)
        self._light = LightModel(empty, self._surface)
        # seeds are looked for on the pit mosaic, a hand on the whole board at half resolution:
        # each with its empty board and bare wood
        reference = Reference.of(empty.astype(np.float32) * np.float32(1 / 255))
        self._reference = Reference(self._mosaic.gather(reference.low), self._mosaic.gather(reference.high))
        self._mosaic_surface = self._mosaic.gather(self._surface)
        self._wood_reference = Reference.of(reduce(empty, 2).astype(np.float32) * np.float32(1 / 255), 1, blur=False)
        self._wood_surface = _half(self._surface)
        # where each lies on the light model's grid of cells
        self._mosaic_light = LightModel.sampler(*self._mosaic.board_coordinates())
        hh, hw = self._wood_surface.shape
        yy, xx = np.mgrid[0:hh, 0:hw].astype(np.float32)
        self._wood_light = LightModel.sampler(2 * xx + 0.5, 2 * yy + 0.5)  # a half-size pixel: a 2 x 2 block
        self._hand_min_px = HAND_MIN_MM2 * ppm * ppm
        self._hand_kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (int(2 * HAND_MARGIN_MM * ppm) | 1,) * 2)
        self._tracker = MarkerTracker()
        self._last_homography: np.ndarray | None = None
        self._last_markers: dict[int, np.ndarray] = {}

    def read(self, frame: np.ndarray | None, when: float | None = None) -> FrameResult:
        """Read one BGR frame; never raises for a bad frame, the status says what went wrong."""
        when = time.time() if when is None else when
        if frame is None or not isinstance(frame, np.ndarray) or frame.ndim not in (2, 3) or frame.size == 0:
            return self._unseen("no frame", when)
        if frame.dtype != np.uint8:
            return self._unseen(f"unsupported frame: {frame.dtype} pixels, expected 8-bit BGR", when)
        if frame.ndim == 2:
            frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
        gray = cv2.cvtColor(frame[..., :3], cv2.COLOR_BGR2GRAY)
        mean, spread = cv2.meanStdDev(gray)
        if float(mean[0, 0]) < 12 and float(spread[0, 0]) < 6:
            return self._unseen("black frame: is the lens covered or the camera off?", when)
        try:
            homography, found = locate_board(gray, self.calibration, self._tracker)
            homography = self._held(homography, found)
            if homography is None:
                missing = [MARKER_NAMES[i] for i in MARKER_IDS if i not in found]
                return self._unseen(f"board not found: markers missing ({', '.join(missing)})", when, tuple(sorted(found)))
            return self._read_board(frame[..., :3], homography, tuple(sorted(found)), when)
        except (cv2.error, np.linalg.LinAlgError) as error:  # a degenerate view (markers in a line, ...)
            return self._unseen(f"board not readable in this frame ({type(error).__name__})", when)

    def _held(self, homography: np.ndarray | None, found: dict[int, np.ndarray]) -> np.ndarray | None:
        """With only one or two markers in view (a hand over the others), keep the last
        homography if the markers still seen have not moved: the board is where it was."""
        if homography is not None:
            self._last_homography, self._last_markers = homography, found
            return homography
        if self._last_homography is None or not found:
            return None
        for marker_id, corners in found.items():
            before = self._last_markers.get(marker_id)
            if before is None or float(np.abs(before - corners).max()) > 3.0:
                return None
        return self._last_homography

    def _unseen(self, message: str, when: float, markers: tuple[int, ...] = ()) -> FrameResult:
        reading = Reading({label: None for label in self.labels}, "vision", when, message)
        return FrameResult(reading, FrameStatus(False, markers, self.labels, False, message))

    def _read_board(self, frame: np.ndarray, homography: np.ndarray, markers: tuple[int, ...], when: float) -> FrameResult:
        cal = self.calibration
        board = warp_to_board(frame, homography, self.profile.size, cal.px_per_mm)
        seen = self._visible(frame.shape, homography, cv2.cvtColor(board, cv2.COLOR_BGR2GRAY))
        pits_image = self._mosaic.gather(board).astype(np.float32) * np.float32(1 / 255)
        brightness = cv2.GaussianBlur(cv2.cvtColor(pits_image, cv2.COLOR_BGR2GRAY), SMOOTH, 1.0)  # for telling touching seeds apart
        pixels = self.seed_pixels(board, seen, pits_image)
        hand = self._hand(pixels.changed, self._wood_surface if seen is None else self._wood_surface & _half(seen))

        in_pits = pixels.seeds & (self._pit_of > 0)
        areas = np.bincount(self._pit_of[in_pits], minlength=len(self.pits) + 1)[1:]
        one_by_one = count_seeds(in_pits, brightness, cal.seed_area, self._pit_of, len(self.pits))
        pits: dict[str, PitReading | None] = {}
        for (label, pit), area, counted in zip(self.pits.items(), areas, one_by_one):
            if (hand is not None and pit.touches(hand)) or (seen is not None and not pit.inside(seen)):
                pits[label] = None
                continue
            estimate = estimate_from(float(area), int(counted), cal.seed_area, pit.hollow_area)
            counts = count_distribution(estimate, MAX_STORE if pit.is_store else MAX_PIT)
            white = None
            if cal.white_area is not None:
                white = white_distribution(pit.area(pixels.white) / cal.white_area, int(round(estimate.count)) + 2, estimate.hidden)
            pits[label] = PitReading(counts, white)
        unseen = tuple(label for label, pit in pits.items() if pit is None)
        missing = [MARKER_NAMES[i] for i in MARKER_IDS if i not in markers] if cal.corners is None else []
        if hand is not None:
            message = "hand over board"
        elif unseen:
            message = f"pits out of view: {', '.join(unseen)}"
        elif missing:
            message = f"ok (marker {', '.join(missing)} not seen)"
        else:
            message = "ok"
        reading = Reading(pits, "vision", when, message)
        status = FrameStatus(True, markers, unseen, hand is not None, message)
        return FrameResult(reading, status, self._overlay(homography, pits), board, homography, hand)

    def seed_pixels(self, board: np.ndarray, seen: np.ndarray | None = None, pits_image: np.ndarray | None = None) -> SeedPixels:
        """Seed evidence of a rectified board (uint8 BGR; ``seen``: the part in view, None = all;
        ``pits_image``: its pit mosaic as float32, if already made). Seeds and white chips come
        on the pit mosaic (read them with :meth:`_PitArea.area`), the hand evidence at half size."""
        if pits_image is None:
            pits_image = self._mosaic.gather(board).astype(np.float32) * np.float32(1 / 255)
        field = self._light.log_gain(board, seen)
        surface = self._mosaic_surface if seen is None else self._mosaic_surface & self._mosaic.gather(seen)
        wood = reduce(board, 2).astype(np.float32) * np.float32(1 / 255)
        wood_surface = self._wood_surface if seen is None else self._wood_surface & _half(seen)
        return seed_pixels(pits_image, self._reference, LightModel.sample(field, self._mosaic_light), surface,
                           wood, self._wood_reference, LightModel.sample(field, self._wood_light), wood_surface,
                           whites=self.calibration.white_area is not None)

    def _visible(self, shape: tuple[int, ...], homography: np.ndarray, brightness: np.ndarray) -> np.ndarray | None:
        """The rectified pixels in view and lit, or None when the whole board is (the usual case).

        Out of view: beyond the frame's edge. Unlit: black, as behind a covered
        half of the lens; a light model could otherwise explain it as shade.
        """
        seen = None
        corners = np.array(self.profile.board_corners(), np.float64).reshape(-1, 1, 2)
        image = cv2.perspectiveTransform(corners, np.linalg.inv(homography)).reshape(-1, 2)
        h, w = shape[:2]
        if not ((image[:, 0] >= 0).all() and (image[:, 0] < w).all() and (image[:, 1] >= 0).all() and (image[:, 1] < h).all()):
            seen = visible_mask(shape, homography, self.profile.size, self.calibration.px_per_mm)
        dark = brightness < DARK
        if cv2.countNonZero(dark.view(np.uint8)) > dark.size // 200:
            lit = cv2.erode((~dark).view(np.uint8), None, iterations=2) > 0
            seen = lit if seen is None else seen & lit
        return seen

    def _hand(self, changed: np.ndarray, surface: np.ndarray) -> np.ndarray | None:
        """A large change on the bare wood: something is over the board. Returns its grown mask
        at full size. (``changed`` and ``surface`` are at half size: a hand is big, and this
        is the reader's widest search.)"""
        over = ((changed > 1.0) & surface).astype(np.uint8)
        count, labels, stats, _ = cv2.connectedComponentsWithStats(over)
        big = [k for k in range(1, count) if stats[k, cv2.CC_STAT_AREA] * 4 >= self._hand_min_px]
        if not big:
            return None
        full = self._surface.shape
        mask = cv2.resize(np.isin(labels, big).astype(np.uint8), (2 * surface.shape[1], 2 * surface.shape[0]), interpolation=cv2.INTER_NEAREST)
        mask = cv2.copyMakeBorder(mask, 0, full[0] - mask.shape[0], 0, full[1] - mask.shape[1], cv2.BORDER_REPLICATE)
        return cv2.dilate(mask, self._hand_kernel) > 0

    def _overlay(self, homography: np.ndarray, pits: dict[str, PitReading | None]) -> list[PitOverlay]:
        to_image = np.linalg.inv(homography) @ np.diag([1 / self.calibration.px_per_mm, 1 / self.calibration.px_per_mm, 1.0])
        overlay = []
        for label, pit in self.pits.items():
            outline = cv2.perspectiveTransform(pit.outline.reshape(-1, 1, 2), to_image).reshape(-1, 2)
            reading = pits[label]
            count = None if reading is None else reading.most_likely
            overlay.append(PitOverlay(label, outline, count, 0.0 if reading is None else reading.counts[count],
                                      None if reading is None else reading.most_likely_white))
        return overlay


def _half(mask: np.ndarray) -> np.ndarray:
    """A bool mask at half size: true where the whole 2 x 2 block was."""
    return reduce(mask.astype(np.uint8) * np.uint8(255), 2) == 255


def _bounding_box(mask: np.ndarray) -> tuple[slice, slice]:
    ys, xs = np.nonzero(mask)
    return (slice(ys.min(), ys.max() + 1), slice(xs.min(), xs.max() + 1))


class _PitArea:
    """A hollow's mask, cut to its bounding box (``box`` on the board, ``tile`` on the pit
    mosaic) so per-frame work stays small."""

    def __init__(self, label: str, fit: HollowFit, mask: np.ndarray, is_store: bool,
                 box: tuple[slice, slice], tile: tuple[slice, slice]) -> None:
        self.label, self.is_store = label, is_store
        self.box, self.tile, self.mask = box, tile, mask
        self.hollow_area = float(self.mask.sum())
        angles = np.linspace(0, 2 * np.pi, 24, endpoint=False)
        self.outline = np.stack([fit.centre[0] + fit.axes[0] * np.cos(angles), fit.centre[1] + fit.axes[1] * np.sin(angles)], axis=1)

    def area(self, pixels: np.ndarray) -> float:
        """Pixels set in this hollow of a pit-mosaic mask."""
        return float(np.count_nonzero(pixels[self.tile] & self.mask))

    def touches(self, mask: np.ndarray) -> bool:
        return bool((mask[self.box] & self.mask).any())

    def inside(self, seen: np.ndarray) -> bool:
        return bool(seen[self.box][self.mask].all())


def _bare_wood(shape: tuple[int, int], calibration: Calibration) -> np.ndarray:
    """Rectified pixels of bare wood: not a hollow (with a margin), not a marker, not the board's edge."""
    ppm = calibration.px_per_mm
    wood = np.ones(shape, bool)
    for fit in calibration.hollows.values():
        wood &= hollow_mask(shape, fit, 1.12) == 0
    profile = calibration.profile
    for marker_id in MARKER_IDS:
        corners = np.array(profile.marker_corners(marker_id)) * ppm
        (x0, y0), (x1, y1) = corners.min(axis=0) - 6 * ppm, corners.max(axis=0) + 6 * ppm
        wood[max(0, int(y0)):int(y1) + 1, max(0, int(x0)):int(x1) + 1] = False
    edge = int(5 * ppm)
    wood[:edge], wood[-edge:], wood[:, :edge], wood[:, -edge:] = False, False, False, False
    return wood
