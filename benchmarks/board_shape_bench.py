"""A board of another shape than the variant's: how calibration tells it from the right one.

    .venv/bin/python benchmarks/board_shape_bench.py [--scenes 8] [--seed 11] [--off 4]

For each board profile, ``--scenes`` set-ups (every other one seen in depth) whose markers are each
stuck up to ``--off`` mm off their places, photographed empty in a hard shot (lens distortion,
lamps, noise: ``random_shot(hard=True)``). Each empty picture is calibrated (``calibrate_empty``)
as its own profile and as every profile of another size. Printed, for the right profile: how many
set-ups calibrated, the largest stretch of their markers (across over deep, ``marker_sides``; 1 is
square), the farthest any hollow was found from the profile's place (``farthest_hollow``) and how far two
hollows reach into each other (``deepest_overlap``, below 0 how far apart they stay), with
the limits calibration refuses beyond (``SQUARE_WITHIN``, ``HOLLOWS_MOVED_MM``, ``HOLLOWS_OVERLAP_MM``) and the refusals by
their reason; for the other profiles: the refusals by reason, and how many calibrated (each one a
board of another shape taken for the variant's). Profiles of the same size (2x6+stores and 2x8)
are not told apart by shape: the start position tells them apart.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from calibration.calibfile import HOLLOWS_OVERLAP_MM, CalibrationError, deepest_overlap  # noqa: E402
from calibration.calibrate import HOLLOWS_MOVED_MM, calibrate_empty, farthest_hollow  # noqa: E402
from calibration.profiles import PROFILE_LAYOUTS, board_profile  # noqa: E402
from vision.markers import SQUARE_WITHIN, marker_sides  # noqa: E402
from vision.render import random_scene, random_shot, render  # noqa: E402


def refusal(error: CalibrationError) -> str:
    """Which check refused a calibration, in a word."""
    text = str(error)
    if "markers come out" in text:
        return "markers' shape"
    return "hollows moved" if "hollow lies" in text else "hollows overlap" if "into each other" in text else "other"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=8, help="set-ups of every profile")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--off", type=float, default=4.0, help="mm each marker is stuck off its place, at most")
    args = parser.parse_args()
    stretches, moves, overlaps = [], [], []
    right_refused: Counter[str] = Counter()
    other_refused: Counter[str] = Counter()
    other_accepted: list[str] = []
    for b, board in enumerate(PROFILE_LAYOUTS):
        size = board_profile(board).size
        for s in range(args.scenes):
            rng = np.random.default_rng([args.seed, b, s])
            scene = replace(random_scene(board, rng), relief=bool(s % 2),
                            marker_shifts=tuple(tuple(rng.uniform(-args.off, args.off, 2)) for _ in range(4)))
            empty = render(scene, {}, None, random_shot(rng, hard=True, hand=False)).image
            try:
                own = calibrate_empty(board, empty)
            except CalibrationError as error:
                right_refused[refusal(error)] += 1
            else:
                across, deep = marker_sides(own.markers)
                stretches.append(abs(math.log(across / deep)))
                moves.append(farthest_hollow(own.hollows, own.profile, own.px_per_mm)[1])
                overlaps.append(deepest_overlap(own.hollows, own.px_per_mm)[2])
            for other in PROFILE_LAYOUTS:
                if board_profile(other).size == size:
                    continue
                try:
                    calibrate_empty(other, empty)
                except CalibrationError as error:
                    other_refused[refusal(error)] += 1
                else:
                    other_accepted.append(f"{board} scene {s} as {other}")
    print(f"{args.scenes} set-ups of each of {len(PROFILE_LAYOUTS)} profiles, seed {args.seed}, markers up to "
          f"{args.off:g} mm off, hard shots")
    print(f"right profile: {len(stretches)} calibrated; refused {dict(right_refused) or 'none'}")
    if stretches:
        print(f"  markers at most {math.exp(max(stretches)) - 1:.1%} off square (refused beyond "
              f"{math.exp(SQUARE_WITHIN) - 1:.0%}); hollows at most {max(moves):.1f} mm off (refused beyond "
              f"{HOLLOWS_MOVED_MM:g} mm); two hollows at most {max(overlaps):.1f} mm into each other (below 0: "
              f"apart; refused beyond {HOLLOWS_OVERLAP_MM:g} mm)")
    print(f"other profiles: refused {dict(other_refused)}; calibrated {len(other_accepted)}"
          + (f": {', '.join(other_accepted)}" if other_accepted else ""))


if __name__ == "__main__":
    main()
