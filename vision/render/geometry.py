"""The camera that looks at the board: where it stands (:func:`camera_homography`,
:func:`eye_over_board`), its lens's radial distortion, where board points show in the picture
(:func:`project`), which texture pixel each picture pixel shows (:func:`camera_view`), and,
for a board seen in depth, where a ray first meets the board's surface (:func:`seen_on_relief`)."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np

from .board import TEXTURE_PX_PER_MM, smooth_noise
from .scene import Scene, Shot

RELIEF_STEP_MM = 1.0  # a camera ray is followed down the relief in steps this high, then interpolated
SAMPLED_ROW = 4096  # points sampled at once are laid out in rows this long (see sampled)


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


def project(scene: Scene, points_mm: np.ndarray, shot: Shot = Shot()) -> np.ndarray:
    """Where board points (mm, shape (N, 2)) appear in the rendered frame."""
    undistorted = cv2.perspectiveTransform(np.asarray(points_mm, np.float64).reshape(-1, 1, 2), camera_homography(scene, shot.nudge))
    return np.array([distort_point(scene, p) for p in undistorted[:, 0]])


def distort_point(scene: Scene, undistorted: np.ndarray) -> tuple[float, float]:
    """The output pixel showing undistorted pixel ``undistorted`` (inverse of the radial map, by iteration)."""
    fw, fh = scene.frame
    xu, yu = (undistorted[0] - fw / 2) / scene.focal, (undistorted[1] - fh / 2) / scene.focal
    xd, yd = xu, yu
    for _ in range(8):
        factor = 1 + scene.k1 * (xd**2 + yd**2)
        xd, yd = xu / factor, yu / factor
    return (xd * scene.focal + fw / 2, yd * scene.focal + fh / 2)


@functools.lru_cache(maxsize=4)
def camera_view(scene: Scene, nudge: tuple[float, float, float]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
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
    table_shade = 1 + 0.1 * smooth_noise((fh, fw), (8, 5), np.random.default_rng(scene.grain_seed))
    map_xy, map_fraction = cv2.convertMaps(tex[..., 0].copy(), tex[..., 1].copy(), cv2.CV_16SC2)  # fixed point: faster remap
    return map_xy, map_fraction, inside, table_shade


def _distortion_grid(scene: Scene) -> np.ndarray:
    """For every output pixel, the undistorted pixel it shows (radial distortion k1).

    Not cached: only :func:`camera_view` uses it, and that keeps its result."""
    fw, fh = scene.frame
    focal, k1 = scene.focal, scene.k1
    yy, xx = np.mgrid[0:fh, 0:fw].astype(np.float32)
    xn, yn = (xx - fw / 2) / focal, (yy - fh / 2) / focal
    factor = 1 + k1 * (xn**2 + yn**2)
    return np.stack([xn * factor * focal + fw / 2, yn * factor * focal + fh / 2], axis=-1)


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
        gap = sampled(heights, at) - z
        reached = gap >= 0
        share = np.where(np.isinf(gap_above[looking]), 0, gap / np.maximum(gap - gap_above[looking], 1e-6))[reached]
        rows = np.flatnonzero(looking)[reached]
        seen[rows] = plane[rows] + (z + share[:, None] * RELIEF_STEP_MM) * toward[rows]
        gap_above[looking] = gap
        looking[rows] = False
        if not looking.any():
            break
    return seen


def sampled(image: np.ndarray, points: np.ndarray) -> np.ndarray:
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
