"""The rendered set-ups and frames the vision benchmarks share, and their shared command-line options.

A set-up is a board profile's random scene (seed kind, wood, lamp, camera) calibrated from an easy
empty and start frame, as ``vision_bench.py`` calibrates it; each has its own seeded stream, which
goes on to draw its frames, so every benchmark that renders them with the same seed renders the same
boards. Not a script: ``vision_bench.py``, ``camera_referee_bench.py``, ``focus_bench.py`` and the
other vision benchmarks import it.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np

from calibration.calibfile import Calibration, CalibrationError
from calibration.calibrate import calibrate
from calibration.profiles import PROFILE_LAYOUTS, board_profile, start_counts
from vision import counter
from vision.picture_size import parse_picture_size, picture_size_text
from vision.render import FRAME_SIZE, Scene, Shot, project, random_scene, random_shot, render

SHADOW = 0.5  # a soft shadow over part of the board: half the light
GLARE = 3.0  # a lamp's reflection in the varnish near a pit, clipped at its core


def calibrated_scene(board: str, rng: np.random.Generator, frame: tuple[int, int] = FRAME_SIZE, corners: bool = False,
                     relief: bool = False, far: float = 1.0) -> tuple[Scene, Calibration]:
    """A random set-up (a camera of ``frame`` px) and its calibration from an easy empty frame and
    start frame; with ``corners``, by the board's four corners where they are in the empty
    picture, as a user gives them (a board without markers: its markers are drawn but not used);
    with ``relief``, the board seen in depth (``Scene.relief``; the same set-up otherwise); the
    camera ``far`` times as far as the renderer puts it."""
    scene, calibration, _ = calibrated_scene_and_empty_shot(board, rng, frame, corners, relief, far)
    return scene, calibration


def calibrated_scene_and_empty_shot(board: str, rng: np.random.Generator, frame: tuple[int, int] = FRAME_SIZE,
                                    corners: bool = False, relief: bool = False, far: float = 1.0
                                    ) -> tuple[Scene, Calibration, Shot]:
    """:func:`calibrated_scene`, and the shot of its empty picture (where the board lay when
    its corners were given); the camera ``far`` times farther than the renderer draws it."""
    scene = random_scene(board, rng, frame=frame)
    scene = replace(scene, relief=relief, fill=scene.fill / far)
    profile = board_profile(board)
    empty_shot = random_shot(rng, hard=False, hand=False)
    empty = render(scene, {h.label: 0 for h in profile.hollows}, None, empty_shot).image
    counts, white = start_counts(board)
    start = render(scene, counts, white, random_shot(rng, hard=False, hand=False)).image
    outline = project(scene, np.array(profile.board_corners()), empty_shot).ravel().tolist() if corners else None
    return scene, calibrate(board, empty, start, outline), empty_shot


def calibrated_setups(scenes: int, seed: int, frame: tuple[int, int], failures: list[str], corners: bool = False,
                      relief: bool = False, far: float = 1.0) -> Iterator[tuple[Scene, Calibration, np.random.Generator]]:
    """Every board profile's ``scenes`` set-ups (:func:`calibrated_scene`, found by their
    ``corners`` or not, seen in ``relief`` or not, cameras ``far`` times farther), each with its own
    seeded stream, which goes on to draw the set-up's frames; a set-up that cannot be calibrated is
    named in ``failures`` and skipped."""
    for scene, calibration, _, rng in calibrated_setups_and_empty_shots(scenes, seed, frame, failures, corners, relief, far):
        yield scene, calibration, rng


def calibrated_setups_and_empty_shots(scenes: int, seed: int, frame: tuple[int, int], failures: list[str],
                                      corners: bool = False, relief: bool = False, far: float = 1.0
                                      ) -> Iterator[tuple[Scene, Calibration, Shot, np.random.Generator]]:
    """:func:`calibrated_setups`, each with the shot of its empty picture."""
    for b, board in enumerate(PROFILE_LAYOUTS):
        for s in range(scenes):
            rng = np.random.default_rng([seed, b, s])
            try:
                scene, calibration, empty_shot = calibrated_scene_and_empty_shot(board, rng, frame, corners, relief, far)
            except CalibrationError as error:
                failures.append(f"{board} scene {s}: {error}")
                continue
            yield scene, calibration, empty_shot, rng


def hard_shot(rng: np.random.Generator, defocus: float) -> Shot:
    """A hard frame's conditions (``random_shot``), its lens ``defocus`` px out of focus."""
    return replace(random_shot(rng, hard=True), defocus=defocus)


def next_exposure(shot: Shot) -> Shot:
    """The next frame of a still board taken as ``shot``: the same seeds and light, a new exposure's
    sensor noise and JPEG (its seed not drawn from the set-up's stream, so that every other frame
    stays what it was)."""
    return replace(shot, exposure=shot.seed + 1)


def frame_size(text: str) -> tuple[int, int]:
    """``"640x480"`` -> (640, 480), for argparse."""
    try:
        return parse_picture_size(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def far_times(text: str) -> float:
    """``--far``'s value, for argparse: how many times as far as the renderer puts them, at least 1."""
    try:
        times = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not times >= 1:
        raise argparse.ArgumentTypeError(f"at least 1 (the renderer's cameras already fill 72-90 % of the picture's "
                                         f"width), got {text}")
    return times


# The set-up options, as every benchmark that renders set-ups takes them (the arguments of
# ``add_argument``); the help is ``vision_bench.py``'s unless a benchmark words its own.
SETUP_OPTIONS: dict[str, dict] = {
    "frame": dict(type=frame_size, default=FRAME_SIZE, metavar="WxH",
                  help=f"the camera picture's size (default: {picture_size_text(FRAME_SIZE)})"),
    "defocus": dict(type=float, default=0.0, metavar="PX",
                    help="every hard frame's lens out of focus by a Gaussian blur of PX pixels of a 1280 px wide "
                         "picture (calibration stays in focus: an autofocus that hunts in play)"),
    "corners": dict(action="store_true",
                    help="calibrate every board by its four corners, not its markers, as a board without markers is"),
    "relief": dict(action="store_true",
                   help="see every board in depth, as a real camera does (hollows sunk, seeds standing, heaps "
                        "leaning away from the camera), not painted flat on its plane: the same set-ups and frames"),
    "far": dict(type=far_times, default=1.0, metavar="TIMES",
                help="every camera this many times farther from the board, with the same lens (the board fills "
                     "that many times less of the picture's width)"),
}


def add_setup_options(parser: argparse.ArgumentParser, *names: str, **helps: str) -> None:
    """The set-up options ``names`` (of ``SETUP_OPTIONS``: ``"frame"`` for ``--frame WxH``, and so
    on), in the order given; ``helps`` words an option's help for this benchmark (what ``--defocus``
    blurs, say), by its name."""
    wrong = sorted((set(names) - SETUP_OPTIONS.keys()) | (set(helps) - set(names)))
    if wrong:
        raise ValueError(f"not a set-up option asked for: {', '.join(wrong)}")
    for name in names:
        parser.add_argument(f"--{name}", **dict(SETUP_OPTIONS[name], help=helps.get(name, SETUP_OPTIONS[name]["help"])))


def add_models_option(parser: argparse.ArgumentParser) -> None:
    """``--models FOLDER``: measure newly trained networks (vision.training.train) instead of the shipped ones."""
    parser.add_argument("--models", type=Path, metavar="FOLDER",
                        help="the seed counter's networks (default: the shipped ones), to measure newly trained ones")


def use_models(parser: argparse.ArgumentParser, folder: Path | None) -> None:
    """Read with the networks in ``folder`` (None: the shipped ones); a folder without them is refused
    with the counter's own message before any frame is rendered, not minutes later."""
    if folder is None:
        return
    counter.MODELS = folder.resolve()
    try:
        counter.shared_counter()
    except counter.CounterError as error:
        parser.error(f"--models: {error}")
