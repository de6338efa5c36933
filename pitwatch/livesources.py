"""The real camera and microcontroller for ``pitwatch run``, made from the configuration."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from calibration.calibfile import Calibration, CalibrationError, load_calibration
from rules import Variant

from .config import Config, ConfigError
from .corners import LiveCorners
from .fusion import Fusion
from .hub import FrameFeed
from .runtime import Runtime, calibration_path
from .sources import CameraSource, SensorSource

LEARN_FRAMES = 10


def camera_source(config: Config, variant: Variant, fusion: Fusion, runtime: Runtime) -> tuple[CameraSource, LiveCorners]:
    """The configured camera, read with its calibration file (which must match the game's board),
    and its board corners as the dashboard sets them."""
    from vision.camera import SourceError, open_source

    path = config["camera"]["calibration"]
    if not path:
        raise ConfigError("camera.calibration is not set: run `pitwatch calibrate` first and set it "
                          "(or --calibration FILE)")
    path = Path(path).expanduser()
    try:
        calibration = load_calibration(path)
        source = open_source(config["camera"]["source"])
    except (CalibrationError, SourceError) as exc:
        raise ConfigError(str(exc)) from None
    board = calibration.profile.layout
    if board.labels != variant.layout.labels:
        raise ConfigError(f"{path} calibrates a {board.name} board, but {variant.name} is played on a "
                          f"{variant.layout.name} board: calibrate this board or choose another variant")
    return live_camera(lambda: source.read().image, calibration, path, config, fusion, runtime.frames)


def live_camera(grab: Callable[[], np.ndarray | None], calibration: Calibration, path: Path, config: Config,
                fusion: Fusion, frames: FrameFeed) -> tuple[CameraSource, LiveCorners]:
    """The camera loop over ``grab()``, reading the board of ``calibration`` (saved at ``path``);
    its overlaid frames go to ``frames`` (the dashboard's camera view)."""
    from vision.live import StillnessGate
    from vision.reader import BoardReader

    def reader(calibration: Calibration) -> tuple[Callable[[np.ndarray | None], Any], StillnessGate]:
        return BoardReader(calibration).read, StillnessGate(config["camera"]["still_frames"])

    camera = CameraSource(grab, *reader(calibration), fusion, frames,
                          snapshot_width=config["session"]["snapshot_width"])
    return camera, LiveCorners(camera, calibration, path, reader)


def sensor_source(config: Config, labels: Sequence[str], fusion: Fusion, runtime: Runtime) -> SensorSource:
    """The microcontroller, with its sensor calibration loaded, or learned now from the players."""
    from firmware_bridge.sensors import CalibrationError, SensorCalibration

    port = config["sensors"]["port"]
    path = calibration_path(config, "sensors.calibration", "sensors.json")
    calibration = None
    if path.exists():
        try:
            calibration = SensorCalibration.load(path)
        except CalibrationError as exc:
            raise ConfigError(f"{exc} (delete {path} to learn the sensors again)") from None
        if calibration.labels != tuple(labels):
            calibration = None  # made for another board: learn this one
    source = SensorSource(None if port == "auto" else port, labels, fusion, calibration)
    source.on_values = runtime.session.set_sensor_values
    source.on_button = runtime.session.press
    source.start()
    if source.calibration is None:
        learn_sensors(source, runtime, path)
    return source


def learn_sensors(source: SensorSource, runtime: Runtime, path: Path) -> None:
    """Ask the players for the two boards whose counts are known, learn, and save the calibration."""
    start = runtime.session.game.variant.start()
    input("pitwatch: learning the pit sensors. Empty every pit, then press Enter... ")
    empty = source.raw_frames(LEARN_FRAMES)
    input("pitwatch: now lay out the start position, then press Enter... ")
    full = source.raw_frames(LEARN_FRAMES)
    if not empty or not full:
        raise ConfigError("the microcontroller sent no sensor values: check the connection (pitwatch doctor)")
    source.learn(empty, full, start.pits)
    source.calibration.save(path)
    print(f"pitwatch: sensor calibration saved to {path}")
