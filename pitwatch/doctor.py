"""``pitwatch doctor``: check every part ``pitwatch run`` needs and say what to fix.

Each check opens the real thing (the database file, the camera, the serial
port, the calibration files, the dashboard's port) the way ``run`` would,
and turns any failure into one line that names the setting to change.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Generator, Iterator

import rules
from rules import Variant
from rules.errors import UnknownVariant
from vision.picture_size import DEVICE_SIZE, picture_size_text

from .config import Config, ConfigError
from .errors import said
from .livelock import LiveLock
from .recorder import CHOOSE_ANOTHER, SCHEMA_VERSION, GameRecord, Recorder, RecorderError, refused_player, write_problem
from .records import game_of
from .runtime import configured_variant, played_variant, port_problem, refuse_another_board
from .display import describe

if TYPE_CHECKING:  # vision loads only when a camera is checked, the bridge when a microcontroller is
    import numpy as np

    from calibration.calibfile import Calibration
    from firmware_bridge.bridge import LinkHealth
    from vision.camera import Frame, FrameSource
    from vision.reader import BoardReader, FrameStatus

HANDSHAKE_WAIT = 5.0
LINK_WATCH_SECONDS = 2.0  # how long a board's reports are watched for damaged frames (about 40-100 reports)
RATE_SECONDS = 2.0  # how long a live camera's frame rate is measured
READ_TIMES = 5  # frames read to time the reader
FLICKER_FRAMES = 4  # frames of a live camera read through the stillness gate to look for a mains lamp's bands
SLOWEST_READING_S = 2.0  # a Reading later than this after the board goes still is too slow for play
# Pits of 5-9 seeds read exactly on the benchmark at the picture sizes it was run at
# (vision_bench.py --frame WxH, seeds 1 / 2; README, "The camera's picture size")
EXACT_5_9_BY_SIZE = {(640, 480): "93.9-95.0 %", (1024, 768): "99.3-99.5 %", DEVICE_SIZE: "99.50-99.75 %"}


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str


def diagnose(config: Config) -> Iterator[Check]:
    yield Check("configuration", True, f"read from {config.source}")
    game, variant = check_game(config)
    yield game
    live = LiveLock(config.database_path()).holder()
    yield check_database(config, live is not None)
    if live is not None:  # its camera, serial port and dashboard port: opening them would disturb the game
        yield Check("live session", True, f"a pitwatch run or demo is playing on this database ({live}): the "
                                          "camera, the microcontroller and the dashboard's port are its own, so they "
                                          "are not checked here (the dashboard shows them); stop it to check them")
        return
    played = played_variant(config, variant) if variant is not None else None
    camera, sensors = config["camera"]["source"], config["sensors"]["port"]
    if not camera and not sensors:
        yield Check("sources", False, "no camera (camera.source) and no microcontroller (sensors.port): "
                                      "`pitwatch run` needs at least one; `pitwatch demo` needs neither")
    if camera:
        yield from check_camera(config, played)
    elif sensors:
        yield Check("camera", True, "none (camera.source is \"\"): the microcontroller alone referees; set camera.source "
                                    "(0 for the first webcam) to add one")
    if sensors:
        yield from check_sensors(config, played)
    elif camera:
        yield Check("microcontroller", True, "none (sensors.port is \"\"): the camera alone referees; set sensors.port "
                                             "= \"auto\" to add one")
    yield check_port(config)


def check_game(config: Config) -> tuple[Check, Variant | None]:
    """The variant of a new game, its options and its players' names, checked as ``run`` checks them
    at start (with its message: a misspelt name, an unknown option, one out of its range, a player's
    name the recorder refuses), and the variant if it is good."""
    try:
        variant = configured_variant(config)
    except rules.RulesError as exc:
        key = "game.variant" if isinstance(exc, UnknownVariant) else "game.options"
        return Check("game", False, f"{exc}; fix {key}"), None
    if refused := refused_player(config["game"]):
        seat, exc = refused
        return Check("game", False, f"{exc}, not {config['game'][seat]!r}; fix game.{seat}"), variant
    return Check("game", True, f"a new game is {variant.name} ({describe(variant)}), on a {variant.layout.name} "
                               "board"), variant


def check_database(config: Config, live: bool) -> Check:
    """The database ``run`` records in (``live``: a session is playing on it now)."""
    path = config.database_path()
    if not path.exists() or (path.is_file() and path.stat().st_size == 0):  # run makes an empty file a database
        return check_new_database(path)
    try:
        recorder = Recorder(path, read_only=True)  # a check must not change what it checks: no migration here
    except RecorderError as exc:  # it says what to do
        return Check("database", False, str(exc))
    except OSError as exc:
        return Check("database", False, f"{said(exc)}; {CHOOSE_ANOTHER}")
    if problem := write_problem(path):  # the file read, but `run` would record nothing in it
        recorder.close()
        return Check("database", False, f"{path}: {problem}; {CHOOSE_ANOTHER}")
    try:
        games = recorder.games(limit=1)
        active = recorder.active_game()
        version = recorder.schema_version
        upgrade = f" (`pitwatch run` upgrades it to v{SCHEMA_VERSION})" if version < SCHEMA_VERSION else ""
        detail = f"{path}: schema v{version}{upgrade}, " + (
            game_in_progress(recorder, active, live) if active else "no game in progress" if games else "no games yet")
        return Check("database", True, detail)
    finally:
        recorder.close()


def game_in_progress(recorder: Recorder, active: GameRecord, live: bool) -> str:
    """What ``run`` does with the game in progress: plays it on, or, if it does not replay (a row
    changed outside Pitwatch, rules that no longer accept it), keeps it on record and starts a new
    game, as :meth:`pitwatch.session.Session.resume_or_start` does."""
    game = f"game {active.id} ({active.variant}, {active.move_count} moves)"
    if live:
        return f"{game} is being played"
    try:
        game_of(recorder, active.id)
    except (RecorderError, rules.RulesError) as exc:
        return f"{game} cannot be resumed ({exc}): `pitwatch run` keeps it on record and starts a new game"
    return f"{game} will be resumed"


def check_new_database(path: Path) -> Check:
    """A database that does not exist yet (or an empty file): ``run`` creates it, so the doctor only checks it could
    (as the recorder would name what is in the way), without leaving an empty file behind (a check
    must not change what it checks)."""
    if problem := write_problem(path):
        return Check("database", False, f"{path}: {problem}; {CHOOSE_ANOTHER}")
    return Check("database", True, f"{path}: no games yet (`pitwatch run` makes the game database there)")


def check_camera(config: Config, played: Variant | None) -> Iterator[Check]:
    """The camera, its calibration (for the board of the ``played`` variant, if it is known) and what
    the camera makes of the board."""
    pictures = yield from _check_pictures(config)
    calibration = yield from _check_calibration(config, played)
    if calibration is None:
        return
    counter = check_counter()
    yield counter
    if pictures.image is not None and counter.ok:
        yield from _check_board_in_view(config, calibration, pictures)


@dataclass(frozen=True)
class _Pictures:
    """What the camera gave the doctor: its first good picture (None for none), its frame rate (a
    live camera's), and the pictures that followed (for the lamp's flicker)."""

    image: np.ndarray | None = None
    rate: float | None = None
    following: tuple[np.ndarray, ...] = ()


def _check_pictures(config: Config) -> Generator[Check, None, _Pictures]:
    """Whether the camera gives pictures, and of the size asked for; returns them."""
    from vision.camera import SourceError, first_good_frame, names_device
    from vision.sources import open_source

    spec = config["camera"]["source"]
    try:
        size = config.camera_size
        source = open_source(spec, size)
        try:
            frame = first_good_frame(source)
            rate, following = None, ()
            if frame.ok and source.live:
                rate = frame_rate(source, frame)
                following = tuple(taken.image for taken in (source.read() for _ in range(FLICKER_FRAMES)) if taken.ok)
        finally:
            source.close()
    except SourceError as exc:
        yield Check("camera", False, f"{exc}; fix camera.source")
        return _Pictures()
    if not frame.ok:
        yield Check("camera", False, f"{spec}: {frame.status}; check the cable and camera.source "
                                     "(a device number such as 0, a file, a folder or a URL)")
        return _Pictures()
    image = frame.image
    sends = "" if rate is None else f", {rate:.0f} frames a second"
    yield Check("camera", True, f"{spec}: {image.shape[1]} x {image.shape[0]} frames{sends}")
    yield check_picture_size(image, size, names_device(spec))
    return _Pictures(image, rate, following)


def _check_calibration(config: Config, played: Variant | None) -> Generator[Check, None, Calibration | None]:
    """Whether camera.calibration reads, and is of the played variant's board; returns it (None if it
    does not read: nothing after it can be checked)."""
    from calibration.calibfile import CalibrationError, load_calibration

    path = config["camera"]["calibration"]
    if not path:
        yield Check("calibration", False, "camera.calibration is not set: run `pitwatch calibrate --variant V "
                                          "--empty EMPTY --start START -o board.json` and set it to board.json")
        return None
    try:
        calibration = load_calibration(Path(path).expanduser())
    except CalibrationError as exc:
        yield Check("calibration", False, f"{exc}; run `pitwatch calibrate` again")
        return None
    try:
        if played is not None:
            refuse_another_board(Path(path).expanduser(), calibration.profile.layout.labels, played)
    except ConfigError as exc:
        yield Check("calibration", False, str(exc))
    else:
        yield Check("calibration", True, f"{path}: a {calibration.board} board, {len(calibration.hollows)} pits; "
                                         f"{seeds_measured(calibration.seed_area_mm2)}")
    return calibration


def _check_board_in_view(config: Config, calibration: Calibration, pictures: _Pictures) -> Iterator[Check]:
    """What the camera makes of the board: found, where the camera stands, focus, flicker, speed."""
    from vision.camera import too_small
    from vision.focus import too_blurred_mm
    from vision.reader import MARKERS_MISSING, BoardReader

    from .placement import judge_placement

    image = pictures.image
    reader = BoardReader(calibration)
    result = reader.read(image)
    status = result.status
    yield Check("board in view", status.board_found,
                "the board is found in the camera picture" if status.board_found
                else f"{status.message}: aim the camera at the board, all four markers in view"
                if status.message.startswith(MARKERS_MISSING)
                else status.message)  # a marker stuck wrong or moved, a greyscale camera, ...: each says what to do
    if not status.board_found:
        return
    yield check_pits_in_view(status, len(calibration.profile.layout.labels))
    picture = (image.shape[1], image.shape[0])
    for judged in judge_placement(result.image_to_board, picture, calibration.profile.size):
        yield Check(*judged)
    yield check_focus(status.blur_mm, too_blurred_mm(too_small(picture)), calibration.blur_limit_mm,
                      calibration.corners is not None)
    if (flicker := check_flicker(reader, list(pictures.following))) is not None:
        yield flicker
    yield check_reading_speed(reader, image, config["camera"]["still_frames"], pictures.rate)


def check_pits_in_view(status: FrameStatus, pits: int) -> Check:
    """Whether the reader sees every pit of the board it found.

    A board found with a hand over it, or a board of another layout (whose hollows are not where the
    calibration has them: it reads as a hand, frame after frame), has pits the referee cannot read;
    until 2026-12-07 the doctor said all was ready."""
    if not status.pits_unseen and not status.hand:
        return Check("pits in view", True, f"all {pits} pits read")
    unseen = status.pits_unseen
    return Check("pits in view", False,
                 f"{status.message}: {len(unseen)} of {pits} pits not seen ({', '.join(unseen)}): take hands and things "
                 "off the board and run pitwatch doctor again; if nothing is over it, this is not the board calibrated "
                 "(pitwatch calibrate)")


def seeds_measured(seed_area_mm2: float | None) -> str:
    """What the calibration knows of its board's seeds: a user checks the size against the seeds on
    the table, and a file calibrated before Pitwatch measured seeds (2026-12-03) is worth making
    again, for the reader tells a lamp's reflection from a seed by the seeds' size
    (:func:`vision.glare.seed_top_mm2`)."""
    from vision.seed_size import seed_size_text

    if seed_area_mm2 is None:
        return ("its seeds' size was not measured (a file from before 2026-12-03): calibrate again, and a lamp's "
                "reflection in a pit is told from these seeds by their size")
    return f"seeds: {seed_size_text(seed_area_mm2)}"


def check_focus(blur_mm: float | None, limit_mm: float, board_limit_mm: float | None = None,
                corners: bool = False) -> Check:
    """How blurred the camera's picture is at the board's markers, or by its wood's grain on a
    board found by its ``corners`` (vision.focus): from ``BLURRED_MM`` (or this board's own
    limit, ``board_limit_mm``, where its start position blurred into misreads sooner) on seeds
    are miscounted, and from ``limit_mm`` (this picture's, ``vision.focus.too_blurred_mm``) on
    they are not counted."""
    from vision.focus import BLURRED_MM, measured_at

    if blur_mm is None:
        return Check("focus", True, "not measured: no marker seen well enough, or a hand or no grain on the wood of a "
                                    "board found by its corners; check by eye that the seeds look sharp")
    sharp = min(BLURRED_MM, limit_mm, board_limit_mm or BLURRED_MM)
    at = measured_at(corners)
    if blur_mm <= sharp:
        return Check("focus", True, f"sharp: {at} blurred over {blur_mm:.2f} mm (at most {sharp:.2f})")
    verdict = "too blurred to count seeds" if blur_mm > limit_mm else "blurred: seeds are miscounted"
    return Check("focus", False, f"{verdict}: {at} blurred over {blur_mm:.2f} mm (at most {sharp:.2f}); "
                                 "focus the camera (turn its lens ring; a webcam whose autofocus hunts: turn that off, "
                                 "`v4l2-ctl --list-ctrls` names its focus controls) and hold it still")


def check_picture_size(image: np.ndarray, asked: tuple[int, int], device: bool) -> Check:
    """Whether the camera's pictures are big enough to count seeds in: the reader is measured at
    1280 x 720 (``vision_bench.py``), and reads worse in a smaller picture, far worse at 640 x 480:
    the message quotes the benchmark at the size nearest below this one. ``asked``: what
    a camera ``device`` was asked for (``camera.size``); a file or stream gives what it holds."""
    from vision.camera import too_small

    height, width = image.shape[:2]
    if not too_small((width, height)):
        return Check("camera picture", True, f"{width} x {height}: big enough to count seeds in")
    best = picture_size_text(DEVICE_SIZE)
    if not device:
        fix = f"record or stream the board at {best} or more"
    elif too_small(asked):
        fix = f"set camera.size = \"{best}\" (it is {picture_size_text(asked)})"
    else:
        fix = f"asked for {picture_size_text(asked)}, this camera gives no more: use one that gives {best}"
    measured = nearest_measured_size((width, height))
    return Check("camera picture", False, (
        f"{width} x {height} is too small to count seeds well (on the benchmark, pits of 5-9 seeds are read exactly "
        f"{EXACT_5_9_BY_SIZE[measured]} of the time at {measured[0]} x {measured[1]}, against "
        f"{EXACT_5_9_BY_SIZE[DEVICE_SIZE]} at {DEVICE_SIZE[0]} x {DEVICE_SIZE[1]}): {fix}"))


def nearest_measured_size(size: tuple[int, int]) -> tuple[int, int]:
    """The benchmark's too-small picture size whose figure speaks for a too-small picture of
    ``size``: the largest one with no more pixels (a picture has at least its detail), or the
    smallest one."""
    from vision.camera import too_small

    measured = sorted(filter(too_small, EXACT_5_9_BY_SIZE), key=lambda each: each[0] * each[1])
    fitting = [each for each in measured if each[0] * each[1] <= size[0] * size[1]]
    return fitting[-1] if fitting else measured[0]


def check_flicker(reader: BoardReader, images: list[np.ndarray]) -> Check | None:
    """Whether a lamp on mains power lights the picture in bands that move from frame to frame
    (against a short exposure), as the stillness gate measures them between ``images``, frames of
    a live camera in a row (vision.flicker). None when fewer than two show the board."""
    from vision.live import FLICKER_ADVICE, FLICKER_SAID, StillnessGate

    gate, swing, found = StillnessGate(), 0.0, 0
    for image in images:
        result = reader.read(image)
        gate.update(result)
        found += result.status.board_found
        swing = max(swing, gate.state.flicker)
    if found < 2:
        return None
    if swing >= FLICKER_SAID:
        return Check("flicker", False, f"{FLICKER_ADVICE} (the light swings {100 * (math.exp(swing) - 1):.0f} % "
                                       "between two frames)")
    return Check("flicker", True, "no bands of a flickering lamp across the picture")


def frame_rate(source: FrameSource, first: Frame, seconds: float = RATE_SECONDS) -> float | None:
    """Frames a second a live camera sends, from its own frame numbers over ``seconds``
    (frames it sent while none was asked for count too) or until it gives no picture; None if
    it sent no second frame."""
    last = first
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        frame = source.read()
        if not frame.ok:
            break  # a lost camera answers at once: measuring on would only spin
        last = frame
    if last.time <= first.time:
        return None
    return (last.index - first.index) / (last.time - first.time)


def check_reading_speed(reader: BoardReader, image: np.ndarray, still_frames: int, camera_rate: float | None) -> Check:
    """How long reading one frame takes on this machine (the median of ``READ_TIMES``), judged
    by ``reading_delay``."""
    spent = []
    for _ in range(READ_TIMES):
        started = time.perf_counter()
        reader.read(image)
        spent.append(time.perf_counter() - started)
    return reading_delay(sorted(spent)[len(spent) // 2], still_frames, camera_rate)


def reading_delay(per_frame: float, still_frames: int, camera_rate: float | None) -> Check:
    """How soon after the board goes still a Reading comes: the stillness gate waits for
    ``still_frames`` still frames, each as slow as the reader (``per_frame`` seconds) or the
    camera (``camera_rate`` frames a second, if known). Apart from the timing so that the
    verdict can be checked without depending on how busy the machine is."""
    wait = still_frames * max(per_frame, 1 / camera_rate if camera_rate else 0.0)
    rate = 1 / per_frame
    detail = (f"{per_frame * 1000:.0f} ms a frame ({rate:.{0 if rate >= 10 else 1}f} frames a second at most): a Reading "
              f"{wait:.1f} s after the board goes still")
    if wait <= SLOWEST_READING_S:
        return Check("reading speed", True, detail)
    return Check("reading speed", False, f"{detail}; a faster machine or camera, or fewer camera.still_frames")


def check_counter() -> Check:
    """The seed counter's networks, which come with Pitwatch: a broken or partial installation
    shows here rather than on the first frame."""
    from vision.counter import KINDS, MODELS, OUT_OF_FOCUS_KINDS, CounterError, shared_counter

    try:
        shared_counter()
    except CounterError as exc:
        return Check("seed counter", False, f"{exc}; reinstall Pitwatch (scripts/demo installs it)")
    return Check("seed counter", True, f"{MODELS}: the {', '.join(KINDS)} networks load, and the "
                                       f"{', '.join(OUT_OF_FOCUS_KINDS)} networks trained out of focus")


def check_sensors(config: Config, played: Variant | None) -> Iterator[Check]:
    """The microcontroller, and the sensors learned for the board of the ``played`` variant (if it is known)."""
    from firmware_bridge.bridge import State, probe, serial_ports
    from firmware_bridge.protocol import Capability

    from .livesources import CAMERA_ALONE, plays_without_a_board

    board = played.layout.labels if played is not None else None
    port = config["sensors"]["port"]
    probed = None if port == "auto" and not serial_ports() else probe(None if port == "auto" else port, HANDSHAKE_WAIT,
                                                                       LINK_WATCH_SECONDS)
    status = probed.status if probed is not None else None
    if status is not None and status.connected and status.device is not None:
        device = status.device
        # the most pits it drives, not the count it was left with: `run` sets that, and a board just reset says 32
        yield Check("microcontroller", True, f"{status.port}: firmware "
                    f"{'.'.join(map(str, device.firmware))}, up to {device.max_pits} pits")
        if probed.health is not None and device.capabilities & Capability.SENSORS:
            yield check_link(probed.health)
    elif board is not None and plays_without_a_board(config, board):
        yield Check("microcontroller", True, f"{CAMERA_ALONE}; set sensors.port = \"\" to skip the search")
    elif status is None:
        yield Check("microcontroller", False, "no serial ports at all: plug the board in (or set "
                                              "sensors.port = \"\" to run with the camera only)")
    else:
        problem = (f"no Pitwatch board answered within {HANDSHAKE_WAIT:.0f} s (last tried {status.port})"
                   if status.state == State.SEARCHING else status.message)
        yield Check("microcontroller", False, f"{problem}; check the USB cable, the firmware "
                                              "(docs/protocol.md) and sensors.port")
    if board is not None:
        yield check_sensor_calibration(config, board)


def check_link(health: LinkHealth) -> Check:
    """Whether the cable carries the board's reports whole: on a sound USB cable no frame is ever
    damaged, so one damaged in a few seconds already means a cable that will drop readings in play."""
    seconds = f"{health.seconds:.0f} s"
    newer = (f"; {health.unknown_messages} messages of a newer firmware ignored (update Pitwatch)"
             if health.unknown_messages else "")
    if health.reports == 0:
        return Check("serial link", False, f"the board sent no sensor reports in {seconds}: check its firmware "
                                           f"(docs/protocol.md){newer}")
    if health.clean:
        return Check("serial link", True, f"{health.reports} sensor reports whole in {seconds}, no frame damaged{newer}")
    return Check("serial link", False, f"{health.damaged_frames} frames damaged and {health.lost_reports} reports lost "
                                       f"in {seconds} ({health.reports} arrived whole): try a shorter or shielded USB "
                                       f"cable, away from motors and mains leads, or another USB port{newer}")


def check_sensor_calibration(config: Config, board: tuple[str, ...]) -> Check:
    """The sensors' calibration for ``board`` (its pits) where ``run`` keeps it: in the board's
    calibration file, or the sensors-only set-up's own file (:class:`~pitwatch.livesources.SensorStore`)."""
    from .livesources import SensorStore

    store = SensorStore.of(config, board)
    try:
        calibration, where = store.find()
    except ConfigError as exc:
        return Check("sensor calibration", False, str(exc))
    if calibration is None:
        try:
            store.check_keepable()
        except ConfigError as exc:
            return Check("sensor calibration", False, str(exc))
        return Check("sensor calibration", True, "none yet: `pitwatch run` learns it from the empty board "
                                                 "and the start position")
    return Check("sensor calibration", True, f"{where}: {len(calibration.labels)} pits")


def check_port(config: Config) -> Check:
    web = config["web"]
    problem = port_problem(web["host"], web["port"])
    if problem:
        return Check("dashboard port", False, f"{web['host']}:{web['port']}: {problem}; "
                                              "choose another with --port or web.port")
    where = "the network (control actions need the token)" if web["allow_network"] else "this computer only"
    return Check("dashboard port", True, f"{web['host']}:{web['port']} is free; served to {where}")
