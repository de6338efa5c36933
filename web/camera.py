"""The camera view: an MJPEG stream of the newest frames, the overlay already drawn on them,
and the newest frame as taken (no overlay), for clicking the board's corners on."""

from __future__ import annotations

from typing import Iterator

from flask import Blueprint, Response, abort, stream_with_context

from pitwatch.hub import FrameFeed

from . import board_corners, optional

camera = Blueprint("camera", __name__)

BOUNDARY = "pitwatchframe"
# How long the stream waits for a new frame before it writes again. A frame is sent again when none
# came (a camera lost), and before the first a blank line: the multipart's preamble, which the
# browser skips. A write is how a closed page is noticed: one that waited on a camera that never
# delivered kept its thread and socket for ever (each page load, one more; a fuzzer, 2026-12-07).
WAIT_SECONDS = 10.0


def _feed() -> FrameFeed:
    return optional("frames", "no camera is configured")


@camera.get("/camera.mjpg")
def mjpeg() -> Response:
    frames = _feed()

    def stream() -> Iterator[bytes]:
        version = -1
        while True:
            version, jpeg = frames.wait_newer(version, timeout=WAIT_SECONDS)
            if jpeg is None:
                yield b"\r\n"
                continue
            yield (f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: {len(jpeg)}\r\n\r\n").encode()
            yield jpeg + b"\r\n"

    return Response(stream_with_context(stream()), mimetype=f"multipart/x-mixed-replace; boundary={BOUNDARY}",
                    headers={"Cache-Control": "no-store"})


@camera.get("/camera.jpg")
def still() -> Response:
    _, jpeg = _feed().latest()
    if jpeg is None:
        abort(404, description="the camera has not delivered a frame yet")
    return Response(jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@camera.get("/camera/picture.jpg")
def picture() -> Response:
    jpeg = board_corners().picture()
    if jpeg is None:
        abort(404, description="the camera has not delivered a frame yet")
    return Response(jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})
