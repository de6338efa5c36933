"""One live session a game database.

A second ``pitwatch run`` or ``demo`` on the same file would resume the same game and record its
moves beside the first's (the second's were refused by SQLite, with a traceback, and lost). So a
live session holds an exclusive ``flock`` on ``<database>.lock`` while it runs; the kernel drops
it when the process ends, however it ends (``kill -9`` too), so a stale lock never blocks a
restart. The file is left in place: removing it would race with the next session opening it.
The lock is that of the file the database's name leads to: a second session given a link to the
database resumed the first's game and each refused the other's moves (2026-12-07, a fuzzer).
``pitwatch games`` takes no lock: it reads, or imports finished games, which SQLite's own
locking keeps apart from the live game.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import TextIO

from .recorder import RecorderError


class LiveLock:
    """The lock of the game database at ``database``: :meth:`take` it, :meth:`release` it."""

    def __init__(self, database: Path) -> None:
        self.database = database
        real = database.resolve()  # a link to the database, or to its folder, locks the database itself
        self.path = real.with_name(real.name + ".lock")
        self._held: TextIO | None = None

    def take(self) -> None:
        """Hold the lock, or raise :class:`RecorderError` naming the process that holds it."""
        held = open(self.path, "a+", encoding="utf-8")
        try:
            fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder_in(held)
            held.close()
            raise RecorderError(f"{self.database} is in use by another pitwatch run or demo ({holder}): stop it, "
                                "or give this one another database (--db)") from None
        held.truncate(0)
        held.write(f"pid {os.getpid()}\n")
        held.flush()
        self._held = held

    def holder(self) -> str | None:
        """The live session holding the lock now (``pid 1234``), or None. Takes nothing, creates no
        file: for ``pitwatch doctor``, which must not open what a live session is using."""
        try:
            with open(self.path, encoding="utf-8") as lock:
                try:
                    fcntl.flock(lock, fcntl.LOCK_SH | fcntl.LOCK_NB)  # dropped again as the file closes
                except BlockingIOError:
                    return _holder_in(lock)
                return None
        except OSError:  # no lock file (nor, under a file, any folder for one): no session holds it
            return None

    def release(self) -> None:
        if self._held is not None:
            self._held.close()  # closing the file drops the lock
            self._held = None


def _holder_in(lock: TextIO) -> str:
    """What the holding session wrote in the lock file: its process id."""
    lock.seek(0)
    return lock.read().strip() or "another process"
