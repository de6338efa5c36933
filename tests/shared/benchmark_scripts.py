"""Running a benchmark script as its users run it, for the tests that check a benchmark has not rotted."""

import subprocess
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def run_script(name: str, *args: str) -> subprocess.CompletedProcess:
    """``benchmarks/NAME ARGS`` in this Python, its output captured."""
    return subprocess.run([sys.executable, str(BENCHMARKS / name), *args], capture_output=True, text=True, timeout=300)
