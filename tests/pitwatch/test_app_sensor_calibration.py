"""The pit sensors' calibration: kept in the board's calibration file, read from older set-ups'
own file, and learned further by `pitwatch run` from every position the referee confirms."""

from __future__ import annotations

import contextlib
from dataclasses import replace
import errno
import json
import resource
import time

import pytest

from apphelpers import sensor_calibration_for
from waiting import wait_until
from calibration.calibfile import (CalibrationError, load_calibration, save_calibration, save_corners, save_sensor_file,
                                  save_sensors)
from firmware_bridge.emulator import EmulatedBoard
from pitwatch.config import ConfigError, load
from pitwatch.doctor import check_sensor_calibration
from pitwatch.livesources import SensorStore, sensor_source
from pitwatch.runtime import Runtime
import rules
from rules import Game

KALAH = Game("kalah")
LABELS = KALAH.variant.layout.labels
START = list(KALAH.position.pits)


@pytest.fixture(scope="module")
def board_file_data(tmp_path_factory) -> dict:
    """A kalah board's calibration file as `pitwatch calibrate` writes it (no sensors yet)."""
    from vision.synthetic import SyntheticCamera

    path = tmp_path_factory.mktemp("board") / "board.json"
    save_calibration(SyntheticCamera("kalah", lambda: KALAH.position, 3).calibration(), path)
    return json.loads(path.read_text())


@pytest.fixture
def board_file(tmp_path, board_file_data):
    path = tmp_path / "board.json"
    path.write_text(json.dumps(board_file_data))
    return path


def sensors():
    return sensor_calibration_for(len(LABELS), LABELS, START)


def test_the_board_file_keeps_the_sensor_calibration_beside_everything_else(board_file):
    old = json.loads(board_file.read_text())
    old.pop("sensors", None)  # as Pitwatch wrote board files before the field existed
    board_file.write_text(json.dumps(old))
    assert load_calibration(board_file).sensors is None
    save_corners(board_file, [100, 700, 1180, 700, 1000, 80, 280, 80])
    save_sensors(board_file, sensors())
    loaded = load_calibration(board_file)
    assert loaded.sensors.to_json() == sensors().to_json()
    assert loaded.corners == (100, 700, 1180, 700, 1000, 80, 280, 80), "saving the sensors lost the corners"
    assert json.loads(board_file.read_text())["hollows"] == old["hollows"]


@pytest.mark.parametrize("change, message", [
    (lambda s: s["pits"][0].update(gain="heavy"), "sensors: pit A: 'gain' must be a number"),
    (lambda s: s.update(format="other"), "sensors: not a Pitwatch sensor calibration"),
    (lambda s: s["pits"].pop(), "sensors: calibrates pits A B C D E F S a b c d e f; a 2x6+stores board has"),
])
def test_a_malformed_sensors_field_is_named(board_file, change, message):
    data = json.loads(board_file.read_text())
    data["sensors"] = sensors().to_json()
    change(data["sensors"])
    board_file.write_text(json.dumps(data))
    with pytest.raises(CalibrationError) as caught:
        load_calibration(board_file)
    assert str(board_file) in str(caught.value) and message in str(caught.value), caught.value


def config(tmp_path, *overrides: str):
    return load(tmp_path / "no-config.toml", [f"recorder.database={tmp_path / 'g.sqlite'}", *overrides])



@contextlib.contextmanager
def disk_filling_up_after(size: int):
    """Writes past ``size`` bytes fail (EFBIG, as a full disk's ENOSPC would) until the block ends."""
    limits = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, limits[1]))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, limits)


def test_sensors_learned_on_a_filling_disk_keep_the_file_before_whole(tmp_path):
    """The sensors are saved after every confirmed position: a write the disk cannot take names the
    file (not its temporary), leaves the last one whole and nothing beside it."""
    own = tmp_path / "sensors.json"
    store = SensorStore.of(config(tmp_path, f"sensors.calibration={own}"), LABELS)
    store.save(sensors())
    before = own.read_bytes()
    learned = sensors().learn([[round(pit.offset + 1.1 * pit.gain * n) for pit, n in zip(sensors().pits, START)]], START)
    with disk_filling_up_after(len(before) // 2), pytest.raises(OSError) as refused:
        store.save(learned)
    assert refused.value.filename == str(own)
    assert own.read_bytes() == before
    assert sorted(path.name for path in tmp_path.iterdir()) == ["sensors.json"]


def test_sensors_go_to_the_board_file_and_an_older_own_file_is_still_read(tmp_path, board_file, board_file_data):
    legacy = tmp_path / "sensors.json"  # where Pitwatch kept them before (the default, beside the database)
    save_sensor_file(legacy, sensors())
    store = SensorStore.of(config(tmp_path, f"camera.calibration={board_file}"), LABELS)
    assert store.load().to_json() == sensors().to_json()  # none in the board file yet: the old file
    learned = sensors().learn([[round(pit.offset + 1.1 * pit.gain * n) for pit, n in zip(sensors().pits, START)]], START)
    assert store.save(learned) == board_file
    assert load_calibration(board_file).sensors.to_json() == learned.to_json()
    assert store.load().to_json() == learned.to_json()
    assert json.loads(legacy.read_text()) == sensors().to_json(), "the old file was changed"

    alone = SensorStore.of(config(tmp_path, f"sensors.calibration={tmp_path / 'mine.json'}"), LABELS)
    assert alone.load() is None  # no board file, nothing learned: learn on start
    assert alone.save(learned) == tmp_path / "mine.json" and alone.load().to_json() == learned.to_json()
    with pytest.raises(ConfigError, match="not the board being played on"):
        SensorStore.of(config(tmp_path, f"camera.calibration={board_file}"), Game("oware").variant.layout.labels).load()
    oware = Game("oware").variant.layout.labels
    with pytest.raises(ConfigError) as caught:  # learning the Oware board would overwrite the Kalah board's sensors
        SensorStore.of(config(tmp_path, f"sensors.calibration={tmp_path / 'mine.json'}"), oware).load()
    assert str(caught.value) == (
        f"{tmp_path / 'mine.json'} holds the sensors learned on a 2x6+stores board, but the game is played on a 2x6 "
        "board: play a variant of that board (--variant: kalah, kalah-3, egyptian, ethiopian, nigerian), or keep this "
        "board's sensors in a file of their own (--set sensors.calibration=FILE)")
    fresh = tmp_path / "fresh-board.json"
    fresh.write_text(json.dumps(board_file_data))  # a board calibrated anew: no sensors in it yet
    save_sensor_file(legacy, sensor_calibration_for(len(oware), oware, Game("oware").position.pits))  # an older file, of another board
    assert SensorStore.of(config(tmp_path, f"camera.calibration={fresh}"), LABELS).load() is None  # passed over: learn


def test_sensors_learned_on_a_board_only_an_option_makes_are_named_by_it(tmp_path):
    """Learned for Kalah of 5 houses, then a Kalah of 6 played: naming the file's board was a
    StopIteration traceback in `run` and `doctor` (no variant's own board has those pits; an audit,
    2026-12-07)."""
    five = rules.variant("kalah", houses=5).layout.labels
    save_sensor_file(tmp_path / "mine.json", sensor_calibration_for(len(five), five, [4] * 5 + [0] + [4] * 5 + [0]))
    with pytest.raises(ConfigError) as caught:
        SensorStore.of(config(tmp_path, f"sensors.calibration={tmp_path / 'mine.json'}"), LABELS).load()
    assert str(caught.value).startswith(
        f"{tmp_path / 'mine.json'} holds the sensors learned on a 2x5+stores board, but the game is played on a "
        "2x6+stores board: play a variant of that board (--variant: kalah (houses=5), kalah-3 (houses=5), egyptian "
        "(houses=5), ethiopian (houses=5)), or keep")


def test_sensors_of_pits_no_board_has_are_named_as_such(tmp_path):
    relabelled = ("Z", *LABELS[1:])
    save_sensor_file(tmp_path / "mine.json", sensor_calibration_for(len(LABELS), relabelled, START))
    with pytest.raises(ConfigError) as caught:
        SensorStore.of(config(tmp_path, f"sensors.calibration={tmp_path / 'mine.json'}"), LABELS).load()
    assert str(caught.value) == (f"{tmp_path / 'mine.json'} holds sensors of the pits {', '.join(relabelled)}, which "
                                 "no variant's board has (edited by hand?): put the labels right, or delete it to "
                                 "learn the sensors again")


def test_only_a_sensor_file_that_does_not_load_is_to_be_deleted(tmp_path, board_file):
    """A board calibration or notes given as sensors.calibration were said to be deleted, to learn
    the sensors again: following that lost the user's file (an audit, 2026-12-07)."""
    damaged = tmp_path / "sensors.json"
    damaged.write_text(json.dumps(sensors().to_json())[:-40])
    (tmp_path / "notes.txt").write_text("the club's board, bought 2019")
    (tmp_path / "folder").mkdir()
    said = {}
    for path in (damaged, board_file, tmp_path / "notes.txt", tmp_path / "folder"):
        with pytest.raises(ConfigError) as caught:
            SensorStore.of(config(tmp_path, f"sensors.calibration={path}"), LABELS).load()
        said[path.name] = str(caught.value)
    assert said["sensors.json"].endswith(f"(delete {damaged} to learn the sensors again)"), said
    for path in (board_file, tmp_path / "notes.txt"):
        assert said[path.name].endswith(f"(if it is a damaged sensor calibration, delete {path} to learn the sensors "
                                        "again; if it is another file, point sensors.calibration at a file of the sensors' own)"), said
    assert said["folder"].endswith("(sensors.calibration names the sensors' own file: choose another)"), said


def test_sensors_are_kept_in_folders_made_for_them_and_one_that_cannot_be_is_said_first(tmp_path):
    """A sensors.calibration in a folder not there yet was found only when the sensors the players
    had just taught were saved, and they were lost (an audit, 2026-12-07)."""
    deep = tmp_path / "club" / "boards" / "sensors.json"
    store = SensorStore.of(config(tmp_path, f"sensors.calibration={deep}"), LABELS)
    store.check_keepable()
    assert store.save(sensors()) == deep and store.load().to_json() == sensors().to_json()
    (tmp_path / "afile").write_text("")
    blocked = SensorStore.of(config(tmp_path, f"sensors.calibration={tmp_path / 'afile' / 'sensors.json'}"), LABELS)
    with pytest.raises(ConfigError) as caught:
        blocked.check_keepable()
    assert str(caught.value) == (f"sensors.calibration = {str(tmp_path / 'afile' / 'sensors.json')!r}: the sensors "
                                 f"learned could not be kept there, {tmp_path / 'afile'} is not a folder: choose "
                                 "another file")
    doctor_says = check_sensor_calibration(config(tmp_path, f"sensors.calibration={tmp_path / 'afile' / 'sensors.json'}"),
                                           LABELS)
    assert not doctor_says.ok and doctor_says.detail == str(caught.value)


READ_EVERY = 0.02  # s between reads of the board file while waiting: each read decodes its pictures


@contextlib.contextmanager
def running_on_sensors(tmp_path, board_file, game: Game):
    """A run refereeing ``game``'s board from an emulated microcontroller, the sensors' calibration in
    ``board_file``: yields the runtime and the board, whose pits hold ``game``'s position."""
    with EmulatedBoard() as board:
        board.set_counts(game.position.pits)
        cfg = config(tmp_path, f"camera.calibration={board_file}", f"sensors.port={board.port}",
                     "session.settle_seconds=0.1")
        runtime = Runtime(cfg)
        runtime.start_session()
        runtime.session.fixed_board = LABELS
        runtime.sensors = sensor_source(cfg, LABELS, runtime.use_fusion({"sensors": 1.0}), runtime)
        runtime.start()
        try:
            yield runtime, board
        finally:
            runtime.stop()


def test_run_learns_the_stores_gain_from_confirmed_positions_and_keeps_it_in_the_board_file(tmp_path, board_file):
    """The stores start empty, so fitting gives them the other pits' median gain; the first move that
    puts seeds in one, confirmed by the referee, teaches that store its own and it is saved."""
    save_sensors(board_file, sensors())
    assert load_calibration(board_file).sensors.pits[6].evidence == 0  # S: borrowed
    game = Game("kalah")
    with running_on_sensors(tmp_path, board_file, game) as (runtime, board):
        assert wait_until(lambda: runtime.session.state()["verdict"]["kind"] == "unchanged", 20), \
            runtime.session.state()["verdict"]
        assert wait_until(lambda: load_calibration(board_file).sensors.pits[0].evidence > 48, 20, READ_EVERY)  # the start
        game.play("C")  # sows into D, E, F and the store S
        board.set_counts(game.position.pits)
        assert wait_until(lambda: len(runtime.session.game.moves) == 1, 20), runtime.session.state()["verdict"]
        assert wait_until(lambda: load_calibration(board_file).sensors.pits[6].evidence > 0, 20, READ_EVERY)
        learned = load_calibration(board_file).sensors
        assert learned.pits[6].gain != sensors().pits[6].gain
        # Fitted from 3 frames of the start (evidence 3 x 4^2 = 48); then 5 frames of each confirmed
        # position, once per position however often the dashboard state is published: A held 4
        # seeds in both (+80 twice), C in the first only, the store S 1 seed in the second.
        assert [learned.pits[i].evidence for i in (0, 2, 6)] == [48 + 2 * 80, 48 + 80, 5]
        assert runtime.sensors.calibration.to_json() == learned.to_json()


def test_sensors_learned_with_fewer_seeds_read_every_seed_of_the_game_played(tmp_path, board_file):
    """Sensors that read at most 3 seeds a pit (learned with fewer seeds, or edited) read Kalah's start
    of 4 a house as 3, status ok, and the referee waited for seeds in a hand for ever (an audit,
    2026-12-07): a run reads counts up to all the seeds of its game, and of a new game of more."""
    save_sensors(board_file, replace(sensors(), max_count=3))
    game = Game("kalah")
    with running_on_sensors(tmp_path, board_file, game) as (runtime, _):
        assert runtime.sensors.calibration.max_count == 48
        assert wait_until(lambda: runtime.session.state()["verdict"]["kind"] == "unchanged", 20), \
            runtime.session.state()["verdict"]
        runtime.sensors.confirmed({"game": {**runtime.session.state()["game"], "seeds": 72}})  # Kalah of 6 seeds a house
        assert runtime.sensors.calibration.max_count == 72


def test_a_save_that_fails_does_not_stop_learning_and_another_board_at_the_same_ply_is_learned(caplog):
    """The learner keeps what it learned when the file cannot be written (and saves it with the
    next position); after a takeback, a different move reaches the same ply with a board of its
    own, which is news to learn from, while the same board again is not."""
    from pitwatch.fusion import Fusion
    from pitwatch.hub import Hub
    from pitwatch.livesources import LearningSensors

    saved = []

    def save(calibration):
        saved.append(calibration)
        if len(saved) == 1:
            raise OSError(errno.ENOSPC, "No space left on device", "sensors.json")

    def state(game):
        return {"verdict": {"kind": "move", "by": "referee"},
                "game": {"id": 1, "seeds": 48, "moves": [m.text for m in game.moves],
                         "position": {"pits": dict(zip(LABELS, game.position.pits))}}}

    played_c, played_d = Game("kalah"), Game("kalah")
    played_c.play("C")
    played_d.play("D")
    with EmulatedBoard() as board:
        source = LearningSensors(board.port, LABELS, Fusion(LABELS, {"sensors": 1.0}), sensors(), Hub(), save)
        source.start()
        try:
            for game in (played_c, played_d, played_d):
                board.set_counts(game.position.pits)
                time.sleep(0.2)  # the frames of this board have come in
                source.confirmed(state(game))
        finally:
            source.stop()
    assert len(saved) == 2, "C's board (save failed) and D's board, each once"
    assert "the learned sensor calibration could not be saved: sensors.json: No space left on device" in caplog.text
    assert saved[1].pits[6].evidence == 2 * 5, "the store learned from both boards, the first kept in memory"


def test_frames_of_another_position_are_not_learned_from():
    """The learner takes its frames just after the referee confirmed a position: if hands have moved
    seeds meanwhile, the frames are not of that position and must not teach anything."""
    from firmware_bridge.emulator import SensorModel, adc_value
    from pitwatch.livesources import shows

    def frame(counts):
        return [adc_value(SensorModel().millivolts(i, n)) for i, n in enumerate(counts)]

    after = Game("kalah")
    after.play("C")
    assert shows([frame(START)] * 3, START, sensors())
    assert not shows([frame(START), frame(after.position.pits)], START, sensors())
    assert not shows([frame(after.position.pits)] * 3, START, sensors())
