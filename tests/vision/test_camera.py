"""Camera sources: folders, single images, videos, devices that are not there, a live network
camera (a real MJPEG stream over HTTP, read by OpenCV's FFmpeg), the synthetic board."""

import time

import cv2
import numpy as np
import pytest
from network_camera import NumberedCamera, frame_number
from waiting import wait_until

from vision import camera
from vision.camera import (BLACK_FRAME, STREAM_TIMEOUT_MS, SourceError, first_frame, first_good_frame,
                           frame_status, is_black, names_device, open_source, settled_frame)
from vision.picture_size import DEVICE_SIZE


@pytest.fixture
def network_camera():
    with NumberedCamera() as camera:
        yield camera


def _write(path, value):
    image = np.full((48, 64, 3), value, np.uint8)
    image[10:20, 10:30] = 255 - value
    cv2.imwrite(str(path), image)


def test_folder_gives_its_images_in_name_order_with_statuses(tmp_path):
    _write(tmp_path / "b.png", 120)
    _write(tmp_path / "a.jpg", 90)
    (tmp_path / "c.png").write_bytes(b"not an image")
    cv2.imwrite(str(tmp_path / "d.png"), np.zeros((48, 64, 3), np.uint8))
    (tmp_path / "notes.txt").write_text("ignored")
    frames = list(open_source(str(tmp_path)))
    assert [f.origin.rsplit("/", 1)[-1] for f in frames] == ["a.jpg", "b.png", "c.png", "d.png"]
    assert [f.status for f in frames][:2] == ["ok", "ok"] and frames[0].ok
    assert frames[2].image is None and "cannot read image" in frames[2].status
    assert frames[3].image is None and frames[3].status.startswith("black frame: is the lens covered")


def test_a_black_frame_is_dark_and_flat_a_dim_board_is_not():
    """A covered lens gives a dark, flat picture (a little sensor noise); a board in a dim room is
    as dark on the whole but has detail, and must be read, in colour or in grey."""
    rng = np.random.default_rng(0)
    covered = np.clip(rng.normal(5, 2, (72, 128, 3)), 0, 255).astype(np.uint8)
    dim = covered.copy()
    dim[20:40, 30:90] = 60  # the board's wood, dim
    for image in (covered, cv2.cvtColor(covered, cv2.COLOR_BGR2GRAY)):
        assert is_black(image) and frame_status(image) == BLACK_FRAME
    for image in (dim, cv2.cvtColor(dim, cv2.COLOR_BGR2GRAY), np.full((72, 128, 3), 128, np.uint8)):
        assert not is_black(image) and frame_status(image) == "ok"


def test_video_file_plays_then_ends(tmp_path):
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 5, (64, 48))
    for k in range(3):
        writer.write(np.full((48, 64, 3), 60 + 40 * k, np.uint8))
    writer.release()
    source = open_source(str(path))
    frames = list(source)
    assert sum(f.ok for f in frames) == 3 and frames[-1].status == "end of video"
    source.close()
    assert source.read().status == "closed"


def test_missing_device_reports_camera_lost_without_raising():
    source = open_source("97")
    frames = [source.read() for _ in range(3)]
    assert all(f.image is None and "camera lost" in f.status for f in frames)
    source.close()


def test_a_missing_camera_is_named_before_the_players_are_asked_to_set_the_board_up():
    asked = []
    with pytest.raises(SourceError, match="camera source '97': no usable picture \\(camera lost: camera 97 does not answer\\)"):
        first_frame("97", when_live=lambda: asked.append("set the board up"))
    assert asked == []


def test_a_camera_that_answers_asks_the_players_before_its_picture_is_taken(network_camera):
    asked = []
    assert first_frame(network_camera.url, when_live=lambda: asked.append("set the board up")).ndim == 3
    assert asked == ["set the board up"]


class _Webcam:
    """Stands in for OpenCV's capture of a USB webcam, which no machine running the tests has
    (a mock, then): opens, and notes what it is asked to set, in order."""

    def __init__(self, target, *args):
        self.target, self.asked = target, []

    def isOpened(self):
        return True

    def set(self, prop, value):
        self.asked.append((prop, value))
        return True

    def release(self):
        pass


def test_a_camera_device_is_asked_for_its_picture_size_compressed_a_file_is_not(monkeypatch, tmp_path):
    """Left alone, a webcam under Linux starts at 640 x 480, where seeds are counted far worse;
    uncompressed, a USB 2 one sends 1280 x 720 at a few frames a second. So a device is asked
    for MJPG first, then the size; a video file or a stream gives what it holds."""
    monkeypatch.setattr(camera.cv2, "VideoCapture", _Webcam)
    device = camera._open_capture(0, (1920, 1080))
    assert device.asked == [(cv2.CAP_PROP_FOURCC, cv2.VideoWriter_fourcc(*"MJPG")),
                            (cv2.CAP_PROP_FRAME_WIDTH, 1920), (cv2.CAP_PROP_FRAME_HEIGHT, 1080)]
    assert camera._open_capture(0).asked[1:] == [(cv2.CAP_PROP_FRAME_WIDTH, 1280), (cv2.CAP_PROP_FRAME_HEIGHT, 720)]
    assert camera._open_capture(str(tmp_path / "game.mp4")).asked == []
    assert camera._open_capture("http://camera.local/video").asked == []


def test_a_device_source_keeps_the_size_it_is_to_ask_for():
    source = open_source("97", (1920, 1080))
    try:
        assert source.size == (1920, 1080) and DEVICE_SIZE == (1280, 720)
    finally:
        source.close()


@pytest.mark.parametrize("spec, device", [
    (0, True), ("1", True), (" 2 ", True), ("", False), ("rtsp://camera.local/live", False),
    ("http://camera.local/video", False), ("game.mp4", False), ("pictures/", False), ("synthetic:kalah", False),
])
def test_only_a_device_number_names_a_camera_device(spec, device):
    """A device is asked for a picture size, and doctor says to ask it for more; a file or a
    stream is told to record or stream more instead."""
    assert names_device(spec) is device


@pytest.mark.parametrize("spec, message", [
    ("/no/such/thing.jpg", "no such file"),
    ("synthetic:", "expected synthetic:VARIANT"),
    ("synthetic:chess", "unknown variant or board"),
    ("synthetic:kalah:x", "not a whole number"),
])
def test_bad_specs_are_named(spec, message):
    with pytest.raises(SourceError, match=message):
        open_source(spec)


def test_empty_folder_and_first_frame(tmp_path):
    with pytest.raises(SourceError, match="holds no images"):
        open_source(str(tmp_path))
    _write(tmp_path / "x.png", 100)
    assert first_frame(str(tmp_path / "x.png")).shape == (48, 64, 3)
    cv2.imwrite(str(tmp_path / "y.png"), np.zeros((8, 8, 3), np.uint8))
    with pytest.raises(SourceError, match="black frame"):
        first_frame(str(tmp_path / "y.png"))


def test_a_reader_slower_than_the_camera_gets_its_newest_frame(network_camera):
    source = open_source(network_camera.url)
    try:
        first = source.read()
        assert first.ok, first.status
        time.sleep(0.5)  # reading the board: meanwhile the camera sends some 15 frames
        frame = source.read()
        newest_sent = network_camera.sent
        assert frame.ok, frame.status
        number = frame_number(frame.image)
        assert number >= newest_sent - 2, f"frame {number} handed out when {newest_sent} was the newest"
        assert frame.index - first.index == number - frame_number(first.image)  # the camera's own frame numbers
        numbers = [number] + [frame_number(source.read().image) for _ in range(5)]
        assert numbers == sorted(set(numbers)), f"a frame handed out twice or out of order: {numbers}"
    finally:
        source.close()


def test_a_picture_for_calibration_waits_for_the_camera_s_exposure_to_settle():
    """A camera just opened brightens while its automatic exposure finds the light (here from
    grey 30 to 90 over its first 20 frames, two thirds of a second): the first picture is too
    dark to remember the board by, so calibration takes the first once ten in a row look alike."""
    with NumberedCamera(lambda number: min(90, 30 + 3 * number)) as camera:
        source = open_source(camera.url)
        try:
            first = first_good_frame(source)
            assert first.image[50, 50].mean() < 75  # still finding the light
        finally:
            source.close()
        picture = first_frame(camera.url)
    assert frame_number(picture) >= 20 and abs(picture[50, 50].mean() - 90) <= 3


def test_a_camera_that_never_settles_gives_its_newest_picture_in_time():
    """A lamp flickering against the exposure: no ten frames alike, so after ``wait`` the newest."""
    with NumberedCamera(lambda number: 60 if number % 2 else 90) as camera:
        source = open_source(camera.url)
        try:
            first = first_good_frame(source)
            started = time.monotonic()
            picture = settled_frame(source, first, wait=0.6)
            assert 0.6 <= time.monotonic() - started < 2.0 and picture.index > first.index
        finally:
            source.close()


def test_a_stream_that_hangs_is_lost_within_its_read_timeout(network_camera):
    """The server keeps the connection open and sends nothing: read() says so after a second,
    and the grabber gives the stream up at OpenCV's read timeout (STREAM_TIMEOUT_MS) rather than
    waiting on it for ever."""
    source = open_source(network_camera.url)
    try:
        assert source.read().ok
        network_camera.stalled.set()
        started = time.monotonic()
        assert wait_until(lambda: source.read().status == f"camera lost: {network_camera.url} gave no frame", 15)
        given_up = time.monotonic() - started
        assert STREAM_TIMEOUT_MS / 1000 - 1 < given_up < STREAM_TIMEOUT_MS / 1000 + 3, given_up
    finally:
        network_camera.stalled.clear()
        source.close()


def test_a_network_camera_that_goes_away_is_lost_then_found_again(network_camera):
    source = open_source(network_camera.url)
    try:
        assert source.read().ok
        network_camera.answering.clear()
        statuses = []
        assert wait_until(lambda: statuses.append(source.read().status) or statuses[-1].startswith("camera lost"), timeout=15)
        assert network_camera.url in statuses[-1]
        network_camera.answering.set()
        assert wait_until(lambda: source.read().ok, timeout=15)  # opened again within REOPEN_EVERY_S or so
    finally:
        source.close()
    assert source.read().status == "closed"
