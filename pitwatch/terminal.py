"""The players asked at the terminal: the few steps where Pitwatch waits for a board to be set up.

Learning the pit sensors and calibrating from a live camera each need two boards whose counts are
known, the empty board and the start position, and only the players can say when each is laid out.
"""

from __future__ import annotations

from .config import ConfigError


def wait_for_enter(prompt: str, without_terminal: str) -> None:
    """Print ``prompt`` and wait for the players to press Enter. With no terminal to answer at (a
    service, stdin closed) there is no one to wait for: :class:`ConfigError` saying
    ``without_terminal``, what to do instead."""
    try:
        input(prompt)
    except EOFError:
        print()  # the prompt's line ended
        raise ConfigError(without_terminal) from None
    except KeyboardInterrupt:  # Ctrl-C instead of Enter: the prompt's line ended, not left for the shell's prompt
        print()
        raise
