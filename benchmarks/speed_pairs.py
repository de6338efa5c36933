"""Two versions of the reader timed in pairs on the same frames: which is cheaper, on a machine that drifts.

    .venv/bin/python benchmarks/speed_pairs.py BEFORE [AFTER] [--pairs 10] [--scenes 2] [--frames 10] [--seed 1] [--relief]

BEFORE and AFTER are Pitwatch source trees (AFTER defaults to this one), for instance a worktree
of the commit before a change: ``git worktree add --detach /tmp/before HEAD~1``.

The machines here drift: one and the same code read a frame in 19 ms and then in 28 ms a few
minutes later (2026-12-03), so two runs of ``vision_bench.py`` an hour apart cannot tell a change
of a millisecond or two. This script renders ``vision_bench.py``'s set-ups and hard frames once
(``--scenes`` set-ups of every board profile, ``--frames`` frames each: the board nudged, then
the still board's next exposure), writes them with their calibration files to a temporary
folder, and has each version read them in a process of its own, one after the other: before,
after, after, before, and so on (so a steady drift favours neither). Each run times what
``vision_bench.py`` times, in CPU time on one thread: a moved frame, a still board's next
exposure, and that frame with its Reading given. Printed: each pair's medians and their
difference (after minus before), then the median of those differences and their range. Only a
difference within a pair means anything; the medians themselves drift.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NoReturn

HERE = Path(__file__).resolve().parents[1]
TIMED = ("moved", "still", "known")  # a moved frame, a still board's next exposure, the same with its Reading given
SAID = {"moved": "a moved frame", "still": "a still board's next exposure", "known": "the same, its Reading given"}


def render_frames(folder: Path, scenes: int, frames: int, seed: int, relief: bool) -> int:
    """``vision_bench.py``'s set-ups and frames written to ``folder``: per set-up a calibration
    file and, per frame, the moved and the still picture (PNG, lossless); the number of set-ups."""
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, str(HERE / "benchmarks"))
    import cv2
    from calibration.calibfile import save_calibration
    from vision.render import FRAME_SIZE, random_counts, render
    from setups import calibrated_setups, hard_shot, next_exposure

    setups = 0
    for setup, (scene, calibration, rng) in enumerate(calibrated_setups(scenes, seed, FRAME_SIZE, [], relief=relief)):
        path = folder / f"{setup:03d}.json"
        try:
            save_calibration(calibration, path)
        except OSError as error:
            cannot_write(path, error.strerror or str(error))
        for number in range(frames):
            counts, white = random_counts(scene.profile, rng)
            shot = hard_shot(rng, 0.0)
            for name, taken in (("moved", shot), ("still", next_exposure(shot))):
                path = folder / f"{setup:03d}-{number:03d}-{name}.png"
                if not cv2.imwrite(str(path), render(scene, counts, white, taken).image):
                    cannot_write(path, "OpenCV wrote nothing (is the disk full?)")
        setups += 1
    return setups


def cannot_write(path: Path, why: str) -> NoReturn:
    """Stop: a frame or calibration file could not be written, and the runs would time nothing."""
    sys.exit(f"speed_pairs.py: cannot write {path}: {why}")


def read_frames(folder: Path, tree: Path) -> dict[str, float]:
    """The median CPU time (ms, one thread) of each of ``TIMED`` for the reader of source ``tree``
    over the frames in ``folder``: run in a process of its own, with ``tree`` first on the path.
    It times a read as ``vision_bench.timed`` does but imports nothing from ``vision_bench``,
    which would load its own imports from ``tree``: an older tree need only have a reader."""
    sys.path.insert(0, str(tree))
    import cv2
    from calibration.calibfile import load_calibration
    from vision.reader import BoardReader

    cv2.setNumThreads(1)
    times: dict[str, list[float]] = {name: [] for name in TIMED}

    def timed(name: str, reader: BoardReader, image, known=None):
        began = time.thread_time()
        result = reader.read(image, known=known)
        times[name].append(time.thread_time() - began)
        return result

    for calibration_file in sorted(folder.glob("*.json")):
        reader = BoardReader(load_calibration(calibration_file))
        for moved_file in sorted(folder.glob(f"{calibration_file.stem}-*-moved.png")):
            still = cv2.imread(str(moved_file).replace("-moved.png", "-still.png"))
            reading = timed("moved", reader, cv2.imread(str(moved_file))).reading
            timed("still", reader, still)
            timed("known", reader, still, reading)
    return {name: 1000 * statistics.median(spent) for name, spent in times.items()}


def timed_run(folder: Path, tree: Path) -> dict[str, float]:
    """:func:`read_frames` for ``tree``, in a new process of this Python."""
    done = subprocess.run([sys.executable, __file__, "--read", str(folder), str(tree)], capture_output=True, text=True)
    if done.returncode != 0:
        said = done.stderr.strip().splitlines() or [f"exit status {done.returncode}"]
        sys.exit(f"speed_pairs.py: the reader of {tree} failed on the frames: {said[-1]}")
    return json.loads(done.stdout)


def source_tree(text: str) -> Path:
    """A Pitwatch source tree (argparse type): it holds ``vision/reader.py``."""
    tree = Path(text).resolve()
    if not (tree / "vision" / "reader.py").is_file():
        raise argparse.ArgumentTypeError(f"{text}: not a Pitwatch source tree (no vision/reader.py in it)")
    return tree


def main() -> None:
    if sys.argv[1:2] == ["--read"]:  # one timed run, in its own process (timed_run)
        print(json.dumps(read_frames(Path(sys.argv[2]), Path(sys.argv[3]))))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=source_tree, help="the source tree of the version before")
    parser.add_argument("after", type=source_tree, nargs="?", default=HERE, help="the version after (default: this tree)")
    parser.add_argument("--pairs", type=int, default=10, help="pairs of runs, each version once in each")
    parser.add_argument("--scenes", type=int, default=2, help="set-ups of every board profile")
    parser.add_argument("--frames", type=int, default=10, help="frames a set-up")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--relief", action="store_true", help="boards seen in depth (vision_bench.py --relief)")
    args = parser.parse_args()
    if args.pairs < 1 or args.scenes < 1 or args.frames < 1:
        parser.error("--pairs, --scenes and --frames: at least 1")
    with tempfile.TemporaryDirectory(prefix="speed-pairs-") as temporary:
        folder = Path(temporary)
        setups = render_frames(folder, args.scenes, args.frames, args.seed, args.relief)
        print(f"{setups} set-ups x {args.frames} frames, seed {args.seed}{', seen in depth' if args.relief else ''}; "
              f"before {args.before}, after {args.after}; median CPU ms a frame, one thread")
        differences: dict[str, list[float]] = {name: [] for name in TIMED}
        for pair in range(args.pairs):
            if pair % 2 == 0:
                before, after = timed_run(folder, args.before), timed_run(folder, args.after)
            else:
                after, before = timed_run(folder, args.after), timed_run(folder, args.before)
            for name in TIMED:
                differences[name].append(after[name] - before[name])
            print(f"  pair {pair + 1:2d}: " + "; ".join(
                f"{name} {before[name]:.2f} -> {after[name]:.2f} ({after[name] - before[name]:+.2f})" for name in TIMED))
    print(f"after minus before, over the {args.pairs} pairs:")
    for name in TIMED:
        spread = differences[name]
        print(f"  {SAID[name]:<30} median {statistics.median(spread):+.2f} ms, from {min(spread):+.2f} to "
              f"{max(spread):+.2f}; after cheaper in {sum(d < 0 for d in spread)} of {len(spread)} pairs")


if __name__ == "__main__":
    main()
