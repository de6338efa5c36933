"""What the renderer is asked to draw: a set-up (:class:`Scene`), one frame's conditions
(:class:`Shot`), and what it gives back (:class:`Rendered`), with random ones of each.

Two levels of randomness: a scene stays while a game is played and is calibrated once;
a shot is what changes from frame to frame.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from calibration.profiles import BoardProfile, board_profile

from ..picture_size import DEVICE_SIZE

SEED_KINDS = ("bean", "glass", "pebble")
STUCK_AS_PRINTED = ((0, 0), (1, 0), (2, 0), (3, 0))  # Scene.markers: every marker in its corner, upright
FRAME_SIZE = DEVICE_SIZE  # the camera picture (width, height px) unless a scene says otherwise: what a device is asked for

Stack = tuple[tuple[int, bool], ...]  # a hollow's seeds, bottom first: (place in its pile's order, white chip)


@dataclass(frozen=True)
class Scene:
    """A set-up that stays for a whole game: board, seeds, lamp and camera."""

    board: str  # profile name
    seed_kind: str  # "bean", "glass", "pebble" or "chip"
    wood: tuple[float, float, float]  # BGR albedo of the board
    table: tuple[float, float, float]
    lamp_azimuth: float  # radians, direction the light comes from (0 = from South's right)
    lamp_elevation: float
    tilt: float  # camera angle from the vertical, radians
    focal: float  # px
    fill: float  # fraction of the frame width the board spans
    yaw: float  # camera turn about the vertical, radians
    k1: float  # radial lens distortion
    grain_seed: int
    frame: tuple[int, int] = FRAME_SIZE  # the camera picture's width and height (px)
    relief: bool = False  # the board seen in depth (hollows sunk, seeds standing), not painted flat on its plane:
    # what a real camera sees (docs/vision.md, section 7, *Boards seen in depth*)
    markers: tuple[tuple[int, int], ...] = STUCK_AS_PRINTED  # how the players stuck the markers: per corner
    # (near-left, near-right, far-right, far-left) the id stuck there and its quarter turns clockwise from upright
    marker_shifts: tuple[tuple[float, float], ...] = ((0.0, 0.0),) * 4  # per corner, how far off the profile's place
    # its marker was stuck (mm along the board's x and y): by hand, a few millimetres; up to 4 keeps it on the board

    @property
    def px_scale(self) -> float:
        """This camera's pixels per pixel of a ``FRAME_SIZE`` one with the same lens: sizes the
        renderer draws in pixels (an arm's width, a shadow's, a motion blur) are scaled by it."""
        return self.frame[0] / FRAME_SIZE[0]

    @property
    def profile(self) -> BoardProfile:
        return board_profile(self.board)

    def sticker_centre(self, place: int) -> tuple[float, float]:
        """The centre (board mm) of the marker stuck at corner ``place`` (0 near-left, ...)."""
        x, y = self.profile.marker_centre(place)
        dx, dy = self.marker_shifts[place]
        return x + dx, y + dy


@dataclass(frozen=True)
class Shot:
    """What changes between frames of one scene."""

    gain: float = 1.0
    tint: tuple[float, float, float] = (1.0, 1.0, 1.0)
    gradient: tuple[float, float] = (0.0, 0.0)  # light change per frame width / height
    nudge: tuple[float, float, float] = (0.0, 0.0, 0.0)  # board moved: dx mm, dy mm, turn radians
    blur: float = 0.0  # motion blur length in px
    blur_angle: float = 0.0
    defocus: float = 0.0  # a lens out of focus: Gaussian blur sigma in px (of a 1280 px wide picture)
    noise: float = 0.0  # sensor noise sigma (0..255 scale)
    jpeg: int = 0  # JPEG quality; 0 = no compression
    hand: bool = False
    cup: int | None = None  # a mug stood over the marker at this corner (0 near-left, 1 near-right, ...), hiding it
    skin: tuple[float, float, float] | None = None  # the hand's colour (BGR albedo, 0..1); None: one of SKINS
    shadow: float = 0.0  # darkness (0..1) of a soft shadow over part of the board: someone leaning over it
    glare: float = 0.0  # a lamp's reflection in the varnish, added to the wood's albedo (0..1) under the seeds: above 1 it clips
    lamp: int | None = None  # where the reflection lies, its own randomness (None: from ``seed``): a lamp that
    # stays where it is puts its reflection in the same place in every frame
    strays: int = 0  # seeds lying on the bare wood beside a hollow: they rolled out while sowing
    seed: int = 0  # randomness of seed placement, the hand's pose and the noise
    piles: Mapping[str, int] | None = None  # per hollow, its own placement randomness instead of ``seed``'s:
    # a pile given the same number keeps its seeds where they lay and, with more seeds, adds them on top
    stacks: Mapping[str, Stack] | None = None  # with ``piles``, which of a pile's seeds lie in a hollow (default:
    # the first ``count``, the white chips the last ones dropped): a chip taken leaves the others where they lay
    exposure: int | None = None  # the sensor noise's own randomness (None: from ``seed``): the next
    # frame of a still board is the same shot with another exposure
    flicker: float = 0.0  # a lamp on mains power seen by a rolling shutter: bands of rows lit this much brighter and
    # darker (0..1), ``FLICKER_BAND`` apart, moved by ``FLICKER_DRIFT`` of a band from one exposure to the next


@dataclass
class Rendered:
    """A rendered frame with its truth."""

    image: np.ndarray  # BGR uint8
    counts: dict[str, int]
    white: dict[str, int] | None
    covered: frozenset[str]  # pits a hand hides (more than a sliver)
    scene: Scene
    seeds: dict[str, list[tuple[float, float]]] = field(default_factory=dict)  # every seed's centre (board mm), per hollow
    glared: frozenset[str] = frozenset()  # pits a lamp's reflection washes out (Shot.glare)
    strays: tuple[tuple[float, float], ...] = ()  # where the seeds on the bare wood lie (board mm; Shot.strays)


def random_scene(board: str, rng: np.random.Generator, seed_kind: str | None = None,
                 frame: tuple[int, int] = FRAME_SIZE) -> Scene:
    """A plausible set-up: any wood, any lamp, a camera from South's side, 15 to 40 degrees oblique.
    ``frame``: the camera picture's size; its lens keeps the same angle of view across, so a
    smaller picture shows the same board with fewer pixels (and a 4:3 one more table)."""
    profile = board_profile(board)
    kind = seed_kind or ("chip" if profile.chips else str(rng.choice(SEED_KINDS)))
    wood = tuple(float(c) for c in rng.uniform((0.18, 0.33, 0.45), (0.42, 0.58, 0.78)))
    table = tuple(float(c) for c in rng.uniform(0.15, 0.8, 3))
    return Scene(
        board=profile.name, seed_kind=kind, wood=wood, table=table,  # type: ignore[arg-type]
        lamp_azimuth=float(rng.uniform(0, 2 * math.pi)), lamp_elevation=float(rng.uniform(0.75, 1.25)),
        tilt=float(rng.uniform(0.26, 0.7)), focal=float(rng.uniform(850, 1150)) * (frame[0] / FRAME_SIZE[0]), fill=float(rng.uniform(0.72, 0.9)),
        yaw=float(rng.uniform(-0.06, 0.06)), k1=float(rng.uniform(-0.12, 0.04)), grain_seed=int(rng.integers(1 << 30)),
        frame=frame,
    )


def random_shot(rng: np.random.Generator, hard: bool = True, hand: bool | None = None) -> Shot:
    """Frame-to-frame conditions; ``hard`` adds blur, heavy noise, strong gradients and JPEG."""
    level = 1.0 if hard else 0.35
    return Shot(
        gain=float(rng.uniform(1 - 0.35 * level, 1 + 0.2 * level)),
        tint=tuple(float(t) for t in rng.uniform(1 - 0.18 * level, 1 + 0.12 * level, 3)),  # type: ignore[arg-type]
        gradient=tuple(float(g) for g in rng.uniform(-0.45 * level, 0.45 * level, 2)),  # type: ignore[arg-type]
        nudge=(float(rng.uniform(-12, 12) * level), float(rng.uniform(-8, 8) * level), float(rng.uniform(-0.04, 0.04) * level)),
        blur=float(rng.uniform(0, 5.0 * level)), blur_angle=float(rng.uniform(0, math.pi)),
        noise=float(rng.uniform(1.0, 1.0 + 7.0 * level)), jpeg=int(rng.integers(40 if hard else 70, 95)),
        hand=bool(rng.random() < 0.3) if hand is None else hand, seed=int(rng.integers(1 << 30)),
    )


def random_counts(profile: BoardProfile, rng: np.random.Generator, pile: float = 1.0) -> tuple[dict[str, int], dict[str, int] | None]:
    """Counts a game could show: mostly small heaps, some big ones (up to 20 in a pit, 40 in a store)."""
    counts: dict[str, int] = {}
    for hollow in profile.hollows:
        cap = 40 if hollow.is_store else 20
        r = rng.random()
        if r < 0.2:
            n = 0
        elif r < 0.55:
            n = int(rng.integers(1, 5))
        elif r < 0.8 - 0.1 * (pile - 1):
            n = int(rng.integers(5, 10))
        elif r < 0.94:
            n = int(rng.integers(10, 20))
        else:
            n = int(rng.integers(20, cap + 1))
        counts[hollow.label] = n
    if not profile.chips:
        return counts, None
    white = {label: 0 for label in counts}
    candidates = [label for label, n in counts.items() if n > 0]
    for label in rng.choice(candidates, size=min(2, len(candidates)), replace=True) if candidates else []:
        if white[label] < counts[label]:
            white[label] += 1
    return counts, white
