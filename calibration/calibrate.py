"""Calibration from two pictures: the empty board, then the start position.

The empty board shows where every hollow is and what bare wood and empty
hollows look like under this lamp. The start position, whose counts are
known from the variant, is the one picture of this board whose truth is
known: the seed counter reads it, and where it misreads (seeds unlike any it
was trained on) its probabilities on this board are widened until the truth
is no longer a surprise, so the referee is never told "certainly 5" of a pit
that holds 4. A start picture that mostly does not read as the start
position (no seeds, another board, the wrong variant) is refused, and so is a
picture out of focus (:mod:`vision.focus`): its seeds would be learnt blurred,
and so are two pictures taken the wrong way round, and markers stuck turned or
swapped (:func:`vision.markers.placement_fault`).
The start picture, blurred more and more, also says from which blur this
board's seeds are misread: frames blurrier than that are read on it with every
count kept possible.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Sequence

import cv2
import numpy as np

from rules.reading import Reading
from vision.counter import widened
from vision.focus import BLURRED_MM, marker_blur_mm
from vision.glare import GlareFinder, whitest_seed
from vision.markers import (MARKER_NAMES, MIRRORED, SQUARE_WITHIN, is_mirrored, marker_sides, placement_fault,
                            places_found)
from vision.pits import HollowFit, find_hollows, hollow_mask, in_hollows, nominal_hollows
from vision.reader import NO_COLOUR, BoardReader, BoardView, is_colourless, locate_board
from vision.rectify import DEFAULT_PX_PER_MM, rectified_size, warp_to_board
from vision.seed_size import seed_area_mm2

from .calibfile import HOLLOWS_MOVED_MM, LEAST_BLUR_LIMIT_MM, Calibration, CalibrationError, overlapping_hollows
from .profiles import PROFILE_LAYOUTS, BoardProfile, board_profile, start_counts

START_BLURS_PX = tuple(float(sigma) for sigma in np.arange(1.5, 3.6, 0.25))  # blurs put on the start picture to
# find this board's blur limit (Gaussian sigma, px): a lens blur under 1.5 px costs no board anything (focus_bench.py)
TEMPERATURES = tuple(float(t) for t in np.exp(np.linspace(0.0, math.log(20.0), 31)))  # 1 .. 20, 10 % apart
SURPRISE = math.log(20.0)  # after widening, a start pit's truth may be no rarer than 1 in 20
# A board of another shape than the variant's profile (see _shape_fault, _refuse_moved_hollows): its markers come
# out farther from square than SQUARE_WITHIN (vision.markers), or a hollow calibration found farther than
# HOLLOWS_MOVED_MM (calibfile) from where the markers put it
HOLLOW_MIDDLE = 0.8  # a hollow's detail is measured within 0.8 of its rim: clear of the rim's edge
# How much more fine detail the start picture's filled hollows show than the empty picture's (_start_detail). On
# rendered set-ups of every board the right pictures gave 2.3-4.8, the two swapped 0.21-0.44, and the start position
# given as both pictures, or photographed twice, 0.98-1.17 (the empty picture taken before the seeds were lifted
# out; 18 set-ups, 2026-12-07): that calibrated without a word, with a seed 0 mm2 large, a file no reader loads.
# Boards of 2 or 3 seeds a pit show less: the demo's synthetic camera gave Bao la Kujifunza 1.57-2.73 (seeds 1-40),
# Bao with laps 1.56-2.92 (seeds 1-20), Bao 1.97-3.55 (seeds 1-12); at 1.6 the demos of the first two, seed 3,
# refused their own calibration. So the line lies between 1.17 and 1.56, at their geometric middle.
SWAPPED_BELOW = 0.6
SEEDS_IN_BOTH_BELOW = 1.35


def _picture_size(frame: np.ndarray, what: str) -> tuple[int, int]:
    """The (width, height) of ``frame``, a colour picture; :class:`CalibrationError` otherwise."""
    if frame is None or not isinstance(frame, np.ndarray) or frame.ndim != 3:
        raise CalibrationError(f"{what}: not a colour image")
    if is_colourless(frame[..., :3]):
        raise CalibrationError(f"{what}: {NO_COLOUR}")
    return frame.shape[1], frame.shape[0]


def _rectified(frame: np.ndarray, name: str, probe: Calibration, what: str) -> tuple[np.ndarray, dict[int, np.ndarray] | None]:
    """``frame``'s board rectified, and where its markers were found stuck (None: a board found by
    its corners); :class:`CalibrationError` says why the frame will not do."""
    _picture_size(frame, what)
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    homography, found = locate_board(gray, probe)
    if homography is None:
        if not found and is_mirrored(gray):
            raise CalibrationError(f"{what}: {MIRRORED}")
        missing = [MARKER_NAMES[i] for i in MARKER_NAMES if i not in found]
        raise CalibrationError(f"{what}: board markers not found (missing {', '.join(missing)}): are all four "
                               "in the picture, uncovered? Print them with `pitwatch markers`, or give --corners")
    if (fault := placement_fault(found)) is not None:
        raise CalibrationError(f"{what}: {fault}")
    blur = marker_blur_mm(gray, found)
    if blur is not None and blur > BLURRED_MM:
        raise CalibrationError(f"{what}: out of focus (the markers' edges blurred over {blur:.2f} mm, at most "
                               f"{BLURRED_MM:.2f}): the seeds it shows would be learnt blurred; focus the camera and "
                               "take it again")
    board = warp_to_board(frame, homography, probe.profile.size, probe.px_per_mm)
    if (board.max(axis=2) == 0).mean() > 0.02:
        raise CalibrationError(f"{what}: part of the {name} board is out of the picture")
    if probe.corners is not None:
        return board, None
    places = places_found(found, homography)
    if (fault := _shape_fault(places, probe.profile)) is not None:
        raise CalibrationError(f"{what}: {fault}")
    return board, places


def _shape_fault(places: dict[int, np.ndarray], profile: BoardProfile) -> str | None:
    """What is wrong when the markers ``places`` (board mm) say the board is not ``profile``'s
    shape, or None.

    The markers sit at the board's corners, so the homography that puts them where ``profile``
    has them stretches a board of another shape to that one: a 2 x 6 board with stores taken
    for one without is squeezed across by a fifth. The squares then come out as rectangles,
    whatever the print's scale: 21.6 mm across and 27.8 mm deep in a rendered picture, against
    square to within 1 % for the right board. Before, such a board calibrated without a word,
    found 12 hollows among its 14, and told the players the camera stood 44 degrees from
    overhead where it stood 21. (Which board it is the stretch does not tell well: a homography
    squeezes unevenly.)"""
    across, deep = marker_sides(places)
    if abs(math.log(across / deep)) <= SQUARE_WITHIN:
        return None
    return (f"its markers come out {across:.1f} mm across and {deep:.1f} mm deep on a {profile.name} board, where they "
            f"are square: the board in the picture is of another shape; check the variant")


def farthest_hollow(hollows: dict[str, HollowFit], profile: BoardProfile, px_per_mm: float) -> tuple[str, float]:
    """The hollow calibration found farthest from where ``profile`` has it, and how far (mm)."""
    moved = {label: math.dist(hollows[label].centre, fit.centre) / px_per_mm
             for label, fit in nominal_hollows(profile, px_per_mm).items()}
    farthest = max(moved, key=moved.__getitem__)
    return farthest, moved[farthest]


def calibrate(name: str, empty: np.ndarray, start: np.ndarray, corners: Sequence[float] | None = None,
              px_per_mm: float = DEFAULT_PX_PER_MM) -> Calibration:
    """Build a :class:`Calibration` for variant or board ``name`` from two BGR frames.

    ``corners`` (8 numbers, image x,y of near-left, near-right, far-right,
    far-left board corners) replaces the markers for a board without them; both
    pictures must then be of the one camera picture size they are pixels of.
    Raises :class:`CalibrationError` naming what is wrong.
    """
    draft = calibrate_empty(name, empty, corners, px_per_mm)
    if draft.corners_picture is not None and (size := _picture_size(start, "start image")) != draft.corners_picture:
        raise CalibrationError(f"start image: {size[0]} x {size[1]} px, the empty image "
                               f"{draft.corners_picture[0]} x {draft.corners_picture[1]}: the board's corners are pixels of "
                               "one picture, so take both with the camera that will watch the game")
    _rectified(start, draft.board, draft, "start image")  # the whole board in view, as for the empty one
    reader = BoardReader(draft)
    result = reader.read(start)
    reading = result.reading
    counts, white = start_counts(name)
    misread = _misread(reading, counts)
    shown = ", ".join(f"{label} reads {_shown(reading, label)} (start: {counts[label]})" for label in misread[:6])
    if len(misread) > len(counts) / 2 and all(pit is not None and pit.most_likely == 0 for pit in reading.pits.values()):
        raise CalibrationError(f"start image: it does not show the start position of {name}: {shown}; it shows no "
                               "seeds the empty image does not: lay out the start position before taking it")
    view = reader.view(start)
    more_detail = _start_detail(draft, view.board, counts)
    if more_detail < SEEDS_IN_BOTH_BELOW:
        fault = ("more than the start image's: the two pictures look swapped" if more_detail < SWAPPED_BELOW else
                 "as much as the start image's: was it taken before the seeds were lifted out?")
        raise CalibrationError(f"empty image: its pits show the fine detail of seeds, {fault} (--empty must show every "
                               f"pit empty, --start the start position of {name})")
    if len(misread) > len(counts) / 2:
        raise CalibrationError(f"start image: it does not show the start position of {name}: {shown}; is it the start "
                               "position, fully in view, on the same board as the empty image?")
    return replace(draft, temperature=board_temperature(reading, counts, white), start_exact=1 - len(misread) / len(counts),
                   **_seeds_measured(view, draft, counts),
                   blur_limit_mm=_blur_limit(draft, start, counts, result.status.blur_mm, len(misread)))


def _start_detail(draft: Calibration, start_board: np.ndarray, counts: dict[str, int]) -> float:
    """How much more fine detail the hollows the start position fills show in the rectified start
    picture than in the empty one (the median over those pits): seeds' edges and shadows over the
    same bowl. Under 1, the empty picture is the one with seeds: the two were taken the wrong way
    round, and the seed counter, which reads a pit against the empty board, would not say so (it
    read the swapped pictures of 11 of 12 rendered set-ups as a start position, a scratch probe,
    2026-12-04). On 89 rendered set-ups of every board, in depth and painted flat (another
    probe), the right pictures gave 2.3-4.8 and the same pictures swapped 0.21-0.44; about 1,
    seeds in both (SEEDS_IN_BOTH_BELOW)."""
    empty_detail, start_detail = _fine_detail(draft.empty, draft.px_per_mm), _fine_detail(start_board, draft.px_per_mm)
    ratios = []
    for label, n in counts.items():
        if n:
            inside = hollow_mask(empty_detail.shape, draft.hollows[label], HOLLOW_MIDDLE) > 0
            ratios.append(float(start_detail[inside].mean()) / max(float(empty_detail[inside].mean()), 1e-6))
    return float(np.median(ratios))


def _fine_detail(board: np.ndarray, px_per_mm: float) -> np.ndarray:
    """How far each rectified pixel's brightness stands from its 2 mm surroundings', as a ratio
    (log grey less its blur), so the lamp's level and a hollow's smooth shading count for nothing."""
    grey = np.log1p(cv2.cvtColor(board, cv2.COLOR_BGR2GRAY).astype(np.float32))
    return np.abs(grey - cv2.GaussianBlur(grey, (0, 0), 2.0 * px_per_mm))


def _misread(reading: Reading, counts: dict[str, int]) -> list[str]:
    """The pits of a start position ``counts`` that ``reading`` does not read as the start."""
    return [label for label, n in counts.items() if reading.pits[label] is None or reading.pits[label].most_likely != n]


def _blur_limit(draft: Calibration, start: np.ndarray, counts: dict[str, int], sharp_blur: float | None,
                sharp_misread: int) -> float | None:
    """The blur (:mod:`vision.focus`, mm) over which this board's frames are to be read hedged:
    the start picture is blurred more and more (``START_BLURS_PX``) and read again, and where it
    is misread more than in focus at two blurs in a row (one pit misread once is noise), the
    blur of the last one read as well, but not under ``LEAST_BLUR_LIMIT_MM``. Seeds that blur
    into the wood sooner (dark beans on dark wood) are misread sooner in play too
    (docs/vision.md, section 2). None where the start position reads as well up to the
    general limit (``vision.focus.TOO_BLURRED_MM``), or has no blur measured (no markers seen,
    and on a board found by its corners no grain or a hand)."""
    if sharp_blur is None:
        return None
    reader, clean, failed = BoardReader(draft), sharp_blur, False
    for sigma in START_BLURS_PX:
        result = reader.read(cv2.GaussianBlur(start, (0, 0), sigma))
        blur = result.status.blur_mm
        if blur is None or all(pit is None for pit in result.reading.pits.values()):
            return None  # its markers lost, or past the general limit: that one holds
        if len(_misread(result.reading, counts)) <= sharp_misread:
            clean, failed = max(clean, blur), False
        elif failed:
            return max(clean, LEAST_BLUR_LIMIT_MM)
        else:
            failed = True
    return None


def calibrate_empty(name: str, empty: np.ndarray, corners: Sequence[float] | None = None,
                    px_per_mm: float = DEFAULT_PX_PER_MM) -> Calibration:
    """The part of calibration the empty board alone gives: where the board and its hollows are
    (the counter taken as it comes). Training pictures are cut with it: they cannot wait for a
    trained counter to check a start position."""
    profile = board_profile(name)
    width, height = rectified_size(profile.size, px_per_mm)
    probe = Calibration(profile.name, None, px_per_mm, {}, np.zeros((height, width, 3), np.uint8),
                        None if corners is None else tuple(float(c) for c in corners),
                        corners_picture=None if corners is None else _picture_size(empty, "empty image"))
    empty_board, markers = _rectified(empty, profile.name, probe, "empty image")
    _refuse_glare(empty_board, profile, px_per_mm)
    hollows = find_hollows(empty_board, profile, px_per_mm)
    _refuse_moved_hollows(hollows, profile, px_per_mm)
    if (overlap := overlapping_hollows(hollows, px_per_mm)) is not None:  # the file would be refused when read
        raise CalibrationError(f"empty image: the hollows found for pits {overlap[0]} and {overlap[1]} reach "
                               f"{overlap[2]:.0f} mm into each other: something on the board between them (a seed, a "
                               "shadow) was taken for a rim; clear the board and light it evenly")
    variant = None if name in PROFILE_LAYOUTS else name
    return Calibration(profile.name, variant, px_per_mm, hollows, empty_board, probe.corners,
                       corners_picture=probe.corners_picture, markers=markers)


def _seeds_measured(view: BoardView, draft: Calibration, counts: dict[str, int]) -> dict[str, float | None]:
    """What the start position's seeds (``view``, the start picture as the reader of ``draft``
    sees it) tell the glare finder (vision.glare), as Calibration's fields: how white the whitest
    is, its light divided out (in play, a white patch in a hollow much whiter is a lamp's
    reflection), and how much of the board one covers (more white in one piece than one seed
    shows is a reflection too: vision.seed_size)."""
    hollows = in_hollows(view.board.shape[:2], draft.hollows.values())
    return {"whitest_seed": whitest_seed(view.board, view.log_gain, hollows, draft.px_per_mm),
            "seed_area_mm2": seed_area_mm2(view.board, view.log_gain, draft.empty, draft.hollows, counts, draft.px_per_mm)}


def _refuse_moved_hollows(hollows: dict[str, HollowFit], profile: BoardProfile, px_per_mm: float) -> None:
    """Hollows found far from where the markers (or corners) put the profile's are another board's:
    a 2 x 6 board with stores taken for a 2 x 5 board with outboxes, whose markers come out nearly
    square, still showed rims the hollow finder could move ten of the profile's hollows onto, 43 mm
    off. Markers stuck a few millimetres off their places move the hollows 11 mm at most."""
    farthest, moved = farthest_hollow(hollows, profile, px_per_mm)
    if moved > HOLLOWS_MOVED_MM:
        raise CalibrationError(f"empty image: pit {farthest}'s hollow lies {moved:.0f} mm from where a "
                               f"{profile.name} board has it: the board in the picture is of another shape, or its "
                               "markers are stuck far from their places; check the variant and the markers")


def _refuse_glare(empty_board: np.ndarray, profile: BoardProfile, px_per_mm: float) -> None:
    """A lamp's reflection on or near a pit of the empty board would wash out the same pits in
    every frame (the lamp and the camera stay put): refused, naming them. White on the wood
    away from the pits (paint, an inlay, a harmless reflection) is let pass, and the reader
    leaves it alone."""
    glare = GlareFinder(profile, px_per_mm, empty_board.shape[:2]).find(empty_board).glare  # grown by GLARE_MARGIN_MM
    if glare is None:
        return
    ys, xs = np.nonzero(glare)
    xs, ys = xs / px_per_mm, ys / px_per_mm
    near = [h.label for h in profile.hollows
            if (((xs - h.centre[0]) / h.axes[0]) ** 2 + ((ys - h.centre[1]) / h.axes[1]) ** 2 <= 1).any()]
    if near:
        raise CalibrationError(f"empty image: a lamp's reflection (glare) on or near pits {', '.join(near)} would hide "
                               "their seeds in every frame; move the lamp or turn the board, and take the picture again")


def _shown(reading: Reading, label: str) -> str:
    pit = reading.pits[label]
    return "nothing (unseen)" if pit is None else str(pit.most_likely)


def board_temperature(reading: Reading, counts: dict[str, int], white: dict[str, int] | None) -> float:
    """How much to widen the counter's probabilities on this board (:func:`vision.counter.widened`):
    the least temperature (1 if none is needed) at which no start pit's truth is rarer than 1 in 20."""
    truths = [(np.asarray(pit.counts), n) for label, n in counts.items() if (pit := reading.pits[label]) is not None]
    if white is not None:
        truths += [(np.asarray(pit.white), white[label]) for label in counts if (pit := reading.pits[label]) is not None]
    for temperature in TEMPERATURES:
        if all(widened(p, temperature)[n] >= math.exp(-SURPRISE) for p, n in truths):
            return temperature
    return TEMPERATURES[-1]
