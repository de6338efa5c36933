"""Threefold repetition, kept inside positions (shared helper; other variants may import it).

Oware and both Kenyan Bao games end in a draw when the same pits occur a third
time with the same player to move (the start position counts). A position
must therefore carry the positions seen before it, so that the rule holds for
anyone holding only a Position (the referee, a position read from JSON), not
just for a :class:`rules.Game`.

Only positions since the last *irreversible* change can repeat: a capture (or
a seed sown into a store) never comes back, so the history restarts there.
That keeps the history short and the check a C-speed ``tuple.count``.

A history is a pair ``(seen with South to move, seen with North to move)`` of
tuples of pit-count tuples, the current position included.
"""

from __future__ import annotations

from typing import Any, Sequence

from .errors import BadPosition
from .layout import PLAYER_NAMES
from .position import count_from_json

History = tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]


def fresh(pits: tuple[int, ...], to_move: int) -> History:
    """The history of a position nothing came before (or after an irreversible change)."""
    return ((pits,), ()) if to_move == 0 else ((), (pits,))


def record(history: History, pits: tuple[int, ...], to_move: int) -> tuple[History, int]:
    """Add a position reached by a reversible move: the new history and how often it has now occurred."""
    seen = history[to_move]
    occurrences = seen.count(pits) + 1
    seen = seen + (pits,)
    return ((seen, history[1]) if to_move == 0 else (history[0], seen)), occurrences


def to_json(history: History, labels: Sequence[str]) -> list[dict[str, Any]]:
    """``[{"to_move": "south"|"north", "pits": {label: count}}, ...]``, the current position included."""
    return [
        {"to_move": PLAYER_NAMES[player], "pits": dict(zip(labels, pits))}
        for player in (0, 1) for pits in history[player]
    ]


def from_json(data: Any, labels: Sequence[str], pits: tuple[int, ...], to_move: int, where: str) -> History:
    """Read a history; a missing one means the position is seen for the first time.

    Every entry must hold as many seeds as the current position (the history
    restarts at every irreversible change) and the current position must be in it.
    """
    if data is None:
        return fresh(pits, to_move)
    if not isinstance(data, list):
        raise BadPosition(f"{where}: history must be a list of {{'to_move', 'pits'}} objects")
    seen: tuple[list, list] = ([], [])
    for k, entry in enumerate(data):
        try:
            player = PLAYER_NAMES.index(entry["to_move"])
            counts = tuple(count_from_json(entry["pits"][label], label) for label in labels)
        except (KeyError, TypeError, ValueError):
            raise BadPosition(
                f"{where}: history[{k}] must be {{'to_move': 'south'|'north', 'pits': {{label: count}}}} "
                f"naming every pit ({', '.join(labels)})"
            ) from None
        if sum(counts) != sum(pits):
            raise BadPosition(f"{where}: history[{k}] holds {sum(counts)} seeds, the position {sum(pits)}")
        seen[player].append(counts)
    if pits not in seen[to_move]:
        raise BadPosition(f"{where}: the history does not contain the current position")
    return (tuple(seen[0]), tuple(seen[1]))


class RepetitionRules:
    """Mixin for a Variant whose ``Position.state`` is a repetition history.

    Gives the history its JSON form (field ``history``) and marks the variant
    as one where the players may agree a draw (RULES.md: Oware and both Kenyan
    Bao games, the variants with the stalemate rule).
    """

    draw_by_agreement = True

    def state_to_json(self, state: tuple) -> dict[str, Any]:
        return {"history": to_json(state, self.layout.labels)} if state else {}

    def state_from_json(self, data: dict[str, Any]) -> tuple:
        pits = self._counts_from_json(data.get("pits"), "pits")
        to_move = PLAYER_NAMES.index(data["to_move"])
        return from_json(data.get("history"), self.layout.labels, pits, to_move, self.name)
