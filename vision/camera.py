"""Camera sources: where frames come from, and a clear status when they stop coming.

``open_source(spec)`` accepts a device index (``0``), a video file, an
RTSP/HTTP URL, a folder of images (read in name order), a single image, or
``synthetic:VARIANT`` (a rendered virtual board, see :mod:`vision.synthetic`).
Every source hands out :class:`Frame` objects: ``image`` is ``None`` whenever
there is no picture, and ``status`` says why (camera lost, end of video,
unreadable file, black frame). A camera that disappears is reopened on later
reads; nothing raises out of ``read()``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import cv2
import numpy as np

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")
REOPEN_EVERY_S = 2.0  # a lost live camera is retried at most this often


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
    if float(image.mean()) < 12 and float(image.std()) < 6:
        return "black frame"
    return "ok"


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


class CaptureSource(FrameSource):
    """A device, video file or network stream through OpenCV's VideoCapture."""

    def __init__(self, target: int | str, live: bool) -> None:
        self.target, self.live = target, live
        self.name = f"camera {target}" if isinstance(target, int) else str(target)
        self._index = 0
        self._closed = False
        self._last_open = 0.0
        self._capture: cv2.VideoCapture | None = None
        self._open()

    def _open(self) -> None:
        self._last_open = time.monotonic()
        capture = cv2.VideoCapture(self.target)
        self._capture = capture if capture.isOpened() else None

    def read(self) -> Frame:
        now = time.time()
        self._index += 1
        if self._closed:
            return Frame(None, "closed", now, self._index)
        if self._capture is None:
            if not self.live:
                self.ended = True
                return Frame(None, f"cannot open {self.name}", now, self._index)
            if time.monotonic() - self._last_open >= REOPEN_EVERY_S:
                self._open()
            if self._capture is None:
                return Frame(None, f"camera lost: {self.name} does not answer", now, self._index)
        try:
            ok, image = self._capture.read()
        except cv2.error as error:  # a driver error must not escape the live loop
            ok, image = False, None
            self._capture = None
            return Frame(None, f"camera lost: {self.name} ({error})", now, self._index)
        if not ok or image is None:
            if not self.live:
                self.ended = True
                return Frame(None, "end of video", now, self._index)
            self._capture.release()
            self._capture = None
            return Frame(None, f"camera lost: {self.name} gave no frame", now, self._index)
        status = frame_status(image)
        return Frame(image if status == "ok" else None, status, now, self._index)

    def close(self) -> None:
        self._closed = True
        self.ended = True
        if self._capture is not None:
            self._capture.release()
            self._capture = None


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
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            return Frame(None, f"cannot read image {path}", now, self._index, str(path))
        status = frame_status(image)
        return Frame(image if status == "ok" else None, status, now, self._index, str(path))

    def close(self) -> None:
        self.ended = True


def open_source(spec: int | str) -> FrameSource:
    """The frame source a spec names; :class:`SourceError` if it names nothing usable.

    ``0`` / ``"0"``: a camera device; ``rtsp://...``, ``http(s)://...``: a
    stream; a folder: its images; an image file: that image; another file: a
    video; ``synthetic:VARIANT`` (optionally ``synthetic:VARIANT:SEED``): a
    rendered board holding the variant's start position.
    """
    if isinstance(spec, int) or (isinstance(spec, str) and spec.strip().isdigit()):
        return CaptureSource(int(spec), live=True)
    text = str(spec).strip()
    if text.startswith("synthetic:"):
        from .synthetic import SyntheticCamera, parse_synthetic_spec  # the renderer loads only when asked for

        return SyntheticCamera(*parse_synthetic_spec(text))
    if "://" in text:
        return CaptureSource(text, live=True)
    path = Path(text)
    if path.is_dir():
        images = sorted(p for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not images:
            raise SourceError(f"camera source {text!r}: the folder holds no images ({', '.join(IMAGE_SUFFIXES)})")
        return ImageFolder(images, text)
    if path.is_file():
        if path.suffix.lower() in IMAGE_SUFFIXES:
            return ImageFolder([path], text)
        return CaptureSource(text, live=False)
    raise SourceError(f"camera source {text!r}: no such file, folder, device number or URL")


def first_frame(spec: int | str, tries: int = 30) -> np.ndarray:
    """The first good picture from a source (for calibration); :class:`SourceError` if none comes."""
    source = open_source(spec)
    try:
        status = "no frame"
        for _ in range(tries):
            frame = source.read()
            if frame.ok:
                return frame.image  # type: ignore[return-value]
            status = frame.status
            if source.ended:
                break
        raise SourceError(f"camera source {spec!r}: no usable picture ({status})")
    finally:
        source.close()
