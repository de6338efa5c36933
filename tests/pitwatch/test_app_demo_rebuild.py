"""The demo's eyes set up again for each new board: learning the sensors never races the demo's own
moves, and an error while setting them up is said on the dashboard and tried again."""

from __future__ import annotations

import time

import pytest

from pitwatch import config as cfg
from pitwatch.demo import REBUILD_RETRY_SECONDS, DemoSensors, build_demo
from pitwatch.sources import SensorSource
from waiting import wait_until


@pytest.fixture
def sensors_demo(tmp_path):
    """A demo with the emulated microcontroller alone; ``start`` starts it, players and judging."""
    def build(*overrides: str):
        config = cfg.load(tmp_path / "none.toml", [f"demo.database={tmp_path / 'demo.sqlite'}", "demo.camera=false",
                                                   "demo.seed=4", "session.settle_seconds=0.1", *overrides])
        runtime, demo, _ = build_demo(config)
        built.append(runtime)
        return runtime, demo

    built = []
    yield build
    for runtime in built:
        runtime.stop()


def reads(sensors: DemoSensors, counts) -> bool:
    """Whether the learned calibration reads the emulated board's next frames as ``counts``."""
    frames = sensors.source.raw_frames(3)
    return len(frames) == 3 and all(
        [sensors.source.calibration.to_reading(frame).pits[label].most_likely for label in sensors.source.labels]
        == list(counts) for frame in frames)


def test_a_move_made_while_the_sensors_learn_does_not_reach_what_they_learn_from(sensors_demo, monkeypatch):
    """The random player moved seeds while the sensors were learning the empty board: the empty
    board read as full, the fit refused it ('with 3 seeds it reads 75, no more than empty'), and the
    rebuild thread died. Now the sensors feel only the boards they learn from, then the board as it
    is after the move."""
    _, demo = sensors_demo()
    sensors, board = demo.sensors, demo.board
    raw_frames = SensorSource.raw_frames
    moved = []

    def frames_while_the_player_moves(source, count, timeout=5.0):
        if not moved:  # the first frames the sensors learn from: a move lands just then
            board.play(board.game.legal_moves()[0])
            moved.append(board.position)
            time.sleep(0.15)  # the emulator reports it, if it reaches it
        return raw_frames(source, count, timeout)

    monkeypatch.setattr(SensorSource, "raw_frames", frames_while_the_player_moves)
    sensors.connect(board.position)  # before: CalibrationError
    monkeypatch.setattr(SensorSource, "raw_frames", raw_frames)
    assert moved and sensors.source.calibration is not None
    assert wait_until(lambda: reads(sensors, moved[0].pits), timeout=5)  # learned right, and feels the board now


def test_a_failed_rebuild_is_said_and_tried_again_and_the_thread_lives_on(sensors_demo, monkeypatch):
    """One error used to end the rebuild thread: the sensors then said 'waiting' for good, even after
    later new games. Now the dashboard says what failed and it is tried again."""
    runtime, demo = sensors_demo("demo.player=clicks")
    demo.start()
    runtime.start()
    connect, failures = DemoSensors.connect, []

    def fails_once(sensors, position):
        if not failures:
            failures.append(position.variant.name)
            raise RuntimeError("the emulator fell off the table")
        connect(sensors, position)

    monkeypatch.setattr(DemoSensors, "connect", fails_once)
    runtime.session.new_game("oware", {}, "Ann", "Bob")
    said = wait_until(lambda: next((status for status in [runtime.session.state()["sources"].get("sensors", "")]
                                    if status.startswith("setting up")), None), timeout=10)
    assert said == (f"setting up for the oware board failed: the emulator fell off the table; trying again in "
                    f"{REBUILD_RETRY_SECONDS:g} s"), runtime.session.state()["sources"]
    oware = runtime.session.game.variant.layout.labels
    assert wait_until(lambda: demo.sensors.source.labels == oware and demo.sensors.source.calibration is not None,
                      timeout=REBUILD_RETRY_SECONDS + 10)
    assert failures == ["oware"] and demo.rebuilder._thread.is_alive()
    assert wait_until(lambda: runtime.session.state()["sources"]["sensors"] == "ok", timeout=10)
    runtime.session.new_game("bao-kenya", {}, "Ann", "Bob")  # and the next board too
    bao = runtime.session.game.variant.layout.labels
    assert wait_until(lambda: demo.sensors.source.labels == bao and demo.sensors.source.calibration is not None,
                      timeout=10)


def test_new_games_chosen_one_after_another_leave_the_sensors_refereeing_the_last(sensors_demo):
    """The reviewer's case: five new games of four boards a moment apart, the random player moving
    fast. The sensors end up learned for the last board and the referee judges its moves from them."""
    runtime, demo = sensors_demo("demo.move_seconds=0.1")
    demo.start()
    runtime.start()
    for variant in ("oware", "kalah", "pass-it-on", "bao-kenya", "kalah"):
        runtime.session.new_game(variant, {}, "Ann", "Bob")
        time.sleep(0.3)
    kalah = runtime.session.game.variant.layout.labels
    assert wait_until(lambda: demo.sensors.source.labels == kalah and demo.sensors.source.calibration is not None,
                      timeout=20)
    assert wait_until(lambda: runtime.session.state()["sources"]["sensors"] == "ok", timeout=10)
    judged = wait_until(lambda: [verdict for verdict in [runtime.session.state()["verdict"]]
                                 if verdict["kind"] == "move" and verdict.get("by") != "players"], timeout=20)
    assert judged, runtime.session.state()["verdict"]
