"""The JSON API: the live state, server-sent events, control actions and recorded games.

Control actions are POSTs with a JSON object body; every field is checked
and a bad one gets a 400 naming it. A control the game refuses (no move to
take back, an illegal move text, ...) gets a 409 with the reason.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable, Iterator

from flask import Blueprint, Response, abort, jsonify, request, stream_with_context

import rules
from calibration.outline import CornersError
from pitwatch import records
from pitwatch.corners import CornersUnavailable
from pitwatch.recorder import DamagedGame, GameRecord, RecorderError
from pitwatch.session import SessionError

from . import DemoControls, board_corners, optional, services

api = Blueprint("api", __name__)

KEEPALIVE_SECONDS = 15.0
ALIVE = "event: alive\ndata: 1\n\n"  # a data line: an event without one is not fired
WHOLE_NUMBER = re.compile(r"[+-]?[0-9]+")  # a query parameter's number, as a client writes it


JSON_KINDS = {str: "a string", dict: "an object", list: "a list"}  # how the API's clients (JavaScript, curl) name a field's type


def _body() -> dict[str, Any]:
    if not request.is_json:
        abort(415, description="send the control as JSON (Content-Type: application/json)")
    try:
        data = request.get_json(silent=True)  # silent: None for a body that is no JSON (a ValueError)
    except RecursionError:  # no ValueError: JSON nested deeper than Python's parser goes, under the size limit
        abort(400, description="the request body's JSON is nested too deeply")
    if not isinstance(data, dict):
        abort(400, description="the request body must be a JSON object")
    return data


def _field(data: dict[str, Any], name: str, kind: type, *, default: Any = ..., limit: int = 200) -> Any:
    if name not in data:
        if default is ...:
            abort(400, description=f"missing field {name!r}")
        return default
    value = data[name]
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        abort(400, description=f"field {name!r} must be a whole number, not {value!r}")
    if kind is not int and not isinstance(value, kind):
        abort(400, description=f"field {name!r} must be {JSON_KINDS[kind]}, not {json.dumps(value)[:40]}")
    if isinstance(value, str) and len(value) > limit:
        abort(400, description=f"field {name!r} is longer than {limit} characters")
    return value


def _texts(data: dict[str, Any], name: str, example: str, *, default: Any = ...) -> Any:
    """A field that is a short list of short texts (move texts, hollow labels), or ``default``."""
    value = _field(data, name, list, default=default)
    if value is not default and (len(value) > 64 or not all(isinstance(t, str) and len(t) <= 60 for t in value)):
        abort(400, description=f"field {name!r} must be a list of at most 64 {example}")
    return value


def _control(action: Callable[..., Any], *args: Any) -> Response:
    try:
        return jsonify(ok=True, verdict=action(*args))
    except SessionError as exc:
        abort(409, description=str(exc))


@api.get("/state")
def state() -> Response:
    return Response(services().session.hub.latest, mimetype="application/json")


@api.get("/events")
def events() -> Response:
    """Server-sent events: one ``state`` event per change (the newest state only, never a backlog),
    and an ``alive`` event at once and after every ``KEEPALIVE_SECONDS`` without a change. A
    Pitwatch that hangs keeps the connection open, so the browser sees no error: the page takes
    40 s without an event for a lost link (a keepalive sent as a comment fires no event, and a
    hung Pitwatch was shown live)."""
    hub = services().session.hub

    def stream() -> Iterator[str]:
        # subscribed in here, where the unsubscribe is sure to follow: a HEAD request never starts the
        # stream, and a subscription made before it was never ended (every HEAD cost one, for good)
        sub = hub.subscribe()
        try:
            yield f"retry: 1000\n\n{ALIVE}"
            while True:
                text = sub.get(KEEPALIVE_SECONDS)
                yield f"event: state\ndata: {text}\n\n" if text is not None else ALIVE
        finally:
            hub.unsubscribe(sub)

    return Response(stream_with_context(stream()), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


@api.get("/variants")
def variants() -> Response:
    """Every variant, and whether it is played on the board being watched (``pitwatch run`` watches
    one board, calibrated for its pits): the New game dialog offers only those."""
    here = services().session.fixed_board
    return jsonify([
        {"name": name, "description": description, "options": [o.to_json() for o in rules.options_of(name)],
         "board": (layout := rules.variant(name).layout).name, "playable": here is None or layout.labels == here}
        for name, description in rules.VARIANTS.items()
    ])


@api.post("/game")
def new_game() -> Response:
    data = _body()
    variant = _field(data, "variant", str)
    options = _field(data, "options", dict, default={})
    south = _field(data, "south", str, default="South", limit=40)
    north = _field(data, "north", str, default="North", limit=40)
    try:
        game_id = services().session.new_game(variant, options, south, north)
    except (rules.RulesError, SessionError) as exc:
        abort(400, description=str(exc))
    return jsonify(ok=True, game=game_id)


@api.post("/next-game")
def next_game() -> Response:
    _body()
    try:
        return jsonify(ok=True, game=services().session.next_game())
    except SessionError as exc:
        abort(409, description=str(exc))


@api.post("/choose")
def choose() -> Response:
    data = _body()
    moves = _texts(data, "moves", "move texts, as the choice showed them", default=None)
    return _control(services().session.choose, _field(data, "index", int), moves)


@api.post("/move")
def move() -> Response:
    return _control(services().session.play_by_hand, _field(_body(), "move", str, limit=60))


@api.post("/correct")
def correct() -> Response:
    data = _body()
    return _control(services().session.correct, _field(data, "move", str, limit=60),
                    _field(data, "replaces", str, default=None, limit=60))


@api.post("/hollows")
def hollows() -> Response:
    chosen = _texts(_body(), "hollows", 'hollow labels, e.g. ["c", "e"]')
    return _control(services().session.choose_hollows, chosen)


@api.post("/takeback")
def takeback() -> Response:
    return _control(services().session.takeback, _field(_body(), "moves_shown", int, default=None))


@api.post("/draw")
def draw() -> Response:
    _body()
    return _control(services().session.agree_draw)


def _demo() -> DemoControls:
    return optional("demo", "the virtual board exists only in `pitwatch demo`")


@api.post("/demo/click")
def demo_click() -> Response:
    data = _body()
    label, move = _field(data, "pit", str, limit=4), _field(data, "move", str, default=None, limit=60)
    try:
        return jsonify(ok=True, move=_demo().click(label, move))
    except ValueError as exc:
        abort(409, description=str(exc))


@api.post("/demo/player")
def demo_player() -> Response:
    mode = _field(_body(), "mode", str, limit=10)
    if mode not in ("random", "clicks"):
        abort(400, description=f"mode must be 'random' or 'clicks', not {mode!r}")
    _demo().set_player(mode)
    return jsonify(ok=True, mode=mode)


@api.get("/camera/corners")
def corners() -> Response:
    return jsonify(board_corners().state())


@api.post("/camera/corners")
def set_corners() -> Response:
    """Four clicked corners ``[[x, y], ...]`` in camera pixels (or null: back to the markers)."""
    service = board_corners()
    data = _body()
    if "corners" not in data:
        abort(400, description="missing field 'corners' (4 points [x, y] in camera pixels, or null for the markers)")
    try:
        return jsonify(ok=True, **service.use(data["corners"]))
    except CornersError as exc:
        abort(400, description=str(exc))
    except CornersUnavailable as exc:
        abort(409, description=str(exc))


def _query_int(name: str, default: int, low: int, high: int) -> int:
    raw = request.args.get(name)
    if raw is None:
        return default
    text = raw.strip()
    if not WHOLE_NUMBER.fullmatch(text):
        shown = raw if len(raw) <= 40 else f"{raw[:40]}..."
        abort(400, description=f"query parameter {name!r} must be a whole number, not {shown!r}")
    if len(text) > 20 or not low <= int(text) <= high:  # longer: far out of range (int() stops at 4,300 digits)
        abort(400, description=f"query parameter {name!r} must be between {low} and {high}")
    return int(text)


@api.get("/games")
def games() -> Response:
    recorder = services().session.recorder
    limit = _query_int("limit", 50, 1, 500)
    offset = _query_int("offset", 0, 0, 10**9)
    return jsonify([{**g.to_json(), "day_only": records.dated_by_day(g)} for g in recorder.games(limit, offset)])


def _game(game_id: int) -> tuple[GameRecord, rules.Game]:
    try:
        return records.game_of(services().session.recorder, game_id)
    except DamagedGame as exc:  # a row changed outside Pitwatch: the game and the field are named
        abort(422, description=str(exc))
    except RecorderError as exc:
        abort(404, description=str(exc))
    except rules.RulesError as exc:  # a record the rules no longer accept (another version): the game and move named
        abort(422, description=str(exc))


@api.get("/games/<int:game_id>")
def game(game_id: int) -> Response:
    record, played = _game(game_id)
    recorder = services().session.recorder
    moves = recorder.moves(game_id)
    try:
        log, log_damage = records.referee_log(recorder, game_id), None
    except DamagedGame as exc:  # a verdict row changed outside Pitwatch: the moves still replay
        log, log_damage = [], str(exc)
    return jsonify(record=record.to_json(), layout=played.variant.layout.to_json(),
                   steps=records.replay(played), snapshots=[m.ply for m in moves if m.has_snapshot],
                   log=log, log_damage=log_damage)


@api.get("/games/<int:game_id>/export")
def export(game_id: int) -> Response:
    fmt = request.args.get("format", "text")
    if fmt not in ("text", "json"):
        abort(400, description=f"format must be 'text' or 'json', not {fmt!r}")
    _game(game_id)
    body = records.export(services().session.recorder, game_id, fmt)
    suffix, mimetype = ("json", "application/json") if fmt == "json" else ("txt", "text/plain")
    return Response(body, mimetype=mimetype,
                    headers={"Content-Disposition": f'attachment; filename="pitwatch-game-{game_id}.{suffix}"'})


@api.get("/games/<int:game_id>/snapshot/<int:ply>")
def snapshot(game_id: int, ply: int) -> Response:
    _game(game_id)
    jpeg = services().session.recorder.snapshot(game_id, ply)
    if jpeg is None:
        abort(404, description=f"game {game_id} has no camera snapshot for move {ply}")
    return Response(jpeg, mimetype="image/jpeg")
