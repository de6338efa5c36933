"""Malformed sensor calibrations are refused with an error that names the field and what it must hold.

A calibration comes from a file a person may edit (``sensors.json``, or the
``sensors`` field of the board's calibration file) or from ``fit`` / ``learn``
called by the app. Whatever is wrong in it must surface as a
:class:`SensorCalibrationError` when it is read, never as a traceback later, in the
middle of a game, when a frame is turned into a Reading.
"""

from __future__ import annotations

import copy
import json
import math
from typing import Any, Callable

import pytest
from hypothesis import given, settings, strategies as st

import rules
from calibration.calibfile import load_sensor_file
from firmware_bridge import SensorCalibrationError, SensorCalibration
from firmware_bridge.sensors import MAX_COUNT, MOST_EVIDENCE

LABELS = rules.variant("kalah").layout.labels
START = list(rules.variant("kalah").start().pits)
EMPTY_FRAMES = [[100 + i + k % 2 for i in range(14)] for k in range(4)]
START_FRAMES = [[100 + i + 40 * n + k % 2 for i, n in enumerate(START)] for k in range(4)]


def good() -> dict[str, Any]:
    """A valid calibration file's content."""
    return SensorCalibration.fit(LABELS, EMPTY_FRAMES, START_FRAMES, START).to_json()


def pit(field: str, value: Any) -> Callable[[dict], None]:
    """A change to pit A's entry."""
    return lambda data: data["pits"][0].__setitem__(field, value)


def top(field: str, value: Any) -> Callable[[dict], None]:
    """A change to a top-level field."""
    return lambda data: data.__setitem__(field, value)


@pytest.mark.parametrize("change, message", [
    (top("max_count", -3), "calibration: 'max_count' must be an integer from 1 to 255, not -3"),
    (top("max_count", 0), "'max_count' must be an integer from 1 to 255, not 0"),
    (top("max_count", 10 ** 9), "'max_count' must be an integer from 1 to 255, not 1000000000"),
    (top("max_count", 48.5), "'max_count' must be an integer from 1 to 255, not 48.5"),
    (top("max_count", True), "'max_count' must be an integer from 1 to 255, not True"),
    (lambda data: data.pop("max_count"), "'max_count' is missing: it must be an integer from 1 to 255"),
    (lambda data: data.update(spred=data.pop("spread")), "'spred': no field of a sensor calibration (its fields are "
                                                         "format, version, max_count, spread, pits)"),
    (top("spread", -0.1), "'spread' must be a number from 0 to 1, not -0.1"),
    (top("spread", math.nan), "'spread' must be a number from 0 to 1, not nan"),
    (top("spread", "wide"), "'spread' must be a number from 0 to 1, not 'wide'"),
    (pit("offset", 5000), "pit A: 'offset' must be a number from 0 to 1023, not 5000"),
    (pit("offset", -1), "pit A: 'offset' must be a number from 0 to 1023, not -1"),
    (pit("gain", 0), "pit A: 'gain' must be a number above 0 and at most 1023, not 0"),
    (pit("gain", -40.0), "pit A: 'gain' must be a number above 0 and at most 1023, not -40.0"),
    (pit("gain", "heavy"), "pit A: 'gain' must be a number above 0 and at most 1023, not 'heavy'"),
    (pit("noise", 0), "pit A: 'noise' must be a number from 1 to 1023, not 0"),
    (pit("noise", math.inf), "pit A: 'noise' must be a number from 1 to 1023, not inf"),
    (pit("evidence", -1), "pit A: 'evidence' must be a number from 0 to 1e+12, not -1"),
    (lambda data: data["pits"][0].pop("evidence"), "pit A: 'evidence' is missing: it must be a number from 0 to 1e+12"),
    # the next learning overflowed (OverflowError in the sensors' thread), or made every gain inf
    (pit("evidence", 10 ** 400), "pit A: 'evidence' must be a number from 0 to 1e+12, not 1000"),
    (pit("evidence", 1e308), "pit A: 'evidence' must be a number from 0 to 1e+12, not 1e+308"),
    (pit("gain", "x" * 1_000_000), "pit A: 'gain' must be a number above 0 and at most 1023, not 'xxxxxxxxxxxx"),
    (pit("label", ""), "calibration: label 0 must be a non-empty string, not ''"),
    (pit("label", 7), "calibration: label 0 must be a non-empty string, not 7"),
    (pit("label", "B"), "calibration: pit labels repeat"),
    (lambda data: data["pits"].__setitem__(3, "D"), "calibration: pits[3] must be an object with a string 'label'"),
    (lambda data: data["pits"].extend(copy.deepcopy(data["pits"][:1]) * 19),
     "calibration: a board has 1 to 32 pits, not 33"),
    (top("pits", []), "calibration: 'pits' must be a non-empty list"),
    (top("version", 2), "calibration: version 2 is not supported (expected 1)"),
    (top("version", True), "calibration: version True is not supported (expected 1)"),
    (pit("offset", 10 ** 400), "pit A: 'offset' must be a number from 0 to 1023, not 1000"),  # isfinite overflows
])
def test_a_malformed_calibration_is_refused_naming_the_field(change, message):
    data = good()
    change(data)
    with pytest.raises(SensorCalibrationError) as caught:
        SensorCalibration.from_json(data)
    assert message in str(caught.value)


def test_a_file_with_a_negative_max_count_is_refused_when_loaded_not_when_read(tmp_path):
    """It used to load, and then every frame raised ``ValueError: max() arg is an empty sequence``."""
    data = good()
    data["max_count"] = -1
    path = tmp_path / "sensors.json"
    path.write_text(json.dumps(data))
    with pytest.raises(SensorCalibrationError, match=rf"{path}: 'max_count' must be an integer from 1 to 255, not -1"):
        load_sensor_file(path)


JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers(-10 ** 12, 10 ** 12)
                           | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=4),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                                          max_size=3),
                           max_leaves=6)
FIELDS = st.sampled_from(["max_count", "spread", "pits"]) | st.builds(
    lambda i, key: (i, key), st.integers(0, 13), st.sampled_from(["label", "offset", "gain", "noise", "evidence"]))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(FIELDS, JSON_VALUES), min_size=1, max_size=3))
def test_whatever_a_file_holds_it_is_refused_or_reads_a_frame(changes):
    """Any field set to any JSON value: a SensorCalibrationError when read, or a calibration that turns
    frames into Readings. Never another exception, then or later."""
    data = good()
    for where, value in sorted(changes, key=lambda change: not isinstance(change[0], tuple)):
        if isinstance(where, tuple):  # pit entries first: a top-level change may replace the list
            data["pits"][where[0]][where[1]] = value
        else:
            data[where] = value
    try:
        calibration = SensorCalibration.from_json(data)
    except SensorCalibrationError:
        return
    for frame in ([0] * 14, [1023] * 14, START_FRAMES[0]):
        reading = calibration.to_reading(frame)
        assert set(reading.pits) == set(calibration.labels)
    learned = calibration.learn(START_FRAMES, START)  # and it learns: a confirmed position's frames
    assert all(math.isfinite(p.gain) and p.evidence <= MOST_EVIDENCE for p in learned.pits)


@pytest.mark.parametrize("arguments, message", [
    ({"start_counts": [4] * 13}, "start_counts has 13 entries for 14 pits"),
    ({"start_counts": [-1] + START[1:]}, "start_counts[0] must be an integer from 0 to 255, not -1"),
    ({"start_counts": [4.0] + START[1:]}, "start_counts[0] must be an integer from 0 to 255, not 4.0"),
    ({"start_counts": [300] + START[1:]}, "start_counts[0] must be an integer from 0 to 255, not 300"),
    ({"max_count": 0}, "max_count must be an integer from 1 to 255, not 0"),
    ({"max_count": -5}, "max_count must be an integer from 1 to 255, not -5"),
    ({"max_count": 10 ** 6}, "max_count must be an integer from 1 to 255, not 1000000"),
    ({"max_count": 12.5}, "max_count must be an integer from 1 to 255, not 12.5"),
    ({"max_count": 3}, "max_count must be at least the 4 seeds that start_counts puts in one pit, not 3"),
    ({"labels": list(LABELS[:13]) + ["A"]}, "labels: pit labels repeat"),
    ({"labels": []}, "labels: a board has 1 to 32 pits, not 0"),
    ({"empty": []}, "empty: no frames to learn from"),
    ({"empty": [EMPTY_FRAMES[0][:13]]}, "empty: frame 0 has 13 values for 14 pits"),
    ({"empty": [[2000] + EMPTY_FRAMES[0][1:]]}, "empty: frame 0, value 0 must be an integer from 0 to 1023, not 2000"),
    ({"start": [START_FRAMES[0][:5] + [-3] + START_FRAMES[0][6:]]},
     "start: frame 0, value 5 must be an integer from 0 to 1023, not -3"),
    ({"start": [START_FRAMES[0][:5] + [140.5] + START_FRAMES[0][6:]]},
     "start: frame 0, value 5 must be an integer from 0 to 1023, not 140.5"),
])
def test_fit_names_a_wrong_argument(arguments, message):
    given_arguments = {"labels": LABELS, "empty": EMPTY_FRAMES, "start": START_FRAMES, "start_counts": START}
    given_arguments.update(arguments)
    with pytest.raises(SensorCalibrationError) as caught:
        SensorCalibration.fit(**given_arguments)
    assert message in str(caught.value)


def test_fit_keeps_max_count_within_what_a_reading_can_afford():
    """A start position with more seeds than MAX_COUNT (no variant has one) still calibrates."""
    counts = [20] * 14
    start = [[100 + i + 40 * n for i, n in enumerate(counts)]]
    calibration = SensorCalibration.fit(LABELS, EMPTY_FRAMES, start, counts)
    assert calibration.max_count == MAX_COUNT == 255
    assert calibration.to_reading(start[0]).pits["A"].most_likely == 20


@pytest.mark.parametrize("counts, frames, message", [
    ([-1] + START[1:], [START_FRAMES[0]], "learn: counts[0] must be an integer from 0 to 255, not -1"),
    (START[:3], [START_FRAMES[0]], "learn: counts has 3 entries for 14 pits"),
    (START, [], "learn: frames: no frames to learn from"),
    (START, [[1024] * 14], "learn: frames: frame 0, value 0 must be an integer from 0 to 1023, not 1024"),
])
def test_learn_names_a_wrong_argument(counts, frames, message):
    calibration = SensorCalibration.fit(LABELS, EMPTY_FRAMES, START_FRAMES, START)
    with pytest.raises(SensorCalibrationError) as caught:
        calibration.learn(frames, counts)
    assert message in str(caught.value)
