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

:func:`render` below draws a frame in the order light reaches the sensor; each
step is a module of its own:

- :mod:`.scene`: what is asked for (Scene, Shot) and given back (Rendered), and random ones;
- :mod:`.board`: the empty board's texture (wood, hollows shaded by the lamp, markers);
- :mod:`.seeds`: the seeds laid in the hollows and on the wood, drawn on that texture;
- :mod:`.geometry`: the camera (pose, homography, lens distortion, projection, relief);
- :mod:`.effects`: what comes between board and camera (glare, a hand, a mug, a shadow);
- :mod:`.exposure`: light, flicker, blur, and the sensor's noisy 8-bit picture.

The names the tests and benchmarks use are importable from here.
"""

from __future__ import annotations

from typing import Mapping

import cv2
import numpy as np

from .board import TEXTURE_PX_PER_MM, empty_board, hollow_depth
from .effects import add_glare, cast_shadow, cup_over_marker, hand_over
from .exposure import FLICKER_BAND, FLICKER_DRIFT, expose, light_frame, motion_blur, row_bands, sensor_noise
from .geometry import camera_homography, camera_view, eye_over_board, project, sampled, seen_on_relief
from .scene import FRAME_SIZE, Rendered, Scene, Shot, Stack, random_counts, random_scene, random_shot
from .seeds import SEED_AXES_MM, draw_seeds, draw_strays, place_seeds, restacked, stack_of

__all__ = [
    "render", "Scene", "Shot", "Rendered", "Stack", "random_scene", "random_shot", "random_counts", "FRAME_SIZE",
    "TEXTURE_PX_PER_MM", "hollow_depth", "SEED_AXES_MM", "draw_seeds", "place_seeds", "stack_of", "restacked",
    "camera_homography", "eye_over_board", "project", "seen_on_relief", "FLICKER_BAND", "FLICKER_DRIFT",
]


def render(scene: Scene, counts: Mapping[str, int], white: Mapping[str, int] | None = None, shot: Shot = Shot()) -> Rendered:
    """Render one frame of ``scene`` showing ``counts`` (and ``white`` chips) under ``shot``."""
    rng = np.random.default_rng(shot.seed)
    profile = scene.profile
    board = empty_board(scene).copy()
    heights = -hollow_depth(profile.name) if scene.relief else None  # mm above the board's plane
    glared = add_glare(board, scene, shot) if shot.glare > 0 else frozenset()
    seeds = draw_seeds(board, scene, counts, white, rng, shot.piles, shot.stacks, heights)
    strays = draw_strays(board, scene, shot, heights) if shot.strays else ()

    map_xy, map_fraction, inside, table_shade = camera_view(scene, shot.nudge)
    frame = np.asarray(scene.table, np.float32) * table_shade[..., None]
    if heights is None:
        for rows in row_bands(frame.shape[0]):  # the board seen through the lens, over the table
            warped = cv2.remap(board, map_xy[rows], map_fraction[rows], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            frame[rows] = cv2.copyTo(warped, inside[rows], frame[rows])
    else:  # the board's surface where each ray through its plane first meets it
        on_board = inside.astype(bool)
        plane = np.stack(cv2.convertMaps(map_xy, map_fraction, cv2.CV_32FC1), axis=-1)[on_board]
        seen = seen_on_relief(plane, heights, eye_over_board(scene, shot.nudge))
        frame[on_board] = sampled(board, seen)
    del board  # the texture goes before the finishing's temporaries come

    covered = hand_over(frame, scene, shot, rng) if shot.hand else frozenset()
    if shot.cup is not None:
        cup_over_marker(frame, scene, shot)
    if shot.shadow > 0:
        cast_shadow(frame, shot, scene.px_scale)
    light_frame(frame, shot)
    if shot.blur * scene.px_scale >= 1.0:
        frame = motion_blur(frame, shot, scene.px_scale)
    if shot.defocus > 0:
        frame = cv2.GaussianBlur(frame, (0, 0), shot.defocus * scene.px_scale)
    exposure = rng if shot.exposure is None else np.random.default_rng(shot.exposure)
    image = expose(frame, sensor_noise(exposure, scene.frame), shot.noise)
    del frame  # the float frame goes before the JPEG round trip
    if shot.jpeg:
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, shot.jpeg])
        image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return Rendered(image, dict(counts), None if white is None else dict(white), covered, scene, seeds, glared, strays)
