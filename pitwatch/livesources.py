"""The real camera and microcontroller for ``pitwatch run``, made from the configuration."""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from calibration.calibfile import (Calibration, CalibrationError, load_calibration, load_sensor_file, save_sensor_file,
                                  save_sensors)
from firmware_bridge.sensors import FORMAT as SENSOR_FORMAT
from firmware_bridge.sensors import SensorCalibration, SensorCalibrationError
from rules import Variant

from .boards import board_name, variants_on
from .config import Config, ConfigError
from .corners import LiveCorners
from .errors import said
from .fusion import Fusion
from .hub import FrameFeed, Hub
from .recorder import folder_problem
from .runtime import Runtime, calibration_path, refuse_another_board
from .sources import CameraSource, SensorSource
from .terminal import wait_for_enter

if TYPE_CHECKING:
    from vision.camera import Frame, FrameSource

log = logging.getLogger(__name__)

LEARN_FRAMES = 10  # raw frames of the empty board and of the start position
NO_TERMINAL_TO_LEARN = ("the pit sensors are not learned yet, and learning them asks the players to press Enter here: "
                        "start `pitwatch run` once from a terminal (it keeps what it learns), or play without the "
                        "microcontroller (sensors.port = \"\")")
FIRST_VALUES_WAIT = 5.0  # seconds a microcontroller has to send its first sensor values before the players are asked
CONFIRMED_FRAMES = 5  # raw frames of a confirmed position (about 0.2 s)
SENSOR_FORMAT_WITHIN = 1000  # bytes: a sensor file names its format first (save_sensor_file), whatever an editor did


@dataclass
class CameraSetUp:
    """The camera ``pitwatch run`` watches with: its calibration file, read once, and its source, opened,
    both at start (:func:`camera_set_up`), before the database is touched."""

    path: Path
    calibration: Calibration
    source: FrameSource

    @property
    def board(self) -> tuple[str, ...]:
        """The pits of the board the camera was calibrated on: the board ``pitwatch run`` watches."""
        return self.calibration.profile.layout.labels


def camera_set_up(config: Config, variant: Variant) -> CameraSetUp:
    """The configured camera (``camera.source``) and its calibration file (``camera.calibration``),
    which must be of ``variant``'s board: a :class:`ConfigError` naming the file and the field, the
    board, or the source, if the file is not set or does not read, is of another board, or the source
    names nothing usable. Made first, so that a refused run records no game; the source is opened last."""
    from vision.camera import SourceError
    from vision.sources import open_source

    path = config["camera"]["calibration"]
    if not path:
        raise ConfigError("camera.calibration is not set: run `pitwatch calibrate` first and set it "
                          "(or --calibration FILE)")
    path = Path(path).expanduser()
    try:
        calibration = load_calibration(path)
        refuse_another_board(path, calibration.profile.layout.labels, variant)
        return CameraSetUp(path, calibration, open_source(config["camera"]["source"], config.camera_size))
    except (CalibrationError, SourceError) as exc:
        raise ConfigError(str(exc)) from None


def camera_source(config: Config, camera: CameraSetUp, fusion: Fusion,
                  runtime: Runtime) -> tuple[CameraSource, LiveCorners]:
    """The loop reading the ``camera`` set up at start (:func:`camera_set_up`), and its board corners
    as the dashboard sets them."""
    loop, corners = live_camera(camera.source.read, camera.calibration, camera.path, config, fusion, runtime.frames,
                                camera.source.close)
    loop.on_placement = runtime.session.set_camera_placement
    return loop, corners


def own_sensor_file(config: Config) -> Path:
    """The sensors-only set-up's file of learned sensors: ``sensors.calibration``, by default
    ``sensors.json`` beside the database."""
    return calibration_path(config, "sensors.calibration", "sensors.json")


def learned_board(config: Config) -> tuple[str, ...] | None:
    """The pits of the board the microcontroller's sensors were learned on (``sensors.calibration``):
    with no camera, the board ``pitwatch run`` referees. None where none are learned yet or the file
    does not read (:func:`sensor_source` then says why)."""
    path = own_sensor_file(config)
    try:
        return load_sensor_file(path).labels if path.exists() else None
    except SensorCalibrationError:
        return None


def live_camera(grab: Callable[[], Frame], calibration: Calibration, path: Path, config: Config,
                fusion: Fusion, frames: FrameFeed, release: Callable[[], None] | None = None
                ) -> tuple[CameraSource, LiveCorners]:
    """The camera loop over ``grab()``, reading the board of ``calibration`` (saved at ``path``);
    its overlaid frames go to ``frames`` (the dashboard's camera view); ``release()`` lets the
    camera go when the loop stops."""
    from vision.live import StillnessGate
    from vision.reader import BoardReader

    def reader(calibration: Calibration) -> tuple[Callable[..., Any], StillnessGate]:
        return BoardReader(calibration).read, StillnessGate(config["camera"]["still_frames"])

    camera = CameraSource(grab, *reader(calibration), fusion, frames,
                          snapshot_width=config["session"]["snapshot_width"], release=release,
                          board_mm=calibration.profile.size)
    return camera, LiveCorners(camera, calibration, path, reader)


def _advice_on(path: Path) -> str:
    """What to do about the sensors' own file at ``path``, which does not load. Only a sensor
    calibration, if a damaged one, is to be deleted: all were, and a board's calibration or notes
    given as sensors.calibration by mistake were lost so (an audit, 2026-12-07). Told by the format
    it names at its start; a file that names none may be either."""
    if not path.is_file():  # a folder; a named pipe, which opened would wait for a writer
        return "sensors.calibration names the sensors' own file: choose another"
    try:
        with open(path, "rb") as start:
            named = SENSOR_FORMAT.encode() in start.read(SENSOR_FORMAT_WITHIN)
    except OSError:
        named = False
    if named:
        return f"delete {path} to learn the sensors again"
    return (f"if it is a damaged sensor calibration, delete {path} to learn the sensors again; if it is another "
            "file, point sensors.calibration at a file of the sensors' own")


@dataclass(frozen=True)
class SensorStore:
    """Where a board's sensor calibration is kept: in the board's calibration file (``camera.calibration``)
    when there is one; else, and for files written before it went there, in ``sensors.calibration``
    (by default ``sensors.json`` beside the database), the sensors-only set-up's own file."""

    board_file: Path | None
    own_file: Path
    labels: tuple[str, ...]

    @classmethod
    def of(cls, config: Config, labels: Sequence[str]) -> "SensorStore":
        board = config["camera"]["calibration"]
        return cls(Path(board).expanduser() if board else None, own_sensor_file(config), tuple(labels))

    def load(self) -> SensorCalibration | None:
        """The calibration of this board's sensors, or None if they have not been learned yet."""
        return self.find()[0]

    def find(self) -> tuple[SensorCalibration | None, Path | None]:
        """The calibration of this board's sensors and the file it is kept in (None, None if not
        learned yet); :class:`ConfigError` names the file when one is unreadable or of another board."""
        if self.board_file is not None:
            try:
                board = load_calibration(self.board_file)
            except CalibrationError as exc:
                raise ConfigError(str(exc)) from None
            if board.profile.layout.labels != self.labels:
                raise ConfigError(f"{self.board_file} calibrates a {board.profile.name} board, not the board "
                                  "being played on: calibrate this board or choose another variant")
            if board.sensors is not None:
                return board.sensors, self.board_file
        if not self.own_file.exists():
            return None, None
        try:
            calibration = load_sensor_file(self.own_file)
        except SensorCalibrationError as exc:
            raise ConfigError(f"{exc} ({_advice_on(self.own_file)})") from None
        if calibration.labels != self.labels:
            if self.board_file is not None:
                return None, None  # an older file, of another board: this board's go to its own board file
            # learning this board would overwrite that one's sensors
            if not variants_on(calibration.labels):
                raise ConfigError(f"{self.own_file} holds sensors of the pits {', '.join(calibration.labels)}, "
                                  "which no variant's board has (edited by hand?): put the labels right, or delete "
                                  "it to learn the sensors again")
            raise ConfigError(f"{self.own_file} holds the sensors learned on a {board_name(calibration.labels)} "
                              f"board, but the game is played on a {board_name(self.labels)} board: play a variant "
                              f"of that board (--variant: {', '.join(variants_on(calibration.labels))}), or keep this "
                              "board's sensors in a file of their own (--set sensors.calibration=FILE)")
        return calibration, self.own_file

    def check_keepable(self) -> None:
        """A :class:`ConfigError` if sensors learned now could not be kept: said before the players
        empty and lay out the board, where a folder that cannot be made was found only by the save,
        and what they taught was lost (an audit, 2026-12-07)."""
        if self.board_file is None and (problem := folder_problem(self.own_file)):
            raise ConfigError(f"sensors.calibration = {str(self.own_file)!r}: the sensors learned could not be kept "
                              f"there, {problem}: choose another file")

    def save(self, calibration: SensorCalibration) -> Path:
        """Keep ``calibration``; returns the file it went to (the sensors' own file in folders made for it,
        as the database's are)."""
        if self.board_file is None:
            self.own_file.parent.mkdir(parents=True, exist_ok=True)
            save_sensor_file(self.own_file, calibration)
            return self.own_file
        try:
            save_sensors(self.board_file, calibration)
        except CalibrationError as exc:
            raise ConfigError(str(exc)) from None
        return self.board_file


class LearningSensors(SensorSource):
    """The microcontroller, whose calibration goes on learning while the game is played.

    Every position the referee confirms from the board (a move it accepted, a
    takeback it saw, the board unchanged) has known counts, so the raw frames
    of that moment sharpen each pit's gain (``SensorCalibration.learn``): a
    store's first of all, which starts empty and borrows the other pits' slope
    until it holds seeds. It listens to the session's published states, as the
    dashboard does, learns once per position, and keeps the result (``save``).
    """

    def __init__(self, port: str | None, labels: Sequence[str], fusion: Fusion,
                 calibration: SensorCalibration | None, hub: Hub,
                 save: Callable[[SensorCalibration], object]) -> None:
        super().__init__(port, labels, fusion, calibration)
        self._hub, self._save = hub, save
        self._stopping = threading.Event()
        self._learner = threading.Thread(target=self._learn_confirmed, name="sensor learning", daemon=True)
        self._learned: set[tuple] = set()  # (game id, ply, counts) of the positions learned from

    def start(self) -> "LearningSensors":
        super().start()
        if self._learner.ident is None:
            self._learner.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        super().stop()
        if self._learner.ident is not None:
            self._learner.join(timeout=2)

    def _learn_confirmed(self) -> None:
        subscription = self._hub.subscribe()
        try:
            while not self._stopping.is_set():
                text = subscription.get(timeout=0.25)
                if text is not None:
                    self.confirmed(json.loads(text))
        finally:
            self._hub.unsubscribe(subscription)

    def confirmed(self, state: dict[str, Any]) -> None:
        """Learn from the board now if the dashboard ``state`` says the referee confirmed its position;
        first, read counts up to all the seeds of its game (a new game of more seeds than the sensors
        were learned with, Kalah after Kalah-3)."""
        verdict, game = state.get("verdict") or {}, state.get("game")
        if game is not None and self.calibration is not None:
            self.calibration = self.calibration.covering(game["seeds"])
        if (game is None or self.calibration is None or verdict.get("by") == "players"
                or verdict.get("kind") not in ("move", "takeback", "unchanged")):
            return  # nothing judged from the board (a move entered by hand need not be on it yet)
        pits = game["position"]["pits"]
        if list(pits) != list(self.labels):
            return
        counts = [pits[label] for label in self.labels]
        key = (game["id"], len(game["moves"]), tuple(counts))  # after a takeback, another move's board is news
        if key in self._learned:
            return
        frames = self.raw_frames(CONFIRMED_FRAMES, timeout=1.0)
        if len(frames) < CONFIRMED_FRAMES or not shows(frames, counts, self.calibration):
            return  # the board changed again already: the next confirmed position will do
        self._learned.add(key)
        self.calibration = self.calibration.learn(frames, counts)
        try:
            self._save(self.calibration)
        except (ConfigError, OSError) as exc:  # learning goes on in memory; the next position saves it all
            log.warning("the learned sensor calibration could not be saved: %s", said(exc))


def shows(frames: Sequence[Sequence[int]], counts: Sequence[int], calibration: SensorCalibration) -> bool:
    """Whether every frame reads as ``counts`` on every pit whose gain is its own: the frames are of
    the confirmed position, not of hands already moving on. (A pit still borrowing its gain, a store
    never yet filled, may read a seed off: that is what learning is for.)"""
    for frame in frames:
        reading = calibration.to_reading(frame)
        for label, pit, count in zip(calibration.labels, calibration.pits, counts):
            if pit.evidence and (reading.pits[label] is None or reading.pits[label].most_likely != count):
                return False
    return True


CAMERA_ALONE = ('no Pitwatch board answered on any serial port (sensors.port = "auto") and no sensors are learned '
                'yet: the camera referees alone')


def plays_without_a_board(config: Config, labels: Sequence[str]) -> bool:
    """Whether ``pitwatch run`` referees with the camera alone when no board answers: the port is
    "auto" (the default, which must not stop a webcam-only set-up), a camera is configured, and no
    sensors were learned for this board. Once they were, the set-up has a microcontroller, and a
    missing one is reported until it is back."""
    if config["sensors"]["port"] != "auto" or not config["camera"]["source"]:
        return False
    try:
        return SensorStore.of(config, labels).load() is None
    except ConfigError:  # a file of another board: sensor_source names it
        return False


def sensor_source(config: Config, labels: Sequence[str], fusion: Fusion, runtime: Runtime) -> SensorSource:
    """The microcontroller, with its sensor calibration loaded or, the first time, learned from the
    players; it goes on learning from the positions the referee confirms (:class:`LearningSensors`)."""
    port = config["sensors"]["port"]
    store = SensorStore.of(config, labels)
    learned = store.load()
    seeds = runtime.session.game.variant.total_seeds
    source = LearningSensors(None if port == "auto" else port, labels, fusion,
                             learned.covering(seeds) if learned is not None else None, runtime.hub, store.save)
    source.on_values = runtime.session.set_sensor_values
    source.on_button = runtime.session.press
    source.start()
    if source.calibration is None:
        learn_sensors(source, runtime, store)
    return source


def learn_sensors(source: SensorSource, runtime: Runtime, store: SensorStore) -> None:
    """Ask the players for the two boards whose counts are known, learn, and keep the calibration.

    The players are asked only once the microcontroller sends values: emptying a board for a device
    that is not there wastes their time. They answer at the terminal, so ``pitwatch run`` started
    without one (a service, stdin closed) says how to learn the sensors rather than failing."""
    store.check_keepable()
    if not source.raw_frames(1, timeout=FIRST_VALUES_WAIT):
        raise ConfigError(f"the pit sensors are to be learned, but the microcontroller sent no sensor values within "
                          f"{FIRST_VALUES_WAIT:.0f} s ({source.bridge.status.message}): check the USB cable and "
                          "sensors.port (pitwatch doctor), or set sensors.port = \"\" to play without a microcontroller")
    start = runtime.session.game.variant.start()
    while True:
        wait_for_enter("pitwatch: learning the pit sensors. Empty every pit, then press Enter... ", NO_TERMINAL_TO_LEARN)
        empty = source.raw_frames(LEARN_FRAMES)
        wait_for_enter("pitwatch: now lay out the start position, then press Enter... ", NO_TERMINAL_TO_LEARN)
        full = source.raw_frames(LEARN_FRAMES)
        if not empty or not full:
            raise ConfigError("the microcontroller sent no sensor values: check the connection (pitwatch doctor)")
        try:
            source.learn(empty, full, start.pits)
            break
        except SensorCalibrationError as exc:  # the start laid out late, a pit forgotten, a sensor unplugged
            print(f"pitwatch: the sensors cannot be learned from these two boards: {exc}. Once more "
                  "(Ctrl-C to stop; sensors.port = \"\" plays without the microcontroller).")
    print(f"pitwatch: sensor calibration saved to {store.save(source.calibration)}")
