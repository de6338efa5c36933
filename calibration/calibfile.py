"""The calibration file: everything the reader needs to know about one board set-up.

A calibration is made once per set-up (board, camera placement, lamp, seeds)
by ``pitwatch calibrate`` and read back for every frame. It is JSON, versioned
and validated: a malformed or mismatched file is refused with an error that
names the field. Format (version 2)::

    {"format": "pitwatch-calibration", "version": 2,
     "board": "2x6+stores",            # board profile (calibration.profiles)
     "variant": "kalah",               # the variant whose start position taught the seeds, or null
     "px_per_mm": 1.5,                 # scale of the rectified top-down view
     "corners": null,                  # 8 numbers (image x,y of the board corners) if the board has no markers
     "corners_picture": null,          # optional: [width, height] of the camera picture those x,y are in
     "hollows": {"A": {"centre": [x, y], "axes": [a, b], "angle": 0.0}, ...},   # rectified px
     "markers": {"0": [[x, y], [x, y], [x, y], [x, y]], ...},   # optional: where each marker seen was found
                                       # stuck, its corners in ArUco's order (board mm)
     "counter": {"temperature": 1.0,   # >= 1: how much the seed counter's probabilities are widened
                 "start_exact": 1.0,   # on this board; the share of start-position pits it read exactly
                 "whitest_seed": 212.0,   # optional: the whitest seed at the start, its light divided out
                                       # (0..255 of the empty board's light): whiter in a hollow is glare
                 "seed_area_mm2": 95.0,   # optional: how much of the board one seed of the start covers
                                       # (vision.seed_size): more white in one piece is glare
                 "blur_limit_mm": 0.9},   # optional: the blur (vision.focus) from which the start position,
                                       # blurred at calibration, was misread: a blurrier frame is read hedged
     "empty": "<base64 PNG>",          # the empty board, rectified: what "no seeds" looks like here
     "sensors": null}                  # optional: the pit sensors' calibration (firmware_bridge.sensors,
                                       # format "pitwatch-sensor-calibration"), learned by `pitwatch run`

Version 1 files (before the seed counter) are still read: their ``seed`` field
(the area of one seed, which the counter no longer needs) is ignored and the
counter is taken as it comes (temperature 1).

``blur_limit_mm`` is optional (files before 2026-11-27, eighth session, and
calibrations whose start position read well up to the general limit have none).

``seed_area_mm2`` is optional too (files before 2026-12-03, thirty-third session, and
start positions too few of whose pits hold seeds have none): the glare finder then allows
white of any seed up to the largest.

``markers`` is optional too (files before 2026-12-05, thirty-eighth session, boards found
by their corners, and markers calibration did not see): such a marker is taken where the
profile puts it. Markers are stuck by hand, a few millimetres off the profile's places; with
where each was found kept, any three of them put the board where all four did
(:func:`vision.markers.places_found`).

``corners_picture`` is optional too (files before 2026-11-27 have none): corners are
pixels of one picture size, and a camera giving another size (``camera.size``
changed, another camera) would put the board somewhere else; the reader then says
so rather than read the wrong place.

``sensors`` is optional (a file without it, as older Pitwatch wrote them, reads as
``null``): it is filled in when the board's pit sensors are first learned and
updated as they learn from confirmed positions (:func:`save_sensors`).
"""

from __future__ import annotations

import base64
import contextlib
import json
import math
import os
import reprlib
import stat
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import cv2
import numpy as np

from firmware_bridge.sensors import SensorCalibrationError
from firmware_bridge.sensors import SensorCalibration
from rules.errors import RulesError
from rules.notation import object_of_unique_keys
from vision.markers import turn
from vision.picture_file import not_a_file, png_size
from vision.rectify import rectified_size

from .checks import cut_short, is_number
from .outline import CornersError, check_outline
from .profiles import MARKER_MM, BoardProfile, UnknownBoard, board_profile

FORMAT = "pitwatch-calibration"
VERSION = 2
FLAT_PICTURE = 2.0  # grey levels: an empty board's picture varies more (its grain, its hollows' shading, its markers)
MOST_FILE_BYTES = 50_000_000  # a calibration file is under 2 MB (its empty board a PNG of up to 1 MB, in base64)
HOLLOWS_MOVED_MM = 20.0  # a hollow calibration found this far from where the markers put it is refused: the right
# profile's were at most 11.4 mm, another 2-row board's 13-48 mm (those under 20 mm caught by their markers' shape);
# a file whose hollow lies farther is refused too (a hand-edited one read A's seeds from a's hollow)
HOLLOWS_OVERLAP_MM = 3.0  # two hollows whose ellipses reach this far into each other are refused: a board's
# hollows are apart (a Kalah board's by about 10 mm), and seeds in the overlap were counted in both (an audit)
READABLE_VERSIONS = (1, 2)  # version 1: before the seed counter (its "seed" field is ignored)
FIELDS = ("format", "version", "board", "variant", "px_per_mm", "corners", "corners_picture", "hollows", "markers",
          "counter", "empty", "sensors")  # every field a calibration file has
VERSION_1_FIELDS = ("seed",)  # what a version 1 file has besides: read, and ignored
ANY_PICTURE = (100_000, 100_000)  # the picture corners lie in, for a file that did not record it (before 2026-11-27)
LEAST_BLUR_LIMIT_MM = 0.8  # no board's blur limit is set lower (calibration; a file's neither): sharper than that,
# pits of 0-9 are read exactly 99.9 % of the time over the focus benchmark's set-ups, dark beans among them
MEASURED = {"whitest_seed": (0.0, 10_000.0, 1), "blur_limit_mm": (LEAST_BLUR_LIMIT_MM, 10.0, 3),
            "seed_area_mm2": (1.0, 2_000.0, 1)}
# the counter's optional fields, each absent from files written before calibration measured it: its bounds and the
# decimals it is written with


class CalibrationError(ValueError):
    """A calibration file or calibration input that cannot be used; the message names the field."""


@dataclass(frozen=True)
class HollowFit:
    """Where one hollow was found in the rectified view (px), as an ellipse."""

    centre: tuple[float, float]
    axes: tuple[float, float]
    angle: float = 0.0  # degrees

    def to_json(self) -> dict[str, Any]:
        return {"centre": [round(v, 2) for v in self.centre], "axes": [round(v, 2) for v in self.axes], "angle": round(self.angle, 2)}


@dataclass(frozen=True)
class Calibration:
    """A board set-up: profile, rectified scale, hollows found, the empty board, how well the seed
    counter read its start position."""

    board: str
    variant: str | None
    px_per_mm: float
    hollows: dict[str, HollowFit]
    empty: np.ndarray  # rectified empty board, uint8 BGR
    corners: tuple[float, ...] | None = None
    temperature: float = 1.0  # the seed counter's probabilities are widened this much on this board
    start_exact: float = 1.0  # share of the start position's pits the counter read exactly at calibration
    sensors: SensorCalibration | None = None  # the board's pit sensors, once learned
    whitest_seed: float | None = None  # how white the whitest seed was at the start (vision.glare); None: not measured
    corners_picture: tuple[int, int] | None = None  # the picture (width, height px) ``corners`` are pixels of; None:
    # markers, or not recorded (files before 2026-11-27)
    blur_limit_mm: float | None = None  # a frame blurrier than this is read hedged on this board (vision.focus);
    # None: the general limit (the start position read well up to it, or a board without markers, or an older file)
    seed_area_mm2: float | None = None  # how much of the board one seed covers (vision.seed_size); None: not
    # measured (files before 2026-12-03, thirty-third session), any seed up to the largest allowed
    markers: dict[int, np.ndarray] | None = None  # where each marker seen at calibration was found stuck: its corners
    # (4 x 2 float32, board mm); None: a board without markers, or a file before 2026-12-05 (the profile's places)

    @property
    def profile(self) -> BoardProfile:
        return board_profile(self.board)

    def to_json(self) -> dict[str, Any]:
        ok, png = cv2.imencode(".png", self.empty)
        return {
            "format": FORMAT,
            "version": VERSION,
            "board": self.board,
            "variant": self.variant,
            "px_per_mm": self.px_per_mm,
            "corners": list(self.corners) if self.corners else None,
            "corners_picture": list(self.corners_picture) if self.corners and self.corners_picture else None,
            "hollows": {label: fit.to_json() for label, fit in self.hollows.items()},
            "markers": None if self.markers is None else {str(marker_id): [[round(float(v), 2) for v in corner] for corner in corners]
                                                          for marker_id, corners in sorted(self.markers.items())},
            "counter": {"temperature": round(self.temperature, 3), "start_exact": round(self.start_exact, 3),
                        **{name: round(value, decimals) for name, (_, _, decimals) in MEASURED.items()
                           if (value := getattr(self, name)) is not None}},
            "empty": base64.b64encode(png.tobytes()).decode("ascii"),
            "sensors": self.sensors.to_json() if self.sensors is not None else None,
        }

    @classmethod
    def from_json(cls, data: Any) -> "Calibration":
        """Validate and parse; :class:`CalibrationError` names the first wrong field."""
        if not isinstance(data, dict):
            raise CalibrationError("calibration: expected a JSON object")
        if data.get("format") != FORMAT:
            got = f"got {reprlib.repr(data['format'])}" if "format" in data else "the file has none"
            raise CalibrationError(f"format: expected {FORMAT!r}, {got}")
        version = data.get("version")
        if type(version) is not int or version not in READABLE_VERSIONS:  # not true or 2.0, which equal 1 and 2
            given = f"is version {reprlib.repr(version)}" if "version" in data else "gives no version"
            raise CalibrationError(f"version: this Pitwatch reads versions {', '.join(map(str, READABLE_VERSIONS))}, "
                                   f"the file {given}")
        # a field of no calibration (a typo, "corner") was dropped without a word
        if unknown := [str(key) for key in data if key not in FIELDS + VERSION_1_FIELDS]:
            raise CalibrationError(f"{cut_short(', '.join(unknown))}: no field of a calibration file (its fields are "
                                   f"{', '.join(FIELDS)})")
        board = data.get("board")
        try:
            profile = board_profile(board) if isinstance(board, str) else None
        except UnknownBoard as error:
            raise CalibrationError(f"board: {error}") from None
        if profile is None:
            raise CalibrationError(f"board: expected a board name, got {reprlib.repr(board)}")
        variant = data.get("variant")
        if variant is not None and not _variant_of(variant, profile):
            raise CalibrationError(f"variant: expected null or a variant played on a {profile.name} board, "
                                   f"got {reprlib.repr(variant)}")
        px_per_mm = _number(data.get("px_per_mm"), "px_per_mm", 0.3, 10.0)
        corners = data.get("corners")
        if corners is not None:
            if not isinstance(corners, list) or len(corners) != 8:
                raise CalibrationError("corners: expected null or 8 numbers (x,y of near-left, near-right, far-right, far-left)")
            corners = tuple(_number(v, f"corners[{k}]", -1e5, 1e5) for k, v in enumerate(corners))
        picture = _picture(data.get("corners_picture"))
        if corners is not None:
            _outline(corners, picture)
        hollows = _hollows(data.get("hollows"), profile, px_per_mm)
        markers = _marker_places(data.get("markers"), profile)
        counter = _counter(data.get("counter"), version)
        empty = _image(data.get("empty"), profile, px_per_mm)
        sensors = _sensors(data.get("sensors"), profile)
        return cls(profile.name, variant, px_per_mm, hollows, empty, corners, sensors=sensors, corners_picture=picture,
                   markers=markers, **counter)


def _outline(corners: tuple[float, ...], picture: tuple[int, int] | None) -> None:
    """Corners that cannot be a board seen from South's seat (all four at one point, in a line, in
    another order) refused as they are when clicked: a file edited by hand with such corners loaded,
    and every frame then read as "picture too blurred to count seeds". A file from before the
    picture's size was recorded (``corners_picture`` null) is checked within any picture."""
    try:
        check_outline([list(corners[k:k + 2]) for k in range(0, 8, 2)], picture or ANY_PICTURE)
    except CornersError as error:
        raise CalibrationError(str(error)) from None


def _counter(data: Any, version: int) -> dict[str, float | None]:
    """The ``counter`` object's fields, as :class:`Calibration`'s: the temperature, the
    start-position score and the optional measures (``MEASURED``: None where absent; version 1
    files have none of them, and the counter taken as it comes)."""
    if version == 1:
        return {}
    if not isinstance(data, dict):
        raise CalibrationError("counter: expected an object with 'temperature' and 'start_exact'")
    return {"temperature": _number(data.get("temperature"), "counter.temperature", 1.0, 100.0),
            "start_exact": _number(data.get("start_exact"), "counter.start_exact", 0.0, 1.0),
            **{name: None if (value := data.get(name)) is None else _number(value, f"counter.{name}", low, high)
               for name, (low, high, _) in MEASURED.items()}}


def _variant_of(name: Any, profile: BoardProfile) -> bool:
    """Whether ``name`` is a variant (or board) whose board is ``profile``'s."""
    try:
        return isinstance(name, str) and board_profile(name).name == profile.name
    except UnknownBoard:
        return False


def _number(value: Any, field: str, low: float, high: float) -> float:
    if not is_number(value):
        raise CalibrationError(f"{field}: expected a number, got {reprlib.repr(value)}")
    if not low <= value <= high:
        raise CalibrationError(f"{field}: {reprlib.repr(value)} is outside {low}..{high}")
    return float(value)


def _pair(value: Any, field: str) -> tuple[float, float]:
    if not isinstance(value, list) or len(value) != 2:
        raise CalibrationError(f"{field}: expected two numbers, got {reprlib.repr(value)}")
    return (_number(value[0], f"{field}[0]", -1e5, 1e5), _number(value[1], f"{field}[1]", -1e5, 1e5))


def _picture(data: Any) -> tuple[int, int] | None:
    """``corners_picture``: null, or [width, height] in whole pixels."""
    if data is None:
        return None
    if (not isinstance(data, list) or len(data) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) and 16 <= v <= 100_000 for v in data)):
        raise CalibrationError(f"corners_picture: expected null or [width, height] in whole pixels, got {reprlib.repr(data)}")
    return data[0], data[1]


def _hollows(data: Any, profile: BoardProfile, px_per_mm: float) -> dict[str, HollowFit]:
    if not isinstance(data, dict):
        raise CalibrationError("hollows: expected an object mapping pit labels to ellipses")
    labels = set(profile.layout.labels)
    unknown = sorted(set(data) - labels)
    if unknown:
        raise CalibrationError(f"hollows: {cut_short(', '.join(unknown))} are not pits of a {profile.name} board")
    missing = [label for label in profile.layout.labels if label not in data]
    if missing:
        raise CalibrationError(f"hollows: no ellipse for pit(s) {', '.join(missing)}")
    width, height = profile.size[0] * px_per_mm, profile.size[1] * px_per_mm
    fits = {}
    for label in profile.layout.labels:
        item = data[label]
        where = f"hollows.{label}"
        if not isinstance(item, dict):
            raise CalibrationError(f"{where}: expected an object with centre, axes, angle")
        centre = _pair(item.get("centre"), f"{where}.centre")
        if not (0 <= centre[0] <= width and 0 <= centre[1] <= height):
            raise CalibrationError(f"{where}.centre: {list(centre)} lies outside the {width:.0f}x{height:.0f} px board")
        nominal = profile.hollow(label).centre
        moved = math.dist((centre[0] / px_per_mm, centre[1] / px_per_mm), nominal)
        if moved > HOLLOWS_MOVED_MM:  # calibration refuses the same: no pit is read from another's hollow
            raise CalibrationError(f"{where}.centre: {list(centre)} lies {moved:.0f} mm from where a {profile.name} "
                                   f"board has pit {label} (calibration puts it within {HOLLOWS_MOVED_MM:.0f} mm)")
        axes = _pair(item.get("axes"), f"{where}.axes")
        # calibration keeps the profile's hollow and moves only its centre: axes far from it are no
        # fit of this board's hollow, and a window cut to them would read a wrong count confidently
        shape = [axis * px_per_mm for axis in profile.hollow(label).axes]
        low, high = 0.5 * min(shape), 2 * max(shape)
        if not (low <= min(axes) and max(axes) <= high):
            raise CalibrationError(f"{where}.axes: {list(axes)} px; a {profile.name} board's hollow at {px_per_mm} "
                                   f"px/mm has semi-axes of {low:.1f} to {high:.1f} px")
        fits[label] = HollowFit(centre, axes, _number(item.get("angle", 0.0), f"{where}.angle", -360, 360))
    if (overlap := overlapping_hollows(fits, px_per_mm)) is not None:
        first, second, depth = overlap
        raise CalibrationError(f"hollows.{first} and hollows.{second}: their ellipses reach {depth:.0f} mm into each "
                               f"other; a board's hollows lie apart (at most {HOLLOWS_OVERLAP_MM:.0f} mm is let pass)")
    return fits


def overlapping_hollows(hollows: dict[str, HollowFit], px_per_mm: float) -> tuple[str, str, float] | None:
    """The two hollows whose ellipses reach farthest into each other, and how far (mm), if more than
    ``HOLLOWS_OVERLAP_MM``; None if none do."""
    deepest = deepest_overlap(hollows, px_per_mm)
    return deepest if deepest[2] > HOLLOWS_OVERLAP_MM else None


def deepest_overlap(hollows: dict[str, HollowFit], px_per_mm: float) -> tuple[str, str, float]:
    """The two hollows whose ellipses reach farthest into each other, and how far (mm, below 0: how
    far apart they stay), measured along the line between their centres (``board_shape_bench.py``
    prints it for calibrations of hard shots)."""
    labels = list(hollows)
    pairs = [(first, second) for i, first in enumerate(labels) for second in labels[i + 1:]]
    return max(((first, second, _reach(hollows[first], hollows[second]) / px_per_mm) for first, second in pairs),
               key=lambda pair: pair[2])


def _reach(a: HollowFit, b: HollowFit) -> float:
    """How far (px) ellipses ``a`` and ``b`` reach into each other along the line between their centres."""
    towards = math.degrees(math.atan2(b.centre[1] - a.centre[1], b.centre[0] - a.centre[0]))
    return _radius_towards(a, towards) + _radius_towards(b, towards) - math.dist(a.centre, b.centre)


def _radius_towards(hollow: HollowFit, direction: float) -> float:
    """How far ``hollow``'s ellipse reaches from its centre in ``direction`` (degrees), in px."""
    psi = math.radians(direction - hollow.angle)
    a, b = hollow.axes
    return a * b / math.hypot(b * math.cos(psi), a * math.sin(psi))


def _marker_places(data: Any, profile: BoardProfile) -> dict[int, np.ndarray] | None:
    """``markers``: null, or per marker id ("0" to "3") its four corners on the board (mm), each
    on the board (or within a marker's width of it) and a printed marker's side apart."""
    if data is None:
        return None
    if not isinstance(data, dict) or not set(data) <= {"0", "1", "2", "3"}:
        raise CalibrationError("markers: expected null or an object mapping marker ids 0 to 3 to their four corners")
    width, height = profile.size
    places = {}
    for key, corners in sorted(data.items()):
        where = f"markers.{key}"
        if not isinstance(corners, list) or len(corners) != 4:
            raise CalibrationError(f"{where}: expected four corners [x, y] (board mm), got {reprlib.repr(corners)}")
        points = np.array([_pair(corner, f"{where}[{k}]") for k, corner in enumerate(corners)], np.float32)
        if not ((points >= -MARKER_MM).all() and (points <= (width + MARKER_MM, height + MARKER_MM)).all()):
            raise CalibrationError(f"{where}: its corners {points.round(1).tolist()} lie off the {width:.0f}x{height:.0f} mm board")
        sides = np.linalg.norm(points - np.roll(points, 1, axis=0), axis=1)
        if not (0.5 * MARKER_MM <= sides.min() and sides.max() <= 1.5 * MARKER_MM):
            raise CalibrationError(f"{where}: its corners are {sides.min():.1f}-{sides.max():.1f} mm apart, a printed "
                                   f"marker's {MARKER_MM:.0f} mm")
        if min(turn(points[k - 1], points[k], points[(k + 1) % 4]) for k in range(4)) < 0.5 * MARKER_MM ** 2:
            raise CalibrationError(f"{where}: its corners do not go round a square clockwise, as a printed marker's "
                                   "do in ArUco's order (mirrored, or out of order)")  # read "hand over board" for ever
        for other, placed in places.items():
            if math.dist(points.mean(axis=0), placed.mean(axis=0)) < MARKER_MM:
                raise CalibrationError(f"{where}: it lies on markers.{other}")  # a board read with pits out of view
        places[int(key)] = points
    return places


def _image(data: Any, profile: BoardProfile, px_per_mm: float) -> np.ndarray:
    if not isinstance(data, str):
        raise CalibrationError("empty: expected the rectified empty board as a base64 PNG string")
    try:
        raw = np.frombuffer(base64.b64decode(data, validate=True), np.uint8)
    except (ValueError, TypeError):
        raise CalibrationError("empty: not valid base64") from None
    width, height = rectified_size(profile.size, px_per_mm)
    size = png_size(raw[:24].tobytes())  # its width and height end at byte 24
    if size is None:
        raise CalibrationError("empty: not a PNG image")
    if size != (width, height):  # told by its header: a PNG of 30000 x 30000 px is 3.5 MB and 2.7 GB decoded
        raise CalibrationError(f"empty: image is {size[0]}x{size[1]} px, a {profile.name} board at {px_per_mm} px/mm "
                               f"needs {width}x{height}")
    try:
        image = cv2.imdecode(raw, cv2.IMREAD_COLOR)
    except cv2.error:
        image = None
    if image is None or image.shape[:2] != (height, width):
        raise CalibrationError("empty: not a whole PNG image")
    if float(image.std()) < FLAT_PICTURE:  # one colour all over read start positions "ok" with most pits wrong
        raise CalibrationError("empty: a picture of one colour, no board in it")
    return image


def _sensors(data: Any, profile: BoardProfile) -> SensorCalibration | None:
    if data is None:
        return None
    try:
        sensors = SensorCalibration.from_json(data, "sensors")
    except SensorCalibrationError as error:
        raise CalibrationError(str(error)) from None
    if sensors.labels != profile.layout.labels:
        raise CalibrationError(f"sensors: calibrates pits {cut_short(' '.join(sensors.labels))}; a {profile.name} board has "
                               f"{' '.join(profile.layout.labels)}")
    return sensors


def save_calibration(calibration: Calibration, path: str | Path) -> None:
    """Write ``calibration`` as JSON (atomically: a crash never leaves half a file). It is checked
    first as :func:`load_calibration` will check it, so that a calibration no reader would load
    (a measurement out of its range) is refused, naming the field, instead of replacing a good file."""
    data = calibration.to_json()
    try:
        Calibration.from_json(data)
    except CalibrationError as error:
        raise CalibrationError(f"{path}: not written, no reader would load it: {error}") from None
    write_whole(path, json.dumps(data, indent=1))


def save_corners(path: str | Path, corners: Sequence[float] | None, picture: tuple[int, int] | None = None) -> None:
    """Set the ``corners`` field of the calibration file at ``path`` (8 numbers, or ``None``:
    find the board by its markers) and ``corners_picture`` (the size of the picture they are
    pixels of), leaving every other field as it is on disk.

    The file is read and validated first, so a damaged file is named rather
    than overwritten, and written atomically: a crash leaves the old corners
    or the new ones, never half a file.
    """
    _set_fields(Path(path), {"corners": None if corners is None else [float(v) for v in corners],
                             "corners_picture": None if corners is None or picture is None else list(picture)})


def save_sensors(path: str | Path, sensors: SensorCalibration | None) -> None:
    """Set the ``sensors`` field of the calibration file at ``path`` (the pit sensors' calibration,
    or ``None``), leaving every other field as it is on disk; checked and written as :func:`save_corners`."""
    _set_fields(Path(path), {"sensors": None if sensors is None else sensors.to_json()})


def save_sensor_file(path: str | Path, sensors: SensorCalibration) -> None:
    """Write the pit sensors' calibration to a file of its own (a set-up whose camera is not
    calibrated, or none at all), as a calibration file is written: whole or not at all, flushed to
    the disk, an error naming ``path``. The sensors are learned again after every confirmed
    position, so a power cut at the table must not leave the players a half-written file."""
    write_whole(path, json.dumps(sensors.to_json(), indent=2) + "\n")


def load_sensor_file(path: str | Path) -> SensorCalibration:
    """Read the file :func:`save_sensor_file` writes; :class:`SensorCalibrationError` names the
    file, and the field where one is wrong."""
    return SensorCalibration.from_json(_read_json(path, "sensor calibration file", SensorCalibrationError), str(path))


_updating = threading.Lock()  # the dashboard sets corners while the sensors learn: one update at a time


def _set_fields(path: Path, fields: dict[str, Any]) -> None:
    """Read and check the file, set ``fields``, check again, write atomically."""
    with _updating:
        data = _read_json(path)
        _parse(data, path)  # the file on disk is a calibration (and a JSON object)
        data.update(fields)
        _parse(data, path)  # and still one with this value
        write_whole(path, json.dumps(data, indent=1))


def write_whole(path: str | Path, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` whole or not at all: a sibling temporary file,
    flushed to the disk, then renamed over it, so a crash or a full disk keeps the file that was
    there and leaves no temporary one. A link's file is written (the link stays). A device or a
    pipe standing at ``path`` (a printer, /dev/full) has no file to leave half-written: it is
    written as it is. A failure is an OSError naming ``path``, the file the user asked for, not
    the temporary one (``sheet.png: cannot write: No space left on device``). The file replaced keeps
    its permissions; a hard link to it keeps the old content, as with any file replaced whole."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    target = Path(os.path.realpath(path))  # Path.resolve raises on a link loop, not an OSError
    tmp = target.with_name(target.name + ".tmp")
    try:
        if target.exists() and not target.is_file():
            target.write_bytes(raw)
            return
        with open(tmp, "wb") as out:
            out.write(raw)
            out.flush()
            os.fsync(out.fileno())
        if target.exists():  # the file replaced keeps its permissions (a calibration kept private stayed 0644)
            os.chmod(tmp, stat.S_IMODE(target.stat().st_mode))
        tmp.replace(target)
    except BaseException as error:  # a full disk, or Ctrl-C in the middle: the old file stays, no temporary one
        with contextlib.suppress(OSError):  # the error to tell is the write's
            tmp.unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise OSError(error.errno, f"cannot write: {error.strerror or error}", str(path)) from None
        raise


def load_calibration(path: str | Path) -> Calibration:
    """Read and validate a calibration file; :class:`CalibrationError` says what is wrong and where."""
    return _parse(_read_json(path), path)


def _read_json(path: str | Path, what: str = "calibration file",
               error: type[Exception] = CalibrationError) -> Any:
    """The JSON in the file at ``path``; ``error`` names the file, and the line where the JSON breaks.
    A named pipe or a device is refused before it is read (one would wait for a writer for ever,
    /dev/zero fill the memory), and a file is read up to ``MOST_FILE_BYTES`` (a video given by mistake)."""
    if not str(path).strip():  # Path("") is the folder Pitwatch runs in
        raise error(f"{str(path)!r}: a blank name names no {what}")
    if (kind := not_a_file(Path(path))) is not None:
        raise error(f"{path}: not a {what} but {kind}")
    try:
        with open(path, "rb") as stream:
            data = stream.read(MOST_FILE_BYTES + 1)
    except OSError as failure:
        raise error(f"{path}: cannot read {what} ({failure.strerror or failure})") from None
    if len(data) > MOST_FILE_BYTES:
        raise error(f"{path}: not a {what} (more than {MOST_FILE_BYTES // 1_000_000} MB; a calibration file is under 2 MB)")
    try:
        text = data.decode("utf-8-sig")  # a file an editor saved with a byte-order mark reads as it was
    except UnicodeDecodeError:
        raise error(f"{path}: not a {what} (not JSON text)") from None
    try:
        return json.loads(text, object_pairs_hook=object_of_unique_keys)
    except RulesError as repeated:
        raise error(f"{path}: not a {what} ({repeated})") from None
    except json.JSONDecodeError as failure:
        raise error(f"{path}: not JSON (line {failure.lineno}, column {failure.colno}: {failure.msg})") from None
    except RecursionError:
        raise error(f"{path}: not a {what} (its JSON is nested too deeply to read)") from None
    except ValueError:  # the one ValueError json.loads raises that is no JSONDecodeError
        raise error(f"{path}: not a {what} (a number in it has more digits than Python reads)") from None


def _parse(data: Any, path: str | Path) -> Calibration:
    try:
        return Calibration.from_json(data)
    except CalibrationError as error:
        raise CalibrationError(f"{path}: {error}") from None
