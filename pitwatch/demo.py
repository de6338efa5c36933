"""``pitwatch demo``: a whole Pitwatch with no hardware at all.

A :class:`VirtualBoard` holds where the seeds really are. A player moves
seeds on it (a random player, or you clicking pits on the dashboard). The
session never looks at the virtual board directly: it learns of every move
the way it would at a real table, through the emulated microcontroller's pit
sensors (``firmware_bridge.EmulatedBoard`` on a pseudo-terminal, read by the
real ``Bridge``) and through the synthetic camera (vision's renderer, read by
the real ``BoardReader``). So the demo exercises the whole chain: sensors and
camera -> fusion -> referee -> recorder -> LEDs and dashboard.
"""

from __future__ import annotations

import random
import threading
import time
from typing import Any, Callable, Sequence

from firmware_bridge.emulator import EmulatedBoard
from rules import Game, Move, Position

from .config import Config, ConfigError
from .display import move_pit
from .errors import said
from .recorder import RecorderError
from .runtime import Runtime, announce, source_weights
from .sources import CAMERA, SENSORS, CameraSource, SensorSource
from .worker import Loop

CALIBRATION_FRAMES = 4
SETTLE_SECONDS = 0.15  # more than two of the microcontroller's 50 ms report periods
GAME_OVER_PAUSE = 8.0  # seconds the result stays on the board before the next game
DEMO_CAMERA_DEG = 20.0  # the synthetic camera at most this far from overhead: within the 25 degrees pitwatch doctor
# asks of a real camera (pitwatch.placement), so the demo shows a table set up as it should be
STUCK_SECONDS = 6.0  # the referee has not caught up this long: the demo's players step in
REBUILD_RETRY_SECONDS = 2.0  # the eyes could not be set up for a new board: tried again this often


class VirtualBoard:
    """The seeds on the demo's table. Thread-safe; listeners hear of every change."""

    def __init__(self, position: Position) -> None:
        self._lock = threading.RLock()
        self.game = Game(position.variant, position)
        self.changed_at = time.time()
        self.moves_played = 0
        self.listeners: list[Callable[[Position], None]] = []

    @property
    def position(self) -> Position:
        with self._lock:
            return self.game.position

    def set_up(self, position: Position) -> None:
        """The players lay the board out as ``position`` (a new game, or putting it right)."""
        with self._lock:
            self.game = Game(position.variant, position)
            self._changed()

    def play(self, move: Move) -> None:
        with self._lock:
            self.game.play(move)
            self.moves_played += 1
            self._changed()

    def _changed(self) -> None:
        self.changed_at = time.time()
        position = self.game.position
        for listener in self.listeners:
            listener(position)


class DemoPlayer(Loop):
    """Moves seeds on the virtual board, once the referee has caught up with the last move.

    ``random``: a random legal move every ``move_seconds``; ``clicks``: the
    dashboard's pit clicks. A finished game is followed by a new one (the
    next game of a Pass It On match while the match lasts).
    """

    def __init__(self, runtime: Runtime, board: VirtualBoard, mode: str, move_seconds: float, seed: int) -> None:
        super().__init__("demo-player", move_seconds)
        self.runtime, self.board = runtime, board
        self.mode = mode
        self.move_seconds = move_seconds
        self.rng = random.Random(seed or None)
        self._lock = threading.Lock()
        self._waiting_since = time.monotonic()
        self._sync = (0, 0)  # (session plies, board plies) when both last agreed
        self._over_since: float | None = None

    # -- the dashboard's controls (web.DemoControls) ------------------------------------
    def set_player(self, mode: str) -> None:
        self.mode = mode

    def click(self, label: str, move: str | None = None) -> str:
        """Play the legal move ``move`` (its text) from pit ``label`` on the virtual board (for a Pass
        It On pass, the outbox whose chip is taken); without one, the pit's only legal move (a pit
        with several, a direction or an order of chips to choose, names them)."""
        with self._lock:
            if not self.caught_up():
                raise ValueError("wait: the referee has not judged the last move yet")
            position = self.board.position
            layout = position.variant.layout
            if label not in layout.labels:
                raise ValueError(f"there is no pit {label!r} on this board")
            pit = layout.index_of(label)
            moves = [m for m in position.variant.legal_moves(position) if move_pit(m, layout) == pit]
            if not moves:
                raise ValueError(f"pit {label} has no legal move now")
            chosen = [m for m in moves if move is None or m.text == move]
            if len(chosen) != 1:
                said = f"not {move}" if move is not None else "choose one"
                raise ValueError(f"pit {label}'s legal moves are {', '.join(m.text for m in moves)}: {said}")
            self._agreed()
            self.board.play(chosen[0])
            return chosen[0].text

    # -- the loop ------------------------------------------------------------------------
    def caught_up(self) -> bool:
        """Whether the referee has accepted the board's last move: the random player waits for that
        before the next move, and a click is refused until then, as players wait for the referee's LEDs."""
        session = self.runtime.session
        return session.game is not None and session.game.position == self.board.position

    def _agreed(self) -> None:
        """The session and the board agree now: what :meth:`_unstick` measures the referee's wait
        from, and the moves since it tells the players' truth by. Said before every move the players
        make, a click too: a click after the referee caught up between two steps was measured from the
        step before, taken for a board stuck for seconds with no known move, and set back (2026-12-07)."""
        self._waiting_since = time.monotonic()
        self._sync = (len(self.runtime.session.game.moves), len(self.board.game.moves))

    def step(self) -> None:
        session = self.runtime.session
        with self._lock:
            if not self.caught_up():
                self._unstick()
                return
            self._agreed()
            game = session.game
            if game.is_over:  # let the players look at the result, then set up the next game
                if self._over_since is None:
                    self._over_since = time.monotonic()
                elif time.monotonic() - self._over_since >= max(GAME_OVER_PAUSE, 3 * self.move_seconds):
                    self._over_since = None
                    self._next_game(game)
                return
            if self.mode == "random":
                self.board.play(self.rng.choice(game.legal_moves()))

    def _unstick(self) -> None:
        """Players at a real table answer the dashboard: they pick the true explanation of an
        ambiguous board, and when the referee cannot tell for a while they enter the move by hand."""
        session = self.runtime.session
        session_plies, board_plies = self._sync
        truth = None
        if len(session.game.moves) == session_plies and len(self.board.game.moves) >= board_plies:
            truth = [m.text for m in self.board.game.moves[board_plies:]]
        for index, choice in enumerate(session.state()["choices"]):
            if truth and choice.get("moves") == truth:
                session.choose(index)
                return
        if time.monotonic() - self._waiting_since < max(STUCK_SECONDS, 4 * self.move_seconds):
            return
        self._waiting_since = time.monotonic()
        try:
            for text in truth or ():
                session.play_by_hand(text)
        except (ValueError, RecorderError):  # a move the rules refuse, or the disk full (the banner says so)
            pass
        if not self.caught_up():  # the games parted ways: the players put the board right
            self.board.set_up(session.game.position)

    def _next_game(self, game: Game) -> None:
        session = self.runtime.session
        if session.state()["game"]["next_game"]:
            session.next_game()
        else:
            session.new_game(game.variant.name, dict(game.variant.options), *session.names)


class DemoSensors:
    """The emulated microcontroller under the virtual board, read through the real bridge."""

    name = SENSORS

    def __init__(self, runtime: Runtime, board: VirtualBoard) -> None:
        self.runtime, self.board = runtime, board
        self.emulator = EmulatedBoard().start()
        self._lock = threading.Lock()
        self._on_board = board.position  # where the seeds lie: what the sensors feel, unless they are learning
        self._learning = False
        board.listeners.append(self._seeds_moved)
        self.source: SensorSource | None = None

    def _seeds_moved(self, position: Position) -> None:
        with self._lock:
            self._on_board = position
            if not self._learning:
                self.emulator.set_counts(position.pits)

    def connect(self, position: Position) -> None:
        """(Re)connect for the board of ``position``'s variant: the bridge's pit count, and a sensor
        calibration learned exactly as on a real board: empty board first, then the start position.

        While it learns, the sensors feel only the empty board and then the start position, whatever
        the demo's players do meanwhile (a move, the next new game): a move that reached the sensors
        between the two made the empty board read fuller than the start, and the fit refused it."""
        self.disconnect()
        labels = position.variant.layout.labels
        source = self.source = SensorSource(self.emulator.port, labels, self.runtime.fusion)
        source.on_values = self.runtime.session.set_sensor_values
        source.on_button = self.runtime.session.press
        source.start()
        start = position.variant.start()
        with self._lock:
            self._learning = True
        try:
            empty = self._frames_of(source, [0] * len(labels))
            full = self._frames_of(source, start.pits)
            source.learn(empty, full, start.pits)
        finally:
            with self._lock:  # the seeds as they are now, which may have moved while the sensors learned
                self._learning = False
                self.emulator.set_counts(self._on_board.pits)
        self.runtime.session.leds = source.set_leds
        self.runtime.session.refresh()

    def _frames_of(self, source: SensorSource, counts: Sequence[int]) -> list[tuple[int, ...]]:
        """Raw frames from ``source`` with ``counts`` on the board (only while learning)."""
        self.emulator.set_counts(counts)
        time.sleep(SETTLE_SECONDS)  # let frames of the board as it was drain first
        return source.raw_frames(CALIBRATION_FRAMES)

    @property
    def leds(self) -> Any:
        return self.emulator.leds

    def disconnect(self) -> None:
        """Read the sensors no more (the emulator stays, for the next :meth:`connect`)."""
        if self.source is not None:
            self.source.stop()

    def stop(self) -> None:
        self.disconnect()
        self.emulator.stop()


class DemoCamera:
    """The synthetic camera over the virtual board, read by the real board reader.

    The scene is calibrated from its own empty and start frames, exactly as
    ``pitwatch calibrate`` does from two photos of a real board.
    """

    name = CAMERA

    def __init__(self, runtime: Runtime, board: VirtualBoard, fps: float, still_frames: int, seed: int,
                 snapshot_width: int) -> None:
        self.runtime, self.board = runtime, board
        self.fps, self.still_frames, self.seed = fps, still_frames, seed
        self.snapshot_width = snapshot_width
        self.source: CameraSource | None = None

    def connect(self, position: Position) -> None:
        from vision.live import StillnessGate
        from vision.reader import BoardReader
        from vision.synthetic import SyntheticCamera

        self.disconnect()
        camera = SyntheticCamera(position.variant.name, lambda: self.board.position, self.seed, DEMO_CAMERA_DEG)
        calibration = camera.calibration()
        reader = BoardReader(calibration)
        self.source = CameraSource(camera.read, reader.read, StillnessGate(self.still_frames),
                                   self.runtime.fusion, self.runtime.frames, snapshot_width=self.snapshot_width,
                                   period=1.0 / self.fps, board_mm=calibration.profile.size)
        self.source.on_placement = self.runtime.session.set_camera_placement
        self.runtime.camera = self.source
        self.source.start()

    def disconnect(self) -> None:
        """Read the board no more."""
        if self.source is not None:
            self.source.stop()

    def stop(self) -> None:
        self.disconnect()


class EyesRebuilder(Loop):
    """Sets the demo's eyes (sensors, camera) up for the board of each new game's variant, in a thread
    of its own: learning the sensors takes half a second, and a new game starts under the session's lock.

    Only the newest board asked for is set up. One that cannot be (whatever the error) is logged, said
    in the failing source's status on the dashboard, and tried again every
    :data:`REBUILD_RETRY_SECONDS` until it is set up or a newer board is asked for: one error used
    to end the thread, and the sensors waited for good."""

    def __init__(self, runtime: Runtime, parts: Sequence[DemoSensors | DemoCamera]) -> None:
        super().__init__("demo-rebuild", 0.0)
        self.runtime, self.parts = runtime, parts
        self._lock = threading.Lock()
        self._wanted: Position | None = None
        self._asked = threading.Event()

    def want(self, position: Position) -> None:
        """Set the eyes up for the board of ``position``'s variant, soon, in this loop's thread."""
        with self._lock:
            self._wanted = position
        self._asked.set()

    def connect(self, position: Position) -> None:
        """Calibrate and connect every part to the board of ``position``'s variant, now. A part that
        fails reads nothing (not the last board's pits) and says so in its source's status, and the
        error goes on up."""
        for part in self.parts:
            try:
                part.connect(position)
            except Exception as exc:
                part.disconnect()
                self.runtime.fusion.update(part.name, None, time.monotonic(), status=(
                    f"setting up for the {position.variant.name} board failed: {said(exc)}; "
                    f"trying again in {REBUILD_RETRY_SECONDS:g} s"))
                raise

    def step(self) -> None:
        if not self._asked.wait(timeout=0.5):  # woken at once by want(); the timeout only lets stop() in
            return
        self._asked.clear()
        with self._lock:
            position, self._wanted = self._wanted, None
        if position is None:
            return
        try:
            self.connect(position)
        except Exception:
            with self._lock:
                if self._wanted is None:  # no newer board asked for meanwhile: this one again
                    self._wanted = position
            raise

    def failed(self, exc: Exception) -> None:
        self.pause(REBUILD_RETRY_SECONDS)
        self._asked.set()


class Demo:
    """The demo's parts, stopped together (the Runtime treats it as one part)."""

    def __init__(self, runtime: Runtime, config: Config) -> None:
        demo = config["demo"]
        self.runtime = runtime
        self.board = VirtualBoard(runtime.session.game.position)
        self.player = DemoPlayer(runtime, self.board, demo["player"], demo["move_seconds"], demo["seed"])
        self.sensors = DemoSensors(runtime, self.board) if demo["sensors"] else None
        self.camera = DemoCamera(runtime, self.board, demo["camera_fps"], config["camera"]["still_frames"],
                                 demo["seed"], config["session"]["snapshot_width"]) if demo["camera"] else None
        self.rebuilder = EyesRebuilder(runtime, [part for part in (self.sensors, self.camera) if part is not None])
        self._labels = runtime.session.game.variant.layout.labels
        runtime.session.game_listeners.append(self._new_game)
        runtime.session.extra_state = self.state

    # web.DemoControls
    def click(self, label: str, move: str | None = None) -> str:
        return self.player.click(label, move)

    def set_player(self, mode: str) -> None:
        """Switch who moves, and publish it at once: after a switch to clicks no move follows to
        publish it, so every open page (and ``/api/state``) would keep showing the old player."""
        self.player.set_player(mode)
        self.runtime.session.refresh()

    def state(self) -> dict[str, Any]:
        return {"demo": {"player": self.player.mode, "moves_played": self.board.moves_played,
                         "board_changed_at": self.board.changed_at}}

    def _new_game(self, game: Game) -> None:
        """A new game on the dashboard: the players set the board up (quickly: we hold the session's lock)."""
        if game.position != self.board.position:
            self.board.set_up(game.position)
        if game.variant.layout.labels != self._labels:
            self._labels = game.variant.layout.labels
            # No LEDs until the sensors are set up for this board: the last board's do not fit its pits,
            # and the dashboard said so ("LEDs not sent") over what it had to say of the sensors
            self.runtime.session.leds = None
            self.rebuilder.want(game.position)

    def start(self) -> None:
        """Set the eyes up for the board, then let the players play. An error here stops the demo
        before it starts (a broken installation is named on the command line); later boards are set
        up by the rebuilder, which tries again."""
        self.rebuilder.connect(self.board.position)
        self.player.start()
        self.rebuilder.start()

    def stop(self) -> None:
        self.player.stop()
        self.rebuilder.stop()
        for part in self.rebuilder.parts:
            part.stop()


def build_demo(config: Config, variant_asked: bool = False) -> tuple[Runtime, Demo, bool]:
    """A Runtime with the demo wired in (not started; ``variant_asked``: the variant was named on the
    command line, :meth:`~pitwatch.runtime.Runtime.play_asked_variant`)."""
    weights = source_weights(camera=config["demo"]["camera"], sensors=config["demo"]["sensors"])
    if not weights:  # refused before the database is opened: nothing recorded for a demo that cannot run
        raise ConfigError("the demo needs the camera or the sensors (or both), and both are switched off "
                          "(--no-camera and --no-sensors, or demo.camera and demo.sensors = false)")
    runtime = Runtime(config, database="demo.database")
    with runtime.starting():
        resumed = runtime.start_session()
        if variant_asked and runtime.play_asked_variant():
            resumed = False
        runtime.use_fusion(weights)
        demo = Demo(runtime, config)
    runtime.demo = demo
    return runtime, demo, resumed


def run_demo(config: Config, variant_asked: bool = False) -> int:
    runtime, demo, resumed = build_demo(config, variant_asked)
    with runtime.starting():
        runtime.serve(any_port_if_busy=True)
        demo.start()
        runtime.start()
    announce(runtime, resumed)
    runtime.wait_then_stop()
    return 0
