"""Camera sources: folders, single images, videos, devices that are not there, a live network
camera (a real MJPEG stream over HTTP, read by OpenCV's FFmpeg), the synthetic board."""

import os
import struct
import subprocess
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import pytest
from network_camera import NumberedCamera, frame_number
from waiting import wait_until

from vision import camera
from vision.camera import (BLACK_FRAME, STREAM_TIMEOUT_MS, LiveCamera, SourceError, first_good_frame, frame_status,
                           is_black, names_device, settled_frame)
from vision.picture_size import DEVICE_SIZE
from vision.sources import open_source, picture_from


@pytest.fixture
def network_camera():
    with NumberedCamera() as camera:
        yield camera


def _write(path, value):
    image = np.full((48, 64, 3), value, np.uint8)
    image[10:20, 10:30] = 255 - value
    cv2.imwrite(str(path), image)


def _write_video(path, values):
    """An MJPG video of flat grey frames, one of each value."""
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 5, (64, 48))
    for value in values:
        writer.write(np.full((48, 64, 3), value, np.uint8))
    writer.release()


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


NOT_UTF8 = os.fsdecode(b"b\xffd")  # a name as Python holds one that is not UTF-8: the byte 0xff a lone surrogate


def _in_a_child(code, *args):
    """``code`` run by Python in a child process with ``args`` (sys.argv[1:]): one that kills its
    process (OpenCV handed a name that is not UTF-8) must not kill the tests with it."""
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).parents[2], env={**os.environ, "PYTHONFAULTHANDLER": "1"})


def test_an_image_is_read_whatever_its_name(tmp_path):
    _write(tmp_path / "odd.jpg", 90)
    (tmp_path / "odd.jpg").rename(tmp_path / f"{NOT_UTF8}.jpg")  # cv2.imwrite too dies of such a name
    _write(tmp_path / "é.png", 120)
    child = _in_a_child("import sys; from vision.sources import open_source\n"
                        "print([(f.status, f.image.shape) for f in open_source(sys.argv[1])])", str(tmp_path))
    assert (child.returncode, child.stdout) == (0, "[('ok', (48, 64, 3)), ('ok', (48, 64, 3))]\n"), child.stderr


def _refused_in_a_child(spec):
    """What ``open_source(spec)`` says, asked in a child process: a :class:`SourceError`'s message,
    or nothing if the spec opens (then it is closed again)."""
    return _in_a_child("import ast, sys; from vision.camera import SourceError; from vision.sources import open_source\n"
                       "try:\n    open_source(ast.literal_eval(sys.argv[1])).close()\n"
                       "except SourceError as error:\n    print(error)", repr(spec))


NAME_NOT_UTF8 = "its name is not UTF-8, and OpenCV opens a video or a stream only by a UTF-8 name: rename it"
NO_DEVICE_NUMBER = ("a camera device number is 0 to 99 (/dev/video0 to /dev/video99; OpenCV takes a larger number "
                    "for a capture API and a device)")


def test_a_video_whose_name_is_not_utf8_is_refused_by_name(tmp_path):
    """OpenCV can be given no such name (handed one, it kills the process): the user is told to rename the file."""
    _write_video(tmp_path / "clip.avi", [100])
    video = (tmp_path / "clip.avi").rename(tmp_path / f"{NOT_UTF8}.avi")
    child = _refused_in_a_child(str(video))
    assert (child.returncode, child.stdout) == (0, f"camera source {str(video)!r}: {NAME_NOT_UTF8}\n"), child.stderr


@pytest.mark.parametrize("spec, message", [
    (f"rtsp://camera.local/{NOT_UTF8}", NAME_NOT_UTF8),
    ("2147483648", NO_DEVICE_NUMBER),  # past a C int: cv2.VideoCapture raised in the grabber thread
    ("100", NO_DEVICE_NUMBER),  # to OpenCV, device 0 of capture API 100 (there is none)
    (-1, NO_DEVICE_NUMBER),  # to OpenCV, any camera: where there is none, cv2.VideoCapture(-1) kills the process
])
def test_a_spec_opencv_cannot_open_a_camera_by_is_refused_up_front(spec, message):
    """Said when the source is opened, not as a camera lost for ever after (or a dead process)."""
    child = _refused_in_a_child(spec)
    assert (child.returncode, child.stdout) == (0, f"camera source {spec!r}: {message}\n"), child.stderr


def _jpeg_turned_by_exif(path, image):
    """``image`` as a JPEG whose EXIF says to turn it a quarter clockwise (orientation 6)."""
    jpeg = cv2.imencode(".jpg", image)[1].tobytes()
    tiff = b"II*\x00" + struct.pack("<IHHHIHHI", 8, 1, 0x0112, 3, 1, 6, 0, 0)  # one IFD entry: Orientation = 6
    exif = b"Exif\x00\x00" + tiff
    path.write_bytes(jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(exif) + 2) + exif + jpeg[2:])


def test_an_image_is_decoded_as_cv2_imread_decodes_it(tmp_path):
    """Read by any name, a picture still comes as cv2.imread(IMREAD_COLOR) gives it: BGR, 8 bits,
    turned upright as its EXIF says."""
    picture = np.zeros((40, 80, 3), np.uint8)
    picture[:, :40] = (40, 90, 200)
    _jpeg_turned_by_exif(tmp_path / "a_turned.jpg", picture)
    cv2.imwrite(str(tmp_path / "b_grey.png"), picture[:, :, 2])
    cv2.imwrite(str(tmp_path / "c_16bit.png"), picture.astype(np.uint16) * 257)
    cv2.imwrite(str(tmp_path / "d_alpha.png"), cv2.cvtColor(picture, cv2.COLOR_BGR2BGRA))
    frames = list(open_source(str(tmp_path)))
    assert frames[0].image.shape == (80, 40, 3)
    for frame in frames:
        assert frame.ok and np.array_equal(frame.image, cv2.imread(frame.origin, cv2.IMREAD_COLOR)), frame.origin


def test_a_file_that_holds_no_whole_picture_is_unreadable(tmp_path):
    """An empty file, a folder named as a picture, a JPEG cut short (copied while it was written):
    cv2.imread gave the last the rows it holds and grey below, to be read as a board; decoded from
    its bytes, it is named unreadable."""
    (tmp_path / "a.png").write_bytes(b"")
    (tmp_path / "b.jpg").mkdir()
    board = np.random.default_rng(0).integers(0, 255, (480, 640, 3), np.uint8)
    (tmp_path / "c.jpg").write_bytes(cv2.imencode(".jpg", board)[1].tobytes()[:-5000])
    _write(tmp_path / "d.png", 100)
    frames = list(open_source(str(tmp_path)))
    assert [f.status.split(" /")[0] for f in frames] == ["cannot read image"] * 3 + ["ok"]


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
    _write_video(path, [60, 100, 140])
    source = open_source(str(path))
    frames = list(source)  # its pictures, and no bogus one for the read that found the end
    assert [f.status for f in frames] == ["ok", "ok", "ok"] and source.ended
    assert [(f.index, round(f.image.mean() / 10)) for f in frames] == [(1, 6), (2, 10), (3, 14)]  # in order
    assert source.read().status == "end of video"  # read on (the camera loop of `pitwatch run`), it says so
    source.close()
    assert source.read().status == "closed"


def test_a_video_cut_short_says_so_after_its_last_frame(tmp_path):
    """OpenCV ends a video copied half way as if it were whole: `pitwatch read` read half a
    recorded game and said nothing."""
    whole = tmp_path / "game.avi"
    _write_video(whole, range(60, 220, 4))  # 40 frames
    data = whole.read_bytes()
    cut = tmp_path / "cut.avi"
    cut.write_bytes(data[:len(data) // 2])
    frames = list(open_source(str(cut)))
    given = len(frames) - 1
    assert 0 < given < 38 and all(f.status == "ok" for f in frames[:-1])
    assert frames[-1].image is None and frames[-1].index == given + 1
    assert frames[-1].status == (f"end of video after {given} of the 40 frames its header gives: {cut} is cut short "
                                 "or damaged")
    assert [f.status for f in open_source(str(whole))] == ["ok"] * 40  # a whole video ends with its last frame


def test_a_file_that_is_no_video_says_so_once(tmp_path):
    (tmp_path / "notes.avi").write_text("not a video")
    assert [f.status for f in open_source(str(tmp_path / "notes.avi"))] == [f"cannot open {tmp_path / 'notes.avi'}"]


def test_missing_device_reports_camera_lost_without_raising():
    source = open_source("97")
    frames = [source.read() for _ in range(3)]
    assert all(f.image is None and "camera lost" in f.status for f in frames)
    source.close()


@pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_camera_opencv_raises_on_is_lost_with_the_reason_not_a_thread_traceback():
    """Past a C int, cv2.VideoCapture raises in the grabber thread: the camera is lost, at once, and says why
    (open_source refuses such a number; a driver's error gives the same)."""
    source = LiveCamera(2 ** 31)
    try:
        status = source.read().status
        assert status.startswith("camera lost: camera 2147483648 failed: ") and "C int" in status, status
        assert "\n" not in status
    finally:
        source.close()


def test_a_missing_camera_is_named_before_the_players_are_asked_to_set_the_board_up():
    asked = []
    with pytest.raises(SourceError, match="camera source '97': no usable picture \\(camera lost: camera 97 does not answer\\)"):
        picture_from("97", when_live=lambda: asked.append("set the board up"))
    assert asked == []


def test_a_camera_that_answers_asks_the_players_before_its_picture_is_taken(network_camera):
    asked = []
    assert picture_from(network_camera.url, when_live=lambda: asked.append("set the board up")).ndim == 3
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
    (0, True), ("1", True), (" 2 ", True), ("", False), ("²", False), ("rtsp://camera.local/live", False),
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
    ("synthetic:kalah:-1", "camera source 'synthetic:kalah:-1': the seed '-1' is not a whole number 0 or more"),
])
def test_bad_specs_are_named(spec, message):
    with pytest.raises(SourceError, match=message):
        open_source(spec).close()  # closed if it opens after all: no camera thread left behind


@pytest.mark.parametrize("spec", ["", "   "])
def test_a_blank_source_is_no_camera_not_the_folder_pitwatch_runs_in(spec, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "someone-elses.png", 100)  # Path("") is ".": this was read as the board
    with pytest.raises(SourceError, match=f"camera source {spec!r}: blank; name a device number, a video"):
        open_source(spec)


def test_a_named_pipe_is_refused_by_name_and_one_among_pictures_does_not_block_the_rest(tmp_path):
    """Read, a named pipe blocks until something writes to it: a folder holding one hung ``pitwatch
    read`` and the camera's thread for ever."""
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(SourceError, match="camera source .*pipe': a named pipe, not a video, a folder or an image"):
        open_source(str(tmp_path / "pipe"))
    folder = tmp_path / "shots"
    folder.mkdir()
    os.mkfifo(folder / "a.png")
    _write(folder / "b.png", 100)
    frames = list(open_source(str(folder)))
    assert [frame.status for frame in frames] == [f"cannot read image {folder / 'a.png'}: a named pipe, not a picture",
                                                  "ok"]


def test_empty_folder_and_picture_from(tmp_path):
    with pytest.raises(SourceError, match="holds no images"):
        open_source(str(tmp_path))
    _write(tmp_path / "x.png", 100)
    assert picture_from(str(tmp_path / "x.png")).shape == (48, 64, 3)
    cv2.imwrite(str(tmp_path / "y.png"), np.zeros((8, 8, 3), np.uint8))
    with pytest.raises(SourceError, match="black frame"):
        picture_from(str(tmp_path / "y.png"))


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
        picture = picture_from(camera.url)
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
