"""Recorded games as rules Games and as game records (text notation and JSON).

The recorder stores rows; the rules engine replays them. Replaying on the
way out (rather than trusting the stored positions) means an exported
record is always one the rules accept, and ``games import`` checks every
move of a record before anything is stored.
"""

from __future__ import annotations

import datetime
import json
from typing import Any, Sequence

import rules
from rules import PLAYER_NAMES, Game, notation

from .recorder import AcceptedMove, GameRecord, ImportedGame, Recorder


def last_move_path(events: Sequence[dict]) -> dict[str, Any]:
    """The last move's sowing path (lift, drops in order), laps and captures, by pit label."""
    return {
        "from": next((e["pit"] for e in events if e.get("type") == "lift"), None),
        "path": [e["pit"] for e in events if e.get("type") == "drop"],
        "laps": [e["pit"] for e in events if e.get("type") == "lap"],
        "captures": [{"pit": e["pit"], "seeds": e.get("seeds", 0), "by": e.get("by")}
                     for e in events if e.get("type") == "capture"],
    }


def game_of(recorder: Recorder, game_id: int) -> tuple[GameRecord, Game]:
    """The recorded game ``game_id`` replayed by the rules engine."""
    record = recorder.game(game_id)
    variant = rules.variant(record.variant, **record.options)
    start = variant.position_from_json(record.start) if record.start else None
    game = Game(variant, start, {"South": record.south, "North": record.north})
    for move in recorder.moves(game_id):
        # the recorded position is what the referee accepted: it differs from the engine's
        # result only where the players' board legitimately did (a Nam Nam four left standing)
        game.play(move.text, observed=variant.position_from_json(move.position))
    if record.result and record.result.get("reason") == "agreement" and not game.is_over:
        game.agree_draw()
    return record, game


def replay(game: Game) -> list[dict[str, Any]]:
    """Every position of the game with the move that led to it, for step-by-step replay."""
    steps = [{"ply": -1, "move": None, "position": game.positions[0].to_json(), "last": last_move_path([])}]
    for ply, (move, before, after, events) in enumerate(
            zip(game.moves, game.positions, game.positions[1:], game.events)):
        steps.append({"ply": ply, "move": move.text, "player": PLAYER_NAMES[before.to_move],
                      "position": after.to_json(), "last": last_move_path(events)})
    return steps


def record_of(recorder: Recorder, game_id: int) -> notation.Record:
    """The recorded game as a game record with its tag pairs."""
    record, game = game_of(recorder, game_id)
    date = datetime.datetime.fromtimestamp(record.started_at, datetime.timezone.utc).strftime("%Y.%m.%d")
    return notation.Record.from_game(game, Event="Pitwatch game", Site="Pitwatch", Date=date,
                                     South=record.south, North=record.north)


def export(recorder: Recorder, game_id: int, fmt: str) -> str:
    """The game as a record: ``fmt`` is ``text`` (the notation) or ``json``."""
    if fmt not in ("text", "json"):
        raise ValueError(f"unknown export format {fmt!r}; use text or json")
    record = record_of(recorder, game_id)
    return record.to_text() if fmt == "text" else json.dumps(record.to_json(), indent=2)


def import_records(recorder: Recorder, text: str) -> list[int]:
    """Store every game of a record (text notation, where a Pass It On match is several games
    one after the other, or one game's JSON), all or none: every move of every game is checked
    before anything is stored. The games' ids, in the record's order."""
    stripped = text.lstrip()
    if stripped.startswith("{"):
        games = [_as_stored(notation.Record.from_json(json.loads(stripped)))]
    else:
        in_text = notation.read_all(text)
        if not in_text:
            raise notation.NotationError(1, 1, "no game in the record (a game starts with its tags, "
                                               'e.g. [Variant "kalah"], then its moves)')
        games = [_as_stored(record) for record in in_text]
    return recorder.import_games(games)


def _as_stored(record: notation.Record) -> ImportedGame:
    """``record`` replayed by the rules engine (reading it checked every move, and said where
    in the text a move is illegal), as the recorder stores it."""
    game = record.to_game()
    moves = [AcceptedMove(m.text, PLAYER_NAMES[before.to_move], after.to_json())
             for m, before, after in zip(game.moves, game.positions, game.positions[1:])]
    start = game.positions[0]
    tags = record.all_tags()
    return ImportedGame(game.variant.name, dict(game.variant.options),
                        tags.get("South", "South"), tags.get("North", "North"), moves,
                        game.result.to_json() if game.result else None,
                        None if start == game.variant.start() else start.to_json())
