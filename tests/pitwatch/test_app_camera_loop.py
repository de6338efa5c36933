"""The camera loop of `pitwatch run` over the synthetic camera: the real reader, gate and fusion.

Once the board has been found still and its Reading given to the fusion, later frames of the
still board are located and checked for motion and hands but not counted again; a move or a
hand is still seen at once, and counting starts again.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import replace
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from apphelpers import configured_camera
from calibration.calibfile import load_calibration, save_calibration
from pitwatch import config as cfg
from pitwatch.livesources import live_camera
from pitwatch.runtime import Runtime
from rules import Game
from vision.counter import SeedCounter
from vision.render import project
from vision.synthetic import SyntheticCamera


@pytest.fixture
def loop(live):
    """(camera loop, synthetic camera, game, number of times the seed counter has run)."""
    return live[:4]


@pytest.fixture
def live(tmp_path, monkeypatch):
    """(camera loop, synthetic camera, game, windows counted, the runtime judging the fused Readings)."""
    windows_counted = []
    original = SeedCounter.read

    def counting(self, kind, windows, out_of_focus=False):
        windows_counted.append(len(windows))
        return original(self, kind, windows, out_of_focus)
    monkeypatch.setattr(SeedCounter, "read", counting)
    game = Game("kalah")
    synthetic = SyntheticCamera("kalah", lambda: game.position, 3)
    path = tmp_path / "board.json"
    save_calibration(synthetic.calibration(), path)
    config = cfg.load(tmp_path / "none.toml", [f"recorder.database={tmp_path / 'games.sqlite'}", "camera.still_frames=2"])
    runtime = Runtime(config)
    runtime.start_session()
    fusion = runtime.use_fusion({"camera": 1.0})
    camera, _ = live_camera(synthetic.read, load_calibration(path), path, config, fusion, runtime.frames)
    yield camera, synthetic, game, windows_counted, runtime
    runtime.stop()


def fused_counts(camera) -> tuple[int, ...] | None:
    reading = camera.fusion.fused(time.monotonic())
    return None if reading is None else tuple(reading.most_likely_counts().values())


def test_a_still_board_is_counted_until_its_reading_is_given_then_only_watched(loop):
    camera, synthetic, game, windows_counted = loop
    for _ in range(2):
        camera.step()
    assert fused_counts(camera) == tuple(game.position.pits)
    counted = len(windows_counted)
    assert counted >= 2  # pits and stores, in each of the two still frames
    for _ in range(4):
        camera.step()
        assert camera.status == "ok" and fused_counts(camera) == tuple(game.position.pits)
    assert len(windows_counted) == counted, "a still board whose Reading was given was counted again"

    game.play("C")  # the players sow: the board changes, and is counted again
    for _ in range(3):
        camera.step()
    assert len(windows_counted) > counted
    assert fused_counts(camera) == tuple(game.position.pits)


def test_a_hand_over_a_still_board_is_seen_at_once(loop):
    camera, synthetic, game, windows_counted = loop
    for _ in range(3):
        camera.step()
    counted = len(windows_counted)
    synthetic.hand = True
    camera.step()
    assert camera.status == "hand over board" and camera.fusion.fused(time.monotonic()) is None
    # held over the board too long, the players are told why the camera gives no reading
    assert camera.fusion.statuses(time.monotonic() + 3600)["camera"].startswith("board never still (hand over board)")
    synthetic.hand = False
    for _ in range(3):
        camera.step()
    assert len(windows_counted) > counted and fused_counts(camera) == tuple(game.position.pits)


def test_a_slow_camera_is_given_the_time_its_still_frames_take(loop, monkeypatch):
    """A camera reading a frame a second (the demo's rendered one on a busy machine) takes three
    seconds to call a sown board still: it is busy that long, not dropped as never still after
    the fusion's two seconds while the board lies still before it."""
    camera, synthetic, game, _ = loop
    clock = [0.0]
    monkeypatch.setattr("pitwatch.sources.time", SimpleNamespace(monotonic=lambda: clock[0]))

    def frame_a_second_later() -> None:
        clock[0] += 1.0
        camera.step()
    for _ in range(3):
        frame_a_second_later()
    assert camera.fusion.statuses(clock[0])["camera"] == "ok"
    game.play("C")
    frame_a_second_later()
    sown_seen_at = clock[0]
    frame_a_second_later()  # the first of the two still frames
    assert camera.fusion.statuses(sown_seen_at + 2.5) == {"camera": "busy"}
    frame_a_second_later()
    assert tuple(camera.fusion.fused(clock[0]).most_likely_counts().values()) == tuple(game.position.pits)
    # a camera that never settles is dropped all the same, once its still frames' time is out too
    synthetic.hand = True
    frame_a_second_later()
    assert camera.fusion.statuses(clock[0] + 5.1)["camera"] == "board never still (hand over board) for over 5 s"


def test_a_board_with_a_marker_under_a_cup_is_still_refereed(loop):
    """Three markers find the board: the Reading says which one it missed, and is used."""
    camera, synthetic, game, _ = loop
    corners = project(synthetic.scene, np.array(synthetic.profile.marker_corners(0)))
    (x0, y0), (x1, y1) = corners.min(axis=0).astype(int) - 8, corners.max(axis=0).astype(int) + 8
    frame_of = synthetic.frame_of

    def with_a_cup(*args, **kwargs):
        frame = frame_of(*args, **kwargs)
        frame[y0:y1, x0:x1] = (40, 80, 120)  # a cup put down on the near-left marker
        return frame
    synthetic.frame_of = with_a_cup
    game.play("C")
    for _ in range(3):
        camera.step()
    assert camera.status == "ok (marker near-left not seen)"
    assert fused_counts(camera) == tuple(game.position.pits)
    assert camera.fusion.statuses(time.monotonic())["camera"] == "ok (marker near-left not seen)"


def test_a_seed_on_the_wood_is_told_and_the_board_still_read(loop):
    """A seed rolled out of its pit: the camera says where it lies, and its Reading is given."""
    camera, synthetic, game, _ = loop
    synthetic.strays = 1
    for _ in range(3):
        camera.step()
    assert camera.status.startswith("seed on the wood by ") and camera.status.endswith(": put it where it belongs")
    assert fused_counts(camera) == tuple(game.position.pits)
    assert camera.fusion.statuses(time.monotonic())["camera"] == camera.status


def test_a_camera_giving_no_picture_says_why(tmp_path):
    """The camera's own reason reaches the players: a covered lens is not a lost camera."""
    cv2.imwrite(str(tmp_path / "covered.png"), np.zeros((720, 1280, 3), np.uint8))
    path = tmp_path / "board.json"
    save_calibration(SyntheticCamera("kalah", lambda: Game("kalah").position, 3).calibration(), path)
    with configured_camera(tmp_path, tmp_path / "covered.png", path) as (camera, _, fusion):
        camera.step()
        assert camera.status == "black frame: is the lens covered or the camera off?"
        assert fusion.fused(time.monotonic()) is None


def test_the_pits_the_camera_saw_untouched_reach_the_session(live):
    """The camera loop's Readings say which pits kept their look, through the fusion and the
    stable gate to the session, which commits the move and records it."""
    camera, synthetic, game, _, runtime = live
    for _ in range(2):
        camera.step()
    now = time.monotonic()
    runtime.judge_once(now)
    runtime.judge_once(now + 1)
    assert runtime.session.state()["verdict"]["kind"] == "unchanged"

    game.play("C")  # C lifted, D E F and South's store sown
    synthetic.hand = True
    camera.step()
    synthetic.hand = False
    for _ in range(3):
        camera.step()
    note = camera.fusion.fused(time.monotonic()).notes["still_board"]
    assert sorted(note["changed"]) == ["C", "D", "E", "F", "S"]
    assert sorted(note["kept"]) == sorted(set(game.variant.layout.labels) - {"C", "D", "E", "F", "S"})
    now = time.monotonic()
    runtime.judge_once(now)
    runtime.judge_once(now + 1)
    assert [m.text for m in runtime.session.game.moves] == ["C"]
    recorded = runtime.recorder.moves(runtime.session.game_id)[-1]
    assert recorded.text == "C"


def test_a_board_under_a_flickering_lamp_is_refereed_and_the_players_told_what_to_do(live):
    """A lamp on mains power, bands 15 % brighter and darker moving on every frame: the stillness
    gate took them for motion and no Reading was ever given; now the still board is read, and
    while the board moves the camera's status says how to stop the flicker."""
    camera, synthetic, game, _, runtime = live
    synthetic.flicker = 0.15
    for _ in range(3):
        camera.step()
    assert fused_counts(camera) == tuple(game.position.pits)
    game.play("C")
    camera.step()  # the board just moved: the gate measured the bands while it looked for motion
    status = camera.fusion.statuses(time.monotonic() + 3600)["camera"]
    assert status.startswith("board never still (moving; the light flickers in bands") and "power_line_frequency" in status
    for _ in range(3):
        camera.step()
    assert fused_counts(camera) == tuple(game.position.pits)


def test_a_camera_knocked_askew_during_play_is_told_on_the_dashboard(live):
    """Every still board says where the camera stands. The synthetic camera stands 18 degrees
    from overhead: all is well. Knocked to 35 degrees while a move is sown, the board is still
    refereed, and the next still board tells the players to raise the camera."""
    camera, synthetic, game, _, runtime = live
    camera.on_placement = runtime.session.set_camera_placement  # as `pitwatch run` and the demo wire it
    for _ in range(2):
        camera.step()
    placement = runtime.session.state()["camera_placement"]
    assert [(each["name"], each["ok"]) for each in placement] == [("camera angle", True), ("board in the picture", True)]
    assert placement[0]["said"].startswith("18 degrees from overhead")

    game.play("C")
    synthetic.scene = replace(synthetic.scene, tilt=math.radians(35))
    for _ in range(3):
        camera.step()
    assert fused_counts(camera) == tuple(game.position.pits)
    angle, scale = runtime.session.state()["camera_placement"]
    assert not angle["ok"] and re.match(r"3[4-6] degrees from overhead at the board's middle: ", angle["said"]), angle
    assert angle["said"].endswith("mount the camera higher, or nearer over the board's middle")
    assert scale["ok"]
