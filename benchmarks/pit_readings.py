"""A benchmark's readings pit by pit, in a CSV file: what two runs of the same frames read
differently is then counted (``compare_readings.py``) rather than guessed from their totals.

Two versions of the reader can differ by a tenth of a percent on the benchmark's totals while
mending and breaking dozens of pits each; only the pits themselves say whether a change helps
more than chance would. One row per pit of every frame ``vision_bench.py`` scores:

    profile, setup, frame   the board profile, its set-up and the frame's number in that set-up
    pit                     the pit's label
    truth                   the renderer's count
    covered                 1 if the hand lay over the pit (the reader should not see it)
    read                    the reader's most likely count, empty if it did not see the pit
    sure                    the probability it gave that count, empty if unseen
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the benchmark's types; comparing two files needs no vision
    from vision.reader import FrameResult
    from vision.render import Rendered

COLUMNS = ("profile", "setup", "frame", "pit", "truth", "covered", "read", "sure")

Key = tuple[str, int, int, str]  # profile, setup, frame, pit

BINS = ((0, 0, "0"), (1, 4, "1-4"), (5, 9, "5-9"), (10, 19, "10-19"), (20, 99, "20+"))  # heap sizes: (least, most, name)


def heap_bin(n: int) -> str:
    """The name of the bin of ``BINS`` a heap of ``n`` seeds falls in: ``vision_bench.py``'s figures and
    ``compare_readings.py``'s tallies are given by them."""
    return next(name for lo, hi, name in BINS if lo <= n <= hi)


class ReadingsFileError(ValueError):
    """A readings file that cannot be read: the message names the file and, for a bad row, its line."""


def pit_rows(profile: str, setup: int, frame: int, rendered: Rendered, result: FrameResult) -> list[dict]:
    """The rows of one scored frame: ``rendered`` (vision.render.Rendered) is the truth,
    ``result`` (the BoardReader's) what was read."""
    rows = []
    for label, truth in rendered.counts.items():
        pit = result.reading.pits.get(label) if result.status.board_found else None
        rows.append({"profile": profile, "setup": setup, "frame": frame, "pit": label, "truth": truth,
                     "covered": int(label in rendered.covered),
                     "read": "" if pit is None else pit.most_likely,
                     "sure": "" if pit is None else f"{pit.probability(pit.most_likely):.4f}"})
    return rows


def write_readings(path: Path, rows: list[dict]) -> None:
    with open(path, "w", newline="") as file:
        writer = csv.DictWriter(file, COLUMNS)
        writer.writeheader()
        writer.writerows(rows)


def load_readings(path: Path) -> dict[Key, tuple[int, bool, int | None]]:
    """``(profile, setup, frame, pit)`` -> (truth, covered, read or None if unseen)."""
    try:
        with open(path, newline="") as file:
            reader = csv.DictReader(file)
            if reader.fieldnames is None or not set(COLUMNS) <= set(reader.fieldnames):
                raise ReadingsFileError(f"{path}: not a readings file (its header should be {','.join(COLUMNS)})")
            readings = {}
            for row in reader:
                try:
                    key = (row["profile"], int(row["setup"]), int(row["frame"]), row["pit"])
                    readings[key] = (int(row["truth"]), row["covered"] == "1",
                                     None if row["read"] == "" else int(row["read"]))
                except (TypeError, ValueError):
                    raise ReadingsFileError(f"{path}, line {reader.line_num}: not a pit's reading: {row}") from None
            return readings
    except OSError as error:
        raise ReadingsFileError(f"{path}: {error.strerror}") from None
