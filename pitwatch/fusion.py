"""Fusion: the camera's and the pit sensors' Readings become one Reading, and a stable one.

Why log-linear pooling: each source gives, per pit, a probability over
counts. Multiplying them (each raised to the source's weight) keeps what both
agree on and lets the surer source win where they disagree; a small floor on
every probability stops one source from vetoing a count outright, so a
single bad sensor cannot make the true count impossible.

A source that fails (no reading for ``stale_after`` seconds, or a status
such as "camera lost") is dropped from the pool and reported in the fused
Reading's ``notes["dropped"]``; the game goes on with the other source.
A Reading that says what its source could not see (``ok (marker far-left
not seen)``, ``sensor fault: C ...``) is a Reading all the same: its pits are
pooled (the ones it leaves unseen are taken from the other source) and its
remark is shown as the source's status.

A source that sees the board *moving* (the camera sees a hand, or seeds not
yet settled) is busy: while it is, nothing is fused, because the other
source may be reading a half-played move. A source busy for longer than
``stale_after`` (and the time it takes to call a still board still) is
dropped like a failed one, so a flickering camera cannot stop the game.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from typing import Mapping, Sequence

from rules import PitReading, Reading
from rules.reading import STILL_BOARD

FLOOR = 1e-4  # smallest probability any source may give a count


@dataclass
class _Source:
    reading: Reading | None = None
    at: float = -math.inf
    status: str = "waiting"  # "ok" once Readings come, else why none comes ("camera lost: ...")
    remark: str = "ok"  # what the newest Reading says of itself ("ok (marker far-left not seen)", "sensor fault: ...")
    busy_since: float | None = None  # the source sees the board in motion (a hand, seeds moving)
    settle_seconds: float = 0.0  # how long it takes the source to call a board still once it is


class Fusion:
    """Latest Reading of each source, pooled on demand.

    ``weights`` is the trust in each source (1.0 = take it at its word); a
    Reading may lower it with ``notes["confidence"]`` (0..1).
    """

    def __init__(self, labels: Sequence[str], weights: Mapping[str, float], *, stale_after: float = 2.0) -> None:
        self.labels = tuple(labels)
        self.weights = dict(weights)
        self.stale_after = stale_after
        self._sources = {name: _Source() for name in self.weights}
        self._disagree_since: dict[str, float] = {}  # pit label -> since when the live sources disagree on it
        self._lock = threading.Lock()

    def reset(self, labels: Sequence[str]) -> None:
        """A new board (another variant): forget every source's old Readings."""
        with self._lock:
            self.labels = tuple(labels)
            self._sources = {name: _Source() for name in self.weights}
            self._disagree_since = {}

    def update(self, source: str, reading: Reading | None, now: float, status: str = "ok") -> None:
        """Record ``source``'s newest Reading, or (``reading=None``) why it has none."""
        with self._lock:
            entry = self._sources[source]
            entry.status = status if reading is None else "ok"
            entry.busy_since = None
            if reading is not None:
                entry.reading, entry.at, entry.remark = reading, now, reading.status

    def busy(self, source: str, now: float, why: str, settle_seconds: float = 0.0) -> None:
        """``source`` sees the board in motion: hold every judgement until it settles.

        ``settle_seconds`` is how long the source itself takes to call a board still once it is
        (a camera's still frames at the pace it reads them): granted on top of ``stale_after``
        before the source is dropped as never still. A camera reading a frame a second on a busy
        machine needs four seconds for that; without them it was dropped as "board never still
        (settling)" with the board lying still before it, and the sensors refereed alone (2026-12-07).
        """
        with self._lock:
            entry = self._sources[source]
            if entry.busy_since is None:
                entry.busy_since = now
            entry.status, entry.settle_seconds = why, settle_seconds

    def statuses(self, now: float) -> dict[str, str]:
        """Every source's state: the reason it is dropped, ``busy``, or (a live source) what its
        newest Reading says of itself: ``ok``, or e.g. ``ok (marker far-left not seen)``."""
        with self._lock:
            states = {name: self._status(entry, now) for name, entry in self._sources.items()}
            return {name: entry.remark if states[name] == "ok" else states[name] for name, entry in self._sources.items()}

    def _status(self, entry: _Source, now: float) -> str:
        if entry.busy_since is not None:
            allowed = self.stale_after + entry.settle_seconds
            if now - entry.busy_since > allowed:
                return f"board never still ({entry.status}) for over {round(allowed, 1):g} s"
            return "busy"
        if entry.reading is None:
            return entry.status if entry.status != "ok" else "waiting"
        if entry.status != "ok":
            return entry.status
        if now - entry.at > self.stale_after:
            return f"no reading for over {self.stale_after:g} s"
        return "ok"

    def fused(self, now: float) -> Reading | None:
        """The pooled Reading of every live source, or ``None`` when no source is live."""
        with self._lock:
            states = {name: self._status(e, now) for name, e in self._sources.items()}
            live = [(name, e.reading) for name, e in self._sources.items() if states[name] == "ok"]
        dropped = {name: state for name, state in states.items() if state != "ok"}
        if not live or "busy" in states.values() or self._catching_up(live, now):
            return None
        pits: dict[str, PitReading | None] = {}
        for label in self.labels:
            parts = [(self._weight(name, r), r.pits.get(label)) for name, r in live]
            parts = [(w, p) for w, p in parts if p is not None and w > 0]
            pits[label] = pool(parts) if parts else None
        notes = {"sources": [name for name, _ in live], "dropped": dropped}
        notes.update((STILL_BOARD, r.notes[STILL_BOARD]) for _, r in live if STILL_BOARD in r.notes)  # the camera's
        return Reading(pits, source="+".join(name for name, _ in live), time=now, status="ok", notes=notes)

    def _catching_up(self, live: list[tuple[str, Reading]], now: float) -> bool:
        """True while the live sources disagree on some pit's most likely count, for at most
        ``stale_after`` seconds: one of them has not seen the latest change yet (the sensors
        report within 50 ms, the camera only after the board has been still for a few frames).
        A disagreement that lasts is left to the pooling, which weighs each source's confidence.
        Each pit's disagreement is timed on its own: a heap the camera keeps misreading must not
        stop fusion from waiting for it after the next move, whose pits disagree anew."""
        disagreeing = set()
        if len(live) > 1:
            for label in self.labels:
                seen = {r.pits[label].most_likely for _, r in live if r.pits.get(label) is not None}
                if len(seen) > 1:
                    disagreeing.add(label)
        with self._lock:
            self._disagree_since = {label: self._disagree_since.get(label, now) for label in disagreeing}
            return any(now - since < self.stale_after for since in self._disagree_since.values())

    def _weight(self, name: str, reading: Reading) -> float:
        confidence = reading.notes.get("confidence", 1.0) if reading.notes else 1.0
        try:
            return self.weights[name] * max(0.0, min(1.0, float(confidence)))
        except (TypeError, ValueError):
            return self.weights[name]


def pool(parts: Sequence[tuple[float, PitReading]]) -> PitReading:
    """Log-linear pool of weighted PitReadings (counts and, where given, white chips)."""
    counts = _pool_lists([(w, p.counts) for w, p in parts])
    whites = [(w, p.white) for w, p in parts if p.white is not None]
    return PitReading(counts, _pool_lists(whites) if whites else None)


def _pool_lists(parts: Sequence[tuple[float, Sequence[float]]]) -> tuple[float, ...]:
    size = max(len(probs) for _, probs in parts)
    logs = [0.0] * size
    for weight, probs in parts:
        for k in range(size):
            p = probs[k] if k < len(probs) else 0.0
            logs[k] += weight * math.log(max(p, FLOOR))
    top = max(logs)
    raw = [math.exp(v - top) for v in logs]
    total = sum(raw)
    return tuple(v / total for v in raw)


class StableGate:
    """Lets a Reading through once its most likely counts have held for ``settle_seconds``.

    Why: a hand sowing seeds changes the board many times a second; the
    referee should judge the board once, when the players have let go of it.
    The same board is passed only once (until it changes again or
    :meth:`reset` asks for a fresh judgement). A new still board of the camera's
    (``notes["still_board"]["at"]``: seeds moved since its last one) is a new
    board, though it reads the same: one chip taken from an outbox of twenty may
    not change the most likely counts. After a hand that came and went, touching
    nothing, the camera gives its last still board again (:mod:`vision.live`).
    """

    def __init__(self, settle_seconds: float) -> None:
        self.settle_seconds = settle_seconds
        self._candidate: tuple | None = None
        self._since = 0.0
        self._passed: tuple | None = None

    def reset(self) -> None:
        self._passed = None

    def offer(self, reading: Reading | None, now: float) -> Reading | None:
        if reading is None or not _mostly_seen(reading):
            self._candidate = None
            return None
        still = reading.notes.get(STILL_BOARD, {}).get("at")
        key = (still, *sorted((label, None if p is None else (p.most_likely, p.most_likely_white))
                              for label, p in reading.pits.items()))
        if key != self._candidate:
            self._candidate, self._since = key, now
            return None
        if now - self._since < self.settle_seconds or key == self._passed:
            return None
        self._passed = key
        return reading


def _mostly_seen(reading: Reading) -> bool:
    """The referee can judge a board with a few unseen pits; a board mostly hidden is not worth offering."""
    pits = list(reading.pits.values())
    return sum(p is not None for p in pits) * 2 > len(pits)
