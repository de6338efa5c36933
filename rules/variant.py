"""The base class of every variant: options, JSON, validation, move parsing.

A variant subclass supplies the layout, the start position, legal move
generation and ``_apply`` (the sowing); everything shared lives here.
"""

from __future__ import annotations

import reprlib
from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar

from .errors import BadOption, BadPosition, IllegalMove
from .layout import PLAYER_NAMES, Layout, Pit
from .position import Move, Position, Result, count_from_json

Event = dict[str, Any]


@dataclass(frozen=True)
class Option:
    """A named, documented setting of a variant.

    ``choices`` restricts a value to a set; ``bounds`` to an inclusive integer
    range. The type of ``default`` is the option's type.
    """

    name: str
    default: Any
    description: str
    choices: tuple[Any, ...] | None = None
    bounds: tuple[int, int] | None = None

    def check(self, variant_name: str, value: Any) -> Any:
        """Return ``value`` if valid for this option, else raise ``BadOption`` naming it."""
        expected = type(self.default)
        if expected is bool and not isinstance(value, bool):
            raise BadOption(f"{variant_name}: option {self.name} takes true or false, not {reprlib.repr(value)}")
        if expected is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise BadOption(f"{variant_name}: option {self.name} takes a whole number, not {reprlib.repr(value)}")
        if expected is str and not isinstance(value, str):
            raise BadOption(f"{variant_name}: option {self.name} takes a word, not {reprlib.repr(value)}")
        if self.choices is not None and value not in self.choices:
            valid = ", ".join(map(str, self.choices))
            raise BadOption(f"{variant_name}: option {self.name}={reprlib.repr(value)} is not one of {valid}")
        if self.bounds is not None and not self.bounds[0] <= value <= self.bounds[1]:
            lo, hi = self.bounds
            raise BadOption(f"{variant_name}: option {self.name}={reprlib.repr(value)} is outside {lo}..{hi}")
        return value

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "default": self.default,
            "description": self.description,
            "choices": list(self.choices) if self.choices else None,
            "bounds": list(self.bounds) if self.bounds else None,
        }


class Variant:
    """One mancala variant with its options fixed.

    Subclasses set ``OPTIONS`` and implement ``_make_layout``, ``start``,
    ``legal_moves`` and ``_apply``; optionally ``state_to_json`` /
    ``state_from_json`` / ``_check_invariants`` for their extra state.
    """

    OPTIONS: ClassVar[tuple[Option, ...]] = ()
    store_word: ClassVar[str] = "a store"  # what the rule sheet calls a store, in "S is a store"
    name: str
    description: str

    def __init__(self, name: str, description: str, /, **options: Any) -> None:
        self.name = name
        self.description = description
        known = {o.name: o for o in self.OPTIONS}
        for key in options:
            if key not in known:
                valid = ", ".join(known) or "none"
                raise BadOption(f"{name}: unknown option {reprlib.repr(key)}; valid options: {valid}")
        self.options: dict[str, Any] = {
            o.name: o.check(name, options.get(o.name, o.default)) for o in self.OPTIONS
        }
        self.layout: Layout = self._make_layout()
        self._key = (name, tuple(sorted(self.options.items())))

    # -- identity --------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        return isinstance(other, Variant) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.options.items())
        return f"variant({self.name!r}{', ' if opts else ''}{opts})"

    # -- what subclasses supply -----------------------------------------
    def _make_layout(self) -> Layout:
        raise NotImplementedError

    def start(self) -> Position:
        """The start position (South to move unless the variant says otherwise)."""
        raise NotImplementedError

    def legal_moves(self, pos: Position) -> list[Move]:
        """Every legal move of ``pos``; empty only when the game is over."""
        raise NotImplementedError

    def _apply(self, pos: Position, move: Move, events: list[Event] | None) -> Position:
        """Play a legal ``move``; append events to ``events`` unless it is ``None``."""
        raise NotImplementedError

    # -- shared behaviour -------------------------------------------------
    @cached_property
    def total_seeds(self) -> int:
        """Seeds (chips, kete) in play in this variant: conserved by every move.

        Worked out once from the start position (validation and every referee
        judgement ask for it), so no variant has to restate its seed count."""
        return sum(self.start().pits)

    def play(
        self, pos: Position, move: Move, *, events: bool = True, check: bool = True
    ) -> tuple[Position, list[Event]]:
        """Play ``move`` in ``pos``: the new position and the move's events in order.

        With ``check`` the move must be one of ``legal_moves(pos)``; callers
        that took it from that list may pass ``check=False``. With
        ``events=False`` the event list is empty (faster).
        """
        if check and move not in self.legal_moves(pos):
            raise IllegalMove(self._why_illegal(pos, move.text))
        log: list[Event] | None = [] if events else None
        new = self._apply(pos, move, log)
        return new, (log if log is not None else [])

    def successors(self, pos: Position) -> list[tuple[Move, Position]]:
        """Every legal move of ``pos`` with the position it leads to (none once the game is over).

        What a search asks of every position it expands: ``play(..., events=False,
        check=False)`` of each legal move, in one call (no frame, no event list per move)."""
        if pos.result is not None:
            return []
        apply = self._apply
        return [(move, apply(pos, move, None)) for move in self.legal_moves(pos)]

    def parse_move(self, pos: Position, text: str) -> Move:
        """The legal move whose text form is ``text``; ``IllegalMove`` says why not."""
        text = text.strip()
        for move in self.legal_moves(pos):
            if move.text == text:
                return move
        raise IllegalMove(self._why_illegal(pos, text))

    def _why_illegal(self, pos: Position, text: str) -> str:
        if pos.result is not None:
            return f"{self.name}: {text!r} cannot be played, the game is over ({pos.result.reason})"
        legal = self.legal_moves(pos)
        mover = PLAYER_NAMES[pos.to_move]
        reason = self._refusal(pos, text.strip(), legal)
        because = f": {reason}" if reason else ""
        return (f"{self.name}: {text!r} is not a legal move for {mover}{because}; "
                f"legal moves: {', '.join(m.text for m in legal)}")

    def _refusal(self, pos: Position, text: str, legal: list[Move]) -> str | None:
        """The rule that refuses ``text`` in ``pos`` (not the game's end), in words, where one does:
        a player who types C wants to know why not C, not only what else he may play. None where
        the text names no pit (a misspelt move; the list of legal moves answers it)."""
        if text.partition(":")[0] == "pass" and not any(m.is_pass for m in legal):
            return "a player passes only when he has no move"
        pit = self._pit_named(text)
        if pit is None:
            return None
        label, index = pit.label, pit.index
        if pit.kind == "store":
            return f"{label} is {self.store_word}: no move starts there"
        owner = self.owner_of(pos, index)
        if owner != pos.to_move:
            return f"{label} is {PLAYER_NAMES[owner]}'s"
        if not pos.pits[index]:
            return f"{label} is empty"
        from_here = [m.text for m in legal if m.pit == index]
        if from_here:
            return self._why_not_written(pos, index, text, from_here)
        return self._why_not_from(pos, index)

    def _why_not_written(self, pos: Position, index: int, text: str, from_here: list[str]) -> str:
        """Why ``text`` is not one of ``from_here``, the legal moves from the mover's pit ``index``
        (a direction left out, a colour order): how they are written."""
        label = self.layout.labels[index]
        if len(from_here) == 1:
            return f"from {label} the legal move is {from_here[0]}"
        return f"from {label} the legal moves are {', '.join(from_here[:-1])} and {from_here[-1]}"

    def _pit_named(self, text: str) -> Pit | None:
        """The pit whose label begins ``text`` (``C``, ``C>``, ``A1<``, ``C:wyy``), or None."""
        named = [p for p in self.layout.pits if text.startswith(p.label)
                 and not text[len(p.label):len(p.label) + 1].isalnum()]
        return max(named, key=lambda p: len(p.label), default=None)

    def owner_of(self, pos: Position, index: int) -> int:
        """The player who sows from pit ``index`` in ``pos``: its owner on the board (Nam Nam's
        hollows change owners from round to round)."""
        return self.layout.pits[index].owner

    def _why_not_from(self, pos: Position, index: int) -> str | None:
        """Why no move starts from the mover's pit ``index``, which holds seeds, in ``pos``: the
        variant's own rule (must feed, a single seed, a sowing that never ends); None: no rule to name."""
        return None

    def is_over(self, pos: Position) -> bool:
        return pos.result is not None

    def result(self, pos: Position) -> Result | None:
        return pos.result

    # -- JSON ---------------------------------------------------------------
    def position_to_json(self, pos: Position) -> dict[str, Any]:
        labels = self.layout.labels
        data: dict[str, Any] = {
            "variant": self.name,
            "options": dict(self.options),
            "to_move": PLAYER_NAMES[pos.to_move],
            "pits": dict(zip(labels, pos.pits)),
            "captured": {"south": pos.captured[0], "north": pos.captured[1]},
        }
        if pos.white is not None:
            data["white"] = dict(zip(labels, pos.white))
        data.update(self.state_to_json(pos.state))
        data["result"] = pos.result.to_json() if pos.result else None
        return data

    def position_from_json(self, data: dict[str, Any]) -> Position:
        """Read a position written by ``Position.to_json``; ``BadPosition`` names the bad field."""
        if not isinstance(data, dict):
            raise BadPosition(f"{self.name}: a position is a JSON object, not {type(data).__name__}")
        if data.get("variant", self.name) != self.name:
            raise BadPosition(f"position is for variant {data.get('variant')!r}, not {self.name!r}")
        if "options" in data and data["options"] != self.options:
            raise BadPosition(f"{self.name}: position options {data['options']} differ from {self.options}")
        try:
            to_move = PLAYER_NAMES.index(data["to_move"])
        except (KeyError, ValueError):
            raise BadPosition(f"{self.name}: to_move must be 'south' or 'north', not {data.get('to_move')!r}") from None
        pits = self._counts_from_json(data.get("pits"), "pits")
        white = self._counts_from_json(data.get("white"), "white") if "white" in data else None
        captured_json = data.get("captured", {"south": 0, "north": 0})
        try:
            captured = tuple(count_from_json(captured_json[name], f"captured {name}") for name in PLAYER_NAMES)
        except (KeyError, TypeError, ValueError):
            raise BadPosition(f"{self.name}: captured must be {{'south': n, 'north': n}}, "
                              f"not {reprlib.repr(captured_json)}") from None
        try:
            result = Result.from_json(data["result"]) if data.get("result") else None
        except (KeyError, TypeError, ValueError, AttributeError):  # AttributeError: a result that is no object
            raise BadPosition(f"{self.name}: malformed result {reprlib.repr(data.get('result'))}") from None
        pos = Position(self, pits, to_move, captured, white, self.state_from_json(data), result)
        self.validate(pos)
        return pos

    def _counts_from_json(self, counts: Any, field: str) -> tuple[int, ...]:
        if not isinstance(counts, dict):
            raise BadPosition(f"{self.name}: {field} must map every pit label to a count")
        labels = self.layout.labels
        missing = [label for label in labels if label not in counts]
        extra = [label for label in counts if label not in labels]
        if missing or extra:
            raise BadPosition(
                f"{self.name}: {field} has missing pits {missing} and unknown pits {extra}; pits are {list(labels)}"
            )
        values = []
        for label in labels:
            values.append(count_from_json(counts[label], f"{self.name}: {field}[{label!r}]"))
        return tuple(values)

    def state_to_json(self, state: tuple) -> dict[str, Any]:
        """The variant's extra state as top-level JSON fields (none by default)."""
        return {}

    def state_from_json(self, data: dict[str, Any]) -> tuple:
        """Read the variant's extra state from a position's JSON object."""
        return ()

    # -- validation ------------------------------------------------------------
    def validate(self, pos: Position) -> None:
        """Raise ``BadPosition`` if ``pos`` breaks conservation or an invariant."""
        if len(pos.pits) != len(self.layout):
            raise BadPosition(f"{self.name}: {len(pos.pits)} pit counts for {len(self.layout)} pits")
        if any(n < 0 for n in pos.pits) or any(n < 0 for n in pos.captured):
            raise BadPosition(f"{self.name}: a count is negative")
        in_play = sum(pos.pits) + sum(pos.captured) + self._seeds_aside(pos)
        if in_play != self.total_seeds:
            raise BadPosition(
                f"{self.name}: {in_play} seeds on the board and aside, but the game has {self.total_seeds}"
            )
        self._check_invariants(pos)

    def _seeds_aside(self, pos: Position) -> int:
        """Seeds kept in the variant's extra state (e.g. penalty chips); 0 by default."""
        return 0

    def _check_invariants(self, pos: Position) -> None:
        """Variant-specific checks on top of conservation; raise ``BadPosition``."""

