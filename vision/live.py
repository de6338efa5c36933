"""Live readings: only a board that has been still, with nothing over it, is read.

A move on a real board takes a few seconds of hands and seeds in motion; a
reading taken then is noise. :class:`StillnessGate` watches the stream of
:class:`~vision.reader.FrameResult` objects: any motion on the rectified
board, a hand, a pit out of view or a lost board resets it; after
``still_frames`` quiet frames in a row it emits one Reading (the mean of those
frames' per-pit probabilities), and then stays silent until the board moves
again. Pits a lamp's reflection washes out are not a reset: the reflection
stays while the lamp does, so the Reading gives them unseen and the referee
judges the move from the other pits (a reflection had stopped the game until
the lamp was moved; docs/vision.md, section 5).

Each Reading it emits also says which pits kept their look since the one
before (:mod:`vision.unchanged`), in ``notes["still_board"]``: ``at`` (this
still board's time), ``since`` (the previous one's, or None), ``kept`` and
``changed`` (pit labels), and ``moved``: the changed pits where a spot the size
of a seed changed, each with the area that changed (mm2: about twice as much for
two seeds added or taken as for one). A board on which nothing moved is the previous one
still (the same ``at``). The session uses the note to pin those pits to the
counts the game knows (:mod:`pitwatch.settled`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import NamedTuple

import cv2
import numpy as np

from rules.reading import STILL_BOARD, PitReading, Reading

from .flicker import CLIPPED, RowLight, brightest, picture_rows, unclipped
from .reader import FrameResult
from .unchanged import KEPT, MOVED, compare_looks, largest_spot


FLICKER_SAID = 0.1  # a flicker swing (log) from which the gate's state says what to do about it: bands some 6 %
# brighter and darker (the swing between two frames is about 1.7 times the bands' own)
FLICKER_ADVICE = ("the light flickers in bands (a mains lamp against a short exposure): set the camera's power-line "
                  "frequency to your mains (v4l2-ctl -c power_line_frequency=1 for 50 Hz, 2 for 60 Hz) or use a steady lamp")


@dataclass(frozen=True)
class GateState:
    """Where the gate is: "moving", "hand", "no board", "settling" or "still" (reading sent)."""

    state: str
    motion: float  # share of the board that changed since the previous frame
    spot_mm2: float = 0.0  # the largest spot of it that changed
    flicker: float = 0.0  # the light's change along the picture's rows since the previous frame (log swing either
    # way; measured only where the board looked moved): mains flicker's bands, divided out (vision.flicker)

    @property
    def described(self) -> str:
        """The state in words for the players, with what to do about a light that flickers in bands
        (the gate divides bands out, but they hide seeds' changes where they clip the picture)."""
        return f"{self.state}; {FLICKER_ADVICE}" if self.flicker >= FLICKER_SAID else self.state


class _Seen(NamedTuple):
    """A frame as the gate keeps it, to compare the next one with."""

    small: np.ndarray  # the board at half size, smoothed, its brightness divided out
    placement: np.ndarray | None  # the reader's homography (picture px -> board mm)
    board: np.ndarray  # the board as read (uint8 BGR), for the pixels the camera clipped
    gray: np.ndarray  # the board at half size in grey, not smoothed
    brightness: float  # the smoothed grey board's mean, divided out of ``small``


class StillnessGate:
    """Emits a Reading once the board has been still for ``still_frames`` frames.

    Motion is the fraction of the (downsized, brightness-normalised) rectified
    board that changed by more than ``CHANGE`` since the previous frame; above
    ``motion_threshold`` the board is moving. So is a board on which one spot
    of at least ``SEED_SPOT_MM2`` changed: one seed dropped into a pit or
    taken from one changes 0.01-0.4 % of a board, most often less than
    ``motion_threshold``, and a move of one seed made with the hand out of
    view (or the demo's virtual board, which moves no hand) would otherwise
    never be read. Normalising first keeps a light flickering over the whole
    board from counting as motion, and so does dividing out the change of light
    along the picture's rows: the bands a mains lamp makes across a rolling
    shutter (:mod:`vision.flicker`).
    """

    CHANGE = 0.08
    SCALE_MM = 2.5  # the downsized board's smoothing (Gaussian sigma): sensor noise and JPEG average out
    SEED_SPOT_MM2 = 8.0  # a sixth of the smallest seed's top: one seed dropped into a blurred frame changed
    # 11 mm2, the next exposure of a still board none (benchmarks/stillness_bench.py; docs/vision.md, section 5)

    def __init__(self, still_frames: int = 5, motion_threshold: float = 0.002) -> None:
        if still_frames < 1:
            raise ValueError(f"still_frames must be at least 1, not {still_frames}")
        self.still_frames = still_frames
        self.motion_threshold = motion_threshold
        self._previous: _Seen | None = None  # the last frame's board
        self._row_light_of: tuple[bytes, RowLight] | None = None  # a placement, and the light's change along its
        # picture rows measured (vision.flicker)
        self._shift = cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3))  # a pixel either way, at half size
        self._quiet: list[Reading] = []
        self._sent = False
        self._last_still: tuple[float, dict[str, np.ndarray]] | None = None  # the last Reading's time, pit looks
        self.state = GateState("no board", 0.0)

    def update(self, result: FrameResult) -> Reading | None:
        """Feed one frame's result; returns a Reading when the board has just become still."""
        if not result.status.board_found or result.board is None:
            return self._reset("no board", 0.0)
        hand = result.status.hand or bool(set(result.status.pits_unseen) - set(result.status.glared))
        motion, spot_mm2, flicker = self._change(result, hand)
        if hand:
            return self._reset("hand", motion, spot_mm2, flicker)
        if motion > self.motion_threshold or spot_mm2 >= self.SEED_SPOT_MM2:
            return self._reset("moving", motion, spot_mm2, flicker)
        if self._sent:
            self.state = GateState("still", motion, spot_mm2, flicker)
            return None
        self._quiet.append(result.reading)
        if len(self._quiet) < self.still_frames:
            self.state = GateState("settling", motion, spot_mm2, flicker)
            return None
        self._sent = True
        self.state = GateState("still", motion, spot_mm2, flicker)
        reading = mean_reading(self._quiet)
        return replace(reading, notes={**reading.notes, STILL_BOARD: self._still_board(reading.time, result.views)})

    def _change(self, result: FrameResult, hand: bool) -> tuple[float, float, float]:
        """(share of the board, largest spot in mm2) that changed since the previous frame, and the
        swing of the light's change along the picture's rows.

        Nothing when the reader only placed the board better (a marker found again, the others
        where they were): it moved in the picture, not on the table. Where the reader placed
        the board anew (its markers measured a pixel or two apart in a noisy frame, or the
        board nudged, which the markers follow), a change is only what lies outside the
        previous frame's values within a pixel: every edge shifts a little, while a seed's
        change lies inside its edges. A change that would be motion with no ``hand`` over the
        board (which resets the gate whatever the light did) is measured again with the light's
        change along the picture's rows divided out (mains flicker: :mod:`vision.flicker`); only
        then is that swing measured (else it is 0)."""
        px_per_mm = result.px_per_mm / 2  # the board at half size
        gray = cv2.resize(cv2.cvtColor(result.board, cv2.COLOR_BGR2GRAY), None, fx=0.5, fy=0.5,
                          interpolation=cv2.INTER_AREA).astype(np.float32)
        small = self._smoothed(gray, px_per_mm)
        brightness = max(float(small.mean()), 1e-3)
        small = small / brightness
        before, self._previous = self._previous, _Seen(small, result.image_to_board, result.board, gray, brightness)
        if before is None or before.small.shape != small.shape or result.refined:
            return 0.0, 0.0, 0.0
        placed_anew = not np.array_equal(before.placement, result.image_to_board)
        changed = self._changed(small, before.small, placed_anew)
        motion = float(np.count_nonzero(changed)) / changed.size
        if hand or motion <= self.motion_threshold:  # else the spot is measured on the second look
            spot_mm2 = largest_spot(changed) / px_per_mm ** 2 if motion else 0.0
            if hand or spot_mm2 < self.SEED_SPOT_MM2:
                return motion, spot_mm2, 0.0
        # the light's change is measured on the board before it is smoothed, and divided out before: smoothed, a
        # board's edge rows mix in the light of the rows inside, and under bands of 25 % they had looked changed
        row_light = self._row_light(result, small.shape, px_per_mm)
        bright_now, bright_before = brightest(result.board, gray.shape), brightest(before.board, gray.shape)
        gain, flicker = row_light.change(gray / brightness, before.gray / before.brightness,
                                         (bright_now < CLIPPED) & (bright_before < CLIPPED))
        light = gain * np.float32(brightness / before.brightness)  # now's light over before's, in grey levels
        now_filled = unclipped(gray, bright_now, before.gray * light)
        before_filled = unclipped(before.gray, bright_before, gray / light)
        small = self._smoothed(now_filled / gain, px_per_mm) / brightness
        previous = self._smoothed(before_filled, px_per_mm) / before.brightness
        changed = self._changed(small, previous, placed_anew)
        motion = float(np.count_nonzero(changed)) / changed.size
        return motion, (largest_spot(changed) / px_per_mm ** 2 if motion else 0.0), flicker

    def _smoothed(self, gray: np.ndarray, px_per_mm: float) -> np.ndarray:
        """The half-size board smoothed: sensor noise and JPEG average out."""
        return cv2.GaussianBlur(gray, (0, 0), self.SCALE_MM * px_per_mm)

    def _changed(self, small: np.ndarray, previous: np.ndarray, placed_anew: bool) -> np.ndarray:
        """The pixels (uint8 0/1) that changed from ``previous`` to ``small``."""
        if placed_anew:
            low, high = cv2.erode(previous, self._shift), cv2.dilate(previous, self._shift)
            return (cv2.max(low - small, small - high) > self.CHANGE).astype(np.uint8)
        return (cv2.absdiff(small, previous) > self.CHANGE).astype(np.uint8)

    def _row_light(self, result: FrameResult, shape: tuple[int, int], px_per_mm: float) -> RowLight:
        """The measure of the light's change along the picture's rows for this placement of the
        half-size board; kept while the board stays where it is in the picture."""
        key = result.image_to_board.tobytes() + bytes(str(shape), "ascii")
        if self._row_light_of is None or self._row_light_of[0] != key:
            self._row_light_of = (key, RowLight(picture_rows(shape, result.image_to_board, px_per_mm)))
        return self._row_light_of[1]

    def _still_board(self, at: float, views: dict[str, np.ndarray]) -> dict:
        """This still board's note: which pits kept their look since the last one (see the module).
        A board on which nothing moved (a hand came and went) is the last one still: it keeps its
        ``at``, so that the next board is compared with the one the game was last known to show."""
        since, before = self._last_still if self._last_still is not None else (None, {})
        looks = compare_looks(before, views)
        kept = [label for label, look in looks.items() if look.name == KEPT]
        if since is not None and len(kept) == len(views):
            return {"at": since, "since": since, "kept": kept, "changed": [], "moved": {}}
        self._last_still = (at, views)
        return {"at": at, "since": since, "kept": kept,
                "changed": [label for label, look in looks.items() if look.name != KEPT],
                "moved": {label: look.moved_mm2 for label, look in looks.items() if look.name == MOVED}}

    def _reset(self, state: str, motion: float, spot_mm2: float = 0.0, flicker: float = 0.0) -> None:
        self._quiet = []
        self._sent = False
        self.state = GateState(state, motion, spot_mm2, flicker)
        return None


def mean_reading(readings: list[Reading]) -> Reading:
    """Average per-pit probabilities over frames (a pit unseen in any frame stays unseen)."""
    last = readings[-1]
    pits: dict[str, PitReading | None] = {}
    for label in last.pits:
        seen = [r.pits.get(label) for r in readings]
        if any(p is None for p in seen):
            pits[label] = None
            continue
        pits[label] = PitReading(_mean([p.counts for p in seen]), None if seen[0].white is None else _mean([p.white for p in seen]))
    return Reading(pits, last.source, last.time, last.status, {"frames": len(readings)})


def _mean(distributions: list[tuple[float, ...]]) -> tuple[float, ...]:
    size = max(len(d) for d in distributions)
    total = np.zeros(size)
    for d in distributions:
        total[:len(d)] += d
    return tuple((total / total.sum()).tolist())
