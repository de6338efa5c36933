"""Reading a picture file that may be anything: the board's photo, or a file that only claims to be one.

A picture file's header says how large it decodes, and the decoder believes it: a 69-byte PNG
that claims 40,000 x 40,000 pixels made OpenCV raise in the middle of ``pitwatch read``, and a
164 KB JPEG that claims 32,000 x 32,000 took 8 GB and 37 s to decode into a board that was not
there. So the size is read from the header first (PNG, JPEG, BMP, TIFF and WebP: the picture
suffixes a camera folder is read for, ``vision.camera.IMAGE_SUFFIXES``) and a picture larger
than any camera takes is refused before a byte of it is decoded. Whatever else keeps a file
from being a picture (a named pipe, which would block the reader for ever; an empty file; a
damaged one) is a :class:`PictureError` that names it.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

# The largest photo a camera takes: a 200-megapixel phone gives 16,320 x 12,240. Decoded, 250 megapixels are 750 MB.
MOST_PICTURE_PIXELS = 250_000_000
MOST_PICTURE_BYTES = 800_000_000  # a PNG of 250 megapixels of noise is about 750 MB: a bigger file is no photo
FORMATS = "JPEG, PNG, BMP, TIFF or WebP"


class PictureError(ValueError):
    """A file that holds no picture to read a board in; the message says why."""


def not_a_file(path: Path) -> str | None:
    """What stands at ``path`` instead of a file, in the user's words (a folder, a named pipe, a
    socket, a device); None for a file, or for nothing at all (the reader says it is missing)."""
    if not path.exists() or path.is_file():
        return None
    if path.is_dir():
        return "a folder"
    if path.is_fifo():
        return "a named pipe"
    return "a socket" if path.is_socket() else "a device"


def read_picture(path: Path) -> np.ndarray:
    """The picture in the file at ``path`` as ``cv2.imread(path, cv2.IMREAD_COLOR)`` gives it (BGR
    uint8, turned upright as its EXIF says); :class:`PictureError` says why there is none.

    Python reads the file and OpenCV decodes the bytes, so that a file opens whatever its name:
    handed a name that is not UTF-8 (a byte such as 0xff, which Python holds as a lone surrogate),
    cv2.imread kills the process (OpenCV 5.0). Decoded from bytes, a JPEG cut short before its end
    marker is refused, where cv2.imread gave the rows it holds and grey below.
    """
    if (kind := not_a_file(path)) is not None:
        raise PictureError(f"{kind}, not a picture")
    try:
        size = path.stat().st_size
        if size > MOST_PICTURE_BYTES:
            raise PictureError(f"{size / 1e6:,.0f} MB, more than any photo ({MOST_PICTURE_BYTES // 1_000_000} MB at most)")
        data = np.fromfile(path, np.uint8)
    except OSError as failure:
        raise PictureError(failure.strerror or str(failure)) from None
    if not data.size:
        raise PictureError("an empty file")
    claimed = claimed_size(data.tobytes())  # the whole file: a TIFF may keep its directory at the end
    if claimed is None:
        raise PictureError(f"not a {FORMATS} picture")
    width, height = claimed
    if width * height > MOST_PICTURE_PIXELS:
        raise PictureError(f"its header claims {width} x {height} pixels, more than any camera takes "
                           f"({MOST_PICTURE_PIXELS // 1_000_000} megapixels at most): a damaged or forged file")
    try:
        image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    except cv2.error as failure:
        raise PictureError(f"OpenCV cannot decode it ({' '.join(str(failure).split())[-120:]})") from None
    if image is None:
        raise PictureError(_why_not_decoded(data))
    return image


def _why_not_decoded(data: np.ndarray) -> str:
    """Why a picture OpenCV cannot give as 8-bit colour is not read: a whole one of floating-point
    samples (a TIFF from a scientific or HDR tool, which OpenCV decodes only as it is) is no damaged
    one, and saying so sent users looking for a fault in a good file."""
    unchanged = cv2.imdecode(data, cv2.IMREAD_UNCHANGED)
    if unchanged is not None and unchanged.dtype.kind == "f":
        return (f"a picture of {unchanged.dtype.itemsize * 8}-bit floating-point samples: save it as an ordinary "
                "8-bit JPEG or PNG")
    return "not a whole picture (cut short or damaged)"


def claimed_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) as the picture file ``data`` says in its header, for the formats Pitwatch
    reads pictures in; None for another format, or a header cut short."""
    for read in (png_size, _jpeg_size, _bmp_size, _tiff_size, _webp_size):
        if (size := read(data)) is not None:
            return size
    return None


def png_size(data: bytes) -> tuple[int, int] | None:
    """A PNG's size: its signature, then the IHDR chunk, which begins with the width and height
    (calibration files hold the empty board as a PNG, read by its header first too)."""
    if len(data) < 24 or data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        return None
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


_JPEG_FRAMES = set(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}  # start-of-frame markers (not DHT, JPG, DAC)
_JPEG_ALONE = {0x01, *range(0xD0, 0xD9)}  # markers without a length: TEM, RSTn, SOI


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    """A JPEG: the size in its first start-of-frame segment, found by walking the segments from
    the start (each but a few says its length); None if the scan starts first."""
    if data[:2] != b"\xff\xd8":
        return None
    at = 2
    while at + 4 <= len(data):
        if data[at] != 0xFF:
            return None
        marker = data[at + 1]
        if marker == 0xFF or marker in _JPEG_ALONE:  # a fill byte, or a marker without a segment
            at += 1 if marker == 0xFF else 2
            continue
        if marker in _JPEG_FRAMES:
            if at + 9 > len(data):
                return None
            return int.from_bytes(data[at + 7:at + 9], "big"), int.from_bytes(data[at + 5:at + 7], "big")
        if marker == 0xDA:  # the scan, with no frame before it
            return None
        at += 2 + int.from_bytes(data[at + 2:at + 4], "big")
    return None


def _bmp_size(data: bytes) -> tuple[int, int] | None:
    """A BMP: its info header's width and height (negative for rows stored top-down), 16-bit in
    the oldest (OS/2) header, 32-bit in the others."""
    if len(data) < 26 or data[:2] != b"BM":
        return None
    if int.from_bytes(data[14:18], "little") == 12:
        return int.from_bytes(data[18:20], "little"), int.from_bytes(data[20:22], "little")
    return (abs(int.from_bytes(data[18:22], "little", signed=True)),
            abs(int.from_bytes(data[22:26], "little", signed=True)))


def _tiff_size(data: bytes) -> tuple[int, int] | None:
    """A TIFF: the ImageWidth (256) and ImageLength (257) entries of its first directory."""
    if data[:4] not in (b"II*\x00", b"MM\x00*"):
        return None
    order = "little" if data[:2] == b"II" else "big"
    at = int.from_bytes(data[4:8], order)
    if at + 2 > len(data):
        return None
    size: dict[int, int] = {}
    for entry in range(int.from_bytes(data[at:at + 2], order)):
        start = at + 2 + 12 * entry
        if start + 12 > len(data):
            return None
        tag, kind = int.from_bytes(data[start:start + 2], order), int.from_bytes(data[start + 2:start + 4], order)
        if tag in (256, 257):
            value = data[start + 8:start + (10 if kind == 3 else 12)]  # a SHORT, else a LONG
            size[tag] = int.from_bytes(value, order)
    return (size[256], size[257]) if len(size) == 2 else None


def _webp_size(data: bytes) -> tuple[int, int] | None:
    """A WebP: the size in its first chunk, as lossy (VP8), lossless (VP8L) or extended (VP8X) has it."""
    if len(data) < 30 or data[:4] != b"RIFF" or data[8:12] != b"WEBP":
        return None
    chunk = data[12:16]
    if chunk == b"VP8 ":
        return int.from_bytes(data[26:28], "little") & 0x3FFF, int.from_bytes(data[28:30], "little") & 0x3FFF
    if chunk == b"VP8L":
        bits = int.from_bytes(data[21:25], "little")
        return 1 + (bits & 0x3FFF), 1 + (bits >> 14 & 0x3FFF)
    if chunk == b"VP8X":
        return 1 + int.from_bytes(data[24:27], "little"), 1 + int.from_bytes(data[27:30], "little")
    return None
