"""Markers stuck by hand: how well any three of them find the board that all four found.

    .venv/bin/python benchmarks/marker_places_bench.py [--scenes 4] [--frames 6] [--seed 21] [--off 4]

Players stick the markers themselves, a few millimetres off the places the board's
profile gives them. For each board profile, ``--scenes`` set-ups (every other one seen
in depth) whose markers are each stuck up to ``--off`` mm off in each direction
(``Scene.marker_shifts``, uniform), calibrated from an easy empty and start frame; then
``--frames`` frames of random counts, each board nudged (up to 8 mm and 1.7 degrees),
read with all four markers in view and again with a mug over each marker in turn
(``Shot.cup``: three markers in view). Each is read twice: with the markers' places
kept by calibration (the calibration file's ``markers``, since 2026-12-05) and with
the profile's places (the same file without them, as files before). Prints, per way:
how far each pit is put (mm on the board) from where the same frame with all four
markers puts it (median, 95th percentile, largest), and how often pits of 0-9 seeds
are read exactly with three markers and with four (pits a mug hides, or its rim
makes unseen, left out and counted apart). Seed 21 and up: the vision benchmark's
set-ups are seeds 1 and 2.
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

from calibration.calibfile import Calibration, CalibrationError  # noqa: E402
from calibration.calibrate import calibrate  # noqa: E402
from calibration.profiles import PROFILE_LAYOUTS, start_counts  # noqa: E402
from vision.markers import MARKER_IDS  # noqa: E402
from vision.reader import BoardReader, FrameResult  # noqa: E402
from vision.render import Scene, project, random_counts, random_scene, random_shot, render  # noqa: E402

WAYS = ("kept by calibration", "the profile's (files before)")


def stuck_by_hand(board: str, rng: np.random.Generator, off_mm: float, relief: bool) -> tuple[Scene, Calibration]:
    """A set-up whose markers are stuck up to ``off_mm`` off their places, and its calibration."""
    shifts = tuple((float(dx), float(dy)) for dx, dy in rng.uniform(-off_mm, off_mm, (4, 2)))
    scene = replace(random_scene(board, rng), relief=relief, marker_shifts=shifts)
    counts, white = start_counts(board)
    empty = render(scene, {}, None, random_shot(rng, hard=False, hand=False)).image
    start = render(scene, counts, white, random_shot(rng, hard=False, hand=False)).image
    return scene, calibrate(board, empty, start)


def pits_on_board(result: FrameResult, hollows_seen: np.ndarray) -> np.ndarray | None:
    """Where the reader puts the hollows' true picture points on the board (mm); None: no board."""
    if result.image_to_board is None:
        return None
    return cv2.perspectiveTransform(hollows_seen, result.image_to_board).reshape(-1, 2)


def run(scenes: int, frames: int, seed: int, off_mm: float) -> tuple[dict, dict, list[str]]:
    """Every set-up's frames read both ways: per way the pits' distances (mm) from where four
    markers put them, and [exact, read, unseen] counts of pits of 0-9 by markers in view."""
    cv2.setNumThreads(1)
    apart: dict[str, list[float]] = defaultdict(list)
    exact: dict[tuple[str, int], list[int]] = defaultdict(lambda: [0, 0, 0])
    failures: list[str] = []
    for b, board in enumerate(PROFILE_LAYOUTS):
        for s in range(scenes):
            rng = np.random.default_rng([seed, b, s])
            try:
                scene, calibration = stuck_by_hand(board, rng, off_mm, relief=s % 2 == 1)
            except CalibrationError as error:
                failures.append(f"{board} scene {s}: {error}")
                continue
            ways = dict(zip(WAYS, (calibration, replace(calibration, markers=None))))
            hollows = np.array([h.centre for h in scene.profile.hollows])
            for _ in range(frames):
                counts, white = random_counts(scene.profile, rng)
                shot = replace(random_shot(rng, hard=False, hand=False),
                               nudge=(float(rng.uniform(-8, 8)), float(rng.uniform(-6, 6)), float(rng.uniform(-0.03, 0.03))))
                seen = project(scene, hollows, shot).reshape(-1, 1, 2)
                images = {cup: render(scene, counts, white, replace(shot, cup=cup)).image for cup in (None, *MARKER_IDS)}
                for way, used in ways.items():
                    results = {cup: BoardReader(used).read(image) for cup, image in images.items()}
                    four = pits_on_board(results[None], seen)
                    for cup, result in results.items():
                        placed = pits_on_board(result, seen)
                        if cup is not None and four is not None and placed is not None:
                            apart[way].extend(np.linalg.norm(placed - four, axis=1).tolist())
                        score(result, counts, exact[(way, 4 if cup is None else 3)])
    return apart, exact, failures


def score(result: FrameResult, counts: dict[str, int], tally: list[int]) -> None:
    """Adds ``result``'s pits of 0-9 seeds to ``tally``: [read exactly, read, unseen]."""
    for label, truth in counts.items():
        if truth <= 9:
            pit = result.reading.pits[label]
            tally[0] += pit is not None and pit.most_likely == truth
            tally[1] += pit is not None
            tally[2] += pit is None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenes", type=int, default=4)
    parser.add_argument("--frames", type=int, default=6)
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--off", type=float, default=4.0, help="largest offset of a marker, mm in x and in y (at most 4)")
    args = parser.parse_args()
    apart, exact, failures = run(args.scenes, args.frames, args.seed, args.off)
    print(f"markers stuck up to {args.off:g} mm off, {args.scenes} set-ups a board, {args.frames} nudged frames each\n")
    print(f"{'marker places':32} {'pits from where four put them (mm): median':>44} {'95th pct':>9} {'largest':>8}")
    for way in WAYS:
        d = np.array(apart[way])
        print(f"{way:32} {np.median(d):44.2f} {np.percentile(d, 95):9.2f} {d.max():8.2f}")
    print(f"\n{'marker places':32} {'markers seen':>12} {'pits of 0-9 read exactly':>26} {'unseen':>8}")
    for way in WAYS:
        for seen in (4, 3):
            hits, read, unseen = exact[(way, seen)]
            print(f"{way:32} {seen:12} {f'{100 * hits / read:.2f} % of {read}':>26} {unseen:8}")
    for failure in failures:
        print(f"not calibrated: {failure}")


if __name__ == "__main__":
    main()
