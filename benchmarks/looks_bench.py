"""Pits that kept their look: how often an untouched pile is seen untouched, and a touched one not.

    .venv/bin/python benchmarks/looks_bench.py [--setups 3] [--frames 4] [--seed 11] [--easy]
        [--boards kalah,pass-it-on]

For several board profiles and seed kinds, ``--setups`` set-ups each show
``--frames`` random boards twice, as a table does between two still moments:
the set-up's camera, lens and lamp stay (hard by default: blur, noise, JPEG,
uneven light), the light drifts by up to 5 %, the board is nudged by up to
3 mm one time in three, the exposure is new, and the seeds lie as they lay
(the renderer's ``Shot.piles`` and ``Shot.stacks``), except that in some pits
one or two seeds were sown on top and in others the top one or two were taken
off (the other chips keep their colours). Every pit the reader counts in both
frames is compared (``vision.unchanged.compared_look``).

Prints, per kind of pit, how untouched and touched pits looked: kept their
look, changed with no seed-sized spot, or moved (a seed-sized spot changed).
``pitwatch.settled.LOOKS`` weighs each look by these rates: an untouched pile
that looked moved, or a touched one that kept its look, is false evidence, and
the weights must stay well clear of how often it happens. Then, per kind of
pit and change (-2, -1, +1, +2), the area the moved pits changed
(``Look.moved_mm2``): its 10th, 50th and 90th percentiles and spread, and how
often ``pitwatch.settled.SEED_AREAS`` takes the number of seeds moved (one or
two) for the likelier, or the wrong one for ten times as likely.
"""

from __future__ import annotations

import argparse
import math
from collections import Counter
from dataclasses import replace

import cv2
import numpy as np

from calibration.calibfile import CalibrationError
from pitwatch.settled import SEED_AREAS
from vision.reader import BoardReader
from vision.render import Stack, random_counts, random_shot, render, restacked, stack_of
from vision.unchanged import CHANGED, KEPT, MOVED, compared_look
from setups import calibrated_scene

BOARDS = ("kalah", "oware", "pass-it-on", "bao-kenya", "bao-la-kujifunza")
NUDGED, NUDGE_MM, DRIFT = 1 / 3, 3.0, 0.05
KIND_NAMES = {(False, False): "pit", (False, True): "store", (True, False): "pit, chips", (True, True): "store, chips"}
Kind = tuple[bool, bool]  # (chips, store), as pitwatch.settled's tables
Z90 = 1.2816  # the standard normal's 90th percentile: a log-normal's 10th to 90th percentiles span 2 * Z90 sigma
TOUCHES = ((0.2, 1), (0.4, -1), (0.5, 2), (0.6, -2))  # (cumulative share of the non-empty pits, seeds added)


def touched(stacks: dict[str, Stack], rng: np.random.Generator) -> dict[str, Stack]:
    """One seed more (a yellow chip in Pass It On) in about a fifth of the non-empty pits, one
    fewer (the top one) in another fifth, two more in a tenth and two fewer in another tenth; a
    pit is never emptied."""
    after = dict(stacks)
    for label, stack in stacks.items():
        roll = rng.random()
        change = next((change for share, change in TOUCHES if roll < share), 0)
        if stack and len(stack) + change > 0:
            after[label] = stack[:change] if change < 0 else restacked(stack, len(stack) + change, whites(stack))
    return after


def whites(stack: Stack) -> int:
    """How many of a stack's seeds are white chips."""
    return sum(white for _, white in stack)


def compare_setup(board: str, setup: int, args: argparse.Namespace, tally: Counter,
                  areas: dict[tuple[Kind, int], list[int]]) -> None:
    rng = np.random.default_rng([args.seed, BOARDS.index(board), setup])
    scene, calibration = calibrated_scene(board, rng)
    reader = BoardReader(calibration)
    table = replace(random_shot(rng, hard=not args.easy), hand=False)
    store_of = {h.label: h.is_store for h in scene.profile.hollows}
    for _ in range(args.frames):
        counts, white = random_counts(scene.profile, rng)
        piles = {label: int(rng.integers(1 << 30)) for label in counts}
        stacks = {label: stack_of(n, (white or {}).get(label, 0)) for label, n in counts.items()}
        before = reader.read(render(scene, counts, white, replace(table, piles=piles, stacks=stacks,
                                                                   exposure=int(rng.integers(1 << 30)))).image)
        stacks_after = touched(stacks, rng)
        after = {label: len(stack) for label, stack in stacks_after.items()}
        white_after = None if white is None else {label: whites(stack) for label, stack in stacks_after.items()}
        dx, dy, turn = table.nudge
        nudge = (dx + float(rng.uniform(-NUDGE_MM, NUDGE_MM)), dy + float(rng.uniform(-NUDGE_MM, NUDGE_MM)), turn) \
            if rng.random() < NUDGED else table.nudge
        shot = replace(table, piles=piles, stacks=stacks_after, nudge=nudge, gain=table.gain * float(rng.uniform(1 - DRIFT, 1 + DRIFT)),
                       exposure=int(rng.integers(1 << 30)))
        now = reader.read(render(scene, after, white_after, shot).image)
        for label in set(before.views) & set(now.views):
            kind = scene.profile.chips, store_of[label]
            state = "untouched" if after[label] == counts[label] else "touched"
            look = compared_look(before.views[label], now.views[label])
            tally[(kind, state, "pits")] += 1
            tally[(kind, state, look.name)] += 1
            if look.name == MOVED and state == "touched":
                areas.setdefault((kind, after[label] - counts[label]), []).append(look.moved_mm2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--setups", type=int, default=3)
    parser.add_argument("--frames", type=int, default=4)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--easy", action="store_true", help="easy conditions (little noise and blur) instead of hard ones")
    parser.add_argument("--boards", type=lambda text: text.split(","), default=BOARDS,
                        help=f"comma-separated board profiles (default: {','.join(BOARDS)})")
    args = parser.parse_args()
    unknown = sorted(set(args.boards) - set(BOARDS))
    if unknown:
        parser.error(f"--boards: unknown {', '.join(unknown)}; choose from {', '.join(BOARDS)}")
    cv2.setNumThreads(1)
    tally: Counter = Counter()
    areas: dict[tuple[Kind, int], list[int]] = {}
    for board in args.boards:
        for setup in range(args.setups):
            try:
                compare_setup(board, setup, args, tally, areas)
            except CalibrationError as error:
                print(f"{board} set-up {setup}: not calibrated ({error})")
    looks = (KEPT, f"{CHANGED}, no seed spot", MOVED)
    print(f"{'kind of pit':28}" + "".join(f"{look:>24}" for look in looks))
    for kind in sorted({key[0] for key in tally}):
        for state in ("untouched", "touched"):
            pits = tally[(kind, state, "pits")]
            cells = [f"{tally[(kind, state, look)]} of {pits} ({100 * tally[(kind, state, look)] / pits:.1f} %)"
                     if pits else "-" for look in (KEPT, CHANGED, MOVED)]
            print(f"{f'{KIND_NAMES[kind]}, {state}':28}" + "".join(f"{cell:>24}" for cell in cells))
    print_areas(areas)
    print(f"conditions: {'easy' if args.easy else 'hard'}")


def print_areas(areas: dict[tuple[Kind, int], list[int]]) -> None:
    """The area touched pits that moved changed, by kind of pit and change: its percentiles and
    spread (the log-normal sigma the 10th and 90th percentiles imply), and how the model of
    ``pitwatch.settled.SEED_AREAS`` weighs one seed against two: how often it favours the truth,
    and how often it says the wrong number is ten times as likely or more."""
    print(f"\n{'moved area (mm2)':22}{'change':>7}{'pits':>6}{'10 %':>6}{'50 %':>6}{'90 %':>6}{'spread':>8}"
          f"{'model favours truth':>22}{'wrong, 10:1 or more':>22}")
    for kind, change in sorted(areas):
        found = areas[kind, change]
        q10, q50, q90 = np.percentile(found, (10, 50, 90))
        spread = math.log(max(q90, 1) / max(q10, 1)) / (2 * Z90)
        seeds, other = abs(change), 3 - abs(change)
        odds = [SEED_AREAS[kind].weight(area, seeds, change > 0) / SEED_AREAS[kind].weight(area, other, change > 0)
                for area in found]
        right, wrong = sum(o > 1 for o in odds), sum(o <= 0.1 for o in odds)
        print(f"{KIND_NAMES[kind]:22}{change:>+7}{len(found):>6}{q10:>6.0f}{q50:>6.0f}{q90:>6.0f}{spread:>8.2f}"
              f"{f'{right} ({100 * right / len(found):.1f} %)':>22}{f'{wrong} ({100 * wrong / len(found):.1f} %)':>22}")


if __name__ == "__main__":
    main()
