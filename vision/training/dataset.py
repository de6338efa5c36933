"""Training pictures for the seed counter, rendered and cut exactly as the reader cuts them.

Each set-up (board, seeds, wood, lamp, camera) is calibrated from an easy
empty frame, as a user would (the start position, which checks a trained
counter, is not needed to cut pictures), and then photographed in
``frames`` hard frames with random counts. Every frame goes through the
reader's own steps (markers, rectification, light model, fitted again
without a hand) and the reader's own :class:`~vision.patches.PatchCutter`,
so the network learns from what it will be shown. Pits a hand hides are left
out (the reader reports them unseen). Every seed's centre in its window is
kept too (the renderer knows it), so that training can be told where the
seeds lie, not only how many there are.

Set-ups are numbered; the random stream of set-up ``k`` is
``default_rng([TRAINING_STREAM, k])``, which no test or benchmark uses.
``--frame`` renders the same set-ups for a camera of another picture size (a
webcam left at 640 x 480): the same board in fewer pixels, cut into the same
windows, so that a network can learn what a small picture shows. ``--lamp SHARE``
photographs that share of the frames with a lamp's reflection in the varnish
near a hollow (``Shot.glare``), as at a club table under a lamp: the network
learns to count beside a reflection, and to hedge under one, instead of taking
its light for seeds. ``--defocus SHARE`` photographs that share of the frames with the
lens out of focus (``Shot.defocus``), as a webcam focused for another distance, or whose
autofocus hunts, sees the board: the network learns to count soft seeds, and to hedge where
they blur into one. ``--heaps`` cuts the heap network's pictures instead: the
playing pits holding ``HEAP_LEAST`` seeds or more, at the board's own scale
(heap.npz; :data:`vision.counter.HEAP_LEAST`). ``--relief SHARE`` sees that share of
the set-ups in depth (``Scene.relief``: hollows sunk, seeds standing in them),
as a real camera does, and the rest painted flat; which ones, from a stream of
their own, so a set-up's board, camera, frames and counts are the same either way.

    python -m vision.training.dataset --setups 0:600 --frames 20 -o data/counter [--frame 1280x720] [--lamp 0.3]
    python -m vision.training.dataset --setups 900:1200 --frames 20 --heaps -o data/heaps900
    python -m vision.training.dataset --setups 2000:2300 --frames 20 --relief 0.7 -o data/relief2000
    python -m vision.training.dataset --setups 4050:4350 --frames 16 --relief 0.7 --defocus 0.3 -o data/soft4050
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Sequence

import cv2
import numpy as np

from calibration.calibfile import CalibrationError
from calibration.calibrate import calibrate_empty
from calibration.profiles import PROFILE_LAYOUTS, BoardProfile, board_profile

from ..counter import HEAP_LEAST
from ..patches import PatchCutter, PatchShape, hollow_kind
from ..picture_size import parse_picture_size, picture_size_text
from ..reader import BoardReader, FrameUnreadable
from ..render import FRAME_SIZE, Shot, random_scene, random_shot, render

TRAINING_STREAM = 0x7EA1  # first word of every training set-up's random stream
LAMP_STREAM = 7  # last word of a training frame's own stream for its lamp, so that frames without one stay as they were
RELIEF_STREAM = 11  # last word of a set-up's own stream for whether it is seen in depth
DEFOCUS_STREAM = 13  # last word of a training frame's own stream for its lens out of focus
TRAINING_GLARE = (0.5, 3.5)  # a reflection's strength (Shot.glare) in training: faint to clipped (the benchmarks' is 3)
TRAINING_DEFOCUS = (0.5, 3.5)  # a lens out of focus (Shot.defocus, px) in training: from just soft to about where the
# reader stops counting (1.3 mm, 3-4 px) and the markers begin to be lost, so that it learns to hedge as well as to count
BOARDS = tuple(PROFILE_LAYOUTS)
PIT_TRAINING_MAX, STORE_TRAINING_MAX = 48, 80  # the largest counts shown in training
WHITE_TRAINING_MAX = 3


def training_counts(profile: BoardProfile, rng: np.random.Generator) -> tuple[dict[str, int], dict[str, int] | None]:
    """Counts for one training frame: every count up to the counter's range, small heaps
    more often than big ones (:func:`count_prior` gives the exact mix, which the counter
    divides out)."""
    counts = {h.label: int(rng.choice(len(prior), p=prior)) for h in profile.hollows
              for prior in (count_prior(hollow_kind(h.is_store)),)}
    if not profile.chips:
        return counts, None
    return counts, {label: int(rng.integers(0, min(n, WHITE_TRAINING_MAX) + 1)) for label, n in counts.items()}


def count_prior(kind: str) -> np.ndarray:
    """How often training shows each count: playing pits 0-19 three times as often as
    20-48 (real games hold mostly small heaps); stores flat up to 64, rarer beyond; the heap
    network's pictures, the playing pits' of ``HEAP_LEAST`` seeds or more."""
    if kind in ("pit", "heap"):
        counts = np.arange(PIT_TRAINING_MAX + 1)
        weights = np.where(counts < 20, 3.0, 1.0) * (counts >= (HEAP_LEAST if kind == "heap" else 0))
    else:
        weights = np.where(np.arange(STORE_TRAINING_MAX + 1) <= 64, 3.0, 1.0)
    return weights / weights.sum()


@dataclass
class Patches:
    """Training pictures of one kind of hollow: the relit windows, their empty boards, truth."""

    relit: list[np.ndarray] = field(default_factory=list)  # H x W x 3 uint8 each
    empty: list[np.ndarray] = field(default_factory=list)  # one per (set-up, pit)
    empty_index: list[int] = field(default_factory=list)  # which empty window goes with each relit one
    counts: list[int] = field(default_factory=list)
    white: list[int] = field(default_factory=list)  # -1 on boards without white chips
    setup: list[int] = field(default_factory=list)
    seed_kind: list[str] = field(default_factory=list)
    seed_window: list[int] = field(default_factory=list)  # for every seed: the relit window it lies in
    seed_xy: list[tuple[float, float]] = field(default_factory=list)  # and its centre there (column, row)

    def extend(self, other: "Patches") -> None:
        offset, windows = len(self.empty), len(self.relit)
        self.relit += other.relit
        self.empty += other.empty
        self.empty_index += [offset + k for k in other.empty_index]
        self.seed_window += [windows + k for k in other.seed_window]
        for name in ("counts", "white", "setup", "seed_kind", "seed_xy"):
            getattr(self, name).extend(getattr(other, name))

    def save(self, path: Path, shape: PatchShape) -> None:
        """Write the pictures to ``path``; set-ups without this kind of hollow (boards without
        stores) save none, in windows of ``shape``, so that every folder holds both files."""
        width, height = shape.size

        def stacked(windows: list[np.ndarray]) -> np.ndarray:
            return np.stack(windows) if windows else np.empty((0, height, width, 3), np.uint8)

        np.savez(path, relit=stacked(self.relit), empty=stacked(self.empty), empty_index=np.array(self.empty_index, np.int32),
                 counts=np.array(self.counts, np.int16), white=np.array(self.white, np.int16),
                 setup=np.array(self.setup, np.int32), seed_kind=np.array(self.seed_kind),
                 seed_window=np.array(self.seed_window, np.int32), seed_xy=np.array(self.seed_xy, np.float32).reshape(-1, 2))


def load_patches(paths: Sequence[Path]) -> dict[str, np.ndarray]:
    """Saved training sets of one kind of hollow (``Patches.save``) joined as one, so that set-ups
    rendered in separate runs (``--setups 0:600`` today, ``600:900`` tomorrow) train one network.
    Each relit window keeps its own empty window; a set-up in two files is refused (it would
    train and be held out twice)."""
    parts = [np.load(path) for path in paths]
    seen: dict[int, Path] = {}
    for path, part in zip(paths, parts):
        for setup in np.unique(part["setup"]).tolist():
            if setup in seen:
                raise ValueError(f"set-up {setup} is in both {seen[setup]} and {path}")
            seen[setup] = path
    offsets = np.cumsum([0] + [len(part["empty"]) for part in parts[:-1]])
    joined = {name: np.concatenate([part[name] for part in parts])
              for name in ("relit", "empty", "counts", "white", "setup", "seed_kind")}
    joined["empty_index"] = np.concatenate([part["empty_index"] + offset for part, offset in zip(parts, offsets)])
    if all("seed_xy" in part for part in parts):  # files rendered before 2026-11-26 have no seed centres
        windows = np.cumsum([0] + [len(part["relit"]) for part in parts[:-1]])
        joined["seed_window"] = np.concatenate([part["seed_window"] + offset for part, offset in zip(parts, windows)])
        joined["seed_xy"] = np.concatenate([part["seed_xy"] for part in parts])
    return joined


def seed_cells(xy: np.ndarray, window: tuple[int, int], flip: tuple[bool, bool], cells: tuple[int, int],
               cell: int) -> np.ndarray:
    """How many of one window's seed centres (``xy``: column, row in window pixels) lie in each
    cell of a ``cells`` (rows, columns) grid whose cell k is centred on pixel ``cell * k``, with
    the window (``window``: height, width) flipped left-right and/or top-bottom first. Seeds
    beyond the grid count in its edge cells: the total is always the window's count."""
    height, width = window
    xy = np.array(xy, np.float64).reshape(-1, 2)
    if flip[0]:
        xy[:, 0] = width - 1 - xy[:, 0]
    if flip[1]:
        xy[:, 1] = height - 1 - xy[:, 1]
    rows, columns = cells
    column = np.clip(np.floor(xy[:, 0] / cell + 0.5).astype(int), 0, columns - 1)
    row = np.clip(np.floor(xy[:, 1] / cell + 0.5).astype(int), 0, rows - 1)
    grid = np.zeros(cells, np.float32)
    np.add.at(grid, (row, column), 1.0)
    return grid


def setup_patches(setup: int, frames: int = 20, frame: tuple[int, int] = FRAME_SIZE,
                  lamp: float = 0.0, kinds: tuple[str, ...] = ("pit", "store"), relief: float = 0.0,
                  defocus: float = 0.0) -> dict[str, Patches]:
    """The training pictures of set-up number ``setup`` for the networks ``kinds`` (the heap
    network's only of pits holding ``HEAP_LEAST`` seeds or more), photographed in pictures of
    ``frame`` (width, height) px, a share ``lamp`` of them with a lamp's reflection and a share
    ``defocus`` with the lens out of focus, the set-up seen in depth with chance ``relief``; none
    if it fails to calibrate (from a sharp empty board, as calibration asks for). The frames and
    their counts are the same whatever the kinds, the lamp, the focus and the relief."""
    cv2.setNumThreads(1)
    rng = np.random.default_rng([TRAINING_STREAM, setup])
    board = BOARDS[setup % len(BOARDS)]
    profile = board_profile(board)
    scene = replace(random_scene(board, rng, frame=frame), relief=seen_in_depth(setup, relief))
    empty = render(scene, {h.label: 0 for h in profile.hollows}, None, random_shot(rng, hard=False, hand=False)).image
    try:
        calibration = calibrate_empty(board, empty)
    except CalibrationError:
        return {}
    reader, cutter = BoardReader(calibration), PatchCutter(calibration, kinds)
    out = {kind: Patches(empty=_windows(cutter.empty(kind), len(labels))) for kind, labels in cutter.labels.items()}
    for number in range(frames):
        counts, white = training_counts(profile, rng)
        shot = random_shot(rng, hard=rng.random() < 0.85)
        shot = sometimes(shot, lamp, [TRAINING_STREAM, setup, number, LAMP_STREAM], "glare", TRAINING_GLARE)
        shot = sometimes(shot, defocus, [TRAINING_STREAM, setup, number, DEFOCUS_STREAM], "defocus", TRAINING_DEFOCUS)
        rendered = render(scene, counts, white, shot)
        try:
            _, view = reader.without_hand(reader.view(rendered.image))
        except FrameUnreadable:
            continue
        relit = cutter.relit(view.board, view.log_gain)
        for kind, labels in cutter.labels.items():
            windows = _windows(relit[kind], len(labels))
            patches = out[kind]
            for k, label in enumerate(labels):
                if label in rendered.covered or (kind == "heap" and counts[label] < HEAP_LEAST):
                    continue
                seeds = cutter.window_points(label, np.array(rendered.seeds[label]))
                patches.seed_window += [len(patches.relit)] * len(seeds)
                patches.seed_xy += [(float(x), float(y)) for x, y in seeds]
                patches.relit.append(windows[k])
                patches.empty_index.append(k)
                patches.counts.append(counts[label])
                patches.white.append(-1 if white is None else white[label])
                patches.setup.append(setup)
                patches.seed_kind.append(scene.seed_kind)
    return out


def seen_in_depth(setup: int, share: float) -> bool:
    """Whether set-up number ``setup`` is seen in depth (``Scene.relief``) when a ``share`` of them
    are, drawn from a stream of its own: its board, camera, frames and counts stay what they are."""
    return bool(np.random.default_rng([TRAINING_STREAM, setup, RELIEF_STREAM]).random() < share)


def sometimes(shot: Shot, share: float, stream: list[int], condition: str, bounds: tuple[float, float]) -> Shot:
    """``shot`` with its ``condition`` (a field of :class:`Shot`: a lamp's ``glare``, the lens's
    ``defocus``) drawn uniformly from ``bounds``, a ``share`` of the time, from a stream of its
    own (``stream``): the frame's counts, seeds and other conditions stay what they are."""
    rng = np.random.default_rng(stream)
    return replace(shot, **{condition: float(rng.uniform(*bounds))}) if rng.random() < share else shot


def _windows(stacked: np.ndarray, count: int) -> list[np.ndarray]:
    return list(stacked.reshape(count, -1, *stacked.shape[1:]))


def build(setups: range, frames: int, out: Path, workers: int, frame: tuple[int, int] = FRAME_SIZE,
          lamp: float = 0.0, kinds: tuple[str, ...] = ("pit", "store"), relief: float = 0.0,
          defocus: float = 0.0) -> None:
    """Render set-ups ``setups`` in pictures of ``frame`` px (a share ``lamp`` of the frames with
    a lamp's reflection, a share ``defocus`` out of focus, a share ``relief`` of the set-ups seen
    in depth) on ``workers`` processes and save ``out``/KIND.npz for each of ``kinds``."""
    out.mkdir(parents=True, exist_ok=True)
    total = {kind: Patches() for kind in kinds}
    started = time.time()
    jobs = [(k, frames, frame, lamp, kinds, relief, defocus) for k in setups]
    # Spawned, not forked: a fork copies only the forking thread, so a worker could inherit a lock
    # another thread of this process held (ONNX Runtime's, OpenCV's, a test runner's) and wait on it
    # for ever, as one did under pytest-xdist (2026-12-06).
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        for done, result in enumerate(pool.imap(_setup_job, jobs, chunksize=2), 1):
            for kind, patches in result.items():
                total[kind].extend(patches)
            if done % 20 == 0 or done == len(setups):
                windows = ", ".join(f"{len(patches.counts)} {kind} windows" for kind, patches in total.items())
                print(f"{done}/{len(setups)} set-ups, {windows}, {time.time() - started:.0f} s", flush=True)
    for kind, patches in total.items():
        patches.save(out / f"{kind}.npz", PatchShape.of(kind))


def _setup_job(args: tuple[int, int, tuple[int, int], float, tuple[str, ...], float, float]) -> dict[str, Patches]:
    return setup_patches(*args)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--setups", default="0:600", help="set-up numbers, FIRST:STOP")
    parser.add_argument("--frames", type=int, default=20, help="frames per set-up")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--frame", default=picture_size_text(FRAME_SIZE), metavar="WxH",
                        help="the camera picture's size (default: %(default)s)")
    parser.add_argument("--lamp", type=float, default=0.0, metavar="SHARE",
                        help="the share of frames (0-1) with a lamp's reflection near a hollow (default: none)")
    parser.add_argument("--relief", type=float, default=0.0, metavar="SHARE",
                        help="the share of set-ups (0-1) seen in depth, as a real camera sees a board (default: none)")
    parser.add_argument("--defocus", type=float, default=0.0, metavar="SHARE",
                        help="the share of frames (0-1) with the lens out of focus (default: none)")
    parser.add_argument("--heaps", action="store_true",
                        help=f"cut the heap network's pictures (pits of {HEAP_LEAST} seeds or more, finer) into heap.npz")
    parser.add_argument("-o", "--output", type=Path, required=True, help="folder for pit.npz and store.npz")
    args = parser.parse_args(argv)
    try:
        first, stop = (int(v) for v in args.setups.split(":"))
    except ValueError:
        parser.error(f"--setups: expected FIRST:STOP, got {args.setups!r}")
    try:
        frame = parse_picture_size(args.frame)
    except ValueError as error:
        parser.error(f"--frame = {error}")
    for option, share in (("--lamp", args.lamp), ("--defocus", args.defocus)):
        if not 0 <= share <= 1:
            parser.error(f"{option} = {share}: expected a share of the frames, 0-1")
    if not 0 <= args.relief <= 1:
        parser.error(f"--relief = {args.relief}: expected a share of the set-ups, 0-1")
    build(range(first, stop), args.frames, args.output, args.workers, frame, args.lamp,
          ("heap",) if args.heaps else ("pit", "store"), args.relief, args.defocus)


if __name__ == "__main__":
    sys.exit(main())
