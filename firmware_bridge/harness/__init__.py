"""The simavr harness: the real firmware on an emulated AVR, for tests and benchmarks (see simboard.py)."""

from .simboard import HarnessError, SimavrBoard, build

__all__ = ["SimavrBoard", "build", "HarnessError"]
