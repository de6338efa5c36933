"""Publish/subscribe of dashboard states, for server-sent events.

Why a version number and "latest only" queues: a slow browser must never
slow the session down or make it use memory; it only ever needs the newest
state, so each subscriber holds at most one pending state and a newer one
replaces it.
"""

from __future__ import annotations

import json
import queue
import secrets
import threading
from typing import Any


class Subscription:
    """One listener: :meth:`get` blocks for the next state (JSON text) or returns ``None`` on timeout."""

    def __init__(self) -> None:
        self._queue: queue.Queue[str] = queue.Queue(maxsize=1)

    def put(self, text: str) -> None:
        while True:
            try:
                self._queue.put_nowait(text)
                return
            except queue.Full:
                try:
                    self._queue.get_nowait()
                except queue.Empty:
                    pass

    def get(self, timeout: float) -> str | None:
        try:
            return self._queue.get(timeout=timeout)
        except queue.Empty:
            return None


class Hub:
    """The newest state and everyone listening for the next one."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscribers: set[Subscription] = set()
        self._latest = "{}"
        self.version = 0
        self.boot = secrets.token_hex(8)  # a page from before a restart reloads (new CSRF token)

    def publish(self, state: dict[str, Any]) -> str:
        with self._lock:
            self.version += 1
            text = json.dumps({**state, "version": self.version, "boot": self.boot}, separators=(",", ":"))
            self._latest = text
            subscribers = list(self._subscribers)
        for sub in subscribers:
            sub.put(text)
        return text

    @property
    def latest(self) -> str:
        with self._lock:
            return self._latest

    def subscribe(self) -> Subscription:
        sub = Subscription()
        with self._lock:
            self._subscribers.add(sub)
            sub.put(self._latest)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            self._subscribers.discard(sub)

    @property
    def listeners(self) -> int:
        with self._lock:
            return len(self._subscribers)


class FrameFeed:
    """The newest camera frame (JPEG with the overlay drawn), for the MJPEG stream.

    Readers wait for a frame newer than the one they sent, so each browser
    gets every frame at most once and an idle camera costs nothing.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._jpeg: bytes | None = None
        self.version = 0

    def put(self, jpeg: bytes) -> None:
        with self._cond:
            self._jpeg = jpeg
            self.version += 1
            self._cond.notify_all()

    def latest(self) -> tuple[int, bytes | None]:
        with self._cond:
            return self.version, self._jpeg

    def wait_newer(self, version: int, timeout: float) -> tuple[int, bytes | None]:
        with self._cond:
            self._cond.wait_for(lambda: self.version > version, timeout=timeout)
            return self.version, self._jpeg
