"""Putting a live session together: sources -> fusion -> still-board gate -> session -> web.

``Runtime`` owns the threads of one live session (the judging loop and the
web server; the sources own theirs) and stops them in order. ``pitwatch run``
builds it around the real camera and microcontroller (``pitwatch.live``), the
demo around its virtual board (``pitwatch.demo``); the checks both make at start
(and the doctor with them) are here too.
"""

from __future__ import annotations

import logging
import os
import secrets
import signal
import socket
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

from werkzeug.serving import WSGIRequestHandler, make_server

import rules
from rules import Game, Reading, Variant
from web import create_app

from .config import LOCAL_HOSTS, Config, ConfigError
from .errors import INTERRUPTED
from .corners import LiveCorners
from .fusion import Fusion, StableGate
from .hub import FrameFeed, Hub
from .livelock import LiveLock
from .recorder import Recorder, RecorderError
from .records import game_of
from .boards import board_name, variants_on
from .session import Session
from .sources import CAMERA, SENSORS, CameraSource, SensorSource

log = logging.getLogger(__name__)

JUDGE_PERIOD = 0.02  # seconds between looks at the fused reading
RECORD_RETRY_SECONDS = 1.0  # a still board whose verdict could not be recorded is judged again this often
CONNECTION_SILENT_SECONDS = 60.0  # a dashboard connection that neither sends nor takes a byte this long is closed


class _RequestHandler(WSGIRequestHandler):
    """Werkzeug's request handler, with a socket timeout: without one, a connection that sent
    nothing, a request left half-sent or a camera stream nobody read held a server thread and a
    file for ever (an audit opened 400: 400 threads, on a dashboard served to the network).
    Streams are not cut short: the events send a keepalive every 15 s, the camera its frames."""

    timeout = CONNECTION_SILENT_SECONDS


class Runtime:
    """One live session with its judging loop and dashboard server."""

    def __init__(self, config: Config, *, database: str = "recorder.database") -> None:
        self.config = config
        configured_variant(config)  # a misspelt variant or option is named before a database file is made
        self.recorder = Recorder(config.database_path(database))
        self.live_lock = LiveLock(self.recorder.path)
        self.hub = Hub()
        self.frames = FrameFeed()
        self.session = Session(self.recorder, self.hub)
        self.fusion: Fusion | None = None
        self.gate = StableGate(config["session"]["settle_seconds"])
        self.camera: CameraSource | None = None
        self.corners: LiveCorners | None = None  # the camera's board corners, set from the dashboard
        self.sensors: SensorSource | None = None
        self.demo: Any = None
        self._unrecorded: Reading | None = None  # a still board whose verdict the recorder refused
        self._retry_at = 0.0
        self._active_before: int | None = None  # the game in progress as this run found it
        self._found = False  # whether start_session looked (holding the live lock)
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._server = None
        self.url = ""
        self.token = ""

    # -- the session ------------------------------------------------------------------
    def start_session(self) -> bool:
        """Resume the recorded game or start the configured one; True if resumed (the configured
        variant and options were checked when the runtime was made: a misspelt one is named at start,
        not at the next new game). Call it within :meth:`starting`."""
        game = self.config["game"]
        self.live_lock.take()  # before the game in progress is touched: another session may be playing it
        active = self.recorder.active_game()
        self._active_before, self._found = (active.id if active else None), True
        return self.session.resume_or_start(game["variant"], game["options"], game["south"], game["north"])

    @contextmanager
    def starting(self) -> Iterator[None]:
        """Around everything that may fail while a run starts (a microcontroller that sends nothing, a
        port taken, a camera that cannot be calibrated, Ctrl-C while the sensors learn): on failure the
        recorded games are left as this run found them (:meth:`undo_start`), then the error goes on."""
        try:
            yield
        except BaseException:
            self.undo_start()
            raise

    def undo_start(self) -> None:
        """Forget the game this run began if nothing of it was recorded, and make the game in progress
        it set aside (a variant asked for, a game that no longer replays) active again."""
        if not self._found:
            return
        began = self.session.game_id
        try:
            if began is not None and began != self._active_before:
                self.recorder.forget_unplayed(began)
            if self._active_before is not None and self._active_before != began:
                self.recorder.reopen_game(self._active_before)
        except RecorderError as exc:  # the error that stopped the start is the one to report
            log.warning("the games could not be left as they were found: %s", exc)

    def play_asked_variant(self) -> bool:
        """A variant named on the command line (``--variant oware``) asks for a game of it: a game in
        progress of another variant is kept on record, as the dashboard's New game keeps it, and a
        new game of the configured one starts; True if one did. On a board being watched
        (``session.fixed_board``) a variant of another board is refused (:class:`SessionError`)
        before anything is kept."""
        game = self.config["game"]
        if self.session.game.variant.name == configured_variant(self.config).name:
            return False
        self.session.new_game(game["variant"], game["options"], game["south"], game["north"])
        return True

    def use_fusion(self, sources: dict[str, float]) -> Fusion:
        self.fusion = Fusion(self.session.game.variant.layout.labels, sources)
        self.session.game_listeners.append(self._game_changed)
        return self.fusion

    def _game_changed(self, game: Game) -> None:
        """A new game (maybe a new board): fresh fusion labels, and judge the board afresh."""
        if self.fusion is not None and tuple(game.variant.layout.labels) != self.fusion.labels:
            self.fusion.reset(game.variant.layout.labels)
        self.gate.reset()

    # -- the judging loop ---------------------------------------------------------------
    def _judge_loop(self) -> None:
        while not self._stop.wait(JUDGE_PERIOD):
            try:
                self.judge_once(time.monotonic())
            except Exception:  # a bug here must not end refereeing: log it and go on
                log.exception("judging loop")

    def judge_once(self, now: float) -> None:
        fusion = self.fusion
        if fusion is None:
            return
        for name, status in fusion.statuses(now).items():
            self.session.set_source(name, "ok" if status == "busy" else status)
        stable = self.gate.offer(fusion.fused(now), now)
        if stable is None and self._unrecorded is not None and now >= self._retry_at:
            stable = self._unrecorded  # the board the recorder could not take: judged again
        if stable is not None:
            self._submit(stable, now)
        self.session.tick()

    def _submit(self, stable: Reading, now: float) -> None:
        """Judge a still board. When its verdict cannot be recorded (the disk full), the game stays
        as recorded, the dashboard says why, and the board is judged again every
        :data:`RECORD_RETRY_SECONDS` until it can be (or the board changes)."""
        try:
            self.session.submit(stable, self.camera.snapshot if self.camera else None)
        except RecorderError:
            self._unrecorded, self._retry_at = stable, now + RECORD_RETRY_SECONDS
            self.session.refresh()
            return
        self._unrecorded = None

    # -- the web server -----------------------------------------------------------------
    def serve(self, any_port_if_busy: bool = False) -> str:
        """Start the dashboard server in a thread; returns its URL (with the token when on the network).

        ``any_port_if_busy``: if the configured port is taken, use any free one (the demo must start).
        """
        web = self.config["web"]
        allow = web["allow_network"]
        logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request on the console
        self.token = web["token"] or (secrets.token_urlsafe(16) if allow else "")
        has_camera = self.fusion is not None and CAMERA in self.fusion.weights
        app = create_app(self.session, frames=self.frames if has_camera else None, demo=self.demo,
                         corners=self.corners, allow_network=allow, token=self.token)
        port = web["port"]
        problem = port_problem(web["host"], port)
        if problem and not any_port_if_busy:
            raise ConfigError(f"cannot serve the dashboard on {web['host']}:{port}: {problem}; "
                              "choose another port with --port (0: any free port)")
        if problem:
            print(f"pitwatch: port {port} is taken ({problem}); using a free one", flush=True)
            port = 0
        self._server = make_server(web["host"], port, app, threaded=True, request_handler=_RequestHandler)
        port = self._server.server_port
        shown = ("127.0.0.1" if web["host"] in LOCAL_HOSTS
                 else socket.gethostname() if web["host"] in ("0.0.0.0", "::") else web["host"])
        self.url = f"http://{shown}:{port}/" + (f"?token={self.token}" if allow else "")
        self._spawn(self._server.serve_forever, "web")
        return self.url

    # -- life --------------------------------------------------------------------------
    def _spawn(self, target: Callable[[], object], name: str) -> None:
        thread = threading.Thread(target=target, name=name, daemon=True)
        thread.start()
        self._threads.append(thread)

    def start(self) -> None:
        """Start the judging loop (the sources are started by whoever made them)."""
        self._spawn(self._judge_loop, "judge")

    def stop(self) -> None:
        self._stop.set()
        if self._server is not None:
            self._server.shutdown()
        for part in (self.demo,) if self.demo is not None else (self.camera, self.sensors):
            if part is not None:
                part.stop()
        for thread in self._threads:
            thread.join(timeout=5)
        self.recorder.close()
        self.live_lock.release()

    def wait(self) -> None:
        """Block until Ctrl-C or SIGTERM (both stop cleanly: every accepted move is already on disk).

        SIGTERM raises the KeyboardInterrupt Ctrl-C raises, which Python delivers on this thread
        between any two bytecodes. So this thread polls with ``time.sleep`` and holds no lock while
        it waits: inside ``Event.wait`` the interrupt could land while the Event's own lock is held,
        and the demo then hung once in 1,000 stops. A SIGTERM before the handler is installed ends
        the process the default way, with nothing lost either.
        """
        try:  # installed inside the try: a SIGTERM may be handled before signal.signal() returns
            signal.signal(signal.SIGTERM, signal.default_int_handler)
            while not self._stop.is_set():
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass

    def wait_then_stop(self) -> None:
        """:meth:`wait`, then :meth:`stop`; a second Ctrl-C or SIGTERM during the stop ends the
        process at once, with status 130 and without Python's own exit. Raised as an interrupt in
        the middle of the stop, it left a camera's threads inside OpenCV as Python exited, and the
        process aborted ("FATAL: exception not rethrown", a fuzzer's find on 2026-12-07). Nothing is
        lost by it: every accepted move is on disk, as after ``kill -9``."""
        self.wait()
        for stop_signal in (signal.SIGINT, signal.SIGTERM):
            if signal.getsignal(stop_signal) is not signal.SIG_IGN:  # a background job ignores Ctrl-C: it still does
                signal.signal(stop_signal, _end_at_once)
        self.stop()


def _end_at_once(signal_number: int, frame: object) -> None:
    """A second stop signal: the process ends now, as Ctrl-C pressed twice is meant."""
    os._exit(INTERRUPTED)


def port_problem(host: str, port: int) -> str | None:
    """Why the dashboard cannot listen on ``host:port``, or ``None``.

    Checked first because werkzeug's ``make_server`` answers a taken port by
    exiting the process.
    """
    if port == 0:
        return None
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server will
        try:
            probe.bind((host, port))
        except OSError as exc:
            return exc.strerror or str(exc)
    return None


def configured_variant(config: Config) -> Variant:
    """The variant of a new game (``game.variant`` with ``game.options``), checked as ``run`` and
    ``demo`` check it at start, and ``doctor`` too: a misspelt name or an option out of its range is a
    :class:`rules.RulesError` naming it."""
    game = config["game"]
    return rules.variant(game["variant"], **game["options"])


def played_variant(config: Config, configured: Variant) -> Variant:
    """The variant ``run`` would play: the game in progress, which it resumes, else a new game of
    the ``configured`` one (as :meth:`pitwatch.session.Session.resume_or_start`), read without
    touching the database (a database that does not open or a game that does not read is left to
    the session, or to the doctor's database check)."""
    path = config.database_path()
    if not path.exists():
        return configured
    try:
        recorder = Recorder(path, read_only=True)
    except (RecorderError, OSError):
        return configured
    try:
        active = recorder.active_game()
        return game_of(recorder, active.id)[1].variant if active else configured
    except (RecorderError, rules.RulesError):  # a game that does not replay is not resumed
        return configured
    finally:
        recorder.close()


def refuse_another_board(path: Path, board: tuple[str, ...], variant: Variant) -> None:
    """A :class:`ConfigError` if the calibration file at ``path``, of the board whose pits are ``board``,
    is not of ``variant``'s board: the players are told which variants that board plays."""
    if board != variant.layout.labels:
        raise ConfigError(f"{path} calibrates a {board_name(board)} board, but {variant.name} is played on a "
                          f"{variant.layout.name} board: calibrate this board, or play a variant of that one "
                          f"(--variant: {', '.join(variants_on(board))})")


def source_weights(*, camera: bool, sensors: bool) -> dict[str, float]:
    """The fusion's trust in each source in use: equal, each Reading's own confidence does the rest."""
    return {name: 1.0 for name, used in ((SENSORS, sensors), (CAMERA, camera)) if used}


def announce(runtime: Runtime, resumed: bool) -> None:
    game = runtime.session.game
    what = "resumed" if resumed else "new"
    print(f"pitwatch: {what} {game.variant.name} game {runtime.session.game_id} "
          f"({len(game.moves)} moves), recorded in {runtime.recorder.path}")
    print(f"pitwatch: dashboard at {runtime.url}", flush=True)
    print("pitwatch: press Ctrl-C to stop", flush=True)


def calibration_path(config: Config, key: str, default_name: str) -> Path:
    """The file the setting ``key`` names, else ``default_name`` beside the game database: a board's
    calibration belongs with the games played on it, so a second set-up (``--db``) gets its own."""
    configured = config.get(key)
    return Path(configured).expanduser() if configured else config.database_path().with_name(default_name)
