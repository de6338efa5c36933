"""One live session a game database, whatever name leads to it."""

from __future__ import annotations

import os

import pytest

from pitwatch.livelock import LiveLock
from pitwatch.recorder import RecorderError


@pytest.mark.parametrize("linked", ["the file", "its folder"])
def test_a_link_to_a_database_in_use_is_refused_naming_the_session(tmp_path, linked):
    """A second session given a link resumed the first's game, and each refused the other's moves."""
    (tmp_path / "club").mkdir()
    database = tmp_path / "club" / "games.sqlite"
    database.touch()
    if linked == "the file":
        other_name = tmp_path / "link.sqlite"
        other_name.symlink_to(database)
    else:
        (tmp_path / "elsewhere").symlink_to(tmp_path / "club")
        other_name = tmp_path / "elsewhere" / "games.sqlite"
    first = LiveLock(database)
    first.take()
    try:
        assert LiveLock(other_name).holder() == f"pid {os.getpid()}"
        with pytest.raises(RecorderError) as refused:
            LiveLock(other_name).take()
        assert str(refused.value) == (f"{other_name} is in use by another pitwatch run or demo (pid {os.getpid()}): "
                                      "stop it, or give this one another database (--db)")
    finally:
        first.release()
    second = LiveLock(other_name)
    second.take()  # free once the first has stopped
    second.release()
