"""The Pitwatch dashboard: a Flask application over a live :class:`pitwatch.session.Session`.

``create_app(session, ...)`` builds the app (application factory); the
blueprints are ``pages`` (HTML), ``api`` (JSON controls, recorded games,
server-sent events) and ``camera`` (MJPEG, stills). Nothing is loaded from outside:
the page's CSS and JavaScript are in ``web/static``.

Every error answer is JSON ``{"error": "..."}`` (or plain text for pages)
with a 4xx status that says what was wrong.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from flask import Flask, Response, jsonify, request
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException, ServiceUnavailable

from pitwatch.recorder import RecorderError

from .security import Guard


class DemoControls(Protocol):
    """What the demo offers the dashboard: clicks on the virtual board, the random player's switch."""

    def click(self, label: str, move: str | None = None) -> str: ...
    def set_player(self, mode: str) -> None: ...


class BoardCorners(Protocol):
    """The live camera's board outline, set by clicking its corners (``pitwatch.corners.LiveCorners``).

    ``use`` raises ``CornersError`` for corners that cannot be a board (400) and
    ``CornersUnavailable`` when they cannot be set now (409).
    """

    def state(self) -> dict[str, Any]: ...
    def picture(self) -> bytes | None: ...
    def use(self, corners: Any) -> dict[str, Any]: ...


@dataclass
class Services:
    """What the routes serve: the session and, where there are, the camera view, the demo's controls
    and the board corners. The session and frames are typed loosely: web sits above pitwatch, which
    imports web to serve it, so naming their classes here would make an import cycle."""

    session: Any            # pitwatch.session.Session
    frames: Any = None      # pitwatch.hub.FrameFeed, or None without a camera
    demo: DemoControls | None = None
    guard: Guard | None = None
    corners: BoardCorners | None = None  # None without a camera, or with the demo's virtual one


def create_app(session: Any, *, frames: Any = None, demo: DemoControls | None = None,
               corners: BoardCorners | None = None, allow_network: bool = False, token: str = "") -> Flask:
    """The dashboard app for ``session``; ``allow_network`` requires ``token`` for control actions."""
    if allow_network and not token:
        raise ValueError("serving on the network needs an access token")
    app = Flask(__name__)
    app.config.update(MAX_CONTENT_LENGTH=256 * 1024, JSON_SORT_KEYS=False, TEMPLATES_AUTO_RELOAD=False)
    app.debug = False
    guard = Guard(allow_network, token)
    guard.install(app)
    app.extensions["pitwatch"] = Services(session, frames, demo, guard, corners)

    from .api import api
    from .camera import camera
    from .pages import pages

    app.register_blueprint(pages)
    app.register_blueprint(api, url_prefix="/api")
    app.register_blueprint(camera)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> ResponseReturnValue:  # every 4xx/5xx says what was wrong, in JSON for the API
        message = exc.description or exc.name
        if request.path.startswith("/api/") or request.method == "POST":
            return jsonify(error=message), exc.code
        return f"{exc.code} {exc.name}: {message}\n", exc.code, {"Content-Type": "text/plain; charset=utf-8"}

    @app.errorhandler(RecorderError)
    def unrecorded(exc: RecorderError) -> ResponseReturnValue:
        """A control the recorder could not write (the disk full): nothing changed; the banner says why."""
        session.refresh()
        return http_error(ServiceUnavailable(str(exc)))

    @app.after_request
    def headers(response: Response) -> Response:
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        response.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'",
        )
        return response

    return app


def services() -> Services:
    from flask import current_app

    return current_app.extensions["pitwatch"]


def optional(name: str, missing: str) -> Any:
    """A service this app may lack (the camera feed, the demo): 404 with ``missing`` if it does."""
    from flask import abort

    service = getattr(services(), name)
    if service is None:
        abort(404, description=missing)
    return service


def board_corners() -> BoardCorners:
    """The live camera's board corners; 404 saying why there are none (no camera, or the demo's)."""
    from flask import abort

    if services().corners is None and services().demo is not None and services().frames is not None:
        abort(404, description="the demo's virtual camera finds its board by its markers: board corners "
                               "are set for the camera of `pitwatch run`")
    return optional("corners", "no camera is configured: set camera.source and camera.calibration "
                               "(pitwatch run --camera ... --calibration ...) to read the board with a camera")
