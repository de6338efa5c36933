"""What comes between the board and the camera: a lamp's reflection in the varnish, a hand
reaching over the board, a mug stood over a marker, someone's shadow. The reflection and the
shadow draw from random streams of their own, so that adding either leaves every other draw as
it was; the hand draws from the shot's own, after the seeds."""

from __future__ import annotations

import math

import cv2
import numpy as np

from .board import TEXTURE_PX_PER_MM
from .exposure import row_bands
from .geometry import camera_homography, distort_point, project
from .scene import Scene, Shot

GLARE_WASH = 0.3  # a lamp's reflection adding this much to the wood's albedo (0..1) in a pit washes it out
SKINS = ((0.55, 0.65, 0.85), (0.35, 0.45, 0.65), (0.2, 0.28, 0.42))  # BGR albedo of a hand: pale to dark


def add_glare(board: np.ndarray, scene: Scene, shot: Shot) -> frozenset[str]:
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


def hand_over(frame: np.ndarray, scene: Scene, shot: Shot, rng: np.random.Generator) -> frozenset[str]:
    """Paint a hand reaching for one of the hollows (drawn from ``rng``) on ``frame``; the pits it hides."""
    hollows = scene.profile.hollows
    hollow = hollows[int(rng.integers(len(hollows)))]
    undistorted = cv2.perspectiveTransform(np.array([[hollow.centre]], np.float64), camera_homography(scene, shot.nudge))[0, 0]
    mask = _hand(frame, distort_point(scene, undistorted), rng, shot.skin, scene.px_scale)
    return _covered_pits(scene, shot, mask)


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
    for rows in row_bands(fh):
        frame[rows] = frame[rows] * (1 - mask[rows, :, None]) + colour * ramp * mask[rows, :, None]
    return mask


def _covered_pits(scene: Scene, shot: Shot, mask: np.ndarray) -> frozenset[str]:
    """The pits the hand's ``mask`` (frame px) touches at their centre or at any of 12 points of their rim."""
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


def cup_over_marker(frame: np.ndarray, scene: Scene, shot: Shot) -> None:
    """A mug stood over the marker at corner ``shot.cup``, seen from above: a white rim twice the
    marker across, round its coffee."""
    centre = project(scene, np.array([scene.sticker_centre(shot.cup)]), shot)[0]
    radius = float(np.ptp(project(scene, np.array(scene.profile.marker_corners(shot.cup)), shot)[:, 0]))
    middle = (round(centre[0]), round(centre[1]))
    cv2.circle(frame, middle, round(radius), (0.82, 0.84, 0.85), -1, cv2.LINE_AA)
    cv2.circle(frame, middle, round(0.8 * radius), (0.05, 0.10, 0.16), -1, cv2.LINE_AA)


def cast_shadow(frame: np.ndarray, shot: Shot, px_scale: float) -> None:
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
