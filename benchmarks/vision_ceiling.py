"""How much of every seed the renderer lets a camera see: the ceiling of any pit reader.

    .venv/bin/python benchmarks/vision_ceiling.py [--pits 300] [--seed 5] [--shows 1 4 10]

Seeds dropped into a hollow spread out, touch, then pile on top of each
other. A seed whose top is hidden under later seeds leaves nothing in the
picture to count, and one that shows a sliver of a few square millimetres
(a few pixels at the camera's 1.5-2 px/mm, and at the counter's 1 px/mm,
blurred and compressed) is barely there. For hollows of every seed kind
holding 5 to 40 seeds, placed exactly as the renderer places them
(``vision.render.place_seeds``, the same seed sizes and outlines), in a
playing hollow and in a store of a two-row board, this prints how often some
seed of the hollow shows less than 4, 10 or 20 mm2 of its top, and the best
exact and within-one accuracy on the benchmark's heap-size bins (each count
equally likely) of a reader that counts perfectly every seed showing at
least ``--shows`` mm2 of its top (and sees nothing of the others): 1 mm2 is
what no reader can beat; 10 mm2 is ten pixels of the counter's window. It
asserts nothing; it says which accuracy targets the pictures allow.

    .venv/bin/python benchmarks/vision_ceiling.py --tilts 20 29 37 [--pits 100]

``--tilts`` does the same for a board seen in depth (``Scene.relief``), as a
camera on South's side that many degrees from overhead sees it: 1 to 19
seeds drawn by the renderer itself into a playing hollow in the middle of a
2 x 6 board with stores (``vision.render.draw_seeds``, standing on the
hollow's bowl and on each other), each ray through the board's plane
followed down to the first seed or wood it meets
(``vision.render.seen_on_relief``), and each seed's area counted where the
rectified picture shows it (mm2 of the board's plane); first straight
overhead, the same seeds, for comparison: how much of each seed the hollow's
near rim and the other seeds hide from an oblique camera.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import Counter, defaultdict
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from calibration.profiles import HOLLOW_AXES_MM, board_profile  # noqa: E402
from vision.render import (SEED_AXES_MM, TEXTURE_PX_PER_MM, draw_seeds, eye_over_board, hollow_depth,  # noqa: E402
                           place_seeds, random_scene, seen_on_relief)

KINDS = ("bean", "glass", "pebble", "chip")
SLIVERS_MM2 = (4, 10, 20)
BINS = ((5, 9), (10, 19), (20, 40))
STORE_AXES_MM = next(h.axes for h in board_profile("2x6+stores").hollows if h.is_store)
HOLLOWS = (("playing hollow", HOLLOW_AXES_MM), ("store", STORE_AXES_MM))


def shown_areas(count: int, kind: str, axes_mm: tuple[float, float], rng: np.random.Generator) -> np.ndarray:
    """mm2 of each seed's top left in view once all ``count`` seeds lie in a hollow of semi-axes ``axes_mm``."""
    s = TEXTURE_PX_PER_MM
    axes = SEED_AXES_MM[kind]
    seeds = place_seeds(count, (0.0, 0.0), axes_mm, max(axes), rng)
    across, along = axes_mm[0] + 10, axes_mm[1] + 10
    yy, xx = np.mgrid[-along:along:1 / s, -across:across:1 / s].astype(np.float32)
    on_top = np.full(xx.shape, -1, np.int32)
    for k, (x, y, _) in enumerate(seeds):  # later seeds lie over earlier ones, as the renderer draws them
        scale = rng.uniform(0.9, 1.1)
        a, b = axes[0] * scale, axes[1] * scale
        turn = rng.uniform(0, math.pi)
        c, si = math.cos(turn), math.sin(turn)
        u, v = c * (xx - x) + si * (yy - y), -si * (xx - x) + c * (yy - y)
        on_top[(u / a) ** 2 + (v / b) ** 2 < 0.85] = k  # the opaque body (the renderer fades the last 15 % of the rim)
    return np.bincount(on_top[on_top >= 0], minlength=count) / (s * s)


DEPTH_BOARD = "2x6+stores"
DEPTH_BINS = ((1, 4), (5, 9), (10, 19))
VIEW_MARGIN_MM = 12.0  # the rectified picture round the hollow in which its seeds may show (a heap leans out)


def shown_in_depth(count: int, kind: str, tilts: list[float], rng: np.random.Generator) -> dict[float, np.ndarray]:
    """mm2 of the rectified picture each of ``count`` seeds of ``kind`` shows, dropped by the
    renderer into the middle playing hollow of a board seen in depth from a camera ``tilt``
    degrees from overhead, per tilt (0: straight overhead, the seeds' tops)."""
    s = TEXTURE_PX_PER_MM
    profile = board_profile(DEPTH_BOARD)
    width, height = profile.size
    hollow = min((h for h in profile.hollows if not h.is_store),
                 key=lambda h: math.hypot(h.centre[0] - width / 2, h.centre[1] - height / 2))
    scene = replace(random_scene(DEPTH_BOARD, rng, kind), yaw=0.0, relief=True)
    heights = -hollow_depth(DEPTH_BOARD)
    ids = np.zeros(heights.shape, np.int32)
    texture = np.zeros((*heights.shape, 3), np.float32)
    draw_seeds(texture, scene, {hollow.label: count}, None, rng, heights=heights, ids=ids)
    (cx, cy), (a, b) = hollow.centre, hollow.axes
    yy, xx = np.mgrid[(cy - b - VIEW_MARGIN_MM) * s:(cy + b + VIEW_MARGIN_MM) * s,
                      (cx - a - VIEW_MARGIN_MM) * s:(cx + a + VIEW_MARGIN_MM) * s].astype(np.float32)
    plane = np.stack([xx.ravel(), yy.ravel()], axis=1)
    shown = {}
    for tilt in tilts:
        seen = plane if tilt == 0 else seen_on_relief(plane, heights, eye_over_board(replace(scene, tilt=math.radians(tilt))))
        x = np.clip(np.rint(seen[:, 0]).astype(int), 0, ids.shape[1] - 1)
        y = np.clip(np.rint(seen[:, 1]).astype(int), 0, ids.shape[0] - 1)
        shown[tilt] = np.bincount(ids[y, x], minlength=count + 1)[1:] / (s * s)
    return shown


def depth_main(tilts: list[float], pits: int, shows: list[float], rng: np.random.Generator) -> None:
    """The ``--tilts`` run: what a camera that many degrees from overhead leaves in view."""
    views = [0.0, *tilts]
    print(f"{pits} hollows per seed kind and count, 1-19 seeds, the middle playing hollow of a "
          f"{DEPTH_BOARD} board seen in depth; 0 degrees: straight overhead")
    for kind in KINDS:
        hidden = {tilt: defaultdict(int) for tilt in views}  # tilt -> count -> hollows with a seed under 4 mm2
        showing = {(tilt, mm2): defaultdict(Counter) for tilt in views for mm2 in shows}
        for count in range(1, DEPTH_BINS[-1][1] + 1):
            for _ in range(pits):
                for tilt, areas in shown_in_depth(count, kind, views, rng).items():
                    hidden[tilt][count] += int(areas.min() < 4)
                    for mm2 in shows:
                        showing[tilt, mm2][count][int((areas >= mm2).sum())] += 1
        print(f"{kind}:")
        for tilt in views:
            shares = ", ".join(f"{count}: {100 * hidden[tilt][count] / pits:3.0f} %" for count in (1, 3, 5, 7, 9, 12, 15, 19))
            print(f"  {tilt:4.0f} deg: hollows with a seed showing under 4 mm2, by count: {shares}")
            for low, high in DEPTH_BINS:
                bests = "; ".join("{:g} mm2: {:6.2f} % ({:6.2f} %)".format(
                    mm2, *(100 * a for a in best_reader(showing[tilt, mm2], low, high))) for mm2 in shows)
                print(f"         {low}-{high} seeds, best exact (within one) counting every seed that shows {bests}")


def best_reader(showing: dict[int, Counter], low: int, high: int) -> tuple[float, float]:
    """Exact and within-one accuracy over counts ``low``-``high`` of the best guess from how many seeds show."""
    by_shown: dict[int, Counter] = defaultdict(Counter)  # seeds showing -> true count -> hollows
    for count in range(low, high + 1):
        for shown, n in showing[count].items():
            by_shown[shown][count] += n
    total = sum(sum(c.values()) for c in by_shown.values())
    exact = sum(max(c.values()) for c in by_shown.values()) / total
    within = sum(max(c[g - 1] + c[g] + c[g + 1] for g in range(low, high + 1)) for c in by_shown.values()) / total
    return exact, within


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pits", type=int, default=300, help="hollows per seed kind and count")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--shows", type=float, nargs="+", default=[1.0, 4.0, 10.0],
                        help="mm2 of its top a seed must show for the ideal reader to count it")
    parser.add_argument("--tilts", type=float, nargs="+", metavar="DEGREES",
                        help="a board seen in depth from a camera this many degrees from overhead (see above)")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    if args.tilts:
        depth_main(args.tilts, args.pits, args.shows, rng)
        return
    for where, axes_mm in HOLLOWS:
        print(f"{args.pits} hollows per seed kind and count, counts 5-40, a {where} of "
              f"{2 * axes_mm[0]:.0f} x {2 * axes_mm[1]:.0f} mm")
        for kind in KINDS:
            sliver = defaultdict(lambda: [0] * len(SLIVERS_MM2))  # count -> hollows with a seed under each size
            showing = {mm2: defaultdict(Counter) for mm2 in args.shows}  # -> count -> seeds showing that much -> n
            for count in range(BINS[0][0], BINS[-1][1] + 1):
                for _ in range(args.pits):
                    areas = shown_areas(count, kind, axes_mm, rng)
                    for i, mm2 in enumerate(SLIVERS_MM2):
                        sliver[count][i] += int(areas.min() < mm2)
                    for mm2 in args.shows:
                        showing[mm2][count][int((areas >= mm2).sum())] += 1
            print(f"{kind}:")
            for count in (9, 12, 15, 19, 20, 25, 30, 40):
                shares = ", ".join(f"< {mm2} mm2 {100 * n / args.pits:3.0f} %" for mm2, n in zip(SLIVERS_MM2, sliver[count]))
                print(f"  {count:2d} seeds: a seed shows {shares}")
            for low, high in BINS:
                bests = "; ".join("{:g} mm2: {:5.1f} % ({:5.1f} %)".format(mm2, *(100 * a for a in best_reader(showing[mm2], low, high)))
                                  for mm2 in args.shows)
                print(f"  {low}-{high} seeds, best exact (within one) counting every seed that shows {bests}")


if __name__ == "__main__":
    main()
