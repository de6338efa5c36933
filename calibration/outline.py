"""A board's outline given by its four corners (a board without markers): checked wherever it is
set or read, so that the dashboard's clicks, ``pitwatch calibrate --corners`` and a calibration
file edited by hand pass the same checks. :func:`check_outline` refuses anything that cannot be a
board seen from South's seat, naming the corner at fault."""

from __future__ import annotations

import math
import reprlib
from typing import Any

from vision.markers import MARKER_NAMES, turn

from .checks import is_number

CORNER_NAMES = tuple(MARKER_NAMES[i] for i in range(4))  # near-left, near-right, far-right, far-left
ORDER = ", ".join(CORNER_NAMES)
MIN_SIDE_PX = 20.0  # a board side shorter than this in the camera picture cannot be read
MIN_TURN = math.sin(math.radians(10))  # an outline flatter than 10 degrees at a corner is a line, not a corner

Point = tuple[float, float]


class CornersError(ValueError):
    """Corners that cannot be a board seen from South's seat; the message says which and why."""


def check_outline(corners: Any, size: tuple[int, int] | None) -> list[Point]:
    """Four ``[x, y]`` camera pixels in the order near-left, near-right, far-right, far-left
    (as seen from South's seat, the camera side), checked; :class:`CornersError` otherwise.

    ``size`` is the camera picture's (width, height); None before a picture is taken (``pitwatch
    calibrate`` checks the outline's shape before the players set up the board for the camera, and
    whether it lies inside the picture once it has one). The outline must be a
    convex quadrilateral going round the board anticlockwise on the picture
    (y grows downwards), its near side running left to right across the
    bottom: a mirrored or turned order would read every pit under the wrong
    label, so it is refused rather than guessed.
    """
    if not isinstance(corners, list) or len(corners) != 4:
        got = f"{len(corners)} points" if isinstance(corners, list) else type(corners).__name__
        raise CornersError(f"corners: expected 4 points [x, y] ({ORDER}), got {got}")
    points = [_point(value, k, size) for k, value in enumerate(corners)]
    for i in range(4):
        for j in range(i + 1, 4):
            gap = math.dist(points[i], points[j])
            if gap < MIN_SIDE_PX:
                raise CornersError(f"corners: {CORNER_NAMES[i]} and {CORNER_NAMES[j]} are only {gap:.0f} px apart: "
                                   f"click the board's four different corners")
    turns = []
    for k in range(4):
        before, here, after = points[k - 1], points[k], points[(k + 1) % 4]
        sine = turn(before, here, after) / (math.dist(before, here) * math.dist(here, after))
        if abs(sine) < MIN_TURN:
            raise CornersError(f"corners: the outline is almost straight or folded back at {CORNER_NAMES[k]}: "
                               f"that is not a corner of the board")
        turns.append(sine)
    if any(t > 0 for t in turns) and any(t < 0 for t in turns):
        raise CornersError(f"corners: the four points do not outline the board (the outline crosses itself or bends "
                           f"inwards): click the corners in the order {ORDER}")
    if turns[0] > 0:
        raise CornersError(f"corners: the points go round clockwise on the picture: start at near-left "
                           f"(South's left, nearest the camera) and go {ORDER}")
    (x0, y0), (x1, y1) = points[0], points[1]
    if x1 - x0 <= abs(y1 - y0):
        raise CornersError("corners: the first two points must be the near side (near-left, then near-right), "
                           "running left to right across the picture on the camera's side of the board")
    return points


def _point(value: Any, k: int, size: tuple[int, int] | None) -> Point:
    where = f"corners[{k}] ({CORNER_NAMES[k]})"
    if not isinstance(value, list) or len(value) != 2 or not all(is_number(v) for v in value):
        raise CornersError(f"{where}: expected [x, y], two numbers in camera pixels, got {reprlib.repr(value)}")
    x, y = float(value[0]), float(value[1])
    if size is None:
        return (x, y)
    width, height = size
    if not (0 <= x <= width and 0 <= y <= height):
        raise CornersError(f"{where}: ({x:g}, {y:g}) lies outside the {width} x {height} camera picture")
    return (x, y)
