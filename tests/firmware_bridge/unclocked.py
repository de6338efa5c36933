"""A device the test drives by hand: the emulator's protocol logic on a real pty, without its clock.

``DeviceCore`` answers every command at once but sends a REPORT only when the
test says so, so a test can make frame orders happen every run that the
clocked boards (``EmulatedBoard``, the firmware) make only by timing, or keep
the line silent. ``answering = False`` makes it a board that hangs: bytes in,
nothing out; ``answers_left = n`` one that hangs after n more frames out.
"""

from __future__ import annotations

import os
import pty
import select
import threading
import time
import tty

from firmware_bridge import framing
from firmware_bridge.emulator import DeviceCore


class UnclockedBoard:
    """A ``DeviceCore`` on a pty that answers commands at once and reports only on request."""

    def __init__(self, pit_count: int = 14) -> None:
        self._master, self._slave = pty.openpty()
        tty.setraw(self._slave)
        self.port = os.ttyname(self._slave)
        self.lock = threading.Lock()
        self.core = DeviceCore(self._write, pit_count)
        self.answering = True
        self.answers_left: int | None = None  # frames to send before hanging (None: no limit)
        self.commands: list[tuple[float, int]] = []  # (time.monotonic(), message type) of each good frame in
        self._commands = framing.FrameReader(lambda frame: self.commands.append((time.monotonic(), frame.type)),
                                             lambda error: None)
        self._running = True
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _write(self, frame: bytes) -> None:
        if self.answering and self.answers_left != 0:
            os.write(self._master, frame)
            if self.answers_left is not None:
                self.answers_left -= 1

    def _serve(self) -> None:
        while self._running:
            if select.select([self._master], [], [], 0.05)[0]:
                try:
                    data = os.read(self._master, 4096)
                except OSError:  # EIO while nobody has the port open
                    time.sleep(0.01)
                    continue
                with self.lock:
                    self._commands.data_received(data)
                    self.core.receive(data)

    def close(self) -> None:
        self._running = False
        self._thread.join()
        os.close(self._master)
        os.close(self._slave)
