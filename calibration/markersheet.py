"""The marker sheet: the four board markers at true size, with a ruler to check the print.

``render_marker_sheet("sheet.pdf")`` (or ``.png``) draws an A4 page at 300 dpi:
the markers (ArUco ``DICT_4X4_50`` ids 0..3) with their white borders and cut
lines, where each one goes, and a 100 mm ruler. Printers love to "fit to
page"; if the ruler does not measure 100 mm, the reader's millimetres are off
by the same factor, so the sheet says so.

The PDF is written by hand (a single page holding the sheet as one
Flate-compressed grayscale image): a few dozen lines instead of a PDF library.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import cv2
import numpy as np

from vision.markers import MARKER_NAMES, marker_image

from .calibfile import write_whole
from .profiles import MARKER_MM, MARKER_QUIET_MM

DPI = 300
A4_MM = (210.0, 297.0)
PX_PER_MM = DPI / 25.4


def _mm(value: float) -> int:
    return int(round(value * PX_PER_MM))


def _text(page: np.ndarray, text: str, x_mm: float, y_mm: float, size: float = 1.0, thickness: int = 2) -> None:
    cv2.putText(page, text, (_mm(x_mm), _mm(y_mm)), cv2.FONT_HERSHEY_SIMPLEX, 1.2 * size, 0, thickness, cv2.LINE_AA)


def marker_sheet() -> np.ndarray:
    """The A4 sheet as a grayscale image at 300 dpi."""
    width, height = _mm(A4_MM[0]), _mm(A4_MM[1])
    page = np.full((height, width), 255, np.uint8)
    _text(page, "Pitwatch board markers (ArUco DICT_4X4_50)", 15, 20, 1.3, 3)
    _text(page, "Print at 100% / actual size (no 'fit to page'). Cut along the grey lines.", 15, 30, 0.8)
    _text(page, "Stick one on each corner of the board, upright as read from South's seat", 15, 37, 0.8)
    _text(page, "(South = the camera side), in the bands beyond the end pits or stores.", 15, 44, 0.8)
    sticker = MARKER_MM + 2 * MARKER_QUIET_MM
    places = {3: (30, 60), 2: (120, 60), 0: (30, 140), 1: (120, 140)}  # as they sit on the board
    for marker_id, (x, y) in places.items():
        x0, y0 = _mm(x), _mm(y)
        side = _mm(sticker)
        cv2.rectangle(page, (x0, y0), (x0 + side, y0 + side), 160, 2)
        inner = _mm(MARKER_MM)
        off = _mm(MARKER_QUIET_MM)
        page[y0 + off:y0 + off + inner, x0 + off:x0 + off + inner] = marker_image(marker_id, inner)
        _text(page, f"id {marker_id}: {MARKER_NAMES[marker_id]}", x, y + sticker + 8, 0.9)
    _text(page, f"Black square {MARKER_MM:.0f} mm, white border {MARKER_QUIET_MM:.0f} mm.", 15, 215, 0.8)
    _ruler(page, x_mm=15, y_mm=240, length_mm=100)
    _text(page, "This ruler must measure exactly 100 mm; if not, reprint at actual size.", 15, 262, 0.8)
    return page


def _ruler(page: np.ndarray, x_mm: float, y_mm: float, length_mm: int) -> None:
    y = _mm(y_mm)
    cv2.line(page, (_mm(x_mm), y), (_mm(x_mm + length_mm), y), 0, 3)
    for k in range(length_mm + 1):
        tick = 6 if k % 10 == 0 else (4 if k % 5 == 0 else 2)
        x = _mm(x_mm + k)
        cv2.line(page, (x, y), (x, y - _mm(tick)), 0, 2 if k % 10 == 0 else 1)
        if k % 10 == 0:
            _text(page, str(k), x_mm + k - 1.5, y_mm + 6, 0.6)
    _text(page, "mm", x_mm + length_mm + 4, y_mm + 1, 0.7)


def _png_with_dpi(image: np.ndarray) -> bytes:
    """PNG bytes carrying a pHYs chunk, so viewers and printers know the true size."""
    ok, data = cv2.imencode(".png", image)
    raw = data.tobytes()
    per_metre = int(round(DPI / 0.0254))
    body = b"pHYs" + struct.pack(">IIB", per_metre, per_metre, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    end_of_ihdr = 8 + 8 + 13 + 4  # signature, IHDR length+type, IHDR data, CRC
    return raw[:end_of_ihdr] + chunk + raw[end_of_ihdr:]


def _pdf(image: np.ndarray) -> bytes:
    """A one-page A4 PDF showing ``image`` (grayscale) over the whole page."""
    h, w = image.shape
    points = (A4_MM[0] / 25.4 * 72, A4_MM[1] / 25.4 * 72)
    stream = zlib.compress(image.tobytes(), 9)
    content = f"q {points[0]:.3f} 0 0 {points[1]:.3f} 0 0 cm /Im0 Do Q".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {points[0]:.3f} {points[1]:.3f}] "
        f"/Resources << /XObject << /Im0 5 0 R >> >> /Contents 4 0 R >>".encode(),
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
        b"/BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n" % (w, h, len(stream)) + stream + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def render_marker_sheet(path: str | Path) -> Path:
    """Write the marker sheet to ``path``: ``.png`` or ``.pdf`` (ValueError for anything else; an
    OSError naming ``path`` when it cannot be written)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".png", ".pdf"):
        raise ValueError(f"{path}: the marker sheet is written as .png or .pdf, not {suffix or 'no extension'!r}")
    sheet = marker_sheet()
    write_whole(path, _png_with_dpi(sheet) if suffix == ".png" else _pdf(sheet))
    return path
