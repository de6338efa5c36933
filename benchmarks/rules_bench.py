"""Random playouts of every variant: moves per second, next to OpenSpiel's C++ games driven from Python.

    .venv/bin/python benchmarks/rules_bench.py [SECONDS per measurement, default 2] [--variants NAME ...]

One move = legal-move generation + choosing one at random + playing it, as a
referee's search or a random playout does it. "no events" plays with
``events=False, check=False``; "events" builds the full event list. OpenSpiel's
``mancala`` and ``oware`` are driven the same way (``legal_actions``, random
choice, ``apply_action``), so the ratio compares like with like on this
machine at this moment. Targets (one core, no events): kalah and oware
>= 300,000 moves/s and >= 0.25 of OpenSpiel; every other variant >= 50,000.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

import rules

TARGETS = {"kalah": 300_000, "oware": 300_000}
OTHER_TARGET = 50_000
OPENSPIEL_TWIN = {"kalah": "mancala", "oware": "oware"}


def ours(variant: rules.Variant, seconds: float, events: bool) -> float:
    """Moves per second of random games of ``variant``."""
    rnd = random.Random(1).random
    legal_moves, play, start = variant.legal_moves, variant.play, variant.start
    moves_played = 0
    began = time.process_time()
    deadline = began + seconds
    while time.process_time() < deadline:
        pos = start()
        while pos.result is None:
            moves = legal_moves(pos)
            pos = play(pos, moves[int(rnd() * len(moves))], events=events, check=False)[0]
            moves_played += 1
    return moves_played / (time.process_time() - began)


def openspiel(name: str, seconds: float) -> float | None:
    """Moves per second of random games of OpenSpiel's ``name`` from Python, or None without pyspiel."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game(name)
    rnd = random.Random(1).random
    moves_played = 0
    began = time.process_time()
    deadline = began + seconds
    while time.process_time() < deadline:
        state = game.new_initial_state()
        while not state.is_terminal():
            actions = state.legal_actions()
            state.apply_action(actions[int(rnd() * len(actions))])
            moves_played += 1
    return moves_played / (time.process_time() - began)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="Random playouts of every variant: moves per second.")
    parser.add_argument("seconds", nargs="?", type=float, default=2.0, help="seconds per measurement (default 2)")
    parser.add_argument("--variants", nargs="+", choices=sorted(rules.VARIANTS), default=sorted(rules.VARIANTS),
                        metavar="NAME", help="variants to measure (default: all)")
    args = parser.parse_args(argv[1:])
    seconds = args.seconds
    print(f"random playouts, {seconds:g} s per measurement, moves/s (legal moves + random choice + play)\n")
    header = f"{'variant':<18}{'no events':>12}{'events':>12}{'target':>10}  {'OpenSpiel':>22}{'ratio':>7}  ok"
    print(header)
    print("-" * len(header))
    all_ok = True
    for name in args.variants:
        variant = rules.variant(name)
        quiet = ours(variant, seconds, events=False)
        logged = ours(variant, seconds, events=True)
        target = TARGETS.get(name, OTHER_TARGET)
        twin = OPENSPIEL_TWIN.get(name)
        reference = openspiel(twin, seconds) if twin else None
        ratio = quiet / reference if reference else None
        ok = quiet >= target and (ratio is None or ratio >= 0.25)
        all_ok &= ok
        other = f"{twin} {reference:,.0f}" if reference else ""
        print(f"{name:<18}{quiet:>12,.0f}{logged:>12,.0f}{target:>10,}  {other:>22}"
              f"{'' if ratio is None else f'{ratio:.2f}':>7}  {'yes' if ok else 'NO'}")
    print("\nall targets met" if all_ok else "\nsome targets missed (rerun on a quiet machine before judging)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
