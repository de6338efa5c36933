"""Pits that kept their look: how often an untouched pile is seen untouched, and a touched one not.

    .venv/bin/python benchmarks/looks_bench.py [--setups 3] [--frames 4] [--seed 11] [--easy]

For several board profiles and seed kinds, ``--setups`` set-ups each show
``--frames`` random boards twice, as a table does between two still moments:
the set-up's camera, lens and lamp stay (hard by default: blur, noise, JPEG,
uneven light), the light drifts by up to 5 %, the board is nudged by up to
3 mm one time in three, the exposure is new, and the seeds lie as they lay
(the renderer's ``Shot.piles``), except that in some pits one seed was sown
on top and in others the top one was taken off. Every pit the reader counts
in both frames is compared (``vision.unchanged.compared_look``).

Prints, per kind of pit, how untouched and touched pits looked: kept their
look, changed with no seed-sized spot, or moved (a seed-sized spot changed).
``pitwatch.settled.LOOKS`` weighs each look by these rates: an untouched pile
that looked moved, or a touched one that kept its look, is false evidence, and
the weights must stay well clear of how often it happens.
"""

from __future__ import annotations

import argparse
from collections import Counter
from dataclasses import replace

import cv2
import numpy as np

from calibration.calibfile import CalibrationError
from vision.reader import BoardReader
from vision.render import random_counts, random_shot, render
from vision.unchanged import CHANGED, KEPT, MOVED, compared_look
from vision_bench import calibrated_scene

BOARDS = ("kalah", "oware", "pass-it-on", "bao-kenya", "bao-la-kujifunza")
NUDGED, NUDGE_MM, DRIFT = 1 / 3, 3.0, 0.05


def touched_counts(counts: dict[str, int], rng: np.random.Generator) -> dict[str, int]:
    """One seed more in about a third of the non-empty pits, one fewer (the top one) in another third."""
    after = dict(counts)
    for label, n in counts.items():
        roll = rng.random()
        if n > 0 and roll < 1 / 3:
            after[label] = n + 1
        elif n > 1 and roll < 2 / 3:
            after[label] = n - 1
    return after


def compare_setup(board: str, setup: int, args: argparse.Namespace, tally: Counter) -> None:
    rng = np.random.default_rng([args.seed, BOARDS.index(board), setup])
    scene, calibration = calibrated_scene(board, rng)
    reader = BoardReader(calibration)
    table = replace(random_shot(rng, hard=not args.easy), hand=False)
    store_of = {h.label: h.is_store for h in scene.profile.hollows}
    for _ in range(args.frames):
        counts, white = random_counts(scene.profile, rng)
        piles = {label: int(rng.integers(1 << 30)) for label in counts}
        before = reader.read(render(scene, counts, white, replace(table, piles=piles, exposure=int(rng.integers(1 << 30)))).image)
        after = touched_counts(counts, rng)
        white_after = None if white is None else {label: min(w, after[label]) for label, w in white.items()}
        dx, dy, turn = table.nudge
        nudge = (dx + float(rng.uniform(-NUDGE_MM, NUDGE_MM)), dy + float(rng.uniform(-NUDGE_MM, NUDGE_MM)), turn) \
            if rng.random() < NUDGED else table.nudge
        shot = replace(table, piles=piles, nudge=nudge, gain=table.gain * float(rng.uniform(1 - DRIFT, 1 + DRIFT)),
                       exposure=int(rng.integers(1 << 30)))
        now = reader.read(render(scene, after, white_after, shot).image)
        for label in set(before.views) & set(now.views):
            kind = f"{'store' if store_of[label] else 'pit'}{', chips' if scene.profile.chips else ''}"
            state = "untouched" if after[label] == counts[label] else "touched"
            look = compared_look(before.views[label], now.views[label])
            tally[(kind, state, "pits")] += 1
            tally[(kind, state, look)] += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--setups", type=int, default=3)
    parser.add_argument("--frames", type=int, default=4)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--easy", action="store_true", help="easy conditions (little noise and blur) instead of hard ones")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    tally: Counter = Counter()
    for board in BOARDS:
        for setup in range(args.setups):
            try:
                compare_setup(board, setup, args, tally)
            except CalibrationError as error:
                print(f"{board} set-up {setup}: not calibrated ({error})")
    looks = (KEPT, f"{CHANGED}, no seed spot", MOVED)
    print(f"{'kind of pit':28}" + "".join(f"{look:>24}" for look in looks))
    for kind in sorted({key[0] for key in tally}):
        for state in ("untouched", "touched"):
            pits = tally[(kind, state, "pits")]
            cells = [f"{tally[(kind, state, look)]} of {pits} ({100 * tally[(kind, state, look)] / pits:.1f} %)"
                     if pits else "-" for look in (KEPT, CHANGED, MOVED)]
            print(f"{f'{kind}, {state}':28}" + "".join(f"{cell:>24}" for cell in cells))
    print(f"conditions: {'easy' if args.easy else 'hard'}")


if __name__ == "__main__":
    main()
