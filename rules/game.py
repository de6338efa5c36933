"""A game over time: the positions, the moves, their events, takebacks and the result.

A :class:`Position` already knows everything the rules need (threefold
repetition lives in the position's ``state`` for the variants that have it),
so a :class:`Game` is a plain history on top of positions: it never decides a
rule itself, except a draw by agreement, which is an act of the players and
not a property of a position.

>>> import rules
>>> game = rules.Game("kalah")
>>> [e["type"] for e in game.play("C")][-1]
'extra_turn'
>>> game.undo().text
'C'
"""

from __future__ import annotations

from typing import Any

from .errors import IllegalMove, RulesError
from .position import Move, Position, Result
from .registry import variant as make_variant
from .variant import Event, Variant


def score_of(pos: Position) -> tuple[int, int]:
    """Seeds each player has won so far: his store on the board plus his captured seeds."""
    layout = pos.variant.layout
    score = list(pos.captured)
    for player in (0, 1):
        store = layout.store(player)
        if store is not None:
            score[player] += pos.pits[store]
    return (score[0], score[1])


class Game:
    """One game of one variant: ``positions[0]`` is the start, ``positions[k+1]``
    follows ``moves[k]``, whose events are ``events[k]``.

    ``variant`` is a :class:`Variant` or a registered name; ``start`` a
    position of that variant (default: its start position); ``tags`` free
    metadata (players, place, ...) that the recorder keeps with the game.
    """

    def __init__(self, variant: Variant | str, start: Position | None = None,
                 tags: dict[str, Any] | None = None) -> None:
        self.variant: Variant = make_variant(variant) if isinstance(variant, str) else variant
        if start is None:
            start = self.variant.start()
        elif start.variant != self.variant:
            raise RulesError(f"the start position is a {start.variant!r} position, not {self.variant!r}")
        self.positions: list[Position] = [start]
        self.moves: list[Move] = []
        self.events: list[list[Event]] = []
        self.tags: dict[str, Any] = dict(tags or {})
        self._agreed: Result | None = None
        self._observed: dict[int, Position] = {}  # ply -> accepted position that differs from the engine's

    # -- the present -------------------------------------------------------
    @property
    def position(self) -> Position:
        """The current position."""
        return self.positions[-1]

    @property
    def result(self) -> Result | None:
        """How the game ended (by the rules or by agreement), or ``None`` while it goes on."""
        return self.position.result or self._agreed

    @property
    def is_over(self) -> bool:
        return self.result is not None

    @property
    def observed(self) -> dict[int, Position]:
        """The positions accepted in place of the engine's result, by ply (see :meth:`play`):
        what a game record must carry besides the moves."""
        return dict(self._observed)

    def legal_moves(self) -> list[Move]:
        """Every legal move now; empty once the game is over (agreed draws included)."""
        return [] if self.is_over else self.variant.legal_moves(self.position)

    # -- changing it ----------------------------------------------------------
    def play(self, move: Move | str, *, events: bool = True,
             observed: Position | None = None) -> list[Event]:
        """Play ``move`` (a Move or its text form) and return its events.

        ``IllegalMove`` says why a move cannot be played and lists the legal ones.
        ``observed`` is the position the players actually left when the referee
        accepted a board that differs from the engine's result (a Nam Nam owner who
        let a four stand loses that capture, RULES.md): it replaces the engine's
        result, after the variant's own validation.
        """
        pos = self.position
        if self._agreed is not None:
            text = move if isinstance(move, str) else move.text
            raise IllegalMove(f"{self.variant.name}: {text!r} cannot be played, the game is over (drawn by agreement)")
        if isinstance(move, str):
            move = self.variant.parse_move(pos, move)
        new, log = self.variant.play(pos, move, events=events)
        if observed is not None and observed != new:
            self.variant.validate(observed)
            self._observed[len(self.moves)] = observed
            new = observed
        self.positions.append(new)
        self.moves.append(move)
        self.events.append(log)
        return log

    def undo(self) -> Move:
        """Take back the last move (and a draw agreed after it); returns the move taken back."""
        if not self.moves:
            raise RulesError(f"{self.variant.name}: there is no move to take back")
        self._agreed = None
        self._observed.pop(len(self.moves) - 1, None)
        self.positions.pop()
        self.events.pop()
        return self.moves.pop()

    def agree_draw(self) -> Result:
        """End the game in a draw agreed by both players, where the variant allows it."""
        if not getattr(self.variant, "draw_by_agreement", False):
            raise RulesError(f"{self.variant.name}: the rules do not allow a draw by agreement")
        if self.is_over:
            raise RulesError(f"{self.variant.name}: the game is already over ({self.result.reason})")
        self._agreed = Result(None, "agreement", score_of(self.position))
        return self._agreed

    # -- JSON -----------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """``{"variant", "options", "tags", "start": position JSON, "moves": [text], "agreed_draw",
        "observed": {ply: position JSON}}`` (``observed``: positions accepted in place of the
        engine's result, see :meth:`play`)."""
        return {
            "variant": self.variant.name,
            "options": dict(self.variant.options),
            "tags": dict(self.tags),
            "start": self.positions[0].to_json(),
            "moves": [m.text for m in self.moves],
            "agreed_draw": self._agreed is not None,
            "observed": {str(ply): pos.to_json() for ply, pos in self._observed.items()},
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Game":
        """Replay a game written by :meth:`to_json`; an illegal move names its number."""
        if not isinstance(data, dict) or "variant" not in data:
            raise RulesError("a game is a JSON object with at least a 'variant'")
        variant = make_variant(data["variant"], **data.get("options", {}))
        start = variant.position_from_json(data["start"]) if data.get("start") else None
        game = cls(variant, start, data.get("tags"))
        observed = {int(ply): variant.position_from_json(pos) for ply, pos in data.get("observed", {}).items()}
        for number, text in enumerate(data.get("moves", []), 1):
            try:
                game.play(text, observed=observed.get(number - 1))
            except IllegalMove as exc:
                raise IllegalMove(f"move {number}: {exc}") from None
        if data.get("agreed_draw"):
            game.agree_draw()
        return game
