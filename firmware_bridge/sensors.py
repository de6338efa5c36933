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

import json
import math
import statistics
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Sequence

from rules.reading import PitReading, Reading

FORMAT = "pitwatch-sensor-calibration"
VERSION = 1
ADC_MAX = 1023
MIN_NOISE = 1.0  # one ADC step: never trust a pit more than its converter
FAULT_SIGMAS = 6.0  # a value this far from every count means a fault, not seeds


class CalibrationError(ValueError):
    """Calibration data that cannot be used; the text names the pit or field and the file."""


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
        ``max_count`` defaults to all the seeds of the start position.
        """
        labels = tuple(labels)
        n = len(labels)
        if len(start_counts) != n:
            raise CalibrationError(f"start_counts has {len(start_counts)} entries for {n} pits")
        for name, frames in (("empty", empty), ("start", start)):
            if not frames:
                raise CalibrationError(f"no {name}-board frames to calibrate from")
            for i, frame in enumerate(frames):
                if len(frame) != n:
                    raise CalibrationError(f"{name} frame {i} has {len(frame)} values for {n} pits")
        offsets = [statistics.fmean(f[i] for f in empty) for i in range(n)]
        starts = [statistics.fmean(f[i] for f in start) for i in range(n)]
        gains: list[float | None] = [None] * n
        for i in range(n):
            if start_counts[i] > 0:
                gains[i] = (starts[i] - offsets[i]) / start_counts[i]
                if gains[i] <= 0:
                    raise CalibrationError(
                        f"pit {labels[i]}: with {start_counts[i]} seeds it reads {starts[i]:.0f}, no more than "
                        f"empty ({offsets[i]:.0f}): is its sensor connected and the pit really filled?")
        known = [g for g in gains if g is not None]
        if not known:
            raise CalibrationError("the start position has no seeds: nothing to learn the gains from")
        fallback = statistics.median(known)
        pits = []
        for i in range(n):
            values = [f[i] for f in empty]
            noise = statistics.pstdev(values) if len(values) > 1 else 0.0
            pits.append(PitCalibration(offsets[i], gains[i] if gains[i] is not None else fallback,
                                       max(noise, MIN_NOISE), len(start) * start_counts[i] ** 2))
        return cls(labels, tuple(pits), max_count if max_count is not None else sum(start_counts))

    def learn(self, frames: Sequence[Sequence[int]], counts: Sequence[int]) -> "SensorCalibration":
        """A calibration that also knows these raw frames of a position with known ``counts``.

        Every pit holding seeds sharpens its gain (least squares through its
        empty value, weighted by all evidence so far); a store that started
        empty gets its own gain the first time it holds seeds. Call it with a
        position the referee has confirmed.
        """
        if len(counts) != len(self.labels) or any(len(f) != len(self.labels) for f in frames):
            raise CalibrationError(f"learn: frames and counts need {len(self.labels)} values each")
        pits = []
        for i, pit in enumerate(self.pits):
            evidence = len(frames) * counts[i] ** 2
            if evidence == 0:
                pits.append(pit)
                continue
            moment = sum(counts[i] * (f[i] - pit.offset) for f in frames)
            gain = (pit.gain * pit.evidence + moment) / (pit.evidence + evidence)
            if gain > 0:
                pits.append(replace(pit, gain=gain, evidence=pit.evidence + evidence))
            else:
                pits.append(pit)  # nonsense (a sensor fault): keep what we had
        return replace(self, pits=tuple(pits))

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
            if value < ADC_MAX and pit.distance(value, best, self.spread) > FAULT_SIGMAS:
                pits[label] = None
                faults.append(label)
                continue
            top = logs[best]
            weights = [math.exp(v - top) for v in logs]
            total = sum(weights)
            pits[label] = PitReading(tuple(w / total for w in weights))
        status = "ok" if not faults else f"sensor fault: {', '.join(faults)} read beyond every count"
        return Reading(pits, "sensors", time, status)

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
        """Parse :meth:`to_json` output; ``CalibrationError`` names the bad field."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise CalibrationError(f"{where}: not a Pitwatch sensor calibration (format must be {FORMAT!r})")
        if data.get("version") != VERSION:
            raise CalibrationError(f"{where}: version {data.get('version')!r} is not supported (expected {VERSION})")
        max_count = _number(data, "max_count", where, integer=True)
        spread = _number(data, "spread", where, minimum=0.0)
        entries = data.get("pits")
        if not isinstance(entries, list) or not entries:
            raise CalibrationError(f"{where}: 'pits' must be a non-empty list")
        labels, pits = [], []
        for i, entry in enumerate(entries):
            at = f"{where}: pits[{i}]"
            if not isinstance(entry, dict) or not isinstance(entry.get("label"), str):
                raise CalibrationError(f"{at} must be an object with a string 'label'")
            labels.append(entry["label"])
            at = f"{where}: pit {entry['label']}"
            pits.append(PitCalibration(_number(entry, "offset", at), _number(entry, "gain", at, minimum=1e-9),
                                       _number(entry, "noise", at, minimum=1e-9),
                                       _number(entry, "evidence", at, minimum=0.0)))
        if len(set(labels)) != len(labels):
            raise CalibrationError(f"{where}: pit labels repeat: {labels}")
        return cls(tuple(labels), tuple(pits), int(max_count), spread)

    def save(self, path: str | Path) -> None:
        path = Path(path)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(self.to_json(), indent=2) + "\n")
        tmp.replace(path)  # never a half-written calibration file

    @classmethod
    def load(cls, path: str | Path) -> "SensorCalibration":
        path = Path(path)
        try:
            text = path.read_text()
        except OSError as error:
            raise CalibrationError(f"{path}: cannot read: {error.strerror or error}") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise CalibrationError(f"{path}: not valid JSON at line {error.lineno}, column {error.colno}: "
                                   f"{error.msg}") from None
        return cls.from_json(data, str(path))


def _number(data: dict, key: str, where: str, *, integer: bool = False, minimum: float | None = None) -> float:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int if integer else (int, float)) or not math.isfinite(value):
        kind = "an integer" if integer else "a number"
        raise CalibrationError(f"{where}: '{key}' must be {kind}, not {value!r}")
    if minimum is not None and value < minimum:
        raise CalibrationError(f"{where}: '{key}' must be at least {minimum}, not {value!r}")
    return value
