"""The two pairs of eyes, as the session sees them: pit sensors (the bridge) and the camera.

Each source turns its own data into :class:`rules.Reading` s for the fusion,
and tells the fusion when it has none and why ("microcontroller lost: ...",
"camera lost: ..."); the fusion is the one place that knows every source's
health, and the runtime shows it. Neither source ever raises into the live loop.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any, Callable, Sequence

import cv2
import numpy as np

from firmware_bridge.bridge import Bridge, BridgeStatus, SensorFrame
from firmware_bridge.protocol import Button, Led, LedMode
from firmware_bridge.sensors import SensorCalibration
from rules import Reading

from .fusion import Fusion
from .hub import FrameFeed
from .placement import Judged, judge_placement
from .worker import Loop

if TYPE_CHECKING:
    from vision.camera import Frame

SENSORS, CAMERA = "sensors", "camera"
PACE_WEIGHT = 0.2  # how far each gap between two frames moves the camera's measured pace (a running mean)
LONGEST_SETTLE_SECONDS = 10.0  # a camera slower than this to call a still board still is dropped as never still


def led(entry: dict[str, str]) -> Led:
    """A dashboard LED entry (``{"colour": "#rrggbb", "mode": "on"}``) as the firmware's Led."""
    colour = entry["colour"].lstrip("#")
    red, green, blue = (int(colour[i:i + 2], 16) for i in (0, 2, 4))
    return Led(red, green, blue, LedMode[entry["mode"].upper()])


class SensorSource:
    """The microcontroller: raw sensor frames in (-> Readings), LED frames out.

    ``calibration`` may be ``None`` until :meth:`learn` has fitted one from
    the empty board and the start position.
    """

    def __init__(self, port: str | None, labels: Sequence[str], fusion: Fusion,
                 calibration: SensorCalibration | None = None) -> None:
        self.labels = tuple(labels)
        self.fusion = fusion
        self.calibration = calibration
        self._lock = threading.Lock()
        self._latest: SensorFrame | None = None
        self._fresh = threading.Condition(self._lock)
        self.on_values: Callable[[dict[str, int]], None] | None = None
        self.on_button: Callable[[str], None] | None = None  # "confirm" or "undo"
        self.bridge = Bridge(port, on_reading=self._on_frame, on_status=self._on_status,
                             on_button=self._on_button, pit_count=len(self.labels))

    def start(self) -> "SensorSource":
        self.bridge.start()
        return self

    def stop(self) -> None:
        self.bridge.stop()

    def set_leds(self, frame: list[dict[str, str]]) -> None:
        self.bridge.set_leds([led(entry) for entry in frame])

    def raw_frames(self, count: int, timeout: float = 5.0) -> list[tuple[int, ...]]:
        """The next ``count`` raw frames (for calibration); fewer if the board goes quiet."""
        frames: list[tuple[int, ...]] = []
        deadline = time.monotonic() + timeout
        with self._fresh:
            last = self._latest
            while len(frames) < count and time.monotonic() < deadline:
                self._fresh.wait(timeout=max(0.0, deadline - time.monotonic()))
                if self._latest is not None and self._latest is not last:
                    last = self._latest
                    if len(last.raw) >= len(self.labels):  # a device still set up for the last board: wait
                        frames.append(last.raw[: len(self.labels)])
        return frames

    def learn(self, empty: list[tuple[int, ...]], start: list[tuple[int, ...]], start_counts: Sequence[int]) -> None:
        self.calibration = SensorCalibration.fit(self.labels, empty, start, start_counts)

    def _on_frame(self, frame: SensorFrame) -> None:
        with self._fresh:
            self._latest = frame
            self._fresh.notify_all()
        values = dict(zip(self.labels, frame.raw))
        if self.on_values is not None:
            self.on_values(values)
        if self.calibration is None:
            return
        reading = self.calibration.to_reading(frame.raw[: len(self.labels)], frame.received)
        self.fusion.update(SENSORS, reading, time.monotonic())

    def _on_button(self, button: Button) -> None:
        if self.on_button is not None:
            self.on_button(button.name.lower())

    def _on_status(self, status: BridgeStatus) -> None:
        """Not connected: the fusion drops the sensors and says why (readings bring them back), and
        the dashboard no longer shows the last raw values as if they were still coming. A board
        that answered once and went is lost; one that never answered is not found."""
        if not status.connected:
            lost = "microcontroller lost" if status.device is not None else "microcontroller not found"
            self.fusion.update(SENSORS, None, time.monotonic(), status=f"{lost}: {status.message}")
            if self.on_values is not None:
                self.on_values({})


class CameraSource(Loop):
    """A camera loop: frame -> board reader -> still-board gate -> Reading; the overlay to the MJPEG feed.

    ``grab()`` returns the camera's next :class:`vision.camera.Frame` (its image None, and its
    status saying why, when there is no picture);
    ``read(frame, known=...)`` is the vision reader (a ``FrameResult``); ``still``
    is vision's stillness gate: fed every result, it returns a Reading only
    once the board has been still with nothing over it. While the board stays
    still after that, its Reading is what the fusion is given, so frames are
    read with it as ``known`` (located and checked for motion and hands, not
    counted again: a third of the work). :meth:`use_reader`
    swaps both between two frames (new board corners clicked on the dashboard).
    ``release()``, if given, lets the camera go once the loop has stopped.
    Every still board also says where the camera stands over a board ``board_mm``
    (width, depth) wide and deep (:func:`pitwatch.placement.judge_placement`), to
    ``on_placement``: a tripod knocked askew during play shows on the dashboard.
    """

    def __init__(self, grab: Callable[[], Frame], read: Callable[..., Any],
                 still: Any, fusion: Fusion, frames: FrameFeed,
                 *, snapshot_width: int = 320, period: float = 0.0, release: Callable[[], None] | None = None,
                 board_mm: tuple[float, float] | None = None) -> None:
        super().__init__("camera", period)
        self._grab, self._read, self._still, self._release = grab, read, still, release
        self.fusion, self.frames = fusion, frames
        self.board_mm = board_mm
        self.on_placement: Callable[[list[Judged]], None] | None = None
        self.snapshot_width = snapshot_width
        self._snapshot: bytes | None = None
        self._last: Reading | None = None
        self._lock = threading.Lock()
        self._next_reader: tuple[Callable[..., Any], Any] | None = None
        self._frame: np.ndarray | None = None
        self.status = "starting"  # what the reader made of the newest frame ("ok", "board not found: ...")
        self.frames_read = 0
        self._taken_at: float | None = None  # when the last picture came
        self._frame_seconds = 0.0  # the running mean of the time between two pictures

    @property
    def snapshot(self) -> bytes | None:
        """A small JPEG of the last still board: stored with each accepted move."""
        with self._lock:
            return self._snapshot

    def latest_frame(self) -> np.ndarray | None:
        """The newest good frame as the camera took it (no overlay), or ``None`` before the first."""
        with self._lock:
            return self._frame

    def use_reader(self, read: Callable[..., Any], still: Any) -> None:
        """Read with ``read`` and gate with ``still`` from the next frame on.

        A fresh gate too: a reading from frames read the old way must not be
        carried over as still, nor count towards the new one.
        """
        with self._lock:
            self._next_reader = (read, still)

    def failed(self, exc: Exception) -> None:
        self.fusion.update(CAMERA, None, time.monotonic(), status=f"camera error: {exc}")

    def stop(self) -> None:
        super().stop()
        if self._release is not None:
            self._release()

    def step(self) -> None:
        with self._lock:
            if self._next_reader is not None:
                (self._read, self._still), self._next_reader = self._next_reader, None
                self._last = None
        taken = self._grab()
        now = time.monotonic()
        if taken.image is None:
            self.status = taken.status  # "camera lost: camera 0 does not answer", "black frame: ...", ...
            self.fusion.update(CAMERA, None, now, status=self.status)
            self._taken_at = None  # the pause below is not the camera's pace
            self.pause(0.5)
            return
        self._measure_pace(now)
        frame = taken.image
        result = self._read(frame, known=self._last if self._still.state.state == "still" else None)
        with self._lock:
            self._frame = frame
        self.status = result.status.message
        self.frames_read += 1
        ok, jpeg = cv2.imencode(".jpg", result.draw(frame), [cv2.IMWRITE_JPEG_QUALITY, 70])
        if ok:
            self.frames.put(jpeg.tobytes())
        reading = self._still.update(result)
        state = self._still.state.state
        if reading is not None:
            self._remember(frame)
            self._last = reading
            self.fusion.update(CAMERA, reading, now)
            self._judge_placement(result.image_to_board, frame)
        elif state == "still" and self._last is not None:
            self.fusion.update(CAMERA, self._last, now)  # still the same still board: keep it fresh
        elif state in ("moving", "hand", "settling"):  # "hand": or pits out of view: the frame says which
            self.fusion.busy(CAMERA, now, result.status.message if state == "hand" else self._still.state.described,
                             settle_seconds=self._settle_seconds())
        else:
            self._last = None
            self.fusion.update(CAMERA, None, now, status=f"camera lost: {result.status.message}")

    def _measure_pace(self, now: float) -> None:
        """The running mean of the time between two pictures, a picture having come ``now``."""
        if self._taken_at is not None:
            gap = now - self._taken_at
            mean = self._frame_seconds
            self._frame_seconds = gap if not mean else mean + PACE_WEIGHT * (gap - mean)
        self._taken_at = now

    def _settle_seconds(self) -> float:
        """How long this camera takes to call a still board still: its still frames, and one more (the
        frame that sees the last seed land), at the pace it reads them; a webcam read at 25 frames a
        second needs a quarter of a second, the demo's rendered camera on a busy machine several."""
        return min(LONGEST_SETTLE_SECONDS, (self._still.still_frames + 1) * self._frame_seconds)

    def _judge_placement(self, image_to_board: np.ndarray | None, frame: np.ndarray) -> None:
        if self.on_placement is not None and self.board_mm is not None and image_to_board is not None:
            self.on_placement(judge_placement(image_to_board, (frame.shape[1], frame.shape[0]), self.board_mm))

    def _remember(self, frame: np.ndarray) -> None:
        if not self.snapshot_width:
            return
        height = max(1, frame.shape[0] * self.snapshot_width // frame.shape[1])
        small = cv2.resize(frame, (self.snapshot_width, height), interpolation=cv2.INTER_AREA)
        ok, jpeg = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 75])
        if ok:
            with self._lock:
                self._snapshot = jpeg.tobytes()
