"""The simavr harness: the real firmware on an emulated AVR, for tests and benchmarks (see simboard.py)."""

from .simboard import Answer, Build, HarnessError, SimavrBoard, UartStats, build

__all__ = ["SimavrBoard", "Answer", "Build", "build", "HarnessError", "UartStats"]
