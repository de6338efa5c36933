"""How an error reads on the command line: one line, naming what is wrong and where."""

from __future__ import annotations

INTERRUPTED = 130  # the status of a command a Ctrl-C ended (128 + SIGINT), as shells give it


def said(error: Exception) -> str:
    """``error`` as one line for the user. A file the system could not open or write is named
    first, with the reason (``sheet.png: No such file or directory``), not as Python spells it
    (``[Errno 2] No such file or directory: 'sheet.png'``)."""
    if isinstance(error, OSError) and error.filename is not None and error.strerror:
        return f"{error.filename}: {error.strerror}"
    return str(error)
