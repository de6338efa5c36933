"""The board-corner page and API over the real live camera loop and a calibration file on tmp_path.

The camera is stepped by hand over a rendered board without markers that was
nudged since it was calibrated (``markerless``), so the corners saved in the
file are stale and the clicked ones must be put to work.
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

import markerless
from calibration.calibfile import load_calibration, save_calibration
from pitwatch import config as cfg
from pitwatch.fusion import Fusion
from pitwatch.hub import FrameFeed
from pitwatch.livesources import live_camera
from vision.camera import Frame
from vision.nudge import BOARD_MOVED
from web import create_app

TRUE = [[round(x, 1), round(y, 1)] for x, y in markerless.true_corners(markerless.MOVED)]


@pytest.fixture
def camera(tmp_path, session):
    config = cfg.load(tmp_path / "none.toml", ["camera.still_frames=2"])
    path = tmp_path / "board.json"
    save_calibration(markerless.calibration(), path)
    fusion = Fusion(session.game.variant.layout.labels, {"camera": 1.0})
    frame = markerless.moved_frame()
    source, corners = live_camera(lambda: Frame(frame, "ok", 0.0, 1), load_calibration(path), path, config, fusion, FrameFeed())
    source.step()
    return source, corners, path


@pytest.fixture
def app(session, camera):
    source, corners, _ = camera
    return create_app(session, frames=source.frames, corners=corners)


def post(client, csrf, body):
    return client.post("/api/camera/corners", data=json.dumps(body), headers=csrf, content_type="application/json")


def test_the_state_says_the_picture_size_the_corners_in_use_and_the_file(client, camera):
    _, _, path = camera
    state = client.get("/api/camera/corners").get_json()
    assert state["frame"] == {"width": 1280, "height": 720}
    stale = markerless.calibration().corners
    assert state["corners"] == [[stale[i], stale[i + 1]] for i in range(0, 8, 2)]
    assert state["calibration"] == str(path)
    assert state["status"] == BOARD_MOVED


def test_the_picture_is_the_camera_frame_at_full_size_without_overlay(client):
    answer = client.get("/camera/picture.jpg")
    assert answer.status_code == 200 and answer.mimetype == "image/jpeg"
    image = cv2.imdecode(np.frombuffer(answer.data, np.uint8), cv2.IMREAD_COLOR)
    assert image.shape == (720, 1280, 3)
    difference = cv2.absdiff(image, markerless.moved_frame())
    assert float(difference.mean()) < 3.0  # the frame itself: no pit outlines, no status text drawn on it


def test_before_the_first_frame_there_is_no_picture_and_no_size_to_check_corners_against(tmp_path, session):
    path = tmp_path / "board.json"
    save_calibration(markerless.calibration(), path)
    config = cfg.load(tmp_path / "none.toml", [])
    fusion = Fusion(session.game.variant.layout.labels, {"camera": 1.0})
    no_picture = Frame(None, "camera lost: camera 0 does not answer", 0.0, 0)
    source, corners = live_camera(lambda: no_picture, load_calibration(path), path, config, fusion, FrameFeed())
    client = create_app(session, frames=source.frames, corners=corners).test_client()
    assert client.get("/api/camera/corners").get_json()["frame"] is None
    picture = client.get("/camera/picture.jpg")
    assert picture.status_code == 404 and "has not delivered a frame yet" in picture.get_data(as_text=True)
    answer = post(client, {"X-CSRF-Token": client.application.extensions["pitwatch"].guard.csrf}, {"corners": TRUE})
    assert answer.status_code == 409 and "has not delivered a picture yet" in answer.get_json()["error"]


def test_good_corners_are_used_from_the_next_frame_and_saved(client, csrf, camera):
    source, _, path = camera
    answer = post(client, csrf, {"corners": TRUE})
    assert answer.status_code == 200, answer.get_json()
    body = answer.get_json()
    assert body["ok"] is True and body["corners"] == TRUE and body["calibration"] == str(path)
    assert load_calibration(path).corners == tuple(v for point in TRUE for v in point)
    source.step()
    assert source.status == "ok"
    assert client.get("/api/camera/corners").get_json()["status"] == "ok"


def test_null_corners_go_back_to_the_markers(client, csrf, camera):
    source, _, path = camera
    assert post(client, csrf, {"corners": None}).get_json()["corners"] is None
    assert load_calibration(path).corners is None
    source.step()
    assert source.status.startswith("board not found: markers missing")


@pytest.mark.parametrize("body, problem", [
    ({}, "missing field 'corners'"),
    ({"corners": "160,460,1180,430"}, "corners: expected 4 points [x, y] (near-left, near-right, far-right, far-left), got str"),
    ({"corners": TRUE[:3]}, "got 3 points"),
    ({"corners": [TRUE[0], TRUE[1], TRUE[2], [215]]}, "corners[3] (far-left): expected [x, y], two numbers in camera pixels"),
    ({"corners": [TRUE[0], [1281, 430], TRUE[2], TRUE[3]]}, "corners[1] (near-right): (1281, 430) lies outside the 1280 x 720 camera picture"),
    ({"corners": [TRUE[0], TRUE[0], TRUE[2], TRUE[3]]}, "near-left and near-right are only 0 px apart"),
    ({"corners": [TRUE[0], TRUE[1], TRUE[3], TRUE[2]]}, "the outline crosses itself or bends inwards"),
    ({"corners": [TRUE[0], TRUE[3], TRUE[2], TRUE[1]]}, "go round clockwise on the picture"),
    ({"corners": [TRUE[2], TRUE[3], TRUE[0], TRUE[1]]}, "the first two points must be the near side"),
    ({"corners": [[10 ** 400, 0], TRUE[1], TRUE[2], TRUE[3]]},  # a server error once: too large for a float
     "corners[0] (near-left): expected [x, y], two numbers in camera pixels, got [100000000000000000...000"),
])
def test_a_bad_request_gets_a_400_naming_the_problem_and_changes_nothing(client, csrf, camera, body, problem):
    source, _, path = camera
    before = path.read_text()
    answer = post(client, csrf, body)
    assert answer.status_code == 400
    assert problem in answer.get_json()["error"]
    assert path.read_text() == before
    source.step()
    assert source.status == BOARD_MOVED  # still the saved corners


def test_corners_are_a_control_action(client, csrf):
    assert client.post("/api/camera/corners", json={"corners": TRUE}).status_code == 403  # no CSRF token
    answer = client.post("/api/camera/corners", data="corners", headers=csrf, content_type="text/plain")
    assert answer.status_code == 415


def test_corners_that_cannot_be_saved_get_a_409(client, csrf, camera):
    _, _, path = camera
    (path.parent / "board.json.tmp").mkdir()
    answer = post(client, csrf, {"corners": TRUE})
    assert answer.status_code == 409
    assert "were not saved to" in answer.get_json()["error"] and "nothing changed" in answer.get_json()["error"]


def test_the_page_is_reached_from_the_camera_view(client):
    assert 'href="/camera/corners"' in client.get("/").get_data(as_text=True)
    page = client.get("/camera/corners").get_data(as_text=True)
    assert 'id="corner-picture"' in page and "corners.js" in page


def test_without_a_camera_the_page_and_the_api_say_so(session):
    client = create_app(session).test_client()
    csrf = {"X-CSRF-Token": client.application.extensions["pitwatch"].guard.csrf}
    assert 'href="/camera/corners"' not in client.get("/").get_data(as_text=True)
    page = client.get("/camera/corners")
    assert page.status_code == 200
    assert "No camera is configured" in page.get_data(as_text=True) and "corners.js" not in page.get_data(as_text=True)
    for answer in (client.get("/api/camera/corners"), post(client, csrf, {"corners": TRUE})):
        assert answer.status_code == 404
        assert answer.get_json()["error"].startswith("no camera is configured: set camera.source and camera.calibration")
    picture = client.get("/camera/picture.jpg")
    assert picture.status_code == 404 and "no camera is configured" in picture.get_data(as_text=True)


def test_the_demo_camera_has_no_corners_to_set(session):
    client = create_app(session, frames=FrameFeed(), demo=SimpleNamespace()).test_client()
    assert "finds its board by its four markers" in client.get("/camera/corners").get_data(as_text=True)
    answer = client.get("/api/camera/corners")
    assert answer.status_code == 404 and "the demo's virtual camera" in answer.get_json()["error"]
