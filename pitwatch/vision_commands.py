"""The vision subcommands of ``pitwatch``: ``calibrate``, ``read`` and ``markers``.

``add_vision_commands(subparsers)`` registers them; each sets ``func`` to a
handler taking the parsed arguments and returning the exit code (0, or 2
after a one-line error on stderr for bad input: a missing file, a board not
found, a malformed calibration; ``read`` returns 1 when some of its pictures
gave nothing to read or could not be opened, once it has read the rest).
``pitwatch.cli`` runs ``sys.exit(args.func(args))``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Iterator

import cv2
import numpy as np

from calibration.calibfile import Calibration, CalibrationError, load_calibration, save_calibration
from calibration.calibrate import calibrate
from calibration.markersheet import render_marker_sheet
from calibration.outline import check_outline
from calibration.profiles import board_profile
from firmware_bridge.sensors import SensorCalibration
from vision.camera import SourceError, picture_of
from vision.counter import CounterError
from vision.glare import seed_top_mm2
from vision.markers import parse_corners
from vision.picture_file import not_a_file
from vision.reader import BoardReader, FrameResult, locate_board
from vision.seed_size import seed_size_text
from vision.sources import check_source, open_source, picture_from

from . import config as cfg
from .errors import said
from .placement import judge_placement
from .terminal import wait_for_enter

# Bad input: CalibrationError, SourceError and UnknownBoard are ValueErrors; OSError for files;
# CounterError for a broken installation (the seed counter's files).
USER_ERRORS = (ValueError, OSError, CounterError)
NO_TERMINAL = ("a camera's pictures are taken when you press Enter, once the board is set up: run `pitwatch calibrate` "
               "at a terminal, or give it pictures (--empty empty.jpg --start start.jpg)")


def add_vision_commands(subparsers: argparse._SubParsersAction) -> None:
    """Register ``calibrate``, ``read`` and ``markers`` on a ``pitwatch`` subparsers object."""
    cal = subparsers.add_parser("calibrate", help="learn a board set-up from an empty board and the start position",
                                description="Find the hollows on the empty board and learn what a seed looks like from the start position.")
    cal.add_argument("--variant", required=True, help="variant (kalah, oware, pass-it-on, ...) or board (2x6+stores, 4x8, ...)")
    cal.add_argument("--empty", required=True, help="picture (or camera source) of the empty board")
    cal.add_argument("--start", required=True, help="picture (or camera source) of the variant's start position")
    cal.add_argument("--corners", help="board without markers: x,y of the near-left, near-right, far-right, far-left corners")
    cal.add_argument("-o", "--output", required=True, help="calibration file to write (JSON)")
    cfg.add_options(cal)  # camera.size: a camera device gives the pictures it will give `pitwatch run`
    cal.set_defaults(func=_guarded("calibrate", _calibrate))

    read = subparsers.add_parser("read", help="read every pit of pictures of a calibrated board")
    read.add_argument("--calibration", required=True, help="calibration file from `pitwatch calibrate`")
    read.add_argument("images", nargs="+", metavar="IMAGE", help="pictures, folders of pictures, videos or camera sources")
    read.add_argument("--json", action="store_true", help="print one JSON object per picture")
    cfg.add_options(read)
    read.set_defaults(func=_guarded("read", _read))

    markers = subparsers.add_parser("markers", help="print the four board markers at true size")
    markers.add_argument("-o", "--output", required=True, help="sheet.png or sheet.pdf")
    markers.set_defaults(func=_guarded("markers", _markers))


def _guarded(name: str, handler: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """``handler`` with bad input said in one line (status 2); a reader of the output that stopped
    reading (``| head``) is left to :func:`pitwatch.cli.main`, which stops quietly."""
    def run(args: argparse.Namespace) -> int:
        try:
            return handler(args)
        except BrokenPipeError:
            raise
        except USER_ERRORS as error:
            print(f"pitwatch {name}: error: {said(error)}", file=sys.stderr)
            return 2
    return run


def _calibrate(args: argparse.Namespace) -> int:
    size = cfg.from_arguments(args).camera_size
    # What can be told wrong without pictures is said before the players set the board up twice for nothing.
    replaced = _calibration_to_replace(args.output, {"--empty": args.empty, "--start": args.start})
    board = board_profile(args.variant).name
    sensors = _learned_sensors(replaced, board)
    if replaced is not None and replaced.sensors is not None and sensors is None:
        # refused, not warned of: with picture files nothing waited for the Ctrl-C the warning asked for
        raise ValueError(f"{args.output} holds the pit sensors learned for a {replaced.board} board, which a {board} "
                         f"board's calibration cannot keep: give -o another file, or delete {args.output} first to "
                         "drop them (pitwatch run learns a board's sensors again)")
    values = None if args.corners is None else parse_corners(args.corners)  # '' too is refused, not ignored
    outline = None if values is None else [values[i:i + 2] for i in range(0, 8, 2)]
    if outline is not None:
        check_outline(outline, None)  # its shape now; whether it lies inside the picture once there is one
    if args.start != args.empty:
        check_source(args.start, size)  # a file not there, a camera that does not answer: before the empty board
    empty = picture_from(args.empty, size=size, when_live=lambda: wait_for_enter(
        "pitwatch calibrate: empty every pit, the whole board in the camera's view, then press Enter... ", NO_TERMINAL))
    start = picture_from(args.start, size=size, when_live=lambda: wait_for_enter(
        "pitwatch calibrate: now lay out the start position, then press Enter... ", NO_TERMINAL))
    corners = None
    if outline is not None:
        # The same checks as corners clicked on the dashboard: a mirrored or turned order is refused.
        corners = [v for point in check_outline(outline, (empty.shape[1], empty.shape[0])) for v in point]
    calibration = calibrate(args.variant, empty, start, corners)
    calibration = replace(calibration, sensors=sensors)
    save_calibration(calibration, args.output)
    exact = round(calibration.start_exact * len(calibration.hollows))
    widened = "" if calibration.temperature == 1.0 else (
        f"; the seed counter was unsure of the start position or misread it, so its readings on this board are "
        f"widened (temperature {calibration.temperature:.2f}): check the start position and the light")
    print(f"calibrated a {calibration.board} board: {len(calibration.hollows)} pits, start position read exactly in "
          f"{exact} of them{widened}; written to {args.output}")
    if (area := calibration.seed_area_mm2) is not None:  # what the glare finder allows one seed's white
        print(f"seeds: {seed_size_text(area)}; clipped white in a hollow over {seed_top_mm2(area):.0f} mm2 is taken "
              "for a lamp's reflection")
    image_to_board, _ = locate_board(cv2.cvtColor(start, cv2.COLOR_BGR2GRAY), calibration)
    if image_to_board is not None:  # where the camera stands, as pitwatch doctor says it
        for judged in judge_placement(image_to_board, (start.shape[1], start.shape[0]), calibration.profile.size):
            print(f"camera: {judged.said}")
    return 0


def _calibration_to_replace(output: str, pictures: dict[str, str]) -> Calibration | None:
    """The calibration that ``-o`` would replace (None: the file is new), once it is checked that
    the new one may be written there: before any picture is taken, since with a camera each try
    costs the players setting the board up twice.

    Refused, named: the picture given as --empty or --start (``pictures``: flag -> source), which
    the calibration would replace; a folder, a pipe or a device (reading one for the sensors it
    has learned would wait for ever); a folder missing or that this user may not write in; a file
    that is not a calibration (a photo, someone's notes). Only a calibration is replaced, as a
    board is calibrated again, and the sensors it has learned are kept."""
    if not str(output).strip():  # Path("") is the folder the command runs in
        raise ValueError("-o is blank: name the calibration file to write")
    path = Path(output)
    if path.is_symlink() and not path.exists():  # written through, the link fails only once the pictures are taken
        raise ValueError(f"{output}: is a link to {os.readlink(path)}, which does not exist: give -o another file")
    if path.exists():
        for flag, source in pictures.items():
            if Path(source).exists() and os.path.samefile(path, source):
                raise ValueError(f"{output}: is the {flag} picture, which the calibration would replace: "
                                 "give -o another file")
        if (kind := not_a_file(path)) is not None:
            raise ValueError(f"{output}: is {kind}, not a file: -o names the calibration file to write")
    folder = path.parent
    if not folder.is_dir():
        raise ValueError(f"{output}: cannot be written, there is no folder {folder}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ValueError(f"{output}: cannot be written, this user may not write in the folder {folder}")
    if not path.exists():
        return None
    try:
        return load_calibration(path)
    except CalibrationError as error:
        raise CalibrationError(f"{error}; not overwritten: -o names a new file or a calibration file to replace") from None


def _learned_sensors(old: Calibration | None, board: str) -> SensorCalibration | None:
    """The pit sensors' calibration in the file being replaced, if it is of the same board:
    calibrating the camera again must not make the players teach the sensors again."""
    return old.sensors if old is not None and old.board == board else None


def _frames(spec: str, size: tuple[int, int]) -> Iterator[tuple[str, np.ndarray | None, str]]:
    """(name, picture or None, status) for every picture a source gives (one for a live camera,
    once its exposure has settled; a device is asked for pictures of ``size``). A source that
    cannot be opened (no such file, a folder this user may not read) gives one, without picture,
    saying why: it is one of the pictures that gave nothing to read, and those after it are read."""
    try:
        source = open_source(spec, size)
    except (SourceError, OSError) as error:
        yield spec, None, said(error)
        return
    try:
        for frame in [picture_of(source)] if source.live else source:
            yield frame.origin or f"{spec}#{frame.index}", frame.image, frame.status
    finally:
        source.close()


def pit_summary(result: FrameResult) -> dict[str, Any]:
    """Per pit: most likely count, its probability, and the white/yellow split where it applies."""
    pits: dict[str, Any] = {}
    for label, pit in result.reading.pits.items():
        if pit is None:
            pits[label] = None
            continue
        count = pit.most_likely
        item: dict[str, Any] = {"count": count, "p": round(pit.counts[count], 4), "set95": pit.credible_set(0.95)}
        if pit.white is not None:
            white = min(pit.most_likely_white or 0, count)
            item.update(white=white, yellow=count - white, p_white=round(pit.white_probability(white), 4))
        pits[label] = item
    return pits


def _read(args: argparse.Namespace) -> int:
    """Read every picture, then 1 if some gave nothing to read (not a picture, a black one, a file
    that is not there, one with no board found or not one pit seen), named on stderr: a script
    reading a folder must not take a corrupt file or a picture of the wall for a read board, nor
    miss the pictures after a name mistyped.

    Each picture is read on its own, by a reader of its own (23 ms to make), as if it were the
    first: pictures given together need not follow one another as a camera's frames do. One
    reader for them all kept the board of the picture before, and asked a marker's placement only
    when it came into view, so a picture with a marker stuck turned, read after a right one, read
    as a hand over the board (2026-12-05)."""
    size = cfg.from_arguments(args).camera_size
    calibration = load_calibration(args.calibration)
    unread: list[str] = []
    read = 0
    for spec in args.images:
        for name, image, status in _frames(spec, size):
            read += 1
            if image is None:
                unread.append(f"{name} ({status})")
                record: dict[str, Any] = {"image": name, "status": {"board_found": False, "message": status}, "pits": None}
            else:
                result = BoardReader(calibration).read(image)
                record = {"image": name, "status": result.status.to_json(), "pits": pit_summary(result)}
                if not any(record["pits"].values()):  # no board found, or not one pit of it seen
                    unread.append(f"{name} ({result.status.message})")
            print(json.dumps(record) if args.json else _text(record))
    if unread:
        print(f"pitwatch read: {len(unread)} of {read} pictures gave nothing to read: {'; '.join(unread)}", file=sys.stderr)
        return 1
    return 0


def _text(record: dict[str, Any]) -> str:
    lines = [f"{record['image']}: {record['status']['message']}"]
    for label, pit in (record["pits"] or {}).items():
        if pit is None:
            lines.append(f"  {label}: unseen")
        else:
            colours = f" ({pit['white']} white, {pit['yellow']} yellow)" if "white" in pit else ""
            lines.append(f"  {label}: {pit['count']}{colours}  p={pit['p']:.2f}")
    return "\n".join(lines)


def _markers(args: argparse.Namespace) -> int:
    path = render_marker_sheet(args.output)
    print(f"marker sheet written to {path}; print at actual size and check the 100 mm ruler")
    return 0
