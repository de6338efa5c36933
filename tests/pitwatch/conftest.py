"""Shared helpers for the app's tests: a recorder on tmp_path and a session over it."""

from __future__ import annotations

import pytest

from pitwatch.recorder import Recorder
from pitwatch.session import Session


@pytest.fixture
def recorder(tmp_path):
    rec = Recorder(tmp_path / "games.sqlite")
    yield rec
    rec.close()


@pytest.fixture
def session(recorder):
    s = Session(recorder)
    s.new_game("kalah", {}, "Ann", "Bob")
    return s
