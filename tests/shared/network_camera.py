"""Network cameras for tests: real MJPEG streams over HTTP, read by OpenCV's FFmpeg as any IP
camera's would be: :class:`NumberedCamera` (each frame showing its own number) and
:class:`PictureCamera` (a picture, as a camera's exposure brings it up)."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable

import cv2
import numpy as np

BARS = 12  # a frame's number, in binary, as black and white bars along its bottom


class MjpegCamera:
    """A network camera: an MJPEG stream over HTTP at 30 frames a second of ``frame_of(number)``
    (numbered from 0 on every connection). ``sent`` is the number of the last frame sent;
    ``answering`` cleared drops every connection and answers 503, as a camera switched off;
    ``stalled`` set keeps the connection open but sends nothing, as a hung camera or network."""

    def __init__(self, frame_of: Callable[[int], np.ndarray]) -> None:
        self.sent = -1
        self.answering = threading.Event()
        self.answering.set()
        self.stalled = threading.Event()
        camera = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                if not camera.answering.is_set():
                    self.send_error(503)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "multipart/x-mixed-replace; boundary=frame")
                self.end_headers()
                number = 0
                try:
                    while camera.answering.is_set():
                        if camera.stalled.is_set():
                            time.sleep(0.05)
                            continue
                        jpeg = cv2.imencode(".jpg", frame_of(number))[1].tobytes()
                        self.wfile.write(b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n%b\r\n"
                                         % (len(jpeg), jpeg))
                        camera.sent = number
                        number += 1
                        time.sleep(1 / 30)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_port}/video.mjpg"

    def close(self) -> None:
        self.answering.clear()
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> "MjpegCamera":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class NumberedCamera(MjpegCamera):
    """Each frame shows its number (:func:`frame_number` reads it); ``brightness(number)`` is its
    grey level (0-255), as a camera's automatic exposure sets it (default: 90 throughout)."""

    def __init__(self, brightness: Callable[[int], int] = lambda number: 90) -> None:
        super().__init__(lambda number: numbered_frame(number, brightness(number)))


class PictureCamera(MjpegCamera):
    """``picture`` times ``exposure(number)``: a camera just opened, its automatic exposure finding
    the light."""

    def __init__(self, picture: np.ndarray, exposure: Callable[[int], float]) -> None:
        super().__init__(lambda number: cv2.convertScaleAbs(picture, alpha=exposure(number)))


def numbered_frame(number: int, grey: int = 90) -> np.ndarray:
    image = np.full((120, 160, 3), grey, np.uint8)
    for bit in range(BARS):
        image[100:116, bit * 12:bit * 12 + 10] = 255 if number >> bit & 1 else 0
    return image


def frame_number(image: np.ndarray) -> int:
    return sum(1 << bit for bit in range(BARS) if image[108, bit * 12 + 5].mean() > 128)
