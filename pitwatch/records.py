"""Recorded games as rules Games and as game records (text notation and JSON).

The recorder stores rows; the rules engine replays them. Replaying on the
way out (rather than trusting the stored positions) means an exported
record is always one the rules accept, and ``games import`` checks every
move of a record before anything is stored.
"""

from __future__ import annotations

import datetime
import json
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import rules
from rules import PLAYER_NAMES, Game, notation

from .recorder import AcceptedMove, DamagedGame, GameRecord, ImportedGame, Recorder, player_name

LIVE_TAGS = {"Event": "Pitwatch game", "Site": "Pitwatch"}  # a game refereed here (an imported one keeps its own)
COLUMN_TAGS = ("South", "North")  # tags the recorder keeps in columns of their own
# The largest record file `games import` reads. A game's record is a few hundred bytes (a long game with
# comments a few KB), so this holds thousands of games (5,000 Kalah games are 1.8 MB); checking every
# move of them takes about a minute and half a GB, so a bigger file (a wrong file, a runaway export) is
# refused before it is read, rather than run the machine out of memory. Split a bigger match into files.
MAX_RECORD_BYTES = 2_000_000
# The most games one record may hold. Bytes bound games only loosely: a game without a move is 20 bytes, and
# 2 MB of them (105,000 games) took 2.2 GB and over a minute to check and store. 10,000 is about twice the
# Kalah games the bytes hold; the game past it is refused where it starts, before it is read.
MAX_RECORD_GAMES = 10_000
# The longest tag (name and value) an imported game keeps: tags name an event, a place, a round, an
# annotator, in a few dozen characters; the dashboard and every export carry them.
MAX_TAG_CHARS = 1000
JSON_KINDS = {list: "an array", str: "a string", int: "a number", float: "a number", bool: "true or false",
              type(None): "null"}  # how JSON names what a record holds instead of a game object


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
    """The recorded game ``game_id`` replayed by the rules engine: :class:`DamagedGame` for a row
    that does not read, ``RulesError`` naming the game (and the move) the rules do not accept."""
    record = recorder.game(game_id)
    if record.damage:
        raise DamagedGame(record.damage)
    moves = recorder.moves(game_id)
    try:
        variant = rules.variant(record.variant, **record.options)
        start = variant.position_from_json(record.start) if record.start else None
    except rules.RulesError as exc:
        raise rules.RulesError(f"game {game_id} cannot be replayed: {exc}") from None
    game = Game(variant, start, {"South": record.south, "North": record.north})
    for move in moves:
        # the recorded position is what the referee accepted: it differs from the engine's
        # result only where the players' board legitimately did (a Nam Nam four left standing)
        try:
            game.play(move.text, observed=variant.position_from_json(move.position))
        except rules.RulesError as exc:
            raise rules.RulesError(f"game {game_id} cannot be replayed: move {move.ply + 1} ({move.text}): "
                                   f"{exc}") from None
    if record.result and record.result.get("reason") == "agreement" and not game.is_over:
        try:
            game.agree_draw()
        except rules.RulesError as exc:  # a variant with no draw by agreement (a row changed outside Pitwatch)
            raise rules.RulesError(f"game {game_id} cannot be replayed: its result: {exc}") from None
    return record, game


ROUTINE_VERDICTS = ("unchanged", "in_progress", "unreadable")  # a still board judged again, a move being sown, a
# board the camera could not read: said on the dashboard while they last, no part of a game's story
LOG_LIMIT = 500  # the newest entries a log holds: a game's story, not a replay of every board seen


def referee_log(recorder: Recorder, game_id: int) -> list[dict[str, Any]]:
    """What a replay tells besides the moves, oldest first: every board judged illegal or ambiguous,
    every change the players made (a move entered, chosen or corrected, a takeback, a draw agreed,
    a Nam Nam round's hollows) and every referee failure; a move the referee saw is in the move list
    (it commits one only 99 % sure, ``rules.referee.referee.CONFIDENT``). Each as ``{ply, kind, by,
    moves, words, at}``; ``ply``: the moves played before it. :class:`DamagedGame` names a verdict
    row that does not read."""
    log = []
    for verdict in recorder.verdicts(game_id, LOG_LIMIT, leave_out=ROUTINE_VERDICTS, referee_moves=False):
        body = verdict["verdict"] or {}
        by = body.get("by", "referee")
        log.append({"ply": verdict["ply"], "kind": verdict["kind"], "by": by, "moves": body.get("moves", []),
                    "at": verdict["at"], "words": body.get("mistake_words") or body.get("message") or verdict["kind"]})
    return log


def replay(game: Game) -> list[dict[str, Any]]:
    """Every position of the game with the move that led to it, for step-by-step replay."""
    steps = [{"ply": -1, "move": None, "position": game.positions[0].to_json(), "last": last_move_path([])}]
    for ply, (move, before, after, events) in enumerate(
            zip(game.moves, game.positions, game.positions[1:], game.events)):
        steps.append({"ply": ply, "move": move.text, "player": PLAYER_NAMES[before.to_move],
                      "position": after.to_json(), "last": last_move_path(events)})
    return steps


def record_of(recorder: Recorder, game_id: int) -> notation.Record:
    """The recorded game as a game record with its tag pairs: an imported game's own, as its record
    had them (Event, Date, Round, ...), a game refereed here Pitwatch's and the day it started at the
    table: in the machine's time zone (a game begun at 08:00 in Sydney is dated that day, not the day
    before as in UTC)."""
    record, game = game_of(recorder, game_id)
    if record.tags is None:
        date = datetime.datetime.fromtimestamp(record.started_at).strftime("%Y.%m.%d")
        tags = {**LIVE_TAGS, "Date": date}
    else:
        tags = record.tags
    # the players' columns, not a South or North the stored tags may hold, name the players
    return notation.Record.from_game(game, None, **{**tags, "South": record.south, "North": record.north})


def options_text(game: Game) -> str:
    """The game's variant options as its record's Options tag writes them (``houses=6 seeds=4
    capture_needs_opposite=false``), the form ``--set`` and the records take."""
    return notation.Record.from_game(game).all_tags()["Options"]


def export(recorder: Recorder, game_id: int, fmt: str) -> str:
    """The game as a record: ``fmt`` is ``text`` (the notation) or ``json``."""
    if fmt not in ("text", "json"):
        raise ValueError(f"unknown export format {fmt!r}; use text or json")
    record = record_of(recorder, game_id)
    return record.to_text() if fmt == "text" else json.dumps(record.to_json(), indent=2)


@dataclass(frozen=True)
class RecordImport:
    """A record's games as the recorder stores them, and how many comments the record held: the
    database has no place for comments, so an import leaves them out, and can say how many."""

    games: list[ImportedGame]
    comments_left_out: int


def read_import(text: str) -> RecordImport:
    """Every game of a record (text notation, where a Pass It On match is several games one after
    the other, or one game's JSON object), each move and player's name checked, as the recorder
    stores them. Nothing is stored, so a record refused here leaves no trace in any database."""
    try:
        data = notation.parse_json(text)
    except (json.JSONDecodeError, RecursionError):
        if text.lstrip().startswith("{"):
            raise  # a game's JSON with a mistake in it: the caller names where
        return _text_import(text)
    except rules.RulesError as exc:  # a number of more digits than Python reads, a key given twice
        raise rules.RulesError(f"not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise rules.RulesError(f"not a game object: the record is JSON, {JSON_KINDS[type(data)]} (a game's JSON "
                               "is an object with its variant and moves)")
    record = notation.Record.from_json(data)
    return RecordImport([_as_stored(record, lambda tag: f"tags.{tag[:40]}")], _comments_in([record]))


def _text_import(text: str) -> RecordImport:
    """The games of a record in the text notation, at most MAX_RECORD_GAMES (``NotationError`` says
    where one is malformed, or where the first game too many starts)."""
    records = notation.read_all(text, MAX_RECORD_GAMES)
    if not records:
        raise notation.NotationError(1, 1, "no game in the record (a game starts with its tags, "
                                           'e.g. [Variant "kalah"], then its moves)')
    games = [_as_stored(record, lambda tag, r=record: "line {}, column {}".format(*r.tag_places[tag]))
             for record in records]
    return RecordImport(games, _comments_in(records))


def _comments_in(records: list[notation.Record]) -> int:
    """How many comments ``records`` hold, every one of which an import leaves out."""
    return sum(len(comments) for record in records for comments in record.comments.values())


def _as_stored(record: notation.Record, place: Callable[[str], str]) -> ImportedGame:
    """``record`` replayed by the rules engine (reading it checked every move, and said where
    in the text a move is illegal), as the recorder stores it: its players' names held to the
    rule of a live game (``place(tag)`` says where a name that breaks it is), its Date as the day
    it started, its other tags kept."""
    names = []
    for tag in COLUMN_TAGS:
        try:
            names.append(player_name(record.tags.get(tag, tag), tag))
        except ValueError as exc:
            raise rules.RulesError(f"{place(tag)}: {exc}") from None
    game = record.to_game()
    moves = [AcceptedMove(m.text, PLAYER_NAMES[before.to_move], after.to_json())
             for m, before, after in zip(game.moves, game.positions, game.positions[1:])]
    start = game.positions[0]
    tags = {name: value for name, value in record.tags.items()
            if name not in notation.DERIVED and name not in COLUMN_TAGS}
    for name, value in tags.items():
        if len(name) + len(value) > MAX_TAG_CHARS:
            shown = name if len(name) <= 40 else f"{name[:40]}..."
            raise rules.RulesError(f"{place(name)}: the {shown} tag is {len(name) + len(value)} characters long, more "
                                   f"than the {MAX_TAG_CHARS} a tag may be (tags name an event, a place, a round)")
    return ImportedGame(game.variant.name, dict(game.variant.options), *names, moves,
                        game.result.to_json() if game.result else None,
                        None if start == game.variant.start() else start.to_json(),
                        _day_of(tags.get("Date", "")), tags)


def dated_by_day(record: GameRecord) -> bool:
    """Whether ``record`` started at the day its imported record's Date names (stored as that day's
    noon UTC, :func:`_day_of`), a day with no time of day: the games page shows the day alone."""
    return record.tags is not None and _day_of(record.tags.get("Date", "")) == record.started_at


def _day_of(date: str) -> float | None:
    """The moment a record's Date tag (``2024.05.01``) names: noon UTC of that day, so that the day
    shows the same in every time zone and is written back the same; None for a date that is not a
    whole day (``2024.??.??``, ``?``): such a game is taken as started when it is imported."""
    try:
        day = datetime.datetime.strptime(date, "%Y.%m.%d")
    except ValueError:
        return None
    return day.replace(hour=12, tzinfo=datetime.timezone.utc).timestamp()
