"""A run or demo that fails while it starts leaves the recorded games as it found them: the game
it began is forgotten if nothing of it was recorded, and the game in progress it set aside (for a
variant asked for) is in progress again. A misspelt variant makes no database file at all."""

from __future__ import annotations

import socket

import pytest

from pitwatch import config as cfg
from pitwatch.cli import main
from pitwatch.recorder import Recorder
from pitwatch.runtime import Runtime
from pitwatch.session import Session
from calibration.calibfile import save_calibration
from rules import Game
from vision.synthetic import SyntheticCamera


def games_in(db) -> list[tuple[str, str, int]]:
    """(variant, status, moves) of every recorded game, oldest first."""
    recorder = Recorder(db)
    try:
        return [(g.variant, g.status, g.move_count) for g in reversed(recorder.games())]
    finally:
        recorder.close()


def kalah_in_progress(db) -> None:
    """Last evening's Kalah game, one move in."""
    recorder = Recorder(db)
    session = Session(recorder)
    session.resume_or_start("kalah", {}, "Ann", "Bob")
    session.play_by_hand("C")
    recorder.close()


@pytest.fixture
def oware_board(tmp_path):
    path = tmp_path / "oware.json"
    save_calibration(SyntheticCamera("oware", lambda: Game("oware").position, 3).calibration(), path)
    return path


@pytest.fixture
def taken_port():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        yield taken.getsockname()[1]


@pytest.mark.parametrize("in_progress", [True, False])
def test_a_run_that_cannot_serve_leaves_the_games_as_they_were(tmp_path, capsys, oware_board, taken_port,
                                                                in_progress):
    db = tmp_path / "g.sqlite"
    if in_progress:
        kalah_in_progress(db)
    code = main(["run", "--variant", "oware", "--camera", "synthetic:oware:3", "--serial", "",
                 "--calibration", str(oware_board), "--port", str(taken_port), "--db", str(db)])
    err = capsys.readouterr().err
    assert code == 2 and f"cannot serve the dashboard on 127.0.0.1:{taken_port}" in err, err
    assert games_in(db) == ([("kalah", "active", 1)] if in_progress else [])


def test_the_players_giving_up_while_a_run_starts_leave_the_games_as_they_were(tmp_path):
    """Ctrl-C while the sensors learn (the players asked to empty the board decide not to)."""
    db = tmp_path / "g.sqlite"
    kalah_in_progress(db)
    runtime = Runtime(cfg.load(tmp_path / "none.toml", [f"recorder.database={db}", "game.variant=oware"]))
    with pytest.raises(KeyboardInterrupt):
        with runtime.starting():
            runtime.start_session()
            assert runtime.play_asked_variant()  # the Kalah game set aside, an Oware game begun
            assert games_in(db) == [("kalah", "abandoned", 1), ("oware", "active", 0)]
            raise KeyboardInterrupt
    runtime.stop()
    assert games_in(db) == [("kalah", "active", 1)]


def test_a_game_with_a_move_recorded_is_never_forgotten(tmp_path):
    db = tmp_path / "g.sqlite"
    runtime = Runtime(cfg.load(tmp_path / "none.toml", [f"recorder.database={db}"]))
    with pytest.raises(KeyboardInterrupt):
        with runtime.starting():
            runtime.start_session()
            runtime.session.play_by_hand("C")
            raise KeyboardInterrupt
    runtime.stop()
    assert games_in(db) == [("kalah", "active", 1)]


def test_a_misspelt_variant_makes_no_database(tmp_path, capsys):
    db = tmp_path / "g.sqlite"
    assert main(["demo", "--variant", "owere", "--db", str(db), "--port", "0"]) == 2
    assert "unknown variant 'owere'" in capsys.readouterr().err
    assert not db.exists()
