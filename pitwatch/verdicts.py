"""The seam between the referee's Verdict and the session.

The referee (``rules.referee``) answers in its own rich type; the session
needs only a few things from it: the kind, the moves to play (or the ply to
take back to), the pits that differ, the alternatives of an ambiguous
verdict, and a JSON form to record and show. :class:`VerdictView` is that
small shape, so the session never depends on the referee's internals.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from rules import PLAYER_NAMES, Game, Move, Position, Reading


# The most moves a board may take back unasked: a move, or a move and the reply (and a Kalah extra
# turn's). A board back where it was more moves ago is asked of the players.
MOST_TAKEN_BACK_UNASKED = 3


@dataclass
class VerdictView:
    """``kind``: move | takeback | unchanged | in_progress | ambiguous | illegal | unreadable | error."""

    kind: str
    json: dict[str, Any]
    moves: list[Move] = field(default_factory=list)
    takeback_to: int | None = None
    differing: list[str] = field(default_factory=list)
    choices: list["VerdictView"] = field(default_factory=list)
    observed: Position | None = None  # the accepted position where it is not the engine's (a Nam Nam four left)


def judge_reading(judge: Callable[..., Any] | None, game: Game, reading: Reading, laid_before: bool = False) -> Any:
    """Ask the referee (``laid_before``: the board lay there before the game began,
    :meth:`rules.referee.Referee.judge`); a referee failure becomes an ``error`` verdict instead of
    stopping the session."""
    if judge is None:
        from rules.referee import judge as referee_judge
        judge = referee_judge
    try:
        return judge(game, reading, laid_before=laid_before)
    except Exception as exc:  # the live loop must go on; the banner says what happened
        return {"kind": "error", "message": f"the referee failed on this board: {exc}"}


def view_of(verdict: Any, game: Game, choice: bool = False) -> VerdictView:
    """Translate a referee Verdict (or an ``error`` dict) into a :class:`VerdictView`.

    The JSON gains ``message`` (plain words for the banner), ``player`` (who
    made the first move), ``players`` (who made each of ``moves``, in order: a
    verdict may hold a move of each player) and, for an illegal board,
    ``mistake_words``. ``choice``: the verdict is one explanation of an
    ambiguous board, which the players pick: a long takeback among them is
    asked by being offered (asked again, as an ambiguous verdict of its own,
    picking it committed nothing: a referee audit, 2026-12-07).
    """
    data = dict(verdict if isinstance(verdict, dict) else verdict.to_json())
    kind = str(data.get("kind", "error"))
    data.setdefault("message", data.get("reason", ""))
    if kind == "move":
        moves, movers = _moves(game, data.get("moves", []))
        data.setdefault("player", PLAYER_NAMES[game.position.to_move])
        data.setdefault("players", [PLAYER_NAMES[side] for side in movers])
        left_for_owner = (data.get("best") or data).get("left_for_owner")  # a verdict, or a candidate of one
        observed = game.variant.position_from_json(data["position"]) if left_for_owner and data.get("position") else None
        return VerdictView(kind, data, moves, observed=observed)
    if kind == "takeback":
        undo = int(data.get("undo", 0))
        takeback = VerdictView(kind, data, [], max(0, len(game.moves) - undo))
        return takeback if undo <= MOST_TAKEN_BACK_UNASKED or choice else _asked(takeback, undo)
    if kind == "ambiguous":
        choices = [view_of(candidate, game, choice=True) for candidate in data.get("candidates", [])]
        return VerdictView(kind, data, choices=choices)
    if kind == "illegal":
        if data.get("mistake"):
            data["mistake_words"] = data["mistake"].get("words", "")
        return VerdictView(kind, data, differing=[d["pit"] for d in data.get("differences", [])])
    return VerdictView(kind, data)


def _asked(takeback: VerdictView, undo: int) -> VerdictView:
    """A takeback of more moves than players take back at the table, put to them as the one choice
    of an ambiguous verdict (the dashboard's button, or the board's confirm button): most often
    the board was laid out again for a new game, or tidied after a stop, without New game, and
    taken back unasked it deleted the whole game's moves from the record."""
    message = (f"{takeback.json['message']}: take the last {undo} moves back? Choose it, or start a new game "
               "if the board was laid out for one")
    return VerdictView("ambiguous", {"kind": "ambiguous", "confirm": "takeback", "undo": undo, "message": message,
                                     "candidates": [takeback.json]}, choices=[takeback])


def _moves(game: Game, texts: list[str]) -> tuple[list[Move], list[int]]:
    """Parse the verdict's move texts along the game (a sequence may be up to 3 moves); with them,
    the side that makes each one."""
    pos = game.position
    moves, movers = [], []
    for text in texts:
        move = game.variant.parse_move(pos, text)
        movers.append(pos.to_move)
        pos, _ = game.variant.play(pos, move, events=False, check=False)
        moves.append(move)
    return moves, movers
