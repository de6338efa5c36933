"""A synthetic camera for the demo: a rendered board that shows whatever the game holds.

``SyntheticCamera(variant, counts_fn, rng_seed)`` renders a frame of a
virtual board each time it is read, showing the counts ``counts_fn()``
returns now: a rules ``Position`` (``.pits``, ``.white``), a mapping of pit
label to count, or a ``(counts, white)`` pair. The scene (wood, lamp, camera
angle: 15-40 degrees from overhead, as the benchmark's cameras, or at most ``steepest_deg``) is
fixed by the seed, and the board is seen in depth (``Scene.relief``:
the near rims hide part of each floor, heaps lean away), as a real camera sees
it; light drifts a little from frame to frame and
the seeds only move when the counts change, as on a real table (a board that
has not changed is rendered once and exposed anew each frame: rendering costs
183 ms). A hand can
be put over the board (``hand = True``) to show the reader's "hand over
board" status, seeds on the wood beside the hollows (``strays = 1``) its
"seed on the wood by ..." one, and a mains lamp's flicker (``flicker = 0.1``:
bands 10 % brighter and darker, new noise and bands every frame) the gate's. ``calibration()`` calibrates from the camera's own empty and
start frames, so the demo needs no pictures.
"""

from __future__ import annotations

import math
import time
import zlib
from dataclasses import replace
from typing import Any, Callable, Mapping

import cv2
import numpy as np

from calibration.calibfile import Calibration
from calibration.calibrate import calibrate
from calibration.profiles import board_profile, start_counts

from .camera import Frame, FrameSource, SourceError
from .render import Scene, Shot, Stack, random_scene, render, restacked, stack_of

Counts = tuple[dict[str, int], dict[str, int] | None]
LIGHT_DRIFT = (0.95, 1.03)  # the lamp's level from frame to frame (Shot.gain)
SENSOR_NOISE = 2.0  # grey levels (Shot.noise), and what a still board's next exposure adds to its last rendering


def parse_synthetic_spec(text: str) -> tuple[str, Callable[[], Any], int]:
    """``synthetic:VARIANT[:SEED]`` -> (variant, a callable giving its start counts, seed)."""
    parts = text.split(":")
    if len(parts) not in (2, 3) or not parts[1]:
        raise SourceError(f"camera source {text!r}: expected synthetic:VARIANT or synthetic:VARIANT:SEED")
    seed = parts[2] if len(parts) == 3 else "0"
    if not seed.strip().isdecimal():  # numpy's generator takes no negative seed
        raise SourceError(f"camera source {text!r}: the seed {seed!r} is not a whole number 0 or more")
    try:
        start = start_counts(parts[1])
    except ValueError as error:
        raise SourceError(f"camera source {text!r}: {error}") from None
    return parts[1], (lambda: start), int(seed)


class SyntheticCamera(FrameSource):
    """Frames of a virtual board showing ``counts_fn()``; never ends, never fails."""

    def __init__(self, variant_name: str, counts_fn: Callable[[], Any], rng_seed: int = 0,
                 steepest_deg: float | None = None) -> None:
        """``steepest_deg``: the camera no farther from overhead than this many degrees (the demo's
        stands as ``pitwatch doctor`` asks a real one to); None: wherever the seed puts it."""
        self.variant = variant_name
        self.profile = board_profile(variant_name)
        self.name = f"synthetic:{variant_name}:{rng_seed}"
        self.counts_fn = counts_fn
        self.hand = False
        self.strays = 0  # seeds lying on the wood besides the counts: rolled out while sowing
        self.flicker = 0.0  # a mains lamp's bands across the picture, this much brighter and darker (Shot.flicker),
        # moving on from frame to frame
        self.live = True
        self._rng = np.random.default_rng(rng_seed)
        scene = random_scene(self.profile.name, self._rng)
        tilt = scene.tilt if steepest_deg is None else min(scene.tilt, math.radians(steepest_deg))
        self.scene: Scene = replace(scene, relief=True, tilt=tilt)
        self._index = 0
        self._closed = False
        self._stacks: dict[str, Stack] = {}  # per hollow, which of its pile's seeds lie there
        self._lifts: dict[str, int] = {}  # per hollow, how often it was lifted: its pile's generation
        self._still: tuple[tuple[int, int], np.ndarray] | None = None  # while the board is still: what the last
        # rendering showed (_placement, seeds on the wood) and that rendering, to expose anew

    def _counts(self) -> Counts:
        value = self.counts_fn()
        labels = self.profile.layout.labels
        if hasattr(value, "pits"):  # a rules Position
            white = None if getattr(value, "white", None) is None else dict(zip(labels, value.white))
            return dict(zip(labels, value.pits)), white
        if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], Mapping):
            return dict(value[0]), None if value[1] is None else dict(value[1])
        return dict(value), None

    def _shot(self, counts: Counts, hand: bool) -> Shot:
        # seeds lie still while the counts do not change (the strays and the hand follow the counts)
        placement = _placement(*counts)
        drift = self._rng
        self._restack(*counts)
        return Shot(gain=float(drift.uniform(*LIGHT_DRIFT)), tint=(1.0, 1.0, 1.0), noise=SENSOR_NOISE, jpeg=85, hand=hand,
                    strays=self.strays, seed=placement if not hand else placement ^ int(drift.integers(1 << 20)),
                    piles={label: zlib.crc32(f"{self.name}:{label}:{self._lifts.get(label, 0)}".encode())
                           for label in self.profile.layout.labels},
                    stacks=dict(self._stacks), flicker=self.flicker, exposure=self._index if self.flicker else None)

    def _restack(self, counts: Mapping[str, int], white: Mapping[str, int] | None) -> None:
        """Each hollow's pile stays while its count does and gains seeds on top as it grows. A
        Pass It On pit one chip short was robbed of a penalty chip (the topmost of its colour, the
        others left as they lay); a pit that lost seeds otherwise was lifted: its seeds lie anew."""
        for label in self.profile.layout.labels:
            n, w = counts.get(label, 0), (white or {}).get(label, 0)
            last = self._stacks.get(label)
            if last is not None and (n >= len(last) or (self.profile.chips and n == len(last) - 1)):
                self._stacks[label] = restacked(last, n, w)
            else:
                self._lifts[label] = self._lifts.get(label, 0) + (last is not None)
                self._stacks[label] = stack_of(n, w)

    def frame_of(self, counts: Mapping[str, int], white: Mapping[str, int] | None = None, hand: bool = False) -> np.ndarray:
        """One rendered frame of this scene showing ``counts`` (used for calibration and tests)."""
        return render(self.scene, counts, white, self._shot((dict(counts), None if white is None else dict(white)), hand)).image

    def read(self) -> Frame:
        self._index += 1
        now = time.time()
        if self._closed:
            return Frame(None, "closed", now, self._index)
        try:
            counts, white = self._counts()
        except Exception as error:  # the game's callable must not break the camera loop
            return Frame(None, f"synthetic camera: counts unavailable ({error})", now, self._index)
        return Frame(self._exposed(counts, white), "ok", now, self._index)

    def _exposed(self, counts: dict[str, int], white: dict[str, int] | None) -> np.ndarray:
        """The frame showing ``counts`` now. A board that has not changed since the last frame is not
        rendered again (183 ms a frame): its last rendering is exposed anew, with the light's drift
        and fresh sensor noise. Rendered every frame, on a busy machine the demo's camera could not
        give the stillness gate five still frames before the fusion's 2 s ran out, and the
        dashboard showed it in red as never still while the sensors refereed alone (2026-12-05).
        A hand moves and a flickering lamp's bands move on, so those are rendered every frame."""
        board = (_placement(counts, white), self.strays)
        if self.hand or self.flicker or self._still is None or self._still[0] != board:
            image = self.frame_of(counts, white, self.hand)
            self._still = None if self.hand or self.flicker else (board, image)
            return image
        image = self._still[1]
        noise = np.empty(image.shape, np.int16)
        cv2.randn(noise, 0.0, SENSOR_NOISE)
        # the lamp's drift on the rendering's: from one frame to the next as much as between two renderings
        return cv2.add(cv2.convertScaleAbs(image, alpha=float(self._rng.uniform(*LIGHT_DRIFT))), noise, dtype=cv2.CV_8U)

    def calibration(self) -> Calibration:
        """A calibration of this virtual set-up, made from its own empty and start frames."""
        empty = self.frame_of({h.label: 0 for h in self.profile.hollows})
        counts, white = start_counts(self.variant)
        return calibrate(self.variant, empty, self.frame_of(counts, white))

    def close(self) -> None:
        self._closed = True
        self.ended = True


def _placement(counts: Mapping[str, int], white: Mapping[str, int] | None) -> int:
    """A number for the seeds' lie: the same while the counts (and white chips) are."""
    return zlib.crc32(repr(sorted(counts.items())).encode() + repr(white).encode())
