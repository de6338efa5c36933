"""What a process prints, read as it comes: how the tests answer a prompt that waits for Enter."""

from __future__ import annotations

import threading
from typing import TextIO

from waiting import wait_until


class Transcript:
    """Everything ``stream`` has printed so far. Read a character at a time, because a prompt
    that waits for Enter ends no line, so reading by lines would never see it."""

    def __init__(self, stream: TextIO) -> None:
        self.text = ""
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream: TextIO) -> None:
        while chunk := stream.read(1):
            self.text += chunk

    def shows(self, words: str, timeout: float = 20.0) -> bool:
        """Whether ``words`` are printed within ``timeout`` seconds."""
        return bool(wait_until(lambda: words in self.text, timeout, 0.02))
