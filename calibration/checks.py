"""What the readers of outside values (a calibration file, the corners a dashboard sends) share:
whether a JSON value is a usable number, and labels cut short in an error (a bad value is shown
by ``reprlib.repr``, which cuts a megabyte string or a number of 4,000 digits short)."""

from __future__ import annotations

import math
import sys
from typing import Any


def is_number(value: Any) -> bool:
    """Whether ``value`` is a number a float holds (an int or a float, not a bool, neither NaN nor
    infinite). JSON's whole numbers have any number of digits: one of 400 is none, and is not
    given to ``float()`` or ``math.isfinite``, which overflow on it."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return abs(value) <= sys.float_info.max if isinstance(value, int) else math.isfinite(value)


def cut_short(text: str, most: int = 80) -> str:
    """``text`` (pit labels, in words), cut to ``most`` characters where it is longer."""
    return text if len(text) <= most else f"{text[:most - 3]}..."
