"""The referee's answers: verdicts, the explanations behind them, and their JSON.

A :class:`Verdict` is plain data. Its ``kind`` is one of ``KINDS``; every
verdict carries the same JSON keys (unused ones are ``null`` or empty), so the
dashboard and the recorder read one shape. See ``docs/referee.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..position import Move, Position
from ..variant import Event
from .likelihood import PitDifference

KINDS = ("move", "takeback", "unchanged", "in_progress", "ambiguous", "illegal", "unreadable")
SHOWS_POSITION = ("move", "takeback", "unchanged", "illegal")  # illegal: the nearest legal result


def _rounded(x: float | None) -> float | None:
    """JSON has no infinities: an unbounded margin (no runner-up) is ``null``."""
    return None if x is None or not math.isfinite(x) else round(x, 4)


class Explanation(NamedTuple):
    """One way the board could have come to look as it does.

    ``kind`` is ``"move"`` (``moves`` played from the current position),
    ``"unchanged"``, ``"takeback"`` (``undo`` moves taken back) or
    ``"in_progress"`` (``moves[-1]`` is being sown, ``in_hand`` seeds still in
    the hand; ``position`` is then the position the move started from).
    ``equivalent`` lists other move texts that reach the very same position.
    ``left`` names the Nam Nam fours their owners left on the board (accepted).
    ``posterior`` is the share of its outcome (the position it leads to) in
    log likelihood + log prior among every outcome scored, ``share`` the same
    for the log likelihood alone (what the Reading says with every story
    equally likely); each outcome counts at its best explanation.
    ``board`` is what the camera should see, ``(pits, white)``, where it
    differs from ``position`` (before an end-of-game sweep, half-way through a move).
    A ``NamedTuple``: the referee creates thousands per verdict.
    """

    kind: str
    moves: tuple[Move, ...]
    position: Position
    log_likelihood: float
    prior: float = 0.0
    undo: int = 0
    in_hand: int = 0
    equivalent: tuple[tuple[str, ...], ...] = ()
    left: tuple[str, ...] = ()
    posterior: float = 0.0
    board: tuple | None = None
    share: float = 0.0

    def with_shares(self, posterior: float, share: float) -> "Explanation":
        """This explanation with the posterior and evidence share of its outcome. What
        ``_replace`` does, without its keyword handling (a third of its time): every explanation
        worth weighing gets its shares, in every verdict."""
        return Explanation._make(self[:_POSTERIOR] + (posterior, self.board, share))

    @property
    def seen_board(self) -> tuple:
        """``(pits, white)`` the Reading is compared with."""
        return self.board if self.board is not None else (self.position.pits, self.position.white)

    @property
    def weight(self) -> float:
        """Log likelihood plus log prior: what the posterior is a softmax of."""
        return self.log_likelihood + self.prior

    @property
    def texts(self) -> list[str]:
        return [m.text for m in self.moves]

    def describe(self) -> str:
        if self.kind == "move":
            return " then ".join(self.texts) + self.left_said
        if self.kind == "takeback":
            return f"take back {self.undo} move{'s' if self.undo > 1 else ''}"
        if self.kind == "in_progress":
            return f"{self.texts[-1]} being sown ({self.in_hand} in hand)"
        return "unchanged"

    @property
    def left_said(self) -> str:
        """The fours a move's owner left on the board, in words to follow the moves ("" if none)."""
        return f", the four in {' and '.join(self.left)} left on the board" if self.left else ""

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "moves": self.texts,
            "undo": self.undo,
            "in_hand": self.in_hand,
            "equivalent": [list(e) for e in self.equivalent],
            "left_for_owner": list(self.left),
            # the board this explanation accepts (a Nam Nam four left is not the engine's position)
            "position": self.position.to_json() if self.kind != "in_progress" else None,
            "log_likelihood": _rounded(self.log_likelihood),
            "posterior": _rounded(self.posterior),
            "share": _rounded(self.share),
            "description": self.describe(),
        }


_POSTERIOR = Explanation._fields.index("posterior")  # the fields after it: posterior, board, share
assert Explanation._fields[_POSTERIOR:] == ("posterior", "board", "share")


@dataclass(frozen=True)
class Mistake:
    """What the players most likely did wrong, in plain words.

    ``code`` is one of ``mistakes.CATALOGUE``; ``move`` the move the player
    most likely meant (its text form); ``pits`` the pits the mistake touched;
    ``log_likelihood`` how well the mistaken board explains the Reading;
    ``also`` the codes of other mistakes that explain it just as well (the
    words name them all).
    """

    code: str
    words: str
    move: str | None = None
    pits: tuple[str, ...] = ()
    log_likelihood: float = -math.inf
    also: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "words": self.words, "move": self.move, "pits": list(self.pits),
                "log_likelihood": _rounded(self.log_likelihood), "also": list(self.also)}


@dataclass(frozen=True)
class Verdict:
    """The referee's answer to one Reading.

    ``best`` is the chosen explanation (``move``/``takeback``/``unchanged``/
    ``in_progress``) or, for ``illegal``, the nearest legal result;
    ``candidates`` the explanations worth naming (ambiguous: the ones to choose
    from); ``confidence`` the posterior of ``best``'s outcome among every
    explanation scored (``best.share`` is its evidence share); ``margin`` its lead in
    log likelihood + log prior over the runner-up, the likeliest other
    explanation that fits the Reading (``inf`` without one); ``depth`` the
    longest move sequence searched and ``exhaustive`` whether that search was
    complete.
    """

    kind: str
    reason: str
    best: Explanation | None = None
    candidates: tuple[Explanation, ...] = ()
    confidence: float = 0.0
    margin: float = math.inf
    depth: int = 1
    exhaustive: bool = True
    events: tuple[Event, ...] = ()
    differences: tuple[PitDifference, ...] = ()
    mistake: Mistake | None = None
    notes: tuple[str, ...] = ()

    @property
    def moves(self) -> list[Move]:
        """The moves to commit (``move`` verdicts), or the move in progress / nearest (others)."""
        return list(self.best.moves) if self.best else []

    @property
    def position(self) -> Position | None:
        """The position the board now shows (``move``/``takeback``/``unchanged``; for
        ``illegal`` the nearest legal result; else ``None``)."""
        return self.best.position if self.best and self.kind in SHOWS_POSITION else None

    @property
    def captures(self) -> list[Event]:
        return [e for e in self.events if e.get("type") == "capture"]

    def to_json(self) -> dict[str, Any]:
        best = self.best
        return {
            "kind": self.kind,
            "reason": self.reason,
            "moves": [m.text for m in self.moves],
            "undo": best.undo if best else 0,
            "position": best.position.to_json() if best and self.kind in SHOWS_POSITION else None,
            "captures": self.captures,
            "events": list(self.events),
            "confidence": _rounded(self.confidence),
            "margin": _rounded(self.margin),
            "depth": self.depth,
            "exhaustive": self.exhaustive,
            "best": best.to_json() if best else None,
            "candidates": [c.to_json() for c in self.candidates],
            "differences": [d.to_json() for d in self.differences],
            "mistake": self.mistake.to_json() if self.mistake else None,
            "notes": list(self.notes),
        }
