"""The empty board in its own plane, as a texture: wood grain, the hollows sunk into it and
shaded by the lamp, the four markers stuck on it. Seeds (:mod:`.seeds`) and a lamp's
reflection (:mod:`.effects`) are drawn on a copy of it for every frame."""

from __future__ import annotations

import functools
import math

import cv2
import numpy as np

from calibration.profiles import MARKER_MM, MARKER_QUIET_MM, board_profile

from ..markers import marker_image
from .scene import Scene

TEXTURE_PX_PER_MM = 3.0
HOLLOW_DEPTH_MM, STORE_DEPTH_MM = 11.0, 15.0  # how deep a playing hollow and a store are sunk at their middle


@functools.lru_cache(maxsize=8)
def empty_board(scene: Scene) -> np.ndarray:
    """The empty board's texture (float32 BGR, 0..1): wood grain, shaded hollows, markers."""
    profile = scene.profile
    s = TEXTURE_PX_PER_MM
    width, height = int(round(profile.size[0] * s)), int(round(profile.size[1] * s))
    rng = np.random.default_rng(scene.grain_seed)
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32) / s  # mm
    warp = smooth_noise((height, width), (14, 5), rng) * 5.0
    period = float(rng.uniform(4.0, 9.0))
    grain = np.sin(2 * math.pi * (yy + warp + 0.02 * xx) / period)
    grain = 0.06 * grain + 0.05 * smooth_noise((height, width), (60, 20), rng) + 0.02 * rng.standard_normal((height, width)).astype(np.float32)
    albedo = np.asarray(scene.wood, np.float32)[None, None, :] * (1 + grain[..., None])

    depth = hollow_depth(profile.name)
    inside = (depth > 0).astype(np.float32)
    albedo *= (1 - 0.12 * inside)[..., None]  # worn, darker inside the hollows
    dzdx = cv2.Sobel(-depth, cv2.CV_32F, 1, 0, ksize=3) / (8 / s)
    dzdy = cv2.Sobel(-depth, cv2.CV_32F, 0, 1, ksize=3) / (8 / s)
    norm = np.sqrt(dzdx**2 + dzdy**2 + 1)
    lx, ly, lz = lamp_direction(scene)
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


def smooth_noise(shape: tuple[int, int], cells: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """Gaussian noise on a coarse grid of ``cells`` (x, y), smoothly interpolated up to ``shape``
    (rows, columns): a slow variation, as of wood grain's warp or a table's shading."""
    small = rng.standard_normal((cells[1], cells[0])).astype(np.float32)
    return cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)


def lamp_direction(scene: Scene) -> np.ndarray:
    """The unit vector towards the scene's lamp: what shades the hollows and the seeds."""
    ce = math.cos(scene.lamp_elevation)
    # board plane: x right, y towards South; z up out of the board
    return np.array([ce * math.cos(scene.lamp_azimuth), ce * math.sin(scene.lamp_azimuth), math.sin(scene.lamp_elevation)])
