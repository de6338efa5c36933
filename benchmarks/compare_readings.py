"""Compare two runs of the vision benchmark pit by pit: how many pits the second run mended and
how many it broke, by heap size, and whether that is more than chance.

    .venv/bin/python benchmarks/vision_bench.py --relief --readings before.csv
    ...change the reader or its networks...
    .venv/bin/python benchmarks/vision_bench.py --relief --readings after.csv
    .venv/bin/python benchmarks/compare_readings.py before.csv after.csv

Both runs must read the same frames (the same ``--seed``, ``--scenes``, ``--frames``, ``--frame``,
``--relief`` and ``--corners``): the pits are paired by board, set-up, frame and label, and a pit
whose truth differs between the files is refused. Pits under a hand are left out (the reader
should not see them); pits either run did not see are counted apart. The sign test asks how
likely as lopsided a split of the pits that changed would be if the change were a coin toss.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from pit_readings import BINS, Key, ReadingsFileError, heap_bin, load_readings

ALL_UP_TO_NINE = "0-9"


def sign_test(mended: int, broken: int) -> float:
    """Two-sided exact binomial test of ``mended`` against ``broken`` at even odds."""
    changed = mended + broken
    if changed == 0:
        return 1.0
    tail = sum(math.comb(changed, k) for k in range(min(mended, broken) + 1)) / 2 ** changed
    return min(1.0, 2 * tail)


def paired(before: dict[Key, tuple], after: dict[Key, tuple]) -> tuple[dict[str, list[int]], int, int, int]:
    """Per heap bin (and all pits of 0-9 together) [pits read by both, exact before, exact after,
    mended, broken]; the pits read as another count at all (wrong either way, some); and the pits
    unseen before and after. Raises ValueError where the two files did not read the same frames."""
    if before.keys() != after.keys():
        only = sorted(before.keys() ^ after.keys())
        raise ValueError(f"the two files read different pits ({len(only)} in one only, the first {only[0]}): "
                         "run both with the same --seed, --scenes, --frames, --frame, --relief and --corners")
    tallies = {name: [0, 0, 0, 0, 0] for name in [*(name for _, _, name in BINS), ALL_UP_TO_NINE]}
    recounted = unseen_before = unseen_after = 0
    for key, (truth, covered, read_before) in before.items():
        truth_after, _, read_after = after[key]
        if truth_after != truth:
            raise ValueError(f"pit {key} holds {truth} seeds in the first file and {truth_after} in the second: "
                             "not the same frames")
        if covered:
            continue
        unseen_before += read_before is None
        unseen_after += read_after is None
        if read_before is None or read_after is None:
            continue
        recounted += read_before != read_after
        right_before, right_after = read_before == truth, read_after == truth
        change = [1, int(right_before), int(right_after), int(right_after and not right_before),
                  int(right_before and not right_after)]
        for name in [heap_bin(truth)] + ([ALL_UP_TO_NINE] if truth <= 9 else []):
            tallies[name] = [total + step for total, step in zip(tallies[name], change)]
    return tallies, recounted, unseen_before, unseen_after


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before", type=Path, help="readings of the first run (vision_bench.py --readings)")
    parser.add_argument("after", type=Path, help="readings of the second run, of the same frames")
    args = parser.parse_args()
    try:
        tallies, recounted, unseen_before, unseen_after = paired(load_readings(args.before), load_readings(args.after))
    except (ReadingsFileError, ValueError) as error:
        sys.exit(f"compare_readings.py: {error}")
    print(f"before: {args.before}   after: {args.after}")
    print(f"  {'pits of':8s} {'read':>6s} {'exact before':>16s} {'exact after':>16s} {'mended':>7s} {'broken':>7s}  sign test p")
    for name, (read, before, after, mended, broken) in tallies.items():
        if read:
            print(f"  {name:8s} {read:6d} {before:7d} {100 * before / read:6.2f} % {after:7d} {100 * after / read:6.2f} % "
                  f"{mended:7d} {broken:7d}  {sign_test(mended, broken):.3g}")
    changed = sum(mended + broken for name, (*_, mended, broken) in tallies.items() if name != ALL_UP_TO_NINE)
    print(f"  pits read as another count: {recounted} ({changed} mended or broken, {recounted - changed} wrong either way)")
    print(f"  pits not under a hand that were not seen: {unseen_before} before, {unseen_after} after")


if __name__ == "__main__":
    main()
