"""Stillness gate benchmark: is one seed moved with no hand in view seen, and is a still board left still?

    .venv/bin/python benchmarks/stillness_bench.py [--setups 8] [--seed 1] [--easy] [--flicker 0]

The gate (``vision.live.StillnessGate``) holds a board's Reading back until it
has been still; once it has given one, only motion makes it read the board
again. A move is normally made under a hand, which resets it, but one seed
may be dropped or taken with no hand in view (a fingertip too small to be a
hand, a hand out of the picture, the demo's virtual board).

For every board profile, ``--setups`` set-ups (seed kind, wood, lamp, camera;
hard conditions unless ``--easy``: blur, noise, JPEG, uneven light; with
``--flicker SWING``, bands of mains flicker SWING brighter and darker that move
between the two frames of a case) are calibrated from an easy empty and start frame; random counts are laid out,
one pit holding a single seed. Each case compares two frames, as the gate
sees them one after the other:

- ``still``: the next exposure of the same board (new sensor noise and JPEG),
  the light 1 % brighter or darker; it must not be motion;
- ``taken``: the pit's single seed taken;
- ``dropped, empty``: one seed dropped into an empty pit;
- ``dropped, heap``: one seed dropped onto a heap (it lands on top);
- ``taken, store``: the top seed (chip) taken from the fullest store or outbox.

Prints, per case, how often the gate saw motion, the spots of change it
measured (mm2; its threshold is ``StillnessGate.SEED_SPOT_MM2``) and the share
of the board that changed (its other threshold, ``motion_threshold``: 0.2 %),
the gate's CPU time for a frame (one thread), and every case it got wrong.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from calibration.calibfile import CalibrationError  # noqa: E402
from calibration.profiles import PROFILE_LAYOUTS, board_profile  # noqa: E402
from vision.live import GateState, StillnessGate  # noqa: E402
from vision.reader import BoardReader, FrameResult  # noqa: E402
from vision.render import random_counts, random_shot, render  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from setups import calibrated_scene  # noqa: E402

CASES = ("still", "taken", "dropped, empty", "dropped, heap", "taken, store")


def gate_after(first: FrameResult, second: FrameResult) -> tuple[GateState, float]:
    """The gate's state after two frames' results in a row, and the CPU time (s) it took to judge
    the second. Timed on the pair's second showing, what the gate keeps while the board stays put
    in the picture already made, as at a table."""
    gate = StillnessGate()
    for result in (first, second, first):
        gate.update(result)
    started = time.process_time()
    gate.update(second)
    return gate.state, time.process_time() - started


def changes(counts: dict[str, int], pits: list[str], stores: list[str], rng: np.random.Generator) -> dict[str, dict]:
    """The counts after each case (a pit of one seed, an empty pit and a heap are made first)."""
    single, empty, heap = (str(label) for label in rng.choice(pits, 3, replace=False))
    counts.update({single: 1, empty: 0, heap: max(counts[heap], 5)})
    fullest = max(stores, key=lambda label: counts[label]) if stores else None
    cases = {"still": dict(counts), "taken": {**counts, single: 0}, "dropped, empty": {**counts, empty: 1},
             "dropped, heap": {**counts, heap: counts[heap] + 1}}
    if fullest is not None and counts[fullest] > 0:
        cases["taken, store"] = {**counts, fullest: counts[fullest] - 1}
    return cases


def run(setups: int, seed: int, easy: bool, flicker: float = 0.0) -> dict:
    seen: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # case -> [motion seen, cases]
    states: dict[str, list[GateState]] = defaultdict(list)  # case -> the gate's state after each pair
    times: dict[str, list[float]] = defaultdict(list)  # case -> CPU seconds the gate took on each pair's second frame
    misses: list[str] = []
    for b, board in enumerate(PROFILE_LAYOUTS):
        profile = board_profile(board)
        pits = [h.label for h in profile.hollows if not h.is_store]
        stores = [h.label for h in profile.hollows if h.is_store]
        for s in range(setups):
            rng = np.random.default_rng([seed, b, s])
            try:
                scene, calibration = calibrated_scene(board, rng)
            except CalibrationError:
                continue
            reader = BoardReader(calibration)
            shot = replace(random_shot(rng, hard=not easy, hand=False), flicker=flicker,
                           piles={label: int(rng.integers(1 << 30)) for label in profile.layout.labels})
            counts, white = random_counts(profile, rng)
            cases = changes(counts, pits, stores, rng)

            def frame(shown: dict[str, int], exposure: int, gain: float = 1.0) -> np.ndarray:
                whites = None if white is None else {label: min(white.get(label, 0), n) for label, n in shown.items()}
                return render(scene, shown, whites, replace(shot, exposure=exposure, gain=shot.gain * gain)).image

            before = frame(cases["still"], 0)
            for k, (case, shown) in enumerate(cases.items(), start=1):
                first = reader.read(before)  # the frame before, then this case's, as the live loop reads them
                if first.board is None or first.status.hand:
                    break
                after = reader.read(frame(shown, 3 * k + 1,  # the next frame's flicker: its bands a third on
                                          float(rng.choice([0.99, 1.01])) if case == "still" else 1.0))
                state, spent = gate_after(first, after)
                times[case].append(spent)
                moving = state.state == "moving"
                seen[case][0] += moving
                seen[case][1] += 1
                states[case].append(state)
                if moving == (case == "still"):
                    misses.append(f"{case}: {board} set-up {s}, {scene.seed_kind}, blur {shot.blur:.1f} px, noise {shot.noise:.1f}, "
                                  f"JPEG {shot.jpeg}: spot {state.spot_mm2:.0f} mm2, {100 * state.motion:.2f} % of the board; "
                                  f"markers {len(first.status.markers_seen)} then {len(after.status.markers_seen)}")
    return {"seen": dict(seen), "states": dict(states), "times": dict(times), "misses": misses}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--setups", type=int, default=8, help="set-ups per board profile")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--easy", action="store_true", help="easy conditions instead of hard ones")
    parser.add_argument("--flicker", type=float, default=0.0, metavar="SWING",
                        help="bands of mains flicker across the picture, SWING brighter and darker (0.1: 10 %%)")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    result = run(args.setups, args.seed, args.easy, args.flicker)
    print(f"stillness gate, {'easy' if args.easy else 'hard'} conditions"
          f"{f', mains flicker in bands {100 * args.flicker:g} % either way' if args.flicker else ''}, seed {args.seed}, "
          f"threshold {StillnessGate.SEED_SPOT_MM2:g} mm2 of change in one spot")
    for case in CASES:
        hits, total = result["seen"].get(case, (0, 0))
        if not total:
            continue
        spot = [state.spot_mm2 for state in result["states"][case]]
        share = [100 * state.motion for state in result["states"][case]]
        low, high = np.percentile(spot, [5, 95])
        print(f"  {case:16s} seen as motion {hits:3d} of {total:3d}; spot of change: smallest {min(spot):.0f} mm2, "
              f"5 % {low:.0f}, 95 % {high:.0f}, largest {max(spot):.0f}; share of the board changed "
              f"{min(share):.2f}-{max(share):.2f} %")
    still, moved = result["times"].get("still", []), [t for case in CASES[1:] for t in result["times"].get(case, [])]
    if still and moved:
        print(f"  the gate's CPU time for a frame (median): {1000 * np.median(still):.2f} ms still, "
              f"{1000 * np.median(moved):.2f} ms with a seed moved (one thread)")
    for miss in result["misses"]:
        print("  missed:", miss)


if __name__ == "__main__":
    main()
