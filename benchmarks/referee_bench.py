"""Referee latency per variant: median and 99th percentile, for one-move and three-move gaps.

Plays random games of every variant, and at random plies judges a noisy
Reading (``rules.referee.noise``) of the board one move later (the usual
case) and three moves later (two boards missed by the camera). One Referee
per variant, as in a live session; every position judged is new to it.

    .venv/bin/python benchmarks/referee_bench.py [--samples 300] [--seed 1] [--variants kalah,oware]

Prints wall-clock and CPU time (``time.process_time``: what the verdict costs,
not the moments another process had the core) and the load average before and
after. The samples of each variant and gap depend only on ``--seed``, so
``--variants`` re-measures exactly what a full run measured. Noise between runs
on a shared machine is large: compare code by interleaved, repeated runs.

Targets (issue 3): median <= 2 ms and p99 <= 20 ms for every variant.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

import rules
from rules.referee import Referee, noisy_reading


def random_game(variant: rules.Variant, rng: random.Random) -> list[rules.Position]:
    positions = [variant.start()]
    while len(positions) < 400:
        moves = variant.legal_moves(positions[-1])
        if not moves:
            break
        positions.append(variant.play(positions[-1], rng.choice(moves), events=False)[0])
    return positions


def latencies(name: str, gap: int, samples: int, rng: random.Random
              ) -> tuple[list[float], list[float], dict[str, int]]:
    """Wall-clock and CPU seconds per verdict, and the verdict kinds, over ``samples`` judgements.

    CPU time is what the verdict costs on this machine; wall time also counts
    the moments another process had the core (the machine is shared)."""
    variant = rules.variant(name)
    referee = Referee()
    times: list[float] = []
    cpu: list[float] = []
    kinds: dict[str, int] = {}
    while len(times) < samples:
        game = random_game(variant, rng)
        for ply in rng.sample(range(gap, len(game)), min(5, max(0, len(game) - gap))):
            reading = noisy_reading(game[ply], rng)
            history = game[:ply - gap + 1]
            start, start_cpu = time.perf_counter(), time.process_time()
            verdict = referee.judge(history, reading)
            times.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
            kinds[verdict.kind] = kinds.get(verdict.kind, 0) + 1
    return times, cpu, kinds


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=300, help="verdicts per variant and gap")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--variants", default=",".join(rules.VARIANTS), help="comma-separated names")
    args = parser.parse_args()
    print(load_average("before"))
    print(f"{'variant':18} {'gap':>3} {'median ms':>10} {'p99 ms':>8} {'cpu median':>11} {'cpu p99':>8}"
          "  verdicts")
    worst = {"median": 0.0, "p99": 0.0, "cpu median": 0.0, "cpu p99": 0.0}
    for name in args.variants.split(","):
        for gap in (1, 3):
            # a generator per variant and gap: a run of some variants judges what a full run does
            times, cpu, kinds = latencies(name, gap, args.samples, random.Random(f"{args.seed} {name} {gap}"))
            figures = {"median": statistics.median(times) * 1e3, "p99": percentile(times, 0.99) * 1e3,
                       "cpu median": statistics.median(cpu) * 1e3, "cpu p99": percentile(cpu, 0.99) * 1e3}
            worst = {k: max(worst[k], v) for k, v in figures.items()}
            summary = " ".join(f"{k}={n}" for k, n in sorted(kinds.items()))
            print(f"{name:18} {gap:>3} {figures['median']:>10.2f} {figures['p99']:>8.2f} "
                  f"{figures['cpu median']:>11.2f} {figures['cpu p99']:>8.2f}  {summary}")
    print("worst: " + ", ".join(f"{k} {v:.2f} ms" for k, v in worst.items()))
    for clock in ("", "cpu "):
        met = worst[clock + "median"] <= 2 and worst[clock + "p99"] <= 20
        print(f"target (median <= 2 ms, p99 <= 20 ms) by {clock or 'wall '}time: {'met' if met else 'NOT met'}")
    print(load_average("after"))


def load_average(when: str) -> str:
    """Wall-clock figures mean little without the load beside them (the machine is shared)."""
    one, five, fifteen = os.getloadavg()
    return f"load average {when}: {one:.2f} {five:.2f} {fifteen:.2f} ({os.cpu_count()} cores)"


if __name__ == "__main__":
    main()
