"""End to end: a player clicks the corners of a board without markers in real headless Chromium.

The session is put together as ``pitwatch run`` does (Runtime, fusion, camera
loop, board reader, calibration file, dashboard server), with one stand-in:
the camera's pictures come from the renderer (``markerless``: a board with no
markers, nudged since it was calibrated with ``--corners``) instead of a
device. The browser is shown the picture smaller than the camera's 1280 x 720,
so every click has to be converted from displayed to camera pixels.
"""

from __future__ import annotations

import json
import math
import urllib.request

import pytest
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.by import By

import markerless
from calibration.calibfile import load_calibration, save_calibration
from pitwatch import config as cfg
from pitwatch.livesources import live_camera
from pitwatch.runtime import Runtime, source_weights
from pitwatch_browser import as_phone, chromium, wait_for
from vision.camera import Frame
from vision.nudge import BOARD_MOVED

CLICK_TOLERANCE_PX = 2.0  # a click lands on a whole CSS pixel: about 1.3 camera pixels here, plus rounding


@pytest.fixture
def live_run(tmp_path):
    config = cfg.load(tmp_path / "none.toml", [
        f"recorder.database={tmp_path / 'games.sqlite'}", "web.port=0", "camera.still_frames=2",
        "session.settle_seconds=0.1",
    ])
    runtime = Runtime(config)
    runtime.start_session()
    runtime.session.fixed_board = runtime.session.game.variant.layout.labels  # one board watched, as pitwatch run does
    fusion = runtime.use_fusion(source_weights(camera=True, sensors=False))
    path = tmp_path / "board.json"
    save_calibration(markerless.calibration(), path)
    frame = markerless.moved_frame()
    runtime.camera, runtime.corners = live_camera(lambda: Frame(frame, "ok", 0.0, 1), load_calibration(path), path, config, fusion,
                                                  runtime.frames)
    runtime.camera.period = 0.1  # a 10 fps camera: the machine is shared
    url = runtime.serve()
    runtime.camera.start()
    runtime.start()
    yield runtime, url, path
    runtime.stop()


@pytest.fixture
def browser(tmp_path):
    driver = chromium(tmp_path / "chromium-profile", width=1000, height=1000)
    yield driver
    driver.quit()


def state(url: str) -> dict:
    return json.loads(urllib.request.urlopen(url + "api/state", timeout=5).read())


def click_camera_pixel(browser, x: float, y: float) -> None:
    """A real mouse click where camera pixel (x, y) is shown on the page, whatever the picture's size."""
    box = browser.execute_script("""
        const img = document.getElementById('corner-picture');
        const r = img.getBoundingClientRect();
        return {left: r.left, top: r.top, width: r.width, height: r.height, w: img.naturalWidth, h: img.naturalHeight};""")
    actions = ActionBuilder(browser)
    actions.pointer_action.move_to_location(round(box["left"] + x * box["width"] / box["w"]),
                                            round(box["top"] + y * box["height"] / box["h"]))
    actions.pointer_action.click()
    actions.perform()


def drawn_points(browser) -> list[list[float]]:
    return browser.execute_script(
        "return [...document.querySelectorAll('#corner-marks g.point circle')]"
        ".map(c => [Number(c.getAttribute('cx')), Number(c.getAttribute('cy'))])")


def text(browser, element_id: str) -> str:
    return browser.find_element(By.ID, element_id).text


def test_clicking_the_four_corners_makes_the_camera_find_the_board(live_run, browser):
    runtime, url, path = live_run
    browser.get(url)
    browser.find_element(By.ID, "link-corners").click()  # reached from the camera view
    wait_for(lambda: text(browser, "corner-prompt").startswith("Click corner 1: near-left"), what="the camera's picture")
    wait_for(lambda: text(browser, "camera-status") == BOARD_MOVED, what="the stale corners' status")
    assert state(url)["verdict"]["kind"] == "waiting"
    browser.execute_script("document.querySelector('.corner-stage').scrollIntoView({block: 'center'})")
    shown = browser.find_element(By.ID, "corner-picture").size["width"]
    assert 600 < shown < 1100, f"the picture is shown {shown} px wide: the test must convert, not copy, pixels"

    click_camera_pixel(browser, 640, 360)  # a slip: undo it
    assert len(drawn_points(browser)) == 1
    browser.find_element(By.ID, "btn-undo").click()
    assert drawn_points(browser) == []

    truth = markerless.true_corners(markerless.MOVED)
    for k, (x, y) in enumerate(truth):
        assert browser.find_element(By.ID, "btn-confirm").get_attribute("disabled") is not None
        click_camera_pixel(browser, x, y)
        assert len(drawn_points(browser)) == k + 1
    for (x, y), (cx, cy) in zip(truth, drawn_points(browser)):
        assert math.dist((x, y), (cx, cy)) < CLICK_TOLERANCE_PX, f"clicked {x:.1f},{y:.1f}, drawn at {cx},{cy}"
    assert text(browser, "corner-prompt").startswith("All four corners are clicked")
    numbers = browser.execute_script("return [...document.querySelectorAll('#corner-marks g.point text:not(.name)')].map(t => t.textContent)")
    assert numbers == ["1", "2", "3", "4"]

    browser.find_element(By.ID, "btn-confirm").click()
    wait_for(lambda: text(browser, "corner-message").startswith(f"Saved in {path}"), what="the corners saved")
    saved = load_calibration(path).corners
    for k, (x, y) in enumerate(truth):
        assert math.dist((x, y), saved[2 * k:2 * k + 2]) < CLICK_TOLERANCE_PX
    wait_for(lambda: text(browser, "camera-status") == "ok", what="the board found from the clicked corners")
    wait_for(lambda: state(url)["verdict"]["kind"] == "unchanged", what="the referee judging the board read")
    browser.get(url)
    wait_for(lambda: "The board matches the game" in text(browser, "banner"), what="the dashboard's banner")


def test_the_new_game_dialog_offers_only_the_variants_of_the_board_being_watched(live_run, browser):
    _, url, _ = live_run
    browser.get(url)
    browser.find_element(By.ID, "btn-new").click()
    offered = wait_for(lambda: browser.execute_script(
        "const opts = [...document.querySelectorAll('#ng-variant option')];"
        "return opts.length && opts.map(o => [o.value, o.disabled, o.textContent]);"), what="the variants offered")
    assert [name for name, disabled, _ in offered if not disabled] == ["kalah", "kalah-3", "egyptian", "ethiopian", "nigerian"]
    assert ["oware", True, "oware (a 2x6 board)"] in offered


def test_the_corners_are_forgotten_for_the_markers_only_once_the_player_confirms(live_run, browser):
    """On a board without markers the clicked corners are all that reads it: a slip must not lose them.
    (On a phone, the saved file's long path wraps rather than widen the page.)"""
    runtime, url, path = live_run
    truth = [list(point) for point in markerless.true_corners(markerless.MOVED)]
    as_phone(browser)
    browser.get(url + "camera/corners")
    csrf = browser.execute_script("return document.querySelector('meta[name=\"csrf-token\"]').content")
    request = urllib.request.Request(url + "api/camera/corners", data=json.dumps({"corners": truth}).encode(),
                                     headers={"Content-Type": "application/json", "X-CSRF-Token": csrf})
    urllib.request.urlopen(request, timeout=10).read()
    markers = wait_for(lambda: (button := browser.find_element(By.ID, "btn-markers")).is_displayed() and button,
                       what="the button back to the markers")
    markers.click()
    asked = browser.switch_to.alert
    assert str(path) in asked.text and "forgotten" in asked.text
    asked.dismiss()
    assert load_calibration(path).corners is not None
    assert json.loads(urllib.request.urlopen(url + "api/camera/corners", timeout=5).read())["corners"] is not None
    markers.click()
    browser.switch_to.alert.accept()
    wait_for(lambda: text(browser, "corner-message").startswith(f"Saved in {path}"), what="the markers saved")
    assert load_calibration(path).corners is None
    assert browser.execute_script("return document.documentElement.scrollWidth <= document.documentElement.clientWidth")
