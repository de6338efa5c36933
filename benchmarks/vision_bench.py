"""Vision benchmark: the reader against the renderer's truth, across every board profile.

    .venv/bin/python benchmarks/vision_bench.py [--scenes 5] [--frames 10] [--seed 1] [--sure 0.995] [--frame 1280x720]
                                                [--defocus 0] [--models vision/models] [--corners] [--relief]
                                                [--far 1] [--readings FILE.csv]

For each board profile, ``--scenes`` set-ups (seed kind, wood, lamp, camera)
are calibrated from an easy empty + start frame, then ``--frames`` hard frames
(light drift, a nudged board, blur, noise, JPEG, a hand in about 30 %) with
random counts are read. Prints exact-count accuracy per heap size (heaps of 10 and
more also in pits and in stores apart), within-one
accuracy, white-chip accuracy, whole-board accuracy, how often the truth lies
in the reported 95 % set, hand handling (and, on two more frames per set-up
each, hands the colour of the board's wood, a soft shadow over part of the
board with no hand, a lamp's reflection near a pit, and seeds lying on the
bare wood, which are to be reported beside the pit they lie by), how exactly the board was located
(the pits' centres against the truth), and the median time to locate and read
one 1280x720 frame on one core (OpenCV limited to one thread), both for a
frame where the board moved (every benchmark frame nudges it) and for the next
frame of a still board (the same seeds and light with a new exposure's sensor
noise and JPEG artefacts: markers looked for where they were, as in live use),
and for that frame once the board's Reading has been given (``known``: located,
rectified and checked for motion and a hand, not counted again, as the live
camera loop does while the board stays still).
``--frame`` renders another camera picture size with the same lenses (a webcam
left at 640x480, a 1080p one): the same board in fewer or more pixels.
``--corners`` calibrates every board by its four corners in the empty picture
instead of its markers (a board without markers; its markers are drawn but not
used), so that a nudged board is followed by its wood (:mod:`vision.nudge`)
and its blur measured by its grain.
``--relief`` sees every board in depth (``Scene.relief``): its hollows sunk into
it and its seeds standing in them, as a real camera sees them, where the other
runs paint them flat on the board's plane (all the networks were trained on until
2026-11-28, thirteenth session); the same set-ups, frames and truth.
``--defocus`` puts the lens out of focus in every hard frame (calibration stays
sharp, as with an autofocus that hunts in play); every run prints the blur the
reader measured at the markers and how many frames it said were blurred or too
blurred to count (:mod:`vision.focus`).
``--far`` puts every camera that many times farther from the board (the same lens: the board fills
that many times less of the picture's width, as with a camera far off or a wide lens): the same
set-ups, frames and truth, each seed in fewer pixels (``pitwatch doctor`` quotes these runs for a
board that spans few of its camera's pixels).
``--readings`` writes every scored pit's truth and reading to a CSV file (:mod:`pit_readings`):
``compare_readings.py`` then pairs two runs' files and counts the pits a change mended and broke.
Times are CPU time of the reading thread (what the frame costs, whatever else
the machine runs) and, beside them, wall-clock time with the load average.
"""

from __future__ import annotations

import argparse
import bisect
import itertools
import math
import os
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from calibration.profiles import PROFILE_LAYOUTS  # noqa: E402
from pit_readings import BINS, heap_bin, pit_rows, write_readings  # noqa: E402
from rules import Reading  # noqa: E402
from setups import (GLARE, SHADOW, add_models_option, add_setup_options, calibrated_setups, hard_shot,  # noqa: E402
                    next_exposure, use_models)
from vision import counter  # noqa: E402
from vision.focus import measured_at  # noqa: E402
from vision.picture_size import picture_size_text  # noqa: E402
from vision.pits import nominal_hollows, rim_gap  # noqa: E402
from vision.reader import BoardReader, FrameResult  # noqa: E402
from vision.render import FRAME_SIZE, Rendered, Scene, Shot, project, random_counts, render  # noqa: E402

WOOD_HANDS = 2  # extra frames per set-up with a hand the colour of the board's wood (not timed)
SHADOWS = 2  # extra frames per set-up with a soft shadow (SHADOW: half the light) over part of the board
GLARES = 2  # extra frames per set-up with a lamp's reflection in the varnish near a pit (GLARE), clipped at its core
STRAYS = 2  # extra frames per set-up with one or two seeds lying on the bare wood (rolled out while sowing)
NAMED_WITHIN_MM = 3.0  # ...each to be named by the pit it lies beside: the nearest, or one within this much as near
TILTS = (15, 25, 33, 41)  # bins of the camera's angle from overhead, degrees (the renderer's cameras: 15-40)


def tilt_bin(tilt: float) -> str:
    """The camera's angle from overhead (``Scene.tilt``, radians) as one of ``TILTS``' bins: a board
    seen in depth hides more of each hollow's floor behind its near rim the more oblique the camera."""
    k = min(max(bisect.bisect_right(TILTS, math.degrees(tilt)) - 1, 0), len(TILTS) - 2)
    return f"{TILTS[k]}-{TILTS[k + 1]} deg"


def run(scenes: int, frames: int, seed: int, frame: tuple[int, int] = FRAME_SIZE, defocus: float = 0.0,
        corners: bool = False, relief: bool = False, far: float = 1.0) -> dict:
    """Every set-up's frames read and scored; ``readings`` in the result holds every scored pit
    (:mod:`pit_readings`)."""
    cv2.setNumThreads(1)
    stats: dict = defaultdict(lambda: [0, 0])  # name -> [hits, total]
    times: list[tuple[float, float]] = []  # (CPU, wall) seconds per frame
    tracked: list[tuple[float, float]] = []
    watched: list[tuple[float, float]] = []
    placed: list[float] = []  # px between each pit's centre where the reader put it and where it is
    blurs: list[float] = []  # mm, the blur the reader measured at the markers (vision.focus)
    failures: list[str] = []
    readings: list[dict] = []
    setups: dict[str, int] = defaultdict(int)  # profile -> set-ups read so far
    images = 0
    for scene, calibration, rng in calibrated_setups(scenes, seed, frame, failures, corners, relief, far):
        reader = BoardReader(calibration)
        setup = setups[scene.profile.name]
        setups[scene.profile.name] += 1
        for number in range(frames):
            counts, white = random_counts(scene.profile, rng)
            shot = hard_shot(rng, defocus)
            rendered = render(scene, counts, white, shot)
            result, spent = timed(reader, rendered.image)
            if result.status.blur_mm is not None:
                blurs.append(result.status.blur_mm)
            times.append(spent)
            if result.image_to_board is not None:
                placed.append(placement_error(result.image_to_board, scene, shot))
            still = render(scene, counts, white, next_exposure(shot))
            tracked.append(timed(reader, still.image)[1])
            watched.append(timed(reader, still.image, result.reading)[1])  # once its Reading is given
            images += 1
            score(stats, rendered, result)
            readings += pit_rows(scene.profile.name, setup, number, rendered, result)
        for _ in range(WOOD_HANDS):  # drawn after the set-up's frames, which stay what they were
            counts, white = random_counts(scene.profile, rng)
            rendered = render(scene, counts, white, replace(hard_shot(rng, defocus), hand=True, skin=scene.wood))
            score_wood_hand(stats, rendered, reader.read(rendered.image))
        for _ in range(SHADOWS):
            counts, white = random_counts(scene.profile, rng)
            rendered = render(scene, counts, white, replace(hard_shot(rng, defocus), hand=False, shadow=SHADOW))
            score_shadow(stats, rendered, reader.read(rendered.image))
        for _ in range(GLARES):
            counts, white = random_counts(scene.profile, rng)
            rendered = render(scene, counts, white, replace(hard_shot(rng, defocus), hand=False, glare=GLARE))
            score_glare(stats, rendered, reader.read(rendered.image))
        for _ in range(STRAYS):
            counts, white = random_counts(scene.profile, rng)
            shot = replace(hard_shot(rng, defocus), hand=False, strays=int(rng.integers(1, 3)))
            rendered = render(scene, counts, white, shot)
            score_strays(stats, rendered, reader.read(rendered.image))
    return {"stats": stats, "times": times, "tracked": tracked, "watched": watched, "placed": placed,
            "blurs": blurs, "failures": failures, "images": images, "readings": readings}


def score_wood_hand(stats: dict, rendered: Rendered, result: FrameResult) -> None:
    """A frame with a hand the colour of the board's wood: seen as a hand, the pits under it unseen."""
    if not (result.status.board_found and rendered.covered):
        return
    tally(stats, "frames with a wood-coloured hand over pits seen as such", result.status.hand)
    for label in rendered.covered:
        tally(stats, "pits under a wood-coloured hand reported unseen", result.reading.pits[label] is None)


def score_shadow(stats: dict, rendered: Rendered, result: FrameResult) -> None:
    """A frame with a soft shadow over part of the board and no hand: not taken for a hand, and
    the pits of 0-9 seeds read right."""
    if not result.status.board_found:
        return
    tally(stats, "frames with a shadow and no hand read as such", not result.status.hand)
    tally_no_strays(stats, result)
    for label, truth in rendered.counts.items():
        pit = result.reading.pits[label]
        if truth <= 9:
            tally(stats, "pits of 0-9 seeds in a shadow read exactly", pit is not None and pit.most_likely == truth)


def score_glare(stats: dict, rendered: Rendered, result: FrameResult) -> None:
    """A frame with a lamp's reflection near a pit: the pits it washes out unseen or read right
    (a misread is the failure), the pits of 0-9 seeds elsewhere read right."""
    if not result.status.board_found:
        return
    tally_no_strays(stats, result)
    for label, truth in rendered.counts.items():
        pit = result.reading.pits[label]
        if label in rendered.glared:
            tally(stats, "pits under a lamp's reflection reported unseen", pit is None)
            tally(stats, "pits under a lamp's reflection misread", pit is not None and pit.most_likely != truth)
        elif truth <= 9:
            tally(stats, "pits of 0-9 seeds beside a lamp's reflection read exactly", pit is not None and pit.most_likely == truth)


def score_strays(stats: dict, rendered: Rendered, result: FrameResult) -> None:
    """A frame with seeds lying on the bare wood and no hand: each reported beside the pit it
    lies by (or one as near, within ``NAMED_WITHIN_MM``: a seed between two pits is by
    either), no more reported than there are, the pits of 0-9 seeds read right."""
    if not result.status.board_found:
        return
    named = strays_named(rendered.strays, result.status.strays, nominal_hollows(rendered.scene.profile, 1.0))
    for k in range(len(rendered.strays)):
        tally(stats, "seeds on the wood reported beside their pit", k < named)
    tally(stats, "frames with seeds on the wood reporting no more", len(result.status.strays) <= len(rendered.strays))
    for label, truth in rendered.counts.items():
        pit = result.reading.pits[label]
        if truth <= 9:
            tally(stats, "pits of 0-9 seeds beside seeds on the wood read exactly", pit is not None and pit.most_likely == truth)


def strays_named(points: tuple[tuple[float, float], ...], reported: tuple[str, ...], hollows: dict) -> int:
    """How many of the seeds on the wood at ``points`` (board mm) the ``reported`` pits name, each
    report naming one seed: the best pairing, since a seed between two pits may be named by
    either and a greedy pairing could give its name to a seed that had no other."""
    def names(point: tuple[float, float]) -> set[str]:
        gaps = {label: rim_gap(hollow, point) for label, hollow in hollows.items()}
        nearest = min(gaps.values())
        return {label for label, gap in gaps.items() if gap <= nearest + NAMED_WITHIN_MM}

    accepted = [names(point) for point in points]
    padded = list(reported) + [None] * max(0, len(points) - len(reported))  # None: a seed no report names
    pairings = itertools.permutations(padded, len(points))  # a report (or None) for each seed, in order
    return max((sum(label in ok for label, ok in zip(pairing, accepted)) for pairing in pairings), default=0)


def tally_no_strays(stats: dict, result: FrameResult) -> None:
    """A frame with no seed on the wood: none reported."""
    tally(stats, "frames with no seed on the wood reporting none", not result.status.strays)


def placement_error(image_to_board: np.ndarray, scene: Scene, shot: Shot) -> float:
    """The farthest any pit's centre lies (image px) from where the reader's homography puts it:
    how well the board was located (lens distortion, which a homography cannot follow, included)."""
    centres = np.array([hollow.centre for hollow in scene.profile.hollows], np.float64)
    placed = cv2.perspectiveTransform(centres.reshape(-1, 1, 2), np.linalg.inv(image_to_board)).reshape(-1, 2)
    return float(np.abs(placed - project(scene, centres, shot).reshape(-1, 2)).max())


def timed(reader: BoardReader, image: np.ndarray, known: Reading | None = None) -> tuple[FrameResult, tuple[float, float]]:
    """The reader's result for ``image`` (``known``: the board's Reading, kept, not counted
    again) and the (CPU, wall) seconds it took."""
    cpu, wall = time.thread_time(), time.perf_counter()
    result = reader.read(image, known=known)
    return result, (time.thread_time() - cpu, time.perf_counter() - wall)


def tally(stats: dict, name: str, hit: bool) -> None:
    stats[name][0] += int(hit)
    stats[name][1] += 1


def score(stats: dict, rendered: Rendered, result: FrameResult) -> None:
    tally(stats, "board found", result.status.board_found)
    if not result.status.board_found:
        return
    tally(stats, "frames said blurred (read, focus asked for)", result.status.message.startswith("ok (picture blurred"))
    tally(stats, "frames too blurred to count", result.status.message.startswith("picture too blurred"))
    tally_no_strays(stats, result)
    if rendered.covered:  # seen as a hand, the frame gives no Reading (the stillness gate waits)
        tally(stats, "frames with a hand over pits seen as such", result.status.hand)
    board_exact = True
    stores = {h.label for h in rendered.scene.profile.hollows if h.is_store}
    for label, truth in rendered.counts.items():
        pit = result.reading.pits[label]
        covered = label in rendered.covered
        if covered:
            tally(stats, "covered pits reported unseen", pit is None)
        elif rendered.covered:
            tally(stats, "uncovered pits read while a hand is over the board", pit is not None)
        else:
            tally(stats, "pits read with no hand", pit is not None)
        if pit is None:
            board_exact = False
            continue
        guess = pit.most_likely
        where = "covered" if covered else heap_bin(truth)
        tally(stats, f"exact {where}", guess == truth)
        if not covered and truth <= 9:
            tally(stats, f"exact 0-9, seed kind {rendered.scene.seed_kind}", guess == truth)
            tally(stats, "exact 0-9, " + ("a hand elsewhere on the board" if rendered.covered else "no hand"), guess == truth)
            tally(stats, f"exact 0-9, camera {tilt_bin(rendered.scene.tilt)} from overhead", guess == truth)
            if truth >= 5:  # the counts a camera seen from the side hides most of: what the doctor's advice buys
                tally(stats, f"exact 5-9, camera {tilt_bin(rendered.scene.tilt)} from overhead", guess == truth)
        tally(stats, f"within one {where}", abs(guess - truth) <= 1)
        if not covered and truth >= 10:  # heaps by hollow: a store's seeds spread out, a pit's pile up
            hollow = "store" if label in stores else "pit"
            tally(stats, f"exact {where}, {hollow}", guess == truth)
            tally(stats, f"within one {where}, {hollow}", abs(guess - truth) <= 1)
        tally(stats, "truth in 95% set", truth in pit.credible_set(0.95))
        if not covered:
            tally(stats, "exact all seen", guess == truth)
        board_exact &= guess == truth
        if rendered.white is not None and pit.white is not None and not covered:
            tally(stats, "white chips exact", min(pit.most_likely_white, guess) == rendered.white[label])
    if not rendered.covered:
        tally(stats, "whole board exact (no hand)", board_exact)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenes", type=int, default=5, help="set-ups per board profile")
    parser.add_argument("--frames", type=int, default=10, help="frames per set-up")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sure", type=float, default=counter.SURE,
                        help="read a window again (mirrored, and by the partner) when the counter is less sure than this "
                             "(0: never, above 1: always; default: the counter's own)")
    add_setup_options(parser, "frame", "defocus", "corners", "relief", "far")
    parser.add_argument("--readings", type=Path, metavar="FILE.csv",
                        help="write every scored pit's truth and reading to FILE.csv, to compare two runs pit by pit "
                             "with compare_readings.py")
    add_models_option(parser)
    args = parser.parse_args()
    counter.SURE = args.sure
    use_models(parser, args.models)
    started = time.time()
    out = run(args.scenes, args.frames, args.seed, args.frame, args.defocus, args.corners, args.relief, args.far)
    stats = out["stats"]
    print(f"{out['images']} rendered {picture_size_text(args.frame)} frames, {len(PROFILE_LAYOUTS)} board profiles, "
          f"{args.scenes} set-ups each, seed {args.seed}, windows read again below {args.sure} sure"
          + (f", lens out of focus by {args.defocus} px" if args.defocus else "")
          + (", boards found by their corners" if args.corners else "") + (", boards seen in depth" if args.relief else "")
          + (f", cameras {args.far:g} times farther" if args.far != 1 else "")
          + f" ({time.time() - started:.0f} s)")
    if args.models is not None:
        print(f"  the seed counter's networks from {args.models}")
    if args.readings is not None:
        write_readings(args.readings, out["readings"])
        print(f"  every pit's reading in {args.readings} (compare_readings.py)")
    for failure in out["failures"]:
        print(f"  calibration failed: {failure}")
    order = ["board found", "frames said blurred (read, focus asked for)", "frames too blurred to count"] + [f"{kind} {name}" for _, _, name in BINS for kind in ("exact", "within one")]
    order += [f"{kind} {name}, {hollow}" for _, _, name in BINS[3:] for hollow in ("pit", "store")
              for kind in ("exact", "within one")]
    order += ["exact all seen", "truth in 95% set", "white chips exact", "whole board exact (no hand)",
              "pits read with no hand", "frames with a hand over pits seen as such", "covered pits reported unseen", "uncovered pits read while a hand is over the board",
              "exact covered", "frames with a wood-coloured hand over pits seen as such",
              "pits under a wood-coloured hand reported unseen", "frames with a shadow and no hand read as such",
              "pits of 0-9 seeds in a shadow read exactly", "pits under a lamp's reflection reported unseen",
              "pits under a lamp's reflection misread", "pits of 0-9 seeds beside a lamp's reflection read exactly",
              "seeds on the wood reported beside their pit", "frames with seeds on the wood reporting no more",
              "pits of 0-9 seeds beside seeds on the wood read exactly", "frames with no seed on the wood reporting none"] + sorted(name for name in stats if name.startswith(("exact 0-9,", "exact 5-9,")))
    for name in order:
        hits, total = stats.get(name, (0, 0))
        if total:
            print(f"  {name:52s} {100 * hits / total:6.2f} %  ({hits}/{total})")
    if out["blurs"]:
        blurs = np.array(out["blurs"])
        print(f"  {'blur measured at ' + measured_at(args.corners) + ' (vision.focus)':54s} median {np.median(blurs):.2f} mm, "
              f"90 % under {np.percentile(blurs, 90):.2f} mm")
    if out["placed"]:
        placed = np.array(out["placed"])
        print(f"  pits placed (the farthest pit centre from the truth)   median {np.median(placed):.2f} px, "
              f"90 % within {np.percentile(placed, 90):.2f} px")
    if out["times"]:
        for kind, index in (("CPU", 0), ("wall-clock", 1)):
            moved, still, watched = (1000 * statistics.median(t[index] for t in out[name]) for name in ("times", "tracked", "watched"))
            print(f"  median {kind} time to locate and read a frame (1 thread): {moved:.1f} ms (board moved since "
                  f"the last frame); {still:.1f} ms (board still, its next exposure); {watched:.1f} ms (the same, "
                  "its Reading given: located and watched, not counted)")
        print(f"  load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
