"""A marker moved while Pitwatch was off: how often the first frame names it, and never one that was not.

    .venv/bin/python benchmarks/moved_marker_bench.py [--scenes 2] [--frames 3] [--seed 4] [--moved 6,10]

A sticker peeled off and stuck back elsewhere, or pushed along while the board was put away,
has no placement before it to be judged by when Pitwatch starts: the reader's first frame is
all it has (``vision.moved_markers``, ``EmptyLikeness``). For each board profile, ``--scenes``
of ``vision_bench.py``'s set-ups seen in depth, calibrated from an easy empty and start frame,
then ``--frames`` hard frames (a hand in about 30 %), each with one marker, drawn at random,
moved a distance drawn from ``--moved`` (mm) towards the board's middle, along its length or
its depth. Every frame is read by a reader of its own, as at Pitwatch's start, and so is the
same frame with the marker where calibration found it. Prints, for the frames with a marker
moved: how many named it, named another, were refused otherwise (a hand, a seed on the wood)
or read, and how often those read got pits of 0-9 seeds right; and for the same frames unmoved:
how many named a marker (none should) and how their pits of 0-9 read.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.markers import MARKER_IDS, MARKER_NAMES  # noqa: E402
from vision.moved_markers import MARKER_MOVED  # noqa: E402
from vision.reader import BoardReader, FrameResult  # noqa: E402
from vision.render import FRAME_SIZE, Scene, random_counts, render  # noqa: E402
from marker_places_bench import score  # noqa: E402
from setups import calibrated_setups, hard_shot  # noqa: E402

OUTCOMES = ("named", "named another", "refused otherwise", "read")


def moved_away(scene: Scene, marker_id: int, distance_mm: float, along: bool) -> Scene:
    """``scene`` with marker ``marker_id`` moved ``distance_mm`` towards the board's middle,
    ``along`` its length (else across it): the board's x grows to the right, its y towards South."""
    inwards = (1.0 if marker_id in (0, 3) else -1.0, 1.0 if marker_id in (2, 3) else -1.0)
    dx, dy = (inwards[0] * distance_mm, 0.0) if along else (0.0, inwards[1] * distance_mm)
    return replace(scene, marker_shifts=tuple((x + dx, y + dy) if corner == marker_id else (x, y)
                                              for corner, (x, y) in enumerate(scene.marker_shifts)))


def outcome(result: FrameResult, marker_id: int | None) -> str:
    """What a first frame did: named the marker ``marker_id`` (None: none moved), another, refused
    the frame for something else, or read it."""
    message = result.status.message
    if message.startswith(MARKER_MOVED):
        named = f"marker {marker_id} ({MARKER_NAMES[marker_id]})" if marker_id is not None else None
        return "named" if named is not None and f": {named} lies " in message else "named another"
    return "read" if message.startswith("ok") else "refused otherwise"


def run(scenes: int, frames: int, seed: int, moved_mm: tuple[float, float]) -> dict:
    """Every set-up's frames read moved and unmoved: outcomes and pits of 0-9, each way."""
    cv2.setNumThreads(1)
    tallies: dict = {way: {"outcomes": dict.fromkeys(OUTCOMES, 0), "pits": [0, 0, 0]} for way in ("moved", "unmoved")}
    failures: list[str] = []
    for scene, calibration, rng in calibrated_setups(scenes, seed, FRAME_SIZE, failures, relief=True):
        for _ in range(frames):
            counts, white = random_counts(scene.profile, rng)
            shot = hard_shot(rng, 0.0)
            marker_id = int(rng.choice(MARKER_IDS))
            moved = moved_away(scene, marker_id, float(rng.uniform(*moved_mm)), bool(rng.random() < 0.5))
            for way, shown, named in (("moved", moved, marker_id), ("unmoved", scene, None)):
                result = BoardReader(calibration).read(render(shown, counts, white, shot).image)
                tallies[way]["outcomes"][outcome(result, named)] += 1
                if result.status.message.startswith("ok"):
                    score(result, counts, tallies[way]["pits"])
    tallies["failures"] = failures
    return tallies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenes", type=int, default=2)
    parser.add_argument("--frames", type=int, default=3)
    parser.add_argument("--seed", type=int, default=4)
    parser.add_argument("--moved", default="6,10", help="least and most a marker is moved, mm")
    args = parser.parse_args()
    least, most = (float(mm) for mm in args.moved.split(","))
    tallies = run(args.scenes, args.frames, args.seed, (least, most))
    print(f"one marker moved {least:g}-{most:g} mm since calibration, {args.scenes} set-ups in depth a board, "
          f"{args.frames} hard frames each, every frame read by a reader of its own\n")
    print(f"{'marker':8} {'frames':>6} " + " ".join(f"{name:>17}" for name in OUTCOMES) + f" {'pits of 0-9 read exactly':>26}")
    for way in ("moved", "unmoved"):
        outcomes, (hits, read, _) = tallies[way]["outcomes"], tallies[way]["pits"]  # unseen pits: not scored
        exactly = f"{100 * hits / read:.2f} % of {read}" if read else "-"
        print(f"{way:8} {sum(outcomes.values()):6} " + " ".join(f"{outcomes[name]:17}" for name in OUTCOMES)
              + f" {exactly:>26}")
    for failure in tallies["failures"]:
        print(f"not calibrated: {failure}")


if __name__ == "__main__":
    main()
