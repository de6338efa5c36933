"""Waiting for a condition with a deadline: how these tests stay right on a loaded machine."""

from __future__ import annotations

import time
from typing import Any, Callable


def wait_until(condition: Callable[[], Any], timeout: float = 10.0, interval: float = 0.005) -> Any:
    """Poll ``condition`` every ``interval`` seconds until it returns something true, and return
    that; after ``timeout`` seconds, its last value (false)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(interval)
    return condition()
