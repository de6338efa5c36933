"""Waiting for a condition with a deadline: how these tests stay right on a loaded machine."""

from __future__ import annotations

import time
from typing import Callable


def wait_until(condition: Callable[[], object], timeout: float = 10.0, interval: float = 0.005) -> bool:
    """Poll ``condition`` every ``interval`` seconds until it holds or ``timeout`` seconds pass;
    its last value, as a bool."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(interval)
    return bool(condition())
