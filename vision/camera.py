"""Camera sources: where frames come from, and a clear status when they stop coming.

``open_camera(spec)`` accepts a device index (``0``), a video file, an
RTSP/HTTP URL, a folder of images (read in name order) or a single image;
:func:`vision.sources.open_source` takes the rendered camera's name too.
Every source hands out :class:`Frame` objects: ``image`` is ``None`` whenever
there is no picture, and ``status`` says why (camera lost, end of video,
unreadable file, black frame). A live camera always gives its newest frame
(:class:`LiveCamera`), and one that disappears is opened again while it is
read; nothing raises out of ``read()``.

A camera device is asked for ``DEVICE_SIZE`` pictures (or the size given):
left alone, most USB webcams start at 640 x 480 under Linux, and in so few
pixels seeds are counted far worse (README, *Benchmarks*).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import cv2
import numpy as np

from .picture_file import PictureError, not_a_file, read_picture
from .picture_size import DEVICE_SIZE

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")
BLACK_FRAME = "black frame: is the lens covered or the camera off?"
CAMERA_LOST = "camera lost"  # how the status of a live camera that gives no frames begins
REOPEN_EVERY_S = 2.0  # a lost live camera is retried at most this often
FRAME_WAIT_S = 1.0  # a live camera with no new frame for this long is reported lost
STREAM_TIMEOUT_MS = 5000  # a network stream that does not open or send for this long is lost
OPEN_WAIT_S = STREAM_TIMEOUT_MS / 1000 + 1  # how long a live camera may take to give its first frame
SETTLED_FRAMES = 10  # a live camera's exposure has settled once this many frames in a row...
SETTLED_SPREAD = 0.03  # ...differ in each colour's mean by at most this share of it
SETTLE_WAIT_S = 4.0  # the longest a picture for calibration waits for that (then the newest is taken)
# Device numbers a camera source may name: OpenCV reads VideoCapture(N) for N of 100 or more as a capture API
# plus a device (N // 100 * 100 the API, e.g. CAP_V4L2 = 200, and N % 100 the device: 205 is /dev/video5), so
# /dev/video0 to /dev/video99 are all a bare number can open (the kernel's V4L2 goes on to /dev/video255).
DEVICE_NUMBERS = range(100)


class SourceError(ValueError):
    """A camera spec that names nothing that can give frames."""


@dataclass(frozen=True)
class Frame:
    """One frame, or its absence: ``image`` (BGR uint8) is None when ``status`` is not "ok"."""

    image: np.ndarray | None
    status: str
    time: float
    index: int
    origin: str = ""  # the file a still image came from

    @property
    def ok(self) -> bool:
        return self.image is not None


def frame_status(image: np.ndarray | None) -> str:
    """"ok", or why a picture is no use: missing, or black (lens covered, camera starting)."""
    if image is None or image.size == 0:
        return "no picture"
    return BLACK_FRAME if is_black(image) else "ok"


def is_black(image: np.ndarray) -> bool:
    """Dark and flat: a covered lens, a camera off or starting (grey or BGR, uint8). Every frame
    a live camera sends is asked this, in its grabber thread, so OpenCV's mean comes first and
    the spread only for a dark frame: 0.4 ms a bright 1280 x 720 frame, against 2.7 ms for
    numpy's mean and spread before (one-off timings, 2026-11-26)."""
    channels = 1 if image.ndim == 2 else image.shape[2]
    if sum(cv2.mean(image)[:channels]) / channels >= 12:
        return False
    _, spread = cv2.meanStdDev(image)
    return float(spread.max()) < 6


class FrameSource:
    """Base of all sources: ``read()`` a :class:`Frame`; iterate until the source ends."""

    name = "source"
    live = False  # a camera or stream (never ends) rather than files
    ended = False  # true once a finite source (file, folder) has nothing more

    def read(self) -> Frame:
        raise NotImplementedError

    def close(self) -> None:
        """Release the device or file; reading afterwards gives "closed" frames."""

    def __iter__(self) -> Iterator[Frame]:
        while not self.ended:
            yield self.read()

    def __enter__(self) -> "FrameSource":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _open_capture(target: int | str, size: tuple[int, int] = DEVICE_SIZE) -> cv2.VideoCapture | None:
    """An opened VideoCapture, or None. A stream gets open and read timeouts, so that a server
    that stops sending is a lost camera within seconds rather than a read that hangs; a device
    is asked for pictures of ``size`` (:func:`ask_for_size`)."""
    if isinstance(target, str) and "://" in target:
        timeouts = [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, STREAM_TIMEOUT_MS, cv2.CAP_PROP_READ_TIMEOUT_MSEC, STREAM_TIMEOUT_MS]
        capture = cv2.VideoCapture(target, cv2.CAP_ANY, timeouts)
    else:
        capture = cv2.VideoCapture(target)
    if capture.isOpened():
        if isinstance(target, int):
            ask_for_size(capture, size)
        return capture
    capture.release()
    return None


def too_small(size: tuple[int, int]) -> bool:
    """Whether a picture of ``size`` (width, height) is too small to count seeds well: smaller
    than ``DEVICE_SIZE``, the size the reader is measured at (at 640 x 480 it reads far worse)."""
    return size[0] < DEVICE_SIZE[0] or size[1] < DEVICE_SIZE[1]


def ask_for_size(capture: cv2.VideoCapture, size: tuple[int, int]) -> None:
    """Ask an opened camera device for pictures of ``size``, compressed (MJPG) first: a USB 2
    webcam sends 1280 x 720 uncompressed at 7.5-10 frames a second, compressed at 30. A camera
    that cannot keeps its own format, or gives the nearest size it has; ``pitwatch doctor``
    says which it gave."""
    capture.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter_fourcc(*"MJPG"))
    capture.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
    capture.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])


def _captured(capture: cv2.VideoCapture, index: int) -> Frame | None:
    """The capture's next frame (timed when it came), or None when it gives none (end of a file,
    a camera gone)."""
    try:
        ok, image = capture.read()
    except cv2.error:  # a driver error is a camera gone, never an exception out of the loop
        return None
    if not ok or image is None:
        return None
    status = frame_status(image)
    return Frame(image if status == "ok" else None, status, time.time(), index)


# Frames a video may end short of the count its header gives and still be whole: some containers
# (Matroska, WebM) give a count worked out from the duration and the frame rate, a frame or so off.
CUT_SHORT_SLACK = 2
END_OF_VIDEO = "end of video"


class VideoFile(FrameSource):
    """A video file: every frame in order, then "end of video".

    Frames are decoded one ahead of :meth:`read`: a video's end is found only
    by reading past its last frame, and read in turn, ``ended`` would be set
    by the read after it, which iterating the source then handed out as one
    more (bogus) picture. Read ahead, ``ended`` is set with the last frame, as
    a folder's is with its last image. A video that cannot be opened or holds
    no frame gives one frame saying so, and one that ends well before the
    frame count its header gives says it is cut short (a copy stopped half
    way, a recording whose camera was unplugged): OpenCV ends such a file as
    if it were whole.
    """

    def __init__(self, path: str) -> None:
        self.name = path
        self._index = 0
        self._closed = False
        self._capture = _open_capture(path)
        self._frames_said = 0 if self._capture is None else int(max(self._capture.get(cv2.CAP_PROP_FRAME_COUNT), 0))
        self._ahead = None if self._capture is None else _captured(self._capture, 1)  # the frame read() gives next
        self._end = f"cannot open {path}" if self._capture is None else self._ended_after(0)

    def read(self) -> Frame:
        now = time.time()
        self._index += 1
        if self._closed:
            return Frame(None, "closed", now, self._index)
        frame = self._ahead
        if frame is None:
            self.ended = True
            return Frame(None, self._end, now, self._index)
        self._ahead = _captured(self._capture, self._index + 1)
        if self._ahead is None:
            self._end = self._ended_after(self._index)
            self.ended = self._end == END_OF_VIDEO  # a file cut short says so in one frame more
        return frame

    def _ended_after(self, given: int) -> str:
        """What the read after the ``given``-th frame, the last, says: the end of the video, or
        that it ended well short of its header's frame count."""
        if self._frames_said - given <= max(CUT_SHORT_SLACK, self._frames_said // 100):
            return END_OF_VIDEO
        return (f"end of video after {given:,} of the {self._frames_said:,} frames its header gives: "
                f"{self.name} is cut short or damaged")

    def close(self) -> None:
        self._closed = self.ended = True
        self._ahead = None
        if self._capture is not None:
            self._capture.release()
            self._capture = None


class LiveCamera(FrameSource):
    """A camera device or a network stream, always read for its newest frame.

    A camera goes on taking pictures while the board is being read; read in
    turn, its frames would queue up in the driver or the stream's buffer, and
    a reader slower than the camera would see the board later and later (on
    an MJPEG stream, seconds behind within a minute). So a thread owns the
    VideoCapture: it reads every frame as it comes and keeps only the newest,
    and :meth:`read` hands that one out, waiting for a newer one if the last
    was handed out already. ``Frame.index`` is the camera's own frame number,
    so a reader can see how many frames it skipped. A camera that gives no
    frame is released and opened again every ``REOPEN_EVERY_S`` seconds, in
    that thread; :meth:`read` meanwhile says "camera lost". So does it when
    opening or reading the camera raises (a driver's error, a target OpenCV
    refuses): the thread outlives any exception, which would otherwise print
    a traceback and leave :meth:`read` waiting on a thread that is gone.
    """

    live = True

    def __init__(self, target: int | str, size: tuple[int, int] = DEVICE_SIZE) -> None:
        """``size``: the picture a device is asked for (a stream sends what it sends)."""
        self.target, self.size = target, size
        self.name = f"camera {target}" if isinstance(target, int) else str(target)
        self._newest: Frame | None = None  # the newest frame the camera gave
        self._lost: str | None = None  # why the camera gives no frames now, or None while it does
        self._handed_out = 0  # index of the last frame read() returned
        self._taken = 0  # the camera's number of the last frame it gave: numbered on when it is opened again
        self._changed = threading.Condition()
        self._closing = threading.Event()
        self._grabber = threading.Thread(target=self._grab_frames, name=f"grabber {self.name}", daemon=True)
        self._grabber.start()

    def read(self, wait: float | None = None) -> Frame:
        """The newest frame not yet handed out, waiting up to ``wait`` seconds for one: by default
        ``FRAME_WAIT_S``, or while the camera is still opening (no frame yet) ``OPEN_WAIT_S``."""
        with self._changed:
            if wait is None:
                wait = FRAME_WAIT_S if self._newest is not None else OPEN_WAIT_S
            self._changed.wait_for(self._news, timeout=wait)
            now, newest = time.time(), self._newest
            if self._closing.is_set():
                return Frame(None, "closed", now, self._handed_out)
            if newest is not None and newest.index > self._handed_out:
                self._handed_out = newest.index
                return newest
            return Frame(None, self._lost or f"{CAMERA_LOST}: {self.name} gave no frame for {wait:g} s", now, self._handed_out)

    def _news(self) -> bool:
        return (self._closing.is_set() or self._lost is not None
                or (self._newest is not None and self._newest.index > self._handed_out))

    def _grab_frames(self) -> None:
        while not self._closing.is_set():
            try:
                self._take_frames()
            except Exception as error:  # whatever the cause, a camera that fails is lost, and retried
                self._publish(None, f"{CAMERA_LOST}: {self.name} failed: {_one_line(error)}")
            self._closing.wait(REOPEN_EVERY_S)

    def _take_frames(self) -> None:
        """Open the camera and publish every frame it gives until it gives none (then say so and
        release it)."""
        capture = _open_capture(self.target, self.size)
        if capture is None:
            self._publish(None, f"{CAMERA_LOST}: {self.name} does not answer")
            return
        try:
            while not self._closing.is_set():
                frame = _captured(capture, self._taken + 1)
                if frame is None:
                    self._publish(None, f"{CAMERA_LOST}: {self.name} gave no frame")
                    break
                self._taken = frame.index
                self._publish(frame, None)
        finally:
            capture.release()

    def _publish(self, frame: Frame | None, lost: str | None) -> None:
        with self._changed:
            if frame is not None:
                self._newest = frame
            self._lost = lost
            self._changed.notify_all()

    def close(self) -> None:
        self.ended = True
        with self._changed:
            self._closing.set()
            self._changed.notify_all()
        self._grabber.join(timeout=OPEN_WAIT_S)


def _one_line(error: Exception) -> str:
    """``error`` said on one line: OpenCV's errors span several (its failed overloads, one a line)."""
    return " ".join(str(error).split()) or type(error).__name__


class ImageFolder(FrameSource):
    """Still images read in name order (a folder, or one image file): one frame each."""

    def __init__(self, paths: list[Path], name: str) -> None:
        self.paths, self.name = paths, name
        self._index = 0

    def read(self) -> Frame:
        now = time.time()
        if self._index >= len(self.paths):
            self.ended = True
            return Frame(None, "end of images", now, self._index)
        path = self.paths[self._index]
        self._index += 1
        self.ended = self._index >= len(self.paths)
        try:
            image = read_picture(path)
        except PictureError as why:
            return Frame(None, f"cannot read image {path}: {why}", now, self._index, str(path))
        status = frame_status(image)
        return Frame(image if status == "ok" else None, status, now, self._index, str(path))

    def close(self) -> None:
        self.ended = True


def names_device(spec: int | str) -> bool:
    """Whether ``spec`` names a camera device (``0``, ``"1"``), which is asked for a picture size;
    a file, a folder or a stream gives the pictures it holds."""
    return isinstance(spec, int) or (isinstance(spec, str) and spec.strip().isdecimal())


def open_camera(spec: int | str, size: tuple[int, int] = DEVICE_SIZE) -> FrameSource:
    """The camera a spec names; :class:`SourceError` if it names nothing usable.

    ``0`` / ``"0"``: a camera device (``DEVICE_NUMBERS``); ``rtsp://...``, ``http(s)://...``: a
    stream; a folder: its images; an image file: that image; another file: a video. ``size``: the
    picture a camera device is asked for.
    """
    if names_device(spec):
        return LiveCamera(_device_number(spec), size)
    text = str(spec).strip()
    if not text:  # Path("") is the folder Pitwatch runs in: its pictures are no camera
        raise SourceError(f"camera source {spec!r}: blank; name a device number, a video, a folder, an image or a URL")
    if "://" in text:
        return LiveCamera(_opencv_name(text))
    path = Path(text)
    if (kind := not_a_file(path)) not in (None, "a folder"):  # a named pipe would block the reader for ever
        raise SourceError(f"camera source {text!r}: {kind}, not a video, a folder or an image")
    if path.is_dir():
        images = sorted(p for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not images:
            raise SourceError(f"camera source {text!r}: the folder holds no images ({', '.join(IMAGE_SUFFIXES)})")
        return ImageFolder(images, text)
    if path.is_file():
        if path.suffix.lower() in IMAGE_SUFFIXES:
            return ImageFolder([path], text)
        return VideoFile(_opencv_name(text))
    raise SourceError(f"camera source {text!r}: no such file, folder, device number or URL")


def _device_number(spec: int | str) -> int:
    """The device number ``spec`` names; :class:`SourceError` if no camera can have it
    (``DEVICE_NUMBERS``), said before the camera is opened: OpenCV would take it for another
    device (-1 for any, and with none there OpenCV 5.0 kills the process), or refuse it in the
    grabber thread, leaving the camera lost for ever (a number too big for a C int)."""
    number = int(spec)
    if number not in DEVICE_NUMBERS:
        first, last = DEVICE_NUMBERS[0], DEVICE_NUMBERS[-1]
        raise SourceError(f"camera source {spec!r}: a camera device number is {first} to {last} (/dev/video{first} to "
                          f"/dev/video{last}; OpenCV takes a larger number for a capture API and a device)")
    return number


def _opencv_name(text: str) -> str:
    """``text``, a video file's name or a stream's URL, to give OpenCV; :class:`SourceError` if it
    is not UTF-8 (a byte such as 0xff, which Python holds as a lone surrogate): cv2.VideoCapture
    kills the process when handed one (OpenCV 5.0)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise SourceError(f"camera source {text!r}: its name is not UTF-8, and OpenCV opens a video or a stream "
                          "only by a UTF-8 name: rename it") from None
    return text


def first_good_frame(source: FrameSource, tries: int = 30) -> Frame:
    """The source's first frame with a picture within ``tries`` reads, or the last frame read
    (whose status says why there is none)."""
    for _ in range(tries):
        frame = source.read()
        if frame.ok or source.ended:
            break
    return frame


def settled_frame(source: FrameSource, first: Frame, wait: float = SETTLE_WAIT_S) -> Frame:
    """A live camera's first picture once its exposure has settled, from ``first`` (a good frame
    it gave) on: a webcam just opened sends dark or tinted pictures while its automatic exposure
    and white balance find the light, for up to a second or two, and a board calibrated from one
    of those is remembered in the wrong light. Settled: ``SETTLED_FRAMES`` frames in a row alike
    in every colour's mean (within ``SETTLED_SPREAD``). A camera that never settles (a
    flickering lamp) gives its newest picture after ``wait`` seconds; one that is lost gives
    the last it sent."""
    colours = [cv2.mean(first.image)[:3]]
    newest = first
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        recent = np.array(colours[-SETTLED_FRAMES:])
        if len(recent) == SETTLED_FRAMES and (np.ptp(recent, axis=0) <= SETTLED_SPREAD * recent.max(axis=0)).all():
            break
        frame = source.read()
        if not frame.ok:
            break
        newest = frame
        colours.append(cv2.mean(frame.image)[:3])
    return newest


def picture_of(source: FrameSource, tries: int = 30) -> Frame:
    """One picture to calibrate or check a board with: the source's first good frame (within
    ``tries`` reads), from a camera (a device or a stream) the first once its exposure has
    settled (the synthetic camera has no exposure to settle)."""
    frame = first_good_frame(source, tries)
    return settled_frame(source, frame) if frame.ok and isinstance(source, LiveCamera) else frame
