"""Focus benchmark: how a lens out of focus costs the counter, by the blur the reader measures.

    .venv/bin/python benchmarks/focus_bench.py [--scenes 3] [--frames 4] [--seed 11] [--frame 1280x720] [--corners]
                                               [--relief] [--models vision/models]

For each board profile, ``--scenes`` set-ups calibrated in focus (as
``vision_bench.py`` calibrates them), then ``--frames`` frames each (every
other one hard, none with a hand), every frame read again at lens blurs of
0 to 4 px (a Gaussian, in pixels of a 1280 px wide picture). Prints, per lens
blur and then binned by the blur the reader measured at the markers
(:mod:`vision.focus`): pits of 0-9 seeds read exactly, those misread at over
90 %, and how often the truth lies in the 95 % set. The bins are what
``BLURRED_MM`` and ``TOO_BLURRED_MM`` were chosen from (docs/vision.md,
section 2). A frame too blurred to count (over ``TOO_BLURRED_MM``, or
``TOO_BLURRED_SMALL_MM`` in a picture under 1280 x 720) counts no pit, and one
over a board's own limit is read hedged, so the reader is asked with both
lifted: the bins say what the counter itself reads. ``--corners`` calibrates
every board by its four corners instead of its markers, as a board without
markers is, and the blur is then measured by the wood's grain against the empty
board's (:meth:`vision.grain.Grain.blur_mm`). ``--relief`` sees every board in depth, as a
real camera does (``vision_bench.py --relief``), and ``--models`` reads with newly trained networks.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, replace
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from calibration.profiles import PROFILE_LAYOUTS  # noqa: E402
from vision import reader as reader_module  # noqa: E402
from vision.focus import measured_at  # noqa: E402
from vision.picture_size import picture_size_text  # noqa: E402
from vision.reader import BoardReader  # noqa: E402
from vision.render import random_counts, random_shot, render  # noqa: E402
from setups import add_models_option, add_setup_options, calibrated_setups, use_models  # noqa: E402

DEFOCUS_PX = (0.0, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0)
BLUR_BINS_MM = (0.0, 0.9, 1.0, 1.1, 1.2, 1.3, 1.5, 9.0)


@dataclass
class Tally:
    """Pits of 0-9 seeds read and how; every pit read and whether its 95 % set held the truth."""

    frames: int = 0
    small: int = 0
    exact: int = 0
    sure_wrong: int = 0
    pits: int = 0
    in_set: int = 0

    def add(self, counts: dict[str, int], result: reader_module.FrameResult) -> None:
        self.frames += 1
        for label, truth in counts.items():
            pit = result.reading.pits[label]
            if pit is None:
                continue
            self.pits += 1
            self.in_set += truth in pit.credible_set(0.95)
            if truth <= 9:
                self.small += 1
                self.exact += pit.most_likely == truth
                self.sure_wrong += pit.most_likely != truth and max(pit.counts) > 0.9

    def line(self) -> str:
        if not self.small:
            return f"{self.frames:4d} frames, no pit of 0-9 read"
        return (f"{self.frames:4d} frames, 0-9 exact {100 * self.exact / self.small:6.2f} % "
                f"({self.small - self.exact} of {self.small} misread, {self.sure_wrong} at over 90 %), "
                f"truth in 95 % set {100 * self.in_set / self.pits:6.2f} %")


def run(scenes: int, frames: int, seed: int, frame: tuple[int, int], corners: bool = False, relief: bool = False
        ) -> tuple[dict[float, Tally], dict[float, Tally], int, list[str]]:
    """Tallies by lens blur and by measured blur (bins' lower edges), frames where no board was
    found (or its blur not measured), and the set-ups that could not be calibrated; boards found
    by their ``corners`` or by their markers, seen in ``relief`` or painted flat."""
    cv2.setNumThreads(1)
    by_defocus = {d: Tally() for d in DEFOCUS_PX}
    by_blur = {low: Tally() for low in BLUR_BINS_MM[:-1]}
    lost, failures = 0, []
    for scene, calibration, rng in calibrated_setups(scenes, seed, frame, failures, corners, relief):
        reader = BoardReader(replace(calibration, blur_limit_mm=None))  # as the counter reads, not hedged
        for f in range(frames):
            counts, white = random_counts(scene.profile, rng)
            shot = replace(random_shot(rng, hard=bool(f % 2)), hand=False)
            for defocus in DEFOCUS_PX:
                result = reader.read(render(scene, counts, white, replace(shot, defocus=defocus)).image)
                if not result.status.board_found or result.status.blur_mm is None:
                    lost += 1
                    continue
                by_defocus[defocus].add(counts, result)
                low = max(edge for edge in BLUR_BINS_MM[:-1] if edge <= result.status.blur_mm)
                by_blur[low].add(counts, result)
    return by_defocus, by_blur, lost, failures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenes", type=int, default=3, help="set-ups per board profile")
    parser.add_argument("--frames", type=int, default=4, help="frames per set-up, each read at every lens blur")
    parser.add_argument("--seed", type=int, default=11)
    add_setup_options(parser, "frame", "corners", "relief",
                      corners="boards found by their corners, without markers: the blur is measured by the wood's grain",
                      relief="see every board in depth, as a real camera does")
    add_models_option(parser)
    args = parser.parse_args()
    use_models(parser, args.models)
    reader_module.too_blurred_mm = lambda small_picture: float("inf")  # count every frame, to see what it would read
    by_defocus, by_blur, lost, failures = run(args.scenes, args.frames, args.seed, args.frame, args.corners, args.relief)
    print(f"{picture_size_text(args.frame)} frames, {len(PROFILE_LAYOUTS)} board profiles"
          f"{' found by their corners' if args.corners else ''}, {args.scenes} set-ups each, "
          f"{args.frames} frames each read at {len(DEFOCUS_PX)} lens blurs, seed {args.seed}"
          f"{', seen in depth' if args.relief else ''}; board not found or blur not measured {lost} times")
    if args.models is not None:
        print(f"  the seed counter's networks from {args.models}")
    for failure in failures:
        print(f"  calibration failed: {failure}")
    print("by the lens blur (px of a 1280 px wide picture):")
    for defocus, tally in by_defocus.items():
        print(f"  {defocus:3.1f} px: {tally.line()}")
    print(f"by the blur measured at {measured_at(args.corners)} (vision.focus):")
    for low, high in zip(BLUR_BINS_MM, BLUR_BINS_MM[1:]):
        tally = by_blur[low]
        if tally.frames:
            span = f"{low:.1f}-{high:.1f} mm" if high < 9 else f"over {low:.1f} mm"
            print(f"  {span:12s} {tally.line()}")


if __name__ == "__main__":
    main()
