"""The HTML pages: the live dashboard, the board corners of the camera, the list of recorded
games and the replay of one game."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, render_template

from pitwatch.recorder import RecorderError

from . import services

pages = Blueprint("pages", __name__)


def _page(template: str, **context: Any) -> str:
    s = services()
    return render_template(template, csrf=s.guard.csrf, network=s.guard.allow_network,
                           camera=s.frames is not None, demo=s.demo is not None, corners=s.corners is not None,
                           **context)


@pages.get("/")
def dashboard() -> str:
    return _page("dashboard.html")


@pages.get("/camera/corners")
def corners() -> str:
    return _page("corners.html")


@pages.get("/games")
def games() -> str:
    return _page("games.html")


@pages.get("/games/<int:game_id>")
def replay(game_id: int) -> str:
    try:
        services().session.recorder.game(game_id)  # a game that was never recorded has no page
    except RecorderError as exc:
        abort(404, description=str(exc))
    return _page("replay.html", game_id=game_id)
