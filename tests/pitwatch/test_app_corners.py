"""Board corners: the outline check, the calibration file update, and the live camera using them.

The camera is the real loop (``CameraSource``) with the real board reader,
stepped by hand over a rendered board without markers (see ``markerless``).
"""

from __future__ import annotations

import json
import threading
import time

import cv2
import pytest

import markerless
from apphelpers import configured_camera
from calibration.calibfile import CalibrationError, load_calibration, save_calibration, save_corners
from network_camera import NumberedCamera
from pitwatch import config as cfg
from calibration.outline import CornersError, check_outline
from pitwatch.corners import CornersUnavailable
from pitwatch.livesources import live_camera
from pitwatch.runtime import Runtime
from vision.camera import Frame
from vision.nudge import BOARD_MOVED
from waiting import wait_until


SIZE = (1280, 720)
GOOD = [[160.0, 460.0], [1180.0, 430.0], [1100.0, 250.0], [215.0, 275.0]]


def test_a_board_seen_from_south_passes_as_it_was_clicked():
    assert check_outline(GOOD, SIZE) == [tuple(p) for p in GOOD]
    assert check_outline([[0, 720], [1280, 720], [1280, 0], [0, 0]], SIZE)  # the whole picture, edges included


@pytest.mark.parametrize("corners, problem", [
    (None, "expected 4 points [x, y] (near-left, near-right, far-right, far-left), got NoneType"),
    (GOOD[:3], "expected 4 points [x, y] (near-left, near-right, far-right, far-left), got 3 points"),
    (GOOD + [[1, 1]], "got 5 points"),
    ([GOOD[0], [1180.0], GOOD[2], GOOD[3]], "corners[1] (near-right): expected [x, y], two numbers in camera pixels, got [1180.0]"),
    ([GOOD[0], GOOD[1], ["1100", 250], GOOD[3]], "corners[2] (far-right): expected [x, y]"),
    ([GOOD[0], GOOD[1], GOOD[2], [True, 275]], "corners[3] (far-left): expected [x, y]"),
    ([[160.0, float("nan")], GOOD[1], GOOD[2], GOOD[3]], "corners[0] (near-left): expected [x, y]"),
    ([GOOD[0], [1300.0, 430.0], GOOD[2], GOOD[3]], "corners[1] (near-right): (1300, 430) lies outside the 1280 x 720 camera picture"),
    ([GOOD[0], GOOD[1], GOOD[2], [-4.0, 275.0]], "corners[3] (far-left): (-4, 275) lies outside"),
    ([GOOD[0], GOOD[1], [1180.0, 425.0], GOOD[3]], "near-right and far-right are only 5 px apart"),
    ([GOOD[0], GOOD[1], [1140.0, 340.0], GOOD[2]], "almost straight or folded back at far-right"),
    ([GOOD[0], GOOD[1], GOOD[3], GOOD[2]], "the outline crosses itself or bends inwards"),
    ([[200, 600], [1000, 600], [500, 450], [200, 200]], "the outline crosses itself or bends inwards"),
    ([GOOD[0], GOOD[3], GOOD[2], GOOD[1]], "go round clockwise on the picture"),
    ([GOOD[2], GOOD[3], GOOD[0], GOOD[1]], "the first two points must be the near side"),
    ([GOOD[1], GOOD[2], GOOD[3], GOOD[0]], "the first two points must be the near side"),
])
def test_corners_that_cannot_be_a_board_are_refused_naming_the_problem(corners, problem):
    with pytest.raises(CornersError) as error:
        check_outline(corners, SIZE)
    assert problem in str(error.value)


def test_saving_corners_changes_only_the_corners_and_their_picture_size(tmp_path):
    path = tmp_path / "board.json"
    save_calibration(markerless.calibration(), path)
    before = json.loads(path.read_text())
    assert before["corners_picture"] == [1280, 720]  # calibrated with --corners on 1280 x 720 pictures
    save_corners(path, [100, 1000, 1800, 1000, 1600, 100, 300, 100], (1920, 1080))
    after = json.loads(path.read_text())
    assert after.pop("corners") == [100.0, 1000.0, 1800.0, 1000.0, 1600.0, 100.0, 300.0, 100.0]
    assert after.pop("corners_picture") == [1920, 1080]
    before.pop("corners"), before.pop("corners_picture")
    assert after == before
    saved = load_calibration(path)
    assert saved.corners == (100.0, 1000.0, 1800.0, 1000.0, 1600.0, 100.0, 300.0, 100.0)
    assert saved.corners_picture == (1920, 1080)
    save_corners(path, None)
    assert load_calibration(path).corners is None and load_calibration(path).corners_picture is None
    assert [p.name for p in tmp_path.iterdir()] == ["board.json"]  # no temporary file left behind


def test_a_damaged_calibration_file_is_named_and_left_alone(tmp_path):
    path = tmp_path / "board.json"
    path.write_text('{"format": "pitwatch-calibration", "version": 1, "board": "2x6+stores"')
    with pytest.raises(CalibrationError, match=r"board\.json: not JSON"):
        save_corners(path, [1, 2, 3, 4, 5, 6, 7, 8])
    assert path.read_text().endswith('"2x6+stores"')


@pytest.fixture
def live(tmp_path):
    """The live camera of `pitwatch run` over a board without markers, nudged since it was calibrated."""
    config = cfg.load(tmp_path / "none.toml", [f"recorder.database={tmp_path / 'games.sqlite'}", "camera.still_frames=2"])
    runtime = Runtime(config)
    runtime.start_session()
    fusion = runtime.use_fusion({"camera": 1.0})
    path = tmp_path / "board.json"
    save_calibration(markerless.calibration(), path)
    frame = markerless.moved_frame()
    camera, corners = live_camera(lambda: Frame(frame, "ok", 0.0, 1), load_calibration(path), path, config, fusion, runtime.frames)
    yield camera, corners, path
    runtime.stop()


def test_clicked_corners_are_read_from_the_next_frame_and_saved(live):
    camera, corners, path = live
    assert corners.state()["frame"] is None
    with pytest.raises(CornersUnavailable, match="has not delivered a picture yet"):
        corners.use(markerless.true_corners(markerless.MOVED))
    for _ in range(3):
        camera.step()
    assert camera.status == BOARD_MOVED  # the stale corners no longer say where the pits are
    assert camera.fusion.fused(time.monotonic()) is None

    clicked = markerless.true_corners(markerless.MOVED)
    state = corners.use(clicked)
    assert state["frame"] == {"width": 1280, "height": 720}
    assert state["corners"] == [[round(x, 1), round(y, 1)] for x, y in clicked]
    assert load_calibration(path).corners == tuple(round(v, 1) for p in clicked for v in p)  # survives a restart
    assert load_calibration(path).corners_picture == (1280, 720)  # the picture they were clicked on
    for _ in range(3):
        camera.step()
    assert camera.status == "ok"
    reading = camera.fusion.fused(time.monotonic())
    assert reading is not None and reading.most_likely_counts() == markerless.start()


def test_going_back_to_the_markers_is_saved_too(live):
    camera, corners, path = live
    camera.step()
    assert corners.use(None)["corners"] is None
    assert load_calibration(path).corners is None
    camera.step()
    assert camera.status.startswith("board not found: markers missing")  # this board has none


def test_corners_that_cannot_be_saved_change_nothing(live):
    camera, corners, path = live
    camera.step()
    (path.parent / "board.json.tmp").mkdir()  # the temporary file cannot be written
    with pytest.raises(CornersUnavailable, match=r"not saved to .*board\.json .*nothing changed"):
        corners.use(markerless.true_corners(markerless.MOVED))
    assert corners.calibration.corners == markerless.calibration().corners
    assert load_calibration(path).corners == markerless.calibration().corners
    camera.step()
    assert camera.status == BOARD_MOVED  # still the old corners


def test_the_configured_camera_comes_with_its_corners_and_their_file(tmp_path):
    image, path = tmp_path / "table.png", tmp_path / "board.json"
    cv2.imwrite(str(image), markerless.moved_frame())
    save_calibration(markerless.calibration(), path)
    with configured_camera(tmp_path, image, path) as (camera, corners, _):
        camera.step()
        assert corners.state()["calibration"] == str(path) and camera.status == BOARD_MOVED
        corners.use(markerless.true_corners(markerless.MOVED))
        assert load_calibration(path).corners == corners.calibration.corners != markerless.calibration().corners


def test_a_network_camera_is_read_and_let_go_when_its_loop_stops(tmp_path):
    """``camera.source`` an MJPEG stream (a real one, over HTTP): the camera loop reads its frames
    (160 x 120 pictures, where the calibrated corners, pixels of 1280 x 720 ones, cannot be:
    said so), and stopping the loop stops the thread taking them."""
    path = tmp_path / "board.json"
    save_calibration(markerless.calibration(), path)
    with NumberedCamera() as network, configured_camera(tmp_path, network.url, path) as (camera, _, _):
        camera.start()
        assert wait_until(lambda: camera.frames_read >= 3, 15), camera.status
        assert camera.status.startswith("the board's corners were set on a 1280 x 720 picture, this one is 160 x 120: "
                                        "set them again"), camera.status
        camera.stop()
        assert not [t for t in threading.enumerate() if t.name == f"grabber {network.url}"]
