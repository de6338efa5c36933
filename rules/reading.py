"""Readings: what one sensor saw of the board at one instant, as probabilities.

Vision and the pit sensors each produce a :class:`Reading`; the session fuses
them; the referee picks the legal explanation that makes the Reading most
likely. A Reading never claims more than its source knows: every pit carries
a probability over seed counts, or is *unseen* (covered by a hand, out of
view, a dead sensor).

JSON form (documented in ``docs/reading.md``)::

    {"source": "vision", "time": 1732270000.5, "status": "ok",
     "pits": {"A": {"p": [0.0, 0.01, 0.97, 0.02]},          # P(count = k), k = 0, 1, 2, ...
              "B": null,                                      # unseen
              "C": {"p": [...], "white": [0.9, 0.1]}}}        # Pass It On: P(white chips = k)
"""

from __future__ import annotations

import math
import reprlib
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from .errors import RulesError
from .position import Position


STILL_BOARD = "still_board"  # a notes key: which pits kept their look since the source's previous still board
# (the camera's stillness gate writes it, the session weighs it: docs/reading.md)


class BadReading(RulesError):
    """A Reading whose JSON or probabilities are malformed."""


def _normalised(values: Sequence[float], where: str) -> tuple[float, ...]:
    try:
        probs = tuple(float(v) for v in values)
    except (TypeError, ValueError, OverflowError):  # text, null, a whole number of 400 digits
        raise BadReading(f"{where}: probabilities must be numbers, got {reprlib.repr(list(values))}") from None
    if not probs:
        raise BadReading(f"{where}: empty probability list")
    if any(not math.isfinite(p) or p < 0 for p in probs):
        raise BadReading(f"{where}: probabilities must be finite and non-negative, got {reprlib.repr(list(values))}")
    total = sum(probs)
    if total <= 0:
        raise BadReading(f"{where}: probabilities sum to zero")
    return tuple(p / total for p in probs)


@dataclass(frozen=True)
class PitReading:
    """One pit's evidence: ``counts[k]`` = P(count == k); ``white[k]`` = P(white chips == k)."""

    counts: tuple[float, ...]
    white: tuple[float, ...] | None = None

    @classmethod
    def exact(cls, count: int, white: int | None = None) -> "PitReading":
        """A certain observation of ``count`` seeds (and ``white`` white chips)."""
        return cls(
            tuple(1.0 if k == count else 0.0 for k in range(count + 1)),
            None if white is None else tuple(1.0 if k == white else 0.0 for k in range(white + 1)),
        )

    def probability(self, count: int) -> float:
        return self.counts[count] if 0 <= count < len(self.counts) else 0.0

    def white_probability(self, white: int) -> float:
        if self.white is None:
            return 1.0
        return self.white[white] if 0 <= white < len(self.white) else 0.0

    @property
    def most_likely(self) -> int:
        return max(range(len(self.counts)), key=self.counts.__getitem__)

    @property
    def most_likely_white(self) -> int | None:
        if self.white is None:
            return None
        return max(range(len(self.white)), key=self.white.__getitem__)

    def credible_set(self, mass: float = 0.95) -> list[int]:
        """The fewest counts whose probabilities add up to at least ``mass``."""
        ranked = sorted(range(len(self.counts)), key=self.counts.__getitem__, reverse=True)
        chosen, total = [], 0.0
        for k in ranked:
            chosen.append(k)
            total += self.counts[k]
            if total >= mass:
                break
        return sorted(chosen)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"p": [round(p, 6) for p in self.counts]}
        if self.white is not None:
            data["white"] = [round(p, 6) for p in self.white]
        return data


@dataclass(frozen=True)
class Reading:
    """Per-pit evidence keyed by pit label; ``None`` marks an unseen pit.

    ``status`` is ``"ok"`` or a short reason the source could not read the
    whole board (``"hand over board"``, ``"markers not found"``, ...).
    """

    pits: Mapping[str, PitReading | None]
    source: str = "exact"
    time: float = 0.0
    status: str = "ok"
    notes: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def exact(cls, labels: Sequence[str], counts: Sequence[int], white: Sequence[int] | None = None,
              source: str = "exact", time: float = 0.0) -> "Reading":
        """A Reading that is certain of every count (from a Position, or for tests)."""
        pits = {
            label: PitReading.exact(n, None if white is None else white[i])
            for i, (label, n) in enumerate(zip(labels, counts))
        }
        return cls(pits, source, time)

    @classmethod
    def of_position(cls, position: Position, source: str = "exact", time: float = 0.0) -> "Reading":
        """The exact Reading of a rules ``Position``."""
        return cls.exact(position.variant.layout.labels, position.pits, position.white, source, time)

    @property
    def unseen(self) -> list[str]:
        return [label for label, pit in self.pits.items() if pit is None]

    def most_likely_counts(self) -> dict[str, int | None]:
        return {label: (None if pit is None else pit.most_likely) for label, pit in self.pits.items()}

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "time": self.time,
            "status": self.status,
            "pits": {label: (None if pit is None else pit.to_json()) for label, pit in self.pits.items()},
            **({"notes": dict(self.notes)} if self.notes else {}),
        }

    @classmethod
    def from_json(cls, data: Any) -> "Reading":
        """Parse the JSON form; ``BadReading`` names the field that is wrong."""
        if not isinstance(data, dict) or not isinstance(data.get("pits"), dict):
            raise BadReading("a Reading is a JSON object with a 'pits' object")
        pits: dict[str, PitReading | None] = {}
        for label, pit in data["pits"].items():
            if pit is None:
                pits[label] = None
                continue
            if not isinstance(pit, dict) or not isinstance(pit.get("p"), list):
                raise BadReading(f"pits[{label!r}] must be null or an object with a list 'p'")
            white = pit.get("white")
            if white is not None and not isinstance(white, list):
                raise BadReading(f"pits[{label!r}].white must be a list of probabilities")
            pits[label] = PitReading(
                _normalised(pit["p"], f"pits[{label!r}].p"),
                None if white is None else _normalised(white, f"pits[{label!r}].white"),
            )
        try:
            time = float(data.get("time", 0.0))
        except (TypeError, ValueError):
            raise BadReading(f"time must be a number, not {data.get('time')!r}") from None
        notes = data.get("notes", {})
        return cls(pits, str(data.get("source", "unknown")), time, str(data.get("status", "ok")),
                   notes if isinstance(notes, dict) else {})


def pit_reading(counts: Sequence[float], white: Sequence[float] | None = None, where: str = "pit") -> PitReading:
    """A PitReading from unnormalised weights (normalised here, validated)."""
    return PitReading(_normalised(counts, where), None if white is None else _normalised(white, f"{where}.white"))
