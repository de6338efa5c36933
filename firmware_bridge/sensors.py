"""From raw pit-sensor values to a Reading: a probability over seed counts per pit.

Every sensor is different (a load cell's zero, an FSR's slope), so each pit
is calibrated on its own from two moments whose counts are known: the empty
board and the start position. A pit's value is modelled as
``offset + gain * count`` plus noise that grows with the count (seeds are
not all the same weight or size). The referee then picks the legal result
that makes the whole Reading most likely, so an honest spread of
probability is worth more than a confident wrong count.
"""

from __future__ import annotations

import math
import reprlib
import statistics
from dataclasses import dataclass, replace
from typing import Any, Sequence

from rules.reading import PitReading, Reading

from .protocol import MAX_PITS

FORMAT = "pitwatch-sensor-calibration"
VERSION = 1
ADC_MAX = 1023
MIN_NOISE = 1.0  # one ADC step: never trust a pit more than its converter
FAULT_SIGMAS = 6.0  # a value this far from every count means a fault, not seeds
# The most seeds a Reading asks about per pit. Above the seeds of any board Pitwatch plays
# (Kalah with 8 houses of 12: 192); every Reading costs time in proportion (32 pits: 4 ms).
MAX_COUNT = 255


class SensorCalibrationError(ValueError):
    """Calibration data that cannot be used; the text names the pit or field and the file."""


@dataclass(frozen=True)
class _Expect:
    """What a numeric field must hold: checks a value, and says what was expected when it fails."""

    low: float
    high: float = math.inf
    integer: bool = False
    low_open: bool = False  # ``low`` itself is not allowed (a gain of 0 would be a dead sensor)

    def holds(self, value: Any) -> bool:
        kinds = int if self.integer else (int, float)
        # an int is always finite, and math.isfinite overflows on one of 400 digits
        if isinstance(value, bool) or not isinstance(value, kinds) or isinstance(value, float) and not math.isfinite(value):
            return False
        return (value > self.low if self.low_open else value >= self.low) and value <= self.high

    def describe(self) -> str:
        kind = "an integer" if self.integer else "a number"
        if self.high == math.inf:
            return f"{kind} {'above' if self.low_open else 'at least'} {self.low:g}"
        if self.low_open:
            return f"{kind} above {self.low:g} and at most {self.high:g}"
        return f"{kind} from {self.low:g} to {self.high:g}"

    def check(self, value: Any, field: str) -> Any:
        """``value`` if it holds, else :class:`SensorCalibrationError` naming ``field`` and what it must be."""
        if not self.holds(value):
            raise SensorCalibrationError(f"{field} must be {self.describe()}, not {reprlib.repr(value)}")
        return value


# Every field of the file, as fit() and learn() produce them.
MAX_COUNT_FIELD = _Expect(1, MAX_COUNT, integer=True)
SPREAD = _Expect(0.0, 1.0)  # seed-to-seed variation, relative to the gain
OFFSET = _Expect(0.0, ADC_MAX)  # the empty pit's raw value
GAIN = _Expect(0.0, ADC_MAX, low_open=True)  # raw steps per seed: must rise with the seeds
NOISE = _Expect(MIN_NOISE, ADC_MAX)
MOST_EVIDENCE = 1e12  # a gain's evidence stops growing here (a billion moves' frames): a file's may not be more, as
EVIDENCE = _Expect(0.0, MOST_EVIDENCE)  # one of 10**400 overflowed the next learning and 1e308 made every gain inf
RAW = _Expect(0, ADC_MAX, integer=True)
FIELDS = ("format", "version", "max_count", "spread", "pits")  # the file's fields, every one of them


def _check_labels(labels: Sequence[Any], where: str) -> tuple[str, ...]:
    """1 to MAX_PITS distinct, non-empty pit names (the layout's canonical order)."""
    if not 1 <= len(labels) <= MAX_PITS:
        raise SensorCalibrationError(f"{where}: a board has 1 to {MAX_PITS} pits, not {len(labels)}")
    for i, label in enumerate(labels):
        if not isinstance(label, str) or not label:
            raise SensorCalibrationError(f"{where}: label {i} must be a non-empty string, not {reprlib.repr(label)}")
    if len(set(labels)) != len(labels):
        raise SensorCalibrationError(f"{where}: pit labels repeat: {reprlib.repr(list(labels))}")
    return tuple(labels)


def _check_counts(counts: Sequence[Any], n: int, name: str) -> None:
    """``n`` seed counts, each an integer from 0 to ``MAX_COUNT``."""
    if len(counts) != n:
        raise SensorCalibrationError(f"{name} has {len(counts)} entries for {n} pits")
    expect = _Expect(0, MAX_COUNT, integer=True)
    for i, count in enumerate(counts):
        expect.check(count, f"{name}[{i}]")


def _check_frames(frames: Sequence[Sequence[Any]], n: int, name: str) -> None:
    """At least one frame, each of ``n`` raw ADC values (0..1023)."""
    if not frames:
        raise SensorCalibrationError(f"{name}: no frames to learn from")
    for i, frame in enumerate(frames):
        if len(frame) != n:
            raise SensorCalibrationError(f"{name}: frame {i} has {len(frame)} values for {n} pits")
        for pit, value in enumerate(frame):
            RAW.check(value, f"{name}: frame {i}, value {pit}")


def _fit_arguments(labels: Sequence[Any], empty: Sequence[Sequence[Any]], start: Sequence[Sequence[Any]],
                   start_counts: Sequence[Any], max_count: Any) -> tuple[tuple[str, ...], int]:
    """Check what :meth:`SensorCalibration.fit` was given; the labels and the ``max_count`` to use."""
    labels = _check_labels(labels, "labels")
    _check_counts(start_counts, len(labels), "start_counts")
    if max_count is None:
        max_count = max(1, min(sum(start_counts), MAX_COUNT))
    MAX_COUNT_FIELD.check(max_count, "max_count")
    if max(start_counts) > max_count:
        raise SensorCalibrationError(f"max_count must be at least the {max(start_counts)} seeds that start_counts "
                               f"puts in one pit, not {max_count}")
    _check_frames(empty, len(labels), "empty")
    _check_frames(start, len(labels), "start")
    return labels, max_count


@dataclass(frozen=True)
class PitCalibration:
    """One pit's sensor: raw value when empty, raw steps per seed, raw noise when still."""

    offset: float
    gain: float
    noise: float
    evidence: float = 0.0  # sum of count^2 over the frames the gain was measured from; 0 = borrowed

    def log_likelihoods(self, raw: int, max_count: int, spread: float) -> list[float]:
        """log P(raw | count = k) for k = 0..max_count."""
        out = []
        for k in range(max_count + 1):
            mean = self.offset + self.gain * k
            sigma = math.sqrt(self.noise ** 2 + (spread * self.gain * k) ** 2)
            if raw >= ADC_MAX:  # saturated: every count that reads at least this high fits
                tail = 0.5 * math.erfc((ADC_MAX - 0.5 - mean) / (sigma * math.sqrt(2)))
                out.append(math.log(tail) if tail > 0 else -1e9)
            else:
                out.append(-0.5 * ((raw - mean) / sigma) ** 2 - math.log(sigma))
        return out

    def distance(self, raw: int, count: int, spread: float) -> float:
        """How many standard deviations ``raw`` lies from what ``count`` seeds should read."""
        sigma = math.sqrt(self.noise ** 2 + (spread * self.gain * count) ** 2)
        return abs(raw - self.offset - self.gain * count) / sigma


@dataclass(frozen=True)
class SensorCalibration:
    """Per-pit calibration of a board's sensors, in canonical pit order."""

    labels: tuple[str, ...]
    pits: tuple[PitCalibration, ...]
    max_count: int
    spread: float = 0.05

    @classmethod
    def fit(cls, labels: Sequence[str], empty: Sequence[Sequence[int]], start: Sequence[Sequence[int]],
            start_counts: Sequence[int], max_count: int | None = None) -> "SensorCalibration":
        """Learn every pit from raw frames of the empty board and of the start position.

        ``empty`` and ``start`` are lists of raw frames (several, to measure
        the noise); ``start_counts`` the seeds per pit in the start position.
        A pit that starts empty (a store) borrows the median gain of the others.
        ``max_count`` defaults to all the seeds of the start position (at most
        ``MAX_COUNT``). Every argument is checked first: a wrong one is named
        in a :class:`SensorCalibrationError`, never met later as a traceback.
        """
        labels, max_count = _fit_arguments(labels, empty, start, start_counts, max_count)
        n = len(labels)
        offsets = [statistics.fmean(f[i] for f in empty) for i in range(n)]
        starts = [statistics.fmean(f[i] for f in start) for i in range(n)]
        gains: list[float | None] = [None] * n
        for i in range(n):
            if start_counts[i] > 0:
                gains[i] = (starts[i] - offsets[i]) / start_counts[i]
                if gains[i] <= 0:
                    raise SensorCalibrationError(
                        f"pit {labels[i]}: with {start_counts[i]} seeds it reads {starts[i]:.0f}, no more than "
                        f"empty ({offsets[i]:.0f}): is its sensor connected and the pit really filled?")
        known = [g for g in gains if g is not None]
        if not known:
            raise SensorCalibrationError("the start position has no seeds: nothing to learn the gains from")
        fallback = statistics.median(known)
        pits = []
        for i in range(n):
            values = [f[i] for f in empty]
            noise = statistics.pstdev(values) if len(values) > 1 else 0.0
            pits.append(PitCalibration(offsets[i], gains[i] if gains[i] is not None else fallback,
                                       max(noise, MIN_NOISE), len(start) * start_counts[i] ** 2))
        return cls(labels, tuple(pits), max_count)

    def learn(self, frames: Sequence[Sequence[int]], counts: Sequence[int]) -> "SensorCalibration":
        """A calibration that also knows these raw frames of a position with known ``counts``.

        Every pit holding seeds sharpens its gain (least squares through its
        empty value, weighted by all evidence so far); a store that started
        empty gets its own gain the first time it holds seeds. Call it with a
        position the referee has confirmed.
        """
        _check_counts(counts, len(self.labels), "learn: counts")
        _check_frames(frames, len(self.labels), "learn: frames")
        pits = []
        for i, pit in enumerate(self.pits):
            evidence = len(frames) * counts[i] ** 2
            if evidence == 0:
                pits.append(pit)
                continue
            moment = sum(counts[i] * (f[i] - pit.offset) for f in frames)
            gain = (pit.gain * pit.evidence + moment) / (pit.evidence + evidence)
            if gain > 0:
                pits.append(replace(pit, gain=gain, evidence=min(pit.evidence + evidence, MOST_EVIDENCE)))
            else:
                pits.append(pit)  # nonsense (a sensor fault): keep what we had
        return replace(self, pits=tuple(pits))

    def covering(self, seeds: int) -> "SensorCalibration":
        """This calibration with counts read up to ``seeds`` (at most ``MAX_COUNT``): learned from a
        start of 36 seeds (Kalah-3), a store of 40 in a game of 48 was read as 36, status ok, and the
        referee waited for seeds still in a hand for ever (an audit, 2026-12-07)."""
        wanted = min(MAX_COUNT, seeds)
        return self if wanted <= self.max_count else replace(self, max_count=wanted)

    def to_reading(self, raw: Sequence[int], time: float = 0.0) -> Reading:
        """The Reading for one raw frame; a pit whose value fits no count is reported unseen."""
        if len(raw) < len(self.labels):
            return Reading({label: None for label in self.labels}, "sensors", time,
                           f"sensor frame has {len(raw)} values for {len(self.labels)} pits")
        pits: dict[str, PitReading | None] = {}
        faults = []
        for label, pit, value in zip(self.labels, self.pits, raw):
            logs = pit.log_likelihoods(value, self.max_count, self.spread)
            best = max(range(len(logs)), key=logs.__getitem__)
            if self._beyond_every_count(pit, value, best):
                pits[label] = None
                faults.append(label)
                continue
            top = logs[best]
            weights = [math.exp(v - top) for v in logs]
            total = sum(weights)
            pits[label] = PitReading(tuple(w / total for w in weights))
        status = "ok" if not faults else f"sensor fault: {', '.join(faults)} read beyond every count"
        return Reading(pits, "sensors", time, status)

    def _beyond_every_count(self, pit: PitCalibration, value: int, best: int) -> bool:
        """Whether ``value`` fits no count this pit may hold: a fault, not seeds. A value at the
        converter's top fits every count that reads at least that high, so it is a fault only where
        not even ``max_count`` seeds come near it: a sensor shorted to the supply, or a divider pulled
        high, read as a pit of 48 seeds with certainty, the sensors' status "ok", and the game stuck
        on an illegal board (a bridge audit, 2026-12-07)."""
        if value < ADC_MAX:
            return pit.distance(value, best, self.spread) > FAULT_SIGMAS
        fullest = pit.offset + pit.gain * self.max_count
        return fullest < ADC_MAX and pit.distance(ADC_MAX, self.max_count, self.spread) > FAULT_SIGMAS

    # ------------------------------------------------------------ files

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "max_count": self.max_count,
            "spread": self.spread,
            "pits": [{"label": label, "offset": round(p.offset, 3), "gain": round(p.gain, 4),
                      "noise": round(p.noise, 3), "evidence": p.evidence}
                     for label, p in zip(self.labels, self.pits)],
        }

    @classmethod
    def from_json(cls, data: Any, where: str = "calibration") -> "SensorCalibration":
        """Parse :meth:`to_json` output; ``SensorCalibrationError`` names the bad field and what it must hold."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise SensorCalibrationError(f"{where}: not a Pitwatch sensor calibration (format must be {FORMAT!r})")
        version = data.get("version")
        if type(version) is not int or version != VERSION:  # not true or 1.0, which equal 1
            raise SensorCalibrationError(f"{where}: version {reprlib.repr(version)} is not supported (expected {VERSION})")
        if unknown := [str(key) for key in data if key not in FIELDS]:  # a typo ("spred") was dropped unsaid
            raise SensorCalibrationError(f"{where}: {reprlib.repr(', '.join(unknown))}: no field of a sensor "
                                         f"calibration (its fields are {', '.join(FIELDS)})")
        max_count = _field(data, "max_count", where, MAX_COUNT_FIELD)
        spread = _field(data, "spread", where, SPREAD)
        entries = data.get("pits")
        if not isinstance(entries, list) or not entries:
            raise SensorCalibrationError(f"{where}: 'pits' must be a non-empty list")
        for i, entry in enumerate(entries):
            if not isinstance(entry, dict):
                raise SensorCalibrationError(f"{where}: pits[{i}] must be an object with a string 'label'")
        labels = _check_labels([entry.get("label") for entry in entries], where)
        pits = tuple(_pit(entry, f"{where}: pit {label}") for entry, label in zip(entries, labels))
        return cls(labels, pits, max_count, spread)


def _field(data: dict, key: str, where: str, expect: _Expect) -> Any:
    """``data[key]``, checked; the error says where, which field, and what it must hold (a field
    left out is said to be missing, not to be ``None``)."""
    if key not in data:
        raise SensorCalibrationError(f"{where}: '{key}' is missing: it must be {expect.describe()}")
    return expect.check(data[key], f"{where}: '{key}'")


def _pit(entry: dict, where: str) -> PitCalibration:
    """One entry of the file's ``pits`` list."""
    return PitCalibration(_field(entry, "offset", where, OFFSET), _field(entry, "gain", where, GAIN),
                          _field(entry, "noise", where, NOISE), _field(entry, "evidence", where, EVIDENCE))
