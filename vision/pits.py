"""Finding the hollows of an empty board in its rectified view.

A hollow is not a drawn circle: it is a bowl, darker where it is deep, lit on
one side and shaded on the other. On the empty board it is the region that
departs from the bare wood around it. The profile says roughly where each
hollow of the layout should be; here each one is looked for in a window
around that place and measured as an ellipse, so a board whose hollows sit a
little differently (or markers stuck a little off) still calibrates, and a
board that is not the one named is refused instead of guessed.
"""

from __future__ import annotations

from typing import Iterable

import cv2
import numpy as np

from calibration.calibfile import CalibrationError, HollowFit
from calibration.profiles import BoardProfile

SEARCH = 1.7  # search window, in nominal semi-axes
NEAR_REACH = 0.45  # a hollow's rim is taken this far (in its shorter semi-axis) from where it is looked for...
FAR_REACH = 0.8  # ...and, to tell where the board puts its hollows, this far from the profile's place


def hollow_mask(shape: tuple[int, int], fit: HollowFit, scale: float = 1.0) -> np.ndarray:
    """A uint8 mask (255 inside) of a hollow's ellipse, optionally grown or shrunk by ``scale``."""
    mask = np.zeros(shape, np.uint8)
    centre = (int(round(fit.centre[0])), int(round(fit.centre[1])))
    axes = (max(1, int(round(fit.axes[0] * scale))), max(1, int(round(fit.axes[1] * scale))))
    cv2.ellipse(mask, centre, axes, fit.angle, 0, 360, 255, -1)
    return mask


def in_hollows(shape: tuple[int, int], fits: Iterable[HollowFit], scale: float = 1.0) -> np.ndarray:
    """Rectified pixels inside any of the hollows ``fits`` (bool), each grown or shrunk by ``scale``."""
    inside = np.zeros(shape, np.uint8)
    for fit in fits:
        inside |= hollow_mask(shape, fit, scale)
    return inside > 0


def rim_gap(fit: HollowFit, point: tuple[float, float]) -> float:
    """How far ``point`` lies outside the hollow's rim (px, along the line to its centre; at
    most 0 inside): which pit a seed lying on the wood is beside."""
    dx, dy = point[0] - fit.centre[0], point[1] - fit.centre[1]
    turn = np.deg2rad(fit.angle)
    u, v = dx * np.cos(turn) + dy * np.sin(turn), -dx * np.sin(turn) + dy * np.cos(turn)
    reach = float(np.hypot(u / fit.axes[0], v / fit.axes[1]))  # 1 on the rim
    return float(np.hypot(dx, dy)) * (1 - 1 / reach) if reach > 0 else -float(min(fit.axes))


def nominal_hollows(profile: BoardProfile, px_per_mm: float) -> dict[str, HollowFit]:
    """Where the profile puts every hollow, in rectified px."""
    return {
        h.label: HollowFit((h.centre[0] * px_per_mm, h.centre[1] * px_per_mm), (h.axes[0] * px_per_mm, h.axes[1] * px_per_mm))
        for h in profile.hollows
    }


def find_hollows(empty: np.ndarray, profile: BoardProfile, px_per_mm: float) -> dict[str, HollowFit]:
    """Measure every hollow of ``profile`` on the rectified empty board (BGR uint8 or float).

    Each hollow is looked for where the others say the board puts it: markers stuck a few
    millimetres off their places make the markers' homography see perspective that is not there,
    and move the middle of the board by up to 11 mm, all its hollows alike (a rendered board
    whose markers were each 1-4 mm off: 7-11 mm). The rims found near the profile's places,
    up to ``FAR_REACH`` off, give the homography that moves the profile's hollows onto the
    board (RANSAC: a rim found in the wrong place does not move the others), and each hollow is
    measured round where it puts it. Raises :class:`CalibrationError` naming the pits that
    cannot be found.
    """
    gray = cv2.cvtColor(np.asarray(empty, np.float32), cv2.COLOR_BGR2GRAY)
    gray = cv2.GaussianBlur(gray, (0, 0), 1.5)
    nominal = nominal_hollows(profile, px_per_mm)
    found = {label: _measure(gray, fit, FAR_REACH) for label, fit in nominal.items()}
    expected = _where_the_board_puts(nominal, found)
    fits: dict[str, HollowFit] = {}
    problems: list[str] = []
    for label, fit in expected.items():
        near = found[label]
        if near is None or np.hypot(near.centre[0] - fit.centre[0], near.centre[1] - fit.centre[1]) > NEAR_REACH * min(fit.axes):
            near = _measure(gray, fit, NEAR_REACH)
        if near is None:
            problems.append(label)
        else:
            fits[label] = near
    if problems:
        raise CalibrationError(
            f"empty board: no hollow found for pit(s) {', '.join(problems)} where a {profile.name} board has them; "
            "check the variant, the markers' placement and that the board is empty and fully in view"
        )
    return fits


def _where_the_board_puts(nominal: dict[str, HollowFit], found: dict[str, HollowFit | None]) -> dict[str, HollowFit]:
    """The ``nominal`` hollows moved by the homography that best takes them onto the rims
    ``found`` (None: not found); as they are when fewer than four were found or no homography
    fits."""
    pairs = [(nominal[label].centre, fit.centre) for label, fit in found.items() if fit is not None]
    if len(pairs) < 4:
        return nominal
    least = min(min(fit.axes) for fit in nominal.values())
    homography, _ = cv2.findHomography(np.float32([p for p, _ in pairs]), np.float32([q for _, q in pairs]), cv2.RANSAC,
                                       NEAR_REACH * least / 2)
    if homography is None:
        return nominal
    moved = cv2.perspectiveTransform(np.float64([[fit.centre for fit in nominal.values()]]), homography)[0]
    return {label: HollowFit((float(x), float(y)), fit.axes, fit.angle) for (label, fit), (x, y) in zip(nominal.items(), moved)}


def _rim_template(a: float, b: float) -> np.ndarray:
    """A thin elliptic band of the profile's size, zero-mean: it answers where the rim of a
    bowl (the sharp change of slope all round its edge) lies under it."""
    half_w, half_h = int(np.ceil(a * 1.2)), int(np.ceil(b * 1.2))
    yy, xx = np.mgrid[-half_h:half_h + 1, -half_w:half_w + 1].astype(np.float32)
    r = np.sqrt((xx / a) ** 2 + (yy / b) ** 2)
    band = np.abs(r - 1.0) < 2.5 / min(a, b)
    template = band.astype(np.float32)
    return template - template.mean()


def _measure(gray: np.ndarray, nominal: HollowFit, reach: float) -> HollowFit | None:
    """The bowl near ``nominal``, no farther than ``reach`` of its shorter semi-axis: where an
    ellipse of the profile's size best lies along a rim. Inside a bowl the light varies (its lit
    side can match the wood), but its rim is a sharp change of slope all round, so the outline is
    matched whole."""
    (cx, cy), (a, b) = nominal.centre, nominal.axes
    h, w = gray.shape
    x0, x1 = max(0, int(cx - a * SEARCH)), min(w, int(cx + a * SEARCH) + 1)
    y0, y1 = max(0, int(cy - b * SEARCH)), min(h, int(cy + b * SEARCH) + 1)
    window = gray[y0:y1, x0:x1]
    template = _rim_template(a, b)
    if window.shape[0] < template.shape[0] or window.shape[1] < template.shape[1]:
        return None
    gx = cv2.Sobel(window, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(window, cv2.CV_32F, 0, 1, ksize=3)
    edges = cv2.magnitude(gx, gy)
    edges = np.minimum(edges / (np.median(edges) + 1e-4), 10.0)
    score = cv2.matchTemplate(edges, template, cv2.TM_CCORR)
    _, best, _, (bx, by) = cv2.minMaxLoc(score)
    centre = (x0 + bx + template.shape[1] // 2, y0 + by + template.shape[0] // 2)
    rim = float(best) / float((template > 0).sum())  # how much stronger the edges are on the rim
    if rim < 0.8 or np.hypot(centre[0] - cx, centre[1] - cy) > reach * min(a, b):
        return None  # no rim of the right size here
    return HollowFit((float(centre[0]), float(centre[1])), (a, b), 0.0)
