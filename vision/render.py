"""A realistic renderer of mancala boards, so the reader can be measured against truth.

Real photographs of counted boards barely exist, so every test and benchmark
of the reader runs on images made here, each with its true counts. The
renderer is meant to be hard: a wooden board with bowl-shaped hollows shaded
by a lamp, seeds of several kinds that touch and pile up and cast shadows,
an oblique camera with lens distortion, uneven coloured light, a hand over
part of the board, motion blur, a lens out of focus, sensor noise and JPEG
artefacts. With ``Scene.relief`` the board is seen in depth too: its hollows
sunk into it and its seeds standing in them, so the camera sees a hollow's far
wall and not the near edge of its floor, what lies below the board's plane
shows nearer the camera than it lies, and a heap above it leans away.

Two levels of randomness: a :class:`Scene` is a set-up (board, seeds, lamp,
camera) that stays while a game is played and is calibrated once; a
:class:`Shot` is what changes from frame to frame (light drift, a nudged
board, blur, noise, a hand). Everything comes from a seeded numpy
``Generator``: the same seed gives the same image.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Iterator, Mapping

import cv2
import numpy as np

from calibration.profiles import MARKER_MM, MARKER_QUIET_MM, BoardProfile, board_profile

from .markers import marker_image
from .picture_size import DEVICE_SIZE

TEXTURE_PX_PER_MM = 3.0
HOLLOW_DEPTH_MM, STORE_DEPTH_MM = 11.0, 15.0  # how deep a playing hollow and a store are sunk at their middle
GLARE_WASH = 0.3  # a lamp's reflection adding this much to the wood's albedo (0..1) in a pit washes it out
SEED_KINDS = ("bean", "glass", "pebble")
STUCK_AS_PRINTED = ((0, 0), (1, 0), (2, 0), (3, 0))  # Scene.markers: every marker in its corner, upright
FRAME_SIZE = DEVICE_SIZE  # the camera picture (width, height px) unless a scene says otherwise: what a device is asked for
_BAND_ROWS = 90  # see _bands

Stack = tuple[tuple[int, bool], ...]  # a hollow's seeds, bottom first: (place in its pile's order, white chip)

# Seed looks: semi-axes in mm and base colours (BGR, 0..1).
SEED_AXES_MM = {"bean": (6.0, 4.0), "glass": (5.5, 5.5), "pebble": (5.5, 4.5), "chip": (6.0, 6.0)}
_SEED_HEIGHT_MM = {"bean": 5.0, "glass": 6.0, "pebble": 6.0, "chip": 3.0}  # how high one seed stands (relief)
NESTED_MM = 1.5  # a seed lying on others sinks this far between them (relief)
RELIEF_STEP_MM = 1.0  # a camera ray is followed down the relief in steps this high, then interpolated
SAMPLED_ROW = 4096  # points sampled at once are laid out in rows this long (see _sampled)
_GLASS_COLOURS = ((0.75, 0.35, 0.15), (0.25, 0.6, 0.2), (0.15, 0.45, 0.8), (0.7, 0.7, 0.65), (0.35, 0.2, 0.6))
_CHIP_COLOURS = {"yellow": (0.15, 0.78, 0.92), "white": (0.9, 0.9, 0.88)}
FLICKER_BAND = 0.3  # mains light's bands across a rolling shutter: one band (bright and dark) this share of
# the picture's height apart (100 Hz light, the rows read out over a 30 fps frame's 33 ms)
FLICKER_DRIFT = 1 / 3  # ...and moving this share of a band from one frame to the next (100 / 30 = 3 1/3 bands)
SKINS = ((0.55, 0.65, 0.85), (0.35, 0.45, 0.65), (0.2, 0.28, 0.42))  # BGR albedo of a hand: pale to dark


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


# --- the board in its own plane -------------------------------------------------------------


def _smooth_noise(shape: tuple[int, int], cells: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    small = rng.standard_normal((cells[1], cells[0])).astype(np.float32)
    return cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)


def _lamp(scene: Scene) -> np.ndarray:
    ce = math.cos(scene.lamp_elevation)
    # board plane: x right, y towards South; z up out of the board
    return np.array([ce * math.cos(scene.lamp_azimuth), ce * math.sin(scene.lamp_azimuth), math.sin(scene.lamp_elevation)])


@functools.lru_cache(maxsize=8)
def _empty_board(scene: Scene) -> np.ndarray:
    """The empty board's texture (float32 BGR, 0..1): wood grain, shaded hollows, markers."""
    profile = scene.profile
    s = TEXTURE_PX_PER_MM
    width, height = int(round(profile.size[0] * s)), int(round(profile.size[1] * s))
    rng = np.random.default_rng(scene.grain_seed)
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32) / s  # mm
    warp = _smooth_noise((height, width), (14, 5), rng) * 5.0
    period = float(rng.uniform(4.0, 9.0))
    grain = np.sin(2 * math.pi * (yy + warp + 0.02 * xx) / period)
    grain = 0.06 * grain + 0.05 * _smooth_noise((height, width), (60, 20), rng) + 0.02 * rng.standard_normal((height, width)).astype(np.float32)
    albedo = np.asarray(scene.wood, np.float32)[None, None, :] * (1 + grain[..., None])

    depth = hollow_depth(profile.name)
    inside = (depth > 0).astype(np.float32)
    albedo *= (1 - 0.12 * inside)[..., None]  # worn, darker inside the hollows
    dzdx = cv2.Sobel(-depth, cv2.CV_32F, 1, 0, ksize=3) / (8 / s)
    dzdy = cv2.Sobel(-depth, cv2.CV_32F, 0, 1, ksize=3) / (8 / s)
    norm = np.sqrt(dzdx**2 + dzdy**2 + 1)
    lx, ly, lz = _lamp(scene)
    diffuse = np.clip((-dzdx * lx - dzdy * ly + lz) / norm, 0, None)
    occlusion = 1 - 0.35 * depth / STORE_DEPTH_MM
    shade = (0.3 + 0.75 * diffuse / max(lz, 0.2)) * occlusion
    shade = np.minimum(shade, 1.3)
    board = albedo * shade[..., None]

    paper = np.float32(0.93)
    side = int(round((MARKER_MM + 2 * MARKER_QUIET_MM) * s))
    inner = int(round(MARKER_MM * s))
    for place, (marker_id, quarter_turns) in enumerate(scene.markers):
        cx, cy = scene.sticker_centre(place)
        x0, y0 = int(round(cx * s - side / 2)), int(round(cy * s - side / 2))
        sticker = np.full((side, side), paper, np.float32)
        off = (side - inner) // 2
        printed = np.rot90(marker_image(marker_id, inner), -quarter_turns)  # rot90 turns anticlockwise
        sticker[off:off + inner, off:off + inner] = np.where(printed > 0, paper, 0.06)
        board[y0:y0 + side, x0:x0 + side] = (sticker * (0.3 + 0.75 / max(lz, 0.2) * lz))[..., None]
    # bevelled edge of the board
    edge = int(3 * s)
    board[:edge] *= 0.8
    board[-edge:] *= 0.75
    board[:, :edge] *= 0.8
    board[:, -edge:] *= 0.8
    return board.astype(np.float32)


@functools.lru_cache(maxsize=8)
def hollow_depth(board: str) -> np.ndarray:
    """How deep the board's surface lies below its plane (mm, on the texture's grid): bowls in the
    hollows, 0 on the wood. It shades the hollows, and with ``Scene.relief`` the camera sees it."""
    profile = board_profile(board)
    s = TEXTURE_PX_PER_MM
    width, height = int(round(profile.size[0] * s)), int(round(profile.size[1] * s))
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32) / s  # mm
    depth = np.zeros((height, width), np.float32)
    for hollow in profile.hollows:
        (cx, cy), (a, b) = hollow.centre, hollow.axes
        q = ((xx - cx) / a) ** 2 + ((yy - cy) / b) ** 2
        bowl = (STORE_DEPTH_MM if hollow.is_store else HOLLOW_DEPTH_MM) * np.clip(1 - q, 0, None) ** 0.8
        depth = np.maximum(depth, bowl)
    depth.flags.writeable = False  # cached: shared by every frame of the board
    return depth


def _seed_sprite(kind: str, colour: np.ndarray, axes: tuple[float, float], angle: float, lamp: np.ndarray,
                 rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One seed as a small shaded BGR patch, its alpha and its dome (its height over its
    footprint, 0..1), centred in the patch."""
    s = TEXTURE_PX_PER_MM
    a, b = axes[0] * s, axes[1] * s
    half = int(math.ceil(max(a, b))) + 2
    yy, xx = np.mgrid[-half:half + 1, -half:half + 1].astype(np.float32)
    if kind == "pebble":  # irregular outline
        theta = np.arctan2(yy, xx)
        bumps = 1 + 0.08 * np.sin(3 * theta + rng.uniform(0, 6)) + 0.05 * np.sin(5 * theta + rng.uniform(0, 6))
        xx, yy = xx / bumps, yy / bumps
    ca, sa = math.cos(angle), math.sin(angle)
    u, v = ca * xx + sa * yy, -sa * xx + ca * yy
    q = (u / a) ** 2 + (v / b) ** 2
    alpha = np.clip((1 - q) * max(a, b) / 2.0, 0, 1)
    dome = np.sqrt(np.clip(1 - q, 0, 1))
    flat = kind == "chip"
    height = 0.25 if flat else 0.9
    nz = np.maximum(dome, 0.05)
    gx = -height * u / (a * nz) * (0 if flat else 1)
    gy = -height * v / (b * nz) * (0 if flat else 1)
    # back to patch axes
    nx, ny = ca * gx - sa * gy, sa * gx + ca * gy
    norm = np.sqrt(nx**2 + ny**2 + 1)
    diffuse = np.clip((-nx * lamp[0] - ny * lamp[1] + lamp[2]) / norm, 0, None)
    shade = 0.35 + 0.7 * diffuse / max(lamp[2], 0.2)
    if flat:
        shade = shade * (1 - 0.25 * np.clip(q - 0.8, 0, 1) * 5)  # the chip's rim
    patch = colour[None, None, :] * shade[..., None]
    if kind in ("glass", "bean"):
        # specular highlight where the dome faces the lamp
        hx, hy = -lamp[0] * 0.45, -lamp[1] * 0.45
        spot = np.exp(-(((u / a - hx * ca - hy * sa) ** 2 + (v / b + hx * sa - hy * ca) ** 2) / (0.05 if kind == "glass" else 0.1)))
        patch = patch + (0.6 if kind == "glass" else 0.25) * spot[..., None]
    if kind == "pebble":
        patch = patch * (1 + 0.08 * rng.standard_normal(q.shape).astype(np.float32))[..., None]
    if kind == "glass":  # see-through: a darker rim, a lighter core
        patch = patch * (0.75 + 0.35 * dome)[..., None]
    return patch.astype(np.float32), alpha.astype(np.float32), dome.astype(np.float32)


def _seed_colour(kind: str, rng: np.random.Generator, white: bool) -> np.ndarray:
    if kind == "chip":
        base = np.array(_CHIP_COLOURS["white" if white else "yellow"])
    elif kind == "glass":
        base = np.array(_GLASS_COLOURS[int(rng.integers(len(_GLASS_COLOURS)))])
    elif kind == "bean":
        base = np.array((0.1, 0.13, 0.38)) * rng.uniform(0.8, 1.2)
    else:
        base = np.full(3, rng.uniform(0.35, 0.65)) * rng.uniform(0.93, 1.07, 3)
    return (base * rng.uniform(0.9, 1.1, 3)).astype(np.float32)


def place_seeds(count: int, centre: tuple[float, float], axes: tuple[float, float], seed_r: float,
                rng: np.random.Generator) -> list[tuple[float, float, int]]:
    """Seed positions (mm) in a hollow: they roll to the middle, touch, then pile on top."""
    placed: list[tuple[float, float, int]] = []
    a, b = axes[0] - seed_r * 0.9, axes[1] - seed_r * 0.9
    for _ in range(count):
        best, best_gap = (0.0, 0.0), -1e9
        for _ in range(12):
            r = math.sqrt(rng.random()) ** 0.8
            t = rng.uniform(0, 2 * math.pi)
            x, y = r * a * math.cos(t), r * b * math.sin(t)
            gap = min((math.hypot(x - px, y - py) for px, py, _ in placed), default=1e9) - 0.25 * math.hypot(x / a, y / b) * seed_r
            if gap > best_gap:
                best, best_gap = (x, y), gap
        x, y = best
        level = sum(1 for px, py, _ in placed if math.hypot(x - px, y - py) < 1.6 * seed_r)
        placed.append((x, y, min(level, 3)))
    return [(centre[0] + x, centre[1] + y, level) for x, y, level in placed]


def draw_seeds(board: np.ndarray, scene: Scene, counts: Mapping[str, int], white: Mapping[str, int] | None,
               rng: np.random.Generator, piles: Mapping[str, int] | None = None,
               stacks: Mapping[str, Stack] | None = None, heights: np.ndarray | None = None,
               ids: np.ndarray | None = None) -> dict[str, list[tuple[float, float]]]:
    """Draw every hollow's seeds on the board texture (and, given the board's ``heights``, stand
    them on it: :func:`_draw_seed`); their centres (board mm) per hollow. Given ``ids`` (int, on
    the texture's grid), each texel a seed's body covers on top says which: the seeds numbered
    from 1 in the order drawn (``benchmarks/vision_ceiling.py`` measures how much of each shows).

    With ``piles`` each hollow's seeds come from that hollow's own number: where each seed
    lies, and how it looks, depends only on the seeds before it, so the same number with more
    seeds adds them on top of a pile that stays as it was. Which of them lie there, and which
    are white chips, is the hollow's stack (``stacks``; by default the first ``count`` of the
    pile, the white chips the last ones dropped: :func:`stack_of`)."""
    lamp = _lamp(scene)
    seed_r = max(SEED_AXES_MM[scene.seed_kind])
    centres: dict[str, list[tuple[float, float]]] = {}
    number = 0
    for hollow in scene.profile.hollows:
        n = counts.get(hollow.label, 0)
        whites = (white or {}).get(hollow.label, 0)
        if piles is None:
            is_white = [k < whites for k in range(n)]
            rng.shuffle(is_white)
            placed = place_seeds(n, hollow.centre, hollow.axes, seed_r, rng)
            drawn = [(place, is_white[k], rng) for k, place in enumerate(placed)]
        else:
            stack = (stacks or {}).get(hollow.label, stack_of(n, whites))
            if (len(stack), sum(w for _, w in stack)) != (n, whites):
                raise ValueError(f"{hollow.label}: its stack holds {len(stack)} seeds, {sum(w for _, w in stack)} white, "
                                 f"not {n} and {whites}")
            pile = piles[hollow.label]
            placed = place_seeds(1 + max((k for k, _ in stack), default=-1), hollow.centre, hollow.axes, seed_r,
                                  np.random.default_rng([pile, 0]))
            drawn = [(placed[k], is_white, np.random.default_rng([pile, 1, k])) for k, is_white in stack]
        centres[hollow.label] = [(x, y) for (x, y, _), _, _ in drawn]
        for (x, y, level), is_white, look in drawn:
            number += 1
            _draw_seed(board, scene.seed_kind, (x, y), is_white, level, lamp, look, heights,
                       None if ids is None else (ids, number))
    return centres


def stack_of(count: int, white: int = 0) -> Stack:
    """A fresh pile's stack: ``count`` seeds, the last ``white`` of them dropped white chips."""
    return tuple((k, k >= count - white) for k in range(count))


def restacked(stack: Stack, count: int, white: int = 0) -> Stack:
    """``stack`` once it holds ``count`` seeds, ``white`` of them white chips, as hands change a
    pile they do not lift: chips sown land on top (yellow ones, then white ones), and a chip taken
    is the topmost of its colour, the others left where they lay (a penalty chip taken from an
    outbox does not turn another chip white)."""
    chips = list(stack)
    add = {True: white - sum(w for _, w in chips), False: count - white - sum(not w for _, w in chips)}
    for colour, change in add.items():
        for _ in range(-change):
            chips.pop(max(i for i, (_, w) in enumerate(chips) if w == colour))
    top = max((k for k, _ in stack), default=-1)
    for colour in (False, True):
        for _ in range(max(add[colour], 0)):
            top += 1
            chips.append((top, colour))
    return tuple(chips)


def _draw_seed(board: np.ndarray, kind: str, centre: tuple[float, float], white: bool, level: int,
               lamp: np.ndarray, rng: np.random.Generator, heights: np.ndarray | None = None,
               named: tuple[np.ndarray, int] | None = None) -> None:
    """Draw one seed (board mm), ``level`` seeds up a pile, with its shadow on what lies under it;
    given the board's ``heights`` (mm above its plane, on the texture's grid), stand it on the
    highest point under its middle, sunk ``NESTED_MM`` where that is other seeds (it nests between
    them). ``named``: (ids, its number): write its number where its body lies on top."""
    s = TEXTURE_PX_PER_MM
    axes = SEED_AXES_MM[kind]
    scale = rng.uniform(0.9, 1.1)
    patch, alpha, dome = _seed_sprite(kind, _seed_colour(kind, rng, white), (axes[0] * scale, axes[1] * scale),
                                      rng.uniform(0, math.pi), lamp, rng)
    patch = patch * (1 + 0.07 * level)
    half = patch.shape[0] // 2
    shadow_dx = -lamp[0] / max(lamp[2], 0.3) * 3.0 * s
    shadow_dy = -lamp[1] / max(lamp[2], 0.3) * 3.0 * s
    for dx, dy, is_shadow in ((shadow_dx, shadow_dy, True), (0, 0, False)):
        cx, cy = int(round(centre[0] * s + dx)), int(round(centre[1] * s + dy))
        y0, x0 = cy - half, cx - half
        y1, x1 = y0 + patch.shape[0], x0 + patch.shape[1]
        if y0 < 0 or x0 < 0 or y1 > board.shape[0] or x1 > board.shape[1]:
            continue
        region = board[y0:y1, x0:x1]
        if is_shadow:
            region *= (1 - 0.45 * cv2.GaussianBlur(alpha, (0, 0), 2.5))[..., None]
            continue
        region[:] = region * (1 - alpha[..., None]) + patch * alpha[..., None]
        opaque = alpha > 0.5
        on_top = opaque
        if heights is not None:
            under = heights[y0:y1, x0:x1]
            rests_on = float(under[dome > 0.8].max()) - (NESTED_MM if level else 0.0)  # on what is under its middle
            body = rests_on + _SEED_HEIGHT_MM[kind] * dome
            on_top = opaque & (body >= under)
            np.maximum(under, np.where(opaque, body, under), out=under)
        if named is not None:
            ids, number = named
            ids[y0:y1, x0:x1][on_top] = number


def _draw_strays(board: np.ndarray, scene: Scene, shot: Shot, heights: np.ndarray | None = None
                 ) -> tuple[tuple[float, float], ...]:
    """Draw ``shot.strays`` seeds on the bare wood, each a few mm beyond a hollow's rim (a seed
    that rolled out while sowing), clear of every hollow, the markers' paper and the board's
    edge; their centres (board mm). Its own random stream, so every other draw stays the same."""
    rng = np.random.default_rng([shot.seed, 3])
    profile = scene.profile
    seed_r = max(SEED_AXES_MM[scene.seed_kind])
    width, height = profile.size
    stickers = [scene.sticker_centre(place) for place in range(4)]
    sticker_reach = MARKER_MM / 2 + MARKER_QUIET_MM + seed_r + 2

    def clear(x: float, y: float) -> bool:
        on_board = seed_r + 6 <= x <= width - seed_r - 6 and seed_r + 6 <= y <= height - seed_r - 6
        off_hollows = all(math.hypot((x - h.centre[0]) / (h.axes[0] + seed_r + 2), (y - h.centre[1]) / (h.axes[1] + seed_r + 2)) > 1
                          for h in profile.hollows)
        off_paper = all(max(abs(x - sx), abs(y - sy)) > sticker_reach for sx, sy in stickers)
        return on_board and off_hollows and off_paper

    lamp = _lamp(scene)
    placed: list[tuple[float, float]] = []
    tries = 0
    while len(placed) < shot.strays:
        tries += 1
        if tries > 200 * shot.strays:
            raise ValueError(f"no room on the bare wood of {profile.name} for {shot.strays} stray seeds")
        hollow = profile.hollows[int(rng.integers(len(profile.hollows)))]
        t = rng.uniform(0, 2 * math.pi)
        reach = 1 + (seed_r + rng.uniform(3, 12)) / min(hollow.axes)
        x, y = hollow.centre[0] + reach * hollow.axes[0] * math.cos(t), hollow.centre[1] + reach * hollow.axes[1] * math.sin(t)
        if clear(x, y) and all(math.hypot(x - px, y - py) > 3 * seed_r for px, py in placed):
            _draw_seed(board, scene.seed_kind, (x, y), bool(rng.random() < 0.5), 0, lamp, rng, heights)
            placed.append((x, y))
    return tuple(placed)


# --- the camera -----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Pose:
    """Where this scene's camera stands and how it sees: world mm (x east, y north, z up, the
    table's middle at the origin) to undistorted image pixels, and the board's plane in it."""

    world_to_image: np.ndarray  # 3 x 4: intrinsics times [rotation | translation]
    board_to_world: np.ndarray  # 3 x 3: board mm (x right, y towards South) -> world x, y on the table
    eye: np.ndarray  # the camera's centre, world mm


def _pose(scene: Scene, nudge: tuple[float, float, float]) -> _Pose:
    width, height = scene.profile.size
    fw, fh = scene.frame
    dist = scene.focal * max(width, height * 1.9) / (scene.fill * fw)
    eye = np.array([math.sin(scene.yaw) * dist * math.sin(scene.tilt), -math.cos(scene.yaw) * dist * math.sin(scene.tilt), dist * math.cos(scene.tilt)])
    forward = -eye / np.linalg.norm(eye)
    right = np.cross(forward, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    down = np.cross(forward, right)
    rot = np.stack([right, down, forward])
    k = np.array([[scene.focal, 0, fw / 2], [0, scene.focal, fh / 2], [0, 0, 1]])
    world_to_image = k @ np.column_stack([rot, -rot @ eye])
    dx, dy, turn = nudge
    c, s_ = math.cos(turn), math.sin(turn)
    # board mm -> world (x right, y north), centred, with the nudge
    to_world = np.array([[c, s_, 0], [s_, -c, 0], [0, 0, 1]]) @ np.array([[1, 0, -width / 2], [0, 1, -height / 2], [0, 0, 1]])
    to_world[0, 2] += dx
    to_world[1, 2] -= dy
    return _Pose(world_to_image, to_world, eye)


def camera_homography(scene: Scene, nudge: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> np.ndarray:
    """3x3 homography from board mm to (undistorted) image pixels for this scene's camera."""
    pose = _pose(scene, nudge)
    return pose.world_to_image[:, [0, 1, 3]] @ pose.board_to_world


def eye_over_board(scene: Scene, nudge: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> tuple[float, float, float]:
    """The point of the board's plane under the camera (board mm, often off the board) and the
    camera's height over that plane (mm): where a ray from the camera to any point comes from."""
    pose = _pose(scene, nudge)
    x, y, _ = np.linalg.solve(pose.board_to_world, [pose.eye[0], pose.eye[1], 1.0])
    return float(x), float(y), float(pose.eye[2])


def _sampled(image: np.ndarray, points: np.ndarray) -> np.ndarray:
    """``image`` at ``points`` (N x 2, x then y, px), bilinear, its edge beyond it: one value (or
    pixel) a point. Laid out in rows of ``SAMPLED_ROW`` for :func:`cv2.remap`, which takes at
    most 32,767 rows or columns."""
    count = len(points)
    rows = -(-count // SAMPLED_ROW)
    grid = np.zeros((rows * SAMPLED_ROW, 2), np.float32)
    grid[:count] = points
    grid = grid.reshape(rows, SAMPLED_ROW, 2)
    values = cv2.remap(image, grid, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return values.reshape(rows * SAMPLED_ROW, *image.shape[2:])[:count]


def seen_on_relief(plane: np.ndarray, heights: np.ndarray, eye: tuple[float, float, float]) -> np.ndarray:
    """Where on the board's surface the camera's rays meet it first: for the points of its plane
    ``plane`` (N x 2, texture px) that the camera sees through, the texture point (N x 2) of the
    first surface each ray reaches on its way down, the surface's ``heights`` (mm above the plane,
    on the texture's grid: hollows below it, seeds standing in them). ``eye``: :func:`eye_over_board`.

    A ray through plane point P is at height z over P + z / H (E - P), E the point under the
    camera and H its height: it is followed down in steps of ``RELIEF_STEP_MM`` from the highest
    point of the surface, and where it first passes under the surface the crossing is
    interpolated between the two steps. A height field: nothing overhangs."""
    s = TEXTURE_PX_PER_MM
    plane = np.asarray(plane, np.float32).reshape(-1, 2)
    toward = (np.array(eye[:2], np.float32) * s - plane) / np.float32(eye[2])  # texture px per mm of height
    seen = plane.copy()
    gap_above = np.full(len(plane), -np.inf, np.float32)  # surface height less the ray's, one step up: below 0
    looking = np.ones(len(plane), bool)
    top = math.ceil(float(heights.max()) / RELIEF_STEP_MM) * RELIEF_STEP_MM
    for z in np.arange(top, float(heights.min()) - RELIEF_STEP_MM, -RELIEF_STEP_MM, dtype=np.float32):
        at = plane[looking] + z * toward[looking]
        gap = _sampled(heights, at) - z
        reached = gap >= 0
        share = np.where(np.isinf(gap_above[looking]), 0, gap / np.maximum(gap - gap_above[looking], 1e-6))[reached]
        rows = np.flatnonzero(looking)[reached]
        seen[rows] = plane[rows] + (z + share[:, None] * RELIEF_STEP_MM) * toward[rows]
        gap_above[looking] = gap
        looking[rows] = False
        if not looking.any():
            break
    return seen


def _distortion_grid(scene: Scene) -> np.ndarray:
    """For every output pixel, the undistorted pixel it shows (radial distortion k1).

    Not cached: only :func:`_view` uses it, and that keeps its result."""
    fw, fh = scene.frame
    focal, k1 = scene.focal, scene.k1
    yy, xx = np.mgrid[0:fh, 0:fw].astype(np.float32)
    xn, yn = (xx - fw / 2) / focal, (yy - fh / 2) / focal
    factor = 1 + k1 * (xn**2 + yn**2)
    return np.stack([xn * factor * focal + fw / 2, yn * factor * focal + fh / 2], axis=-1)


def _hand(frame: np.ndarray, target: tuple[float, float], rng: np.random.Generator,
          skin: tuple[float, float, float] | None, px_scale: float) -> np.ndarray:
    """Paint an arm reaching from the near edge (or a side) to ``target``; return its mask.
    ``px_scale``: :attr:`Scene.px_scale` (the arm's sizes are a 1280 px wide picture's)."""
    fh, fw = frame.shape[:2]
    mask = np.zeros((fh, fw), np.float32)
    start = (float(target[0] + rng.uniform(-250, 250) * px_scale), float(fh + 60 * px_scale))
    width = float(rng.uniform(55, 85)) * px_scale
    tx, ty = target
    cv2.line(mask, (int(start[0]), int(start[1])), (int(tx), int(ty)), 1.0, int(width))
    ang = math.atan2(ty - start[1], tx - start[0])
    palm = (int(tx + math.cos(ang) * width * 0.4), int(ty + math.sin(ang) * width * 0.4))
    cv2.ellipse(mask, palm, (int(width * 0.75), int(width * 0.6)), math.degrees(ang), 0, 360, 1.0, -1)
    for f in range(4):
        spread = ang + (f - 1.5) * 0.28
        tip = (int(palm[0] + math.cos(spread) * width * 1.5), int(palm[1] + math.sin(spread) * width * 1.5))
        cv2.line(mask, palm, tip, 1.0, int(width * 0.22))
    mask = cv2.GaussianBlur(mask, (0, 0), 2.0 * px_scale)
    cast = (int(round(25 * px_scale)), int(round(-30 * px_scale)))
    shadow = cv2.GaussianBlur(np.roll(mask, cast, axis=(0, 1)), (0, 0), 12 * px_scale)
    frame *= (1 - 0.45 * shadow)[..., None]
    drawn = rng.choice(SKINS)  # drawn whatever ``skin`` says, so that every later draw stays the same
    colour = np.array(drawn if skin is None else skin, np.float32) * np.float32(rng.uniform(0.85, 1.1))
    ramp = np.linspace(0.8, 1.1, fw, dtype=np.float32)[None, :, None]
    for rows in _bands(fh):
        frame[rows] = frame[rows] * (1 - mask[rows, :, None]) + colour * ramp * mask[rows, :, None]
    return mask


def _glare(board: np.ndarray, scene: Scene, shot: Shot) -> frozenset[str]:
    """Add a lamp's reflection in the varnish to the board's texture, near one hollow and under
    the seeds (they are matte, or have highlights of their own): a soft elliptical spot, clipped
    by the sensor where it is brightest. Its own random stream (``Shot.lamp``, else one from the
    shot's seed), so every other draw stays the same. Returns the pits where it adds at least
    ``GLARE_WASH`` (the seeds' truth is kept: the reader is to say it cannot see them, or count
    them right)."""
    rng = np.random.default_rng([shot.seed if shot.lamp is None else shot.lamp, 2])
    s = TEXTURE_PX_PER_MM
    hollows = scene.profile.hollows
    cx, cy = np.array(hollows[int(rng.integers(len(hollows)))].centre) + rng.normal(0, 6, 2)
    spot = np.zeros(board.shape[:2], np.float32)
    axes = (int(rng.uniform(6, 20) * s), int(rng.uniform(3, 10) * s))
    cv2.ellipse(spot, (int(cx * s), int(cy * s)), axes, float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
    spot = cv2.GaussianBlur(spot, (0, 0), float(rng.uniform(2, 5) * s)) * np.float32(shot.glare)
    board += spot[..., None]
    glared = set()
    for hollow in hollows:
        (hx, hy), (a, b) = hollow.centre, hollow.axes
        angles = np.linspace(0, 2 * math.pi, 24, endpoint=False)  # a spiral from the centre out to the rim, and the centre
        xs = np.append(hx + a * np.cos(angles) * np.linspace(0, 1, 24), hx) * s
        ys = np.append(hy + b * np.sin(angles) * np.linspace(0, 1, 24), hy) * s
        if spot[np.clip(ys.astype(int), 0, spot.shape[0] - 1), np.clip(xs.astype(int), 0, spot.shape[1] - 1)].max() >= GLARE_WASH:
            glared.add(hollow.label)
    return frozenset(glared)


def _cup(frame: np.ndarray, scene: Scene, shot: Shot) -> None:
    """A mug stood over the marker at corner ``shot.cup``, seen from above: a white rim twice the
    marker across, round its coffee."""
    centre = project(scene, np.array([scene.sticker_centre(shot.cup)]), shot)[0]
    radius = float(np.ptp(project(scene, np.array(scene.profile.marker_corners(shot.cup)), shot)[:, 0]))
    middle = (round(centre[0]), round(centre[1]))
    cv2.circle(frame, middle, round(radius), (0.82, 0.84, 0.85), -1, cv2.LINE_AA)
    cv2.circle(frame, middle, round(0.8 * radius), (0.05, 0.10, 0.16), -1, cv2.LINE_AA)


def _shadow(frame: np.ndarray, shot: Shot, px_scale: float) -> None:
    """Darken a soft-edged patch of the frame (its own random stream: every other draw stays the
    same); ``px_scale`` as for :func:`_hand`."""
    rng = np.random.default_rng([shot.seed, 1])
    fh, fw = frame.shape[:2]
    patch = np.zeros((fh, fw), np.float32)
    centre = (int(rng.uniform(0.2, 0.8) * fw), int(rng.uniform(0.2, 0.8) * fh))
    axes = (int(rng.uniform(120, 300) * px_scale), int(rng.uniform(100, 250) * px_scale))
    cv2.ellipse(patch, centre, axes, float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
    patch = cv2.GaussianBlur(patch, (0, 0), float(rng.uniform(15, 40)) * px_scale)  # the penumbra
    frame *= (1 - shot.shadow * patch)[..., None]


@functools.lru_cache(maxsize=1)
def _noise_bank(size: tuple[int, int]) -> np.ndarray:
    """Unit Gaussian noise, twice a frame's ``size``, made once: a frame's sensor noise is a window
    of it at a random offset (drawing fresh noise per pixel would dominate render time). Kept in
    half precision: at 1280 x 720 the bank is 22 MB instead of 44 MB, a demo's largest cache, and
    its rounding (a few thousandths of a grey level at the sensor's sigma) is far below the 8-bit
    image's step."""
    fw, fh = size
    rng = np.random.default_rng(12345)
    bank = np.empty((2 * fh, 2 * fw, 3), np.float16)
    for rows in _bands(2 * fh):  # drawn band by band: no full-size float32 copy on the way
        bank[rows] = rng.standard_normal(bank[rows].shape, dtype=np.float32)
    return bank


def _noise(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    fw, fh = size
    y, x = int(rng.integers(fh)), int(rng.integers(fw))
    return _noise_bank(size)[y:y + fh, x:x + fw]


def _bands(height: int) -> Iterator[slice]:
    """Row bands of a frame. The per-pixel finishing (light, hand, noise) runs band by band:
    its float temporaries then take a few MB instead of several frame-sized (11 MB) layers,
    which set the demo's memory peak. The arithmetic per pixel is the same either way."""
    return (slice(top, min(top + _BAND_ROWS, height)) for top in range(0, height, _BAND_ROWS))


def _light(frame: np.ndarray, shot: Shot) -> None:
    """Light the frame in place: the shot's gain, gradient and tint, vignetting and mains flicker."""
    fh, fw = frame.shape[:2]
    yy = np.arange(fh, dtype=np.float32)[:, None]  # a column and a row: broadcasting gives
    xx = np.arange(fw, dtype=np.float32)[None, :]  # the full grid without keeping one
    light = shot.gain * (1 + shot.gradient[0] * (xx / fw - 0.5) + shot.gradient[1] * (yy / fh - 0.5))
    light *= 1 - 0.25 * (((xx - fw / 2) / fw) ** 2 + ((yy - fh / 2) / fh) ** 2)  # vignetting
    if shot.flicker:  # a row is read out later the lower it lies: the lamp is brighter or dimmer by then
        phase = FLICKER_DRIFT * (shot.seed if shot.exposure is None else shot.exposure) % 1.0  # before float32 rounds it
        light *= 1 + shot.flicker * np.cos(np.float32(2 * math.pi) * (yy / (FLICKER_BAND * fh) + np.float32(phase)))
    for rows in _bands(fh):
        frame[rows] = cv2.multiply(frame[rows], cv2.merge([light[rows] * np.float32(t) for t in shot.tint]))


def _motion_blur(frame: np.ndarray, shot: Shot, px_scale: float) -> np.ndarray:
    """The frame smeared along a line of ``shot.blur`` px (of a 1280 px wide picture: times
    ``px_scale``): a camera or hand that moved."""
    length = int(round(shot.blur * px_scale))
    kernel = np.zeros((2 * length + 1, 2 * length + 1), np.float32)
    c = length
    cv2.line(kernel, (int(c - math.cos(shot.blur_angle) * length / 2), int(c - math.sin(shot.blur_angle) * length / 2)),
             (int(c + math.cos(shot.blur_angle) * length / 2), int(c + math.sin(shot.blur_angle) * length / 2)), 1.0, 1)
    return cv2.filter2D(frame, -1, kernel / kernel.sum())


def _expose(frame: np.ndarray, noise: np.ndarray, sigma: float) -> np.ndarray:
    """The sensor's 8-bit image of ``frame`` (0..1) with shot noise that grows with brightness."""
    image = np.empty(frame.shape, np.uint8)
    for rows in _bands(frame.shape[0]):
        part = frame[rows]
        grain = cv2.multiply(noise[rows] * np.float32(sigma), 0.5 + cv2.sqrt(np.maximum(part, 0)))
        image[rows] = np.clip(part * 255 + grain, 0, 255).astype(np.uint8)
    return image


@functools.lru_cache(maxsize=4)
def _view(scene: Scene, nudge: tuple[float, float, float]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For every frame pixel, the board texture pixel it shows (lens distortion included),
    whether that is on the board, and the shading of the table seen elsewhere. Cached: a
    still camera (the synthetic one) pays for it once. The table's shading is kept as one
    channel (its colour is applied per frame): a third of the memory of the coloured table."""
    s = TEXTURE_PX_PER_MM
    to_image = camera_homography(scene, nudge) @ np.diag([1 / s, 1 / s, 1])
    grid = _distortion_grid(scene)
    tex = cv2.perspectiveTransform(grid.reshape(-1, 1, 2), np.linalg.inv(to_image)).reshape(grid.shape).astype(np.float32)
    profile = scene.profile
    width, height = int(round(profile.size[0] * s)), int(round(profile.size[1] * s))
    inside = ((tex[..., 0] >= 0) & (tex[..., 0] < width - 1) & (tex[..., 1] >= 0) & (tex[..., 1] < height - 1)).astype(np.uint8)
    fw, fh = scene.frame
    table_shade = 1 + 0.1 * _smooth_noise((fh, fw), (8, 5), np.random.default_rng(scene.grain_seed))
    map_xy, map_fraction = cv2.convertMaps(tex[..., 0].copy(), tex[..., 1].copy(), cv2.CV_16SC2)  # fixed point: faster remap
    return map_xy, map_fraction, inside, table_shade


def render(scene: Scene, counts: Mapping[str, int], white: Mapping[str, int] | None = None, shot: Shot = Shot()) -> Rendered:
    """Render one frame of ``scene`` showing ``counts`` (and ``white`` chips) under ``shot``."""
    rng = np.random.default_rng(shot.seed)
    profile = scene.profile
    board = _empty_board(scene).copy()
    heights = -hollow_depth(profile.name) if scene.relief else None  # mm above the board's plane
    glared = _glare(board, scene, shot) if shot.glare > 0 else frozenset()
    seeds = draw_seeds(board, scene, counts, white, rng, shot.piles, shot.stacks, heights)
    strays = _draw_strays(board, scene, shot, heights) if shot.strays else ()

    map_xy, map_fraction, inside, table_shade = _view(scene, shot.nudge)
    frame = np.asarray(scene.table, np.float32) * table_shade[..., None]
    if heights is None:
        for rows in _bands(frame.shape[0]):  # the board seen through the lens, over the table
            warped = cv2.remap(board, map_xy[rows], map_fraction[rows], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            frame[rows] = cv2.copyTo(warped, inside[rows], frame[rows])
    else:  # the board's surface where each ray through its plane first meets it
        on_board = inside.astype(bool)
        plane = np.stack(cv2.convertMaps(map_xy, map_fraction, cv2.CV_32FC1), axis=-1)[on_board]
        seen = seen_on_relief(plane, heights, eye_over_board(scene, shot.nudge))
        frame[on_board] = _sampled(board, seen)
    del board  # the texture goes before the finishing's temporaries come

    covered: frozenset[str] = frozenset()
    if shot.hand:
        hollow = profile.hollows[int(rng.integers(len(profile.hollows)))]
        inv_grid = cv2.perspectiveTransform(np.array([[hollow.centre]], np.float64), camera_homography(scene, shot.nudge))[0, 0]
        target = _distort_point(scene, inv_grid)
        mask = _hand(frame, target, rng, shot.skin, scene.px_scale)
        covered = _covered_pits(scene, shot, mask)

    if shot.cup is not None:
        _cup(frame, scene, shot)
    if shot.shadow > 0:
        _shadow(frame, shot, scene.px_scale)
    _light(frame, shot)
    if shot.blur * scene.px_scale >= 1.0:
        frame = _motion_blur(frame, shot, scene.px_scale)
    if shot.defocus > 0:
        frame = cv2.GaussianBlur(frame, (0, 0), shot.defocus * scene.px_scale)
    exposure = rng if shot.exposure is None else np.random.default_rng(shot.exposure)
    image = _expose(frame, _noise(exposure, scene.frame), shot.noise)
    del frame  # the float frame goes before the JPEG round trip
    if shot.jpeg:
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, shot.jpeg])
        image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return Rendered(image, dict(counts), None if white is None else dict(white), covered, scene, seeds, glared, strays)


def _distort_point(scene: Scene, undistorted: np.ndarray) -> tuple[float, float]:
    """The output pixel showing undistorted pixel ``undistorted`` (inverse of the radial map, by iteration)."""
    fw, fh = scene.frame
    xu, yu = (undistorted[0] - fw / 2) / scene.focal, (undistorted[1] - fh / 2) / scene.focal
    xd, yd = xu, yu
    for _ in range(8):
        factor = 1 + scene.k1 * (xd**2 + yd**2)
        xd, yd = xu / factor, yu / factor
    return (xd * scene.focal + fw / 2, yd * scene.focal + fh / 2)


def project(scene: Scene, points_mm: np.ndarray, shot: Shot = Shot()) -> np.ndarray:
    """Where board points (mm, shape (N, 2)) appear in the rendered frame."""
    undistorted = cv2.perspectiveTransform(np.asarray(points_mm, np.float64).reshape(-1, 1, 2), camera_homography(scene, shot.nudge))
    return np.array([_distort_point(scene, p) for p in undistorted[:, 0]])


def _covered_pits(scene: Scene, shot: Shot, mask: np.ndarray) -> frozenset[str]:
    covered = set()
    for hollow in scene.profile.hollows:
        (cx, cy), (a, b) = hollow.centre, hollow.axes
        ring = [(cx + a * math.cos(t), cy + b * math.sin(t)) for t in np.linspace(0, 2 * math.pi, 12, endpoint=False)]
        points = project(scene, np.array([(cx, cy), *ring]), shot)
        hits = 0
        for x, y in points:
            xi, yi = int(round(x)), int(round(y))
            if 0 <= yi < mask.shape[0] and 0 <= xi < mask.shape[1] and mask[yi, xi] > 0.3:
                hits += 1
        if hits:
            covered.add(hollow.label)
    return frozenset(covered)

