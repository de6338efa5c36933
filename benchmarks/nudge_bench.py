"""Alignment benchmark: how exactly a board without markers is followed when it is nudged.

    .venv/bin/python benchmarks/nudge_bench.py [--scenes 5] [--frames 12] [--seed 11] [--far]

For each board profile, ``--scenes`` set-ups calibrated by their four corners in
the empty picture (as ``vision_bench.py --corners`` calibrates them), then
``--frames`` hard frames (``vision_bench.py``'s: a nudged board, light drift,
blur, noise, JPEG, a hand in about a third), one in four with a soft shadow and
one in four with a lamp's reflection instead of a hand, each read by the reader.
The move it followed (:mod:`vision.nudge`; its homography against the one of
the corners given) is compared with the renderer's true nudge: prints, per board
profile and per kind of frame, how often the board's farthest corner lies within
0.5, 1 and 2 mm of where the true move puts it, the median and 90th percentile,
and the frames said moved too far (``board moved since its corners were set``) or
not lined up with the empty picture (no pit read) that were nudged, and those moved
or turned farther said so. ``--far`` nudges the
board by up to 45 mm (and 3 degrees) instead, and bins the frames by how far the
board's middle moved: how far a move is followed. Seed 11 and up: the vision benchmark's set-ups are seeds 1 and 2.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.markers import homography_from_corners  # noqa: E402
from vision.nudge import BOARD_MOVED, LOST, MAX_NUDGE_MM, MAX_TURN  # noqa: E402
from vision.reader import BoardReader  # noqa: E402
from vision.render import FRAME_SIZE, Scene, Shot, camera_homography, random_counts, render  # noqa: E402
from setups import GLARE, SHADOW, calibrated_setups_and_empty_shots, hard_shot  # noqa: E402

WITHIN_MM = (0.5, 1.0, 2.0)
FAR_BINS_MM = (0.0, 15.0, 25.0, 35.0, 45.0, 60.0)


def frame_shot(rng: np.random.Generator, index: int, far: bool) -> tuple[str, Shot]:
    """The ``index``-th frame's kind and shot: a hard one (a hand in about a third), or in
    one of four a shadow and in one of four a lamp's reflection, with no hand."""
    shot = hard_shot(rng, 0.0)
    if far:
        shot = replace(shot, nudge=(float(rng.uniform(-40, 40)), float(rng.uniform(-25, 25)), float(rng.uniform(-0.05, 0.05))))
    if index % 4 == 2:
        return "shadow", replace(shot, hand=False, shadow=SHADOW)
    if index % 4 == 3:
        return "lamp's reflection", replace(shot, hand=False, glare=GLARE)
    return ("hand" if shot.hand else "plain"), shot


def true_move(scene: Scene, at_rest: Shot, shot: Shot) -> np.ndarray:
    """The board's move (board mm -> where that point lay when the corners were given, 3 x 3)
    from the renderer's cameras: both map the board's plane, so the camera cancels."""
    return np.linalg.inv(camera_homography(scene, at_rest.nudge)) @ camera_homography(scene, shot.nudge)


def corner_error_mm(found: np.ndarray, truth: np.ndarray, corners_mm: np.ndarray) -> float:
    """How far (mm) the farthest board corner lies from where the true move puts it."""
    points = corners_mm.reshape(-1, 1, 2)
    return float(np.abs(cv2.perspectiveTransform(points, found) - cv2.perspectiveTransform(points, truth)).max())


def run(scenes: int, frames: int, seed: int, far: bool) -> dict:
    cv2.setNumThreads(1)
    errors: dict[str, list[float]] = defaultdict(list)  # group -> corner errors (mm)
    said_moved: list[tuple[bool, bool]] = []  # (truly a nudge, said moved too far)
    failures: list[str] = []
    for scene, calibration, at_rest, rng in calibrated_setups_and_empty_shots(scenes, seed, FRAME_SIZE, failures, True):
        profile = scene.profile
        reader = BoardReader(calibration)
        given = homography_from_corners(calibration.corners, profile)  # image px -> board mm where it lay
        corners_mm = np.array(profile.board_corners(), np.float64)
        middle = np.array(profile.size, np.float64).reshape(1, 1, 2) / 2
        for index in range(frames):
            counts, white = random_counts(profile, rng)
            kind, shot = frame_shot(rng, index, far)
            result = reader.read(render(scene, counts, white, shot).image)
            truth = true_move(scene, at_rest, shot)
            moved_mm = float(np.linalg.norm(cv2.perspectiveTransform(middle, truth) - middle))
            nudged = moved_mm <= MAX_NUDGE_MM and abs(np.arctan2(truth[1, 0], truth[0, 0])) <= MAX_TURN
            said_moved.append((nudged, result.status.message in (BOARD_MOVED, LOST)))
            if result.image_to_board is None or result.status.message == LOST:  # no pit read
                continue
            error = corner_error_mm(given @ np.linalg.inv(result.image_to_board), truth, corners_mm)
            groups = [profile.name, kind, "all"]
            if far:
                groups.append(next(f"middle moved {lo:.0f}-{hi:.0f} mm" for lo, hi in zip(FAR_BINS_MM, FAR_BINS_MM[1:]) if moved_mm < hi))
            for group in groups:
                errors[group].append(error)
    return {"errors": errors, "said_moved": said_moved, "failures": failures}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenes", type=int, default=5, help="set-ups per board profile")
    parser.add_argument("--frames", type=int, default=12, help="frames per set-up")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--far", action="store_true", help="nudge the board by up to 45 mm, not a benchmark nudge")
    args = parser.parse_args()
    out = run(args.scenes, args.frames, args.seed, args.far)
    for failure in out["failures"]:
        print(f"  calibration failed: {failure}")
    print(f"{'frames':32s} {'n':>5s} " + " ".join(f"{'<' + str(mm) + ' mm':>8s}" for mm in WITHIN_MM)
          + f" {'median':>8s} {'90 %':>8s}   (the farthest board corner from where the true move puts it)")
    for group in sorted(out["errors"], key=lambda name: (name == "all", name)):
        errors = np.array(out["errors"][group])
        print(f"{group:32s} {len(errors):5d} " + " ".join(f"{100 * np.mean(errors < mm):7.1f}%" for mm in WITHIN_MM)
              + f" {np.median(errors):6.2f}mm {np.percentile(errors, 90):6.2f}mm")
    within = [said for nudged, said in out["said_moved"] if nudged]
    beyond = [said for nudged, said in out["said_moved"] if not nudged]
    print(f"said moved too far or not lined up: {sum(within)} of {len(within)} frames nudged (within {MAX_NUDGE_MM:.0f} mm and "
          f"{np.degrees(MAX_TURN):.1f} degrees)" + (f", {sum(beyond)} of {len(beyond)} moved or turned farther" if beyond else ""))


if __name__ == "__main__":
    main()
