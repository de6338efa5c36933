"""Seeds on the board's texture: where they lie in a hollow (they roll to the middle, touch,
then pile up), how each looks (a shaded sprite of its kind, with its shadow), which of a
pile's seeds are there as chips are sown and taken, and the seeds that rolled out onto the
bare wood. With the board's heights (``Scene.relief``) they stand on what lies under them."""

from __future__ import annotations

import math
from typing import Mapping

import cv2
import numpy as np

from calibration.profiles import MARKER_MM, MARKER_QUIET_MM

from .board import TEXTURE_PX_PER_MM, lamp_direction
from .scene import Scene, Shot, Stack

# Seed looks: semi-axes in mm and base colours (BGR, 0..1).
SEED_AXES_MM = {"bean": (6.0, 4.0), "glass": (5.5, 5.5), "pebble": (5.5, 4.5), "chip": (6.0, 6.0)}
_SEED_HEIGHT_MM = {"bean": 5.0, "glass": 6.0, "pebble": 6.0, "chip": 3.0}  # how high one seed stands (relief)
NESTED_MM = 1.5  # a seed lying on others sinks this far between them (relief)
_GLASS_COLOURS = ((0.75, 0.35, 0.15), (0.25, 0.6, 0.2), (0.15, 0.45, 0.8), (0.7, 0.7, 0.65), (0.35, 0.2, 0.6))
_CHIP_COLOURS = {"yellow": (0.15, 0.78, 0.92), "white": (0.9, 0.9, 0.88)}


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
    lamp = lamp_direction(scene)
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


def draw_strays(board: np.ndarray, scene: Scene, shot: Shot, heights: np.ndarray | None = None
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

    lamp = lamp_direction(scene)
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
