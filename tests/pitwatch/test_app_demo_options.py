"""`pitwatch demo` options that cannot make a demo are refused up front, before the database is touched."""

from __future__ import annotations

from pitwatch.cli import main
from pitwatch.recorder import Recorder
from pitwatch.session import Session

BOTH_OFF = ("pitwatch demo: the demo needs the camera or the sensors (or both), and both are switched off "
            "(--no-camera and --no-sensors, or demo.camera and demo.sensors = false)\n")


def test_a_demo_with_neither_camera_nor_sensors_is_refused_in_one_line_and_records_nothing(tmp_path, capsys,
                                                                                          monkeypatch):
    """It printed a traceback after recording a new game (the next run 'resumed kalah game 2 (0 moves)'),
    or, with --variant, after setting the game in progress aside."""
    monkeypatch.setenv("PITWATCH_CONFIG", str(tmp_path / "none.toml"))
    fresh = tmp_path / "fresh.sqlite"
    assert main(["demo", "--no-camera", "--no-sensors", "--port", "0", "--db", str(fresh)]) == 2
    assert capsys.readouterr().err == BOTH_OFF
    assert not fresh.exists()

    played = tmp_path / "played.sqlite"
    session = Session(Recorder(played))
    session.new_game("kalah", {}, "Ann", "Bob")
    session.play_by_hand("C")
    session.recorder.close()
    assert main(["demo", "--no-camera", "--no-sensors", "--variant", "oware", "--port", "0", "--db", str(played)]) == 2
    assert capsys.readouterr().err == BOTH_OFF
    recorder = Recorder(played)
    try:
        assert [(game.variant, game.status, game.move_count) for game in recorder.games()] == [("kalah", "active", 1)]
    finally:
        recorder.close()
