"""A background loop: call ``step()`` every ``period`` seconds until stopped.

Why one class: the camera loop and the demo's player both must keep going
whatever one step raises (a bad frame, a bug), must stop promptly, and must
not be started twice.
"""

from __future__ import annotations

import logging
import threading
import time

log = logging.getLogger(__name__)


class Loop:
    """Subclasses define ``step()``; ``period`` may change while running."""

    def __init__(self, name: str, period: float) -> None:
        self.name = name
        self.period = period
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def step(self) -> None:
        raise NotImplementedError

    def failed(self, exc: Exception) -> None:
        """Called after a step raised (already logged); override to tell the players."""

    def start(self) -> "Loop":
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def pause(self, seconds: float) -> None:
        """Wait inside a step, waking at once when stopped."""
        self._stop.wait(seconds)

    def _run(self) -> None:
        while not self._stop.is_set():
            started = time.monotonic()
            try:
                self.step()
            except Exception as exc:  # one bad step must not end the loop
                log.exception("%s loop", self.name)
                self.failed(exc)
            rest = self.period - (time.monotonic() - started)
            if rest > 0:
                self._stop.wait(rest)
