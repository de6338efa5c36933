"""Long-running ``pitwatch`` commands, started and stopped as a user does, in a child process.

A stop is waited for with a hang detector's patience, never timed: how long a stop takes on a
loaded machine is the machine's business (a live session stops only once its last verdict is on
disk, and a busy disk may take seconds to say so). What no wait may hide is a stop that never
comes, so the child runs with Python's faulthandler on, and one that has not stopped is made to
print every thread's stack before the test fails with them.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from typing import Any

STOP_SECONDS = 60.0


def start_pitwatch(*args: str, **popen: Any) -> subprocess.Popen:
    """``python -m pitwatch.cli *args`` with text pipes as ``popen`` asks, faulthandler on."""
    env = {**popen.pop("env", os.environ), "PYTHONFAULTHANDLER": "1"}
    return subprocess.Popen([sys.executable, "-m", "pitwatch.cli", *args], text=True, env=env, **popen)


def stop(proc: subprocess.Popen) -> int:
    """Stop ``proc`` with SIGTERM, as ``kill`` and service managers do; its exit code.

    Not with SIGINT, Ctrl-C's signal: a child of a shell's background job (CI's, say) starts with SIGINT
    ignored, and Python keeps it ignored, as every Unix program does there.

    One still running after :data:`STOP_SECONDS` is aborted (faulthandler prints its threads'
    stacks on stderr) and the test fails naming where every thread was stuck.
    """
    if proc.poll() is not None:
        return proc.returncode
    proc.terminate()
    try:
        return proc.wait(timeout=STOP_SECONDS)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGABRT)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        stacks = proc.stderr.read() if proc.stderr is not None else "(printed where its stderr went)"
        raise AssertionError(f"{' '.join(map(str, proc.args))} did not stop within {STOP_SECONDS:.0f} s "
                             f"of SIGTERM; its threads:\n{stacks}") from None
