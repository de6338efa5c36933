"""A camera picture's size written as WIDTHxHEIGHT, e.g. ``1280x720``, and the size
a camera device is asked for.

Read by the configuration (``camera.size``), the camera, the benchmarks and the
training pictures (``--frame``) alike. Free of OpenCV, so that the configuration
can read it without loading the camera code.
"""

from __future__ import annotations

WIDTHS, HEIGHTS = (160, 7680), (120, 4320)  # px: from a thumbnail to 8K
DEVICE_SIZE = (1280, 720)  # the picture a camera device is asked for: the size the reader is measured at


def parse_picture_size(text: str) -> tuple[int, int]:
    """``"1280x720"`` -> (1280, 720); a ValueError whose message starts with ``text`` (quoted)
    and says what is wrong, for the caller to prefix with where it was written."""
    try:
        width, height = (int(v) for v in text.lower().replace(" ", "").split("x"))
    except ValueError:
        raise ValueError(f"{text!r} is not a picture size: write WIDTHxHEIGHT, e.g. 1280x720") from None
    if not (WIDTHS[0] <= width <= WIDTHS[1] and HEIGHTS[0] <= height <= HEIGHTS[1]):
        raise ValueError(f"{text!r}: expected a width of {WIDTHS[0]}-{WIDTHS[1]} px and a height of "
                         f"{HEIGHTS[0]}-{HEIGHTS[1]} px")
    return width, height


def picture_size_text(size: tuple[int, int]) -> str:
    """(1280, 720) -> ``"1280x720"``: as :func:`parse_picture_size` reads it."""
    return f"{size[0]}x{size[1]}"
