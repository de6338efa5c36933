"""`pitwatch doctor` makes the checks `pitwatch run` makes at start, and says FIX with run's words:
it said "ready" for a variant run refuses, and for a board calibration of another board."""

from __future__ import annotations

import re
import sqlite3
import subprocess
import sys

import pytest

import rules
from calibration.calibfile import save_calibration
from firmware_bridge.bridge import LinkHealth
from pitwatch.cli import main
from pitwatch.doctor import check_link
from pitwatch.recorder import Recorder
from pitwatch.session import Session
from rules import Game
from vision.synthetic import SyntheticCamera


@pytest.fixture(autouse=True)
def no_user_config(monkeypatch, tmp_path):
    monkeypatch.setenv("PITWATCH_CONFIG", str(tmp_path / "no-such-config.toml"))


def doctor(tmp_path, capsys, *settings: str) -> tuple[int, str]:
    """The doctor's exit code and its report, on a database in ``tmp_path``."""
    args = ["doctor", "--set", f"recorder.database={tmp_path / 'g.sqlite'}", "--set", "web.port=0"]
    for setting in settings:
        args += ["--set", setting]
    return main(args), capsys.readouterr().out


def refused(variant: str, **options) -> str:
    """What run says of this configured variant (``Runtime.start_session``: ``rules.variant``)."""
    with pytest.raises(rules.RulesError) as error:
        rules.variant(variant, **options)
    return str(error.value)


@pytest.mark.parametrize("settings, said", [
    (["game.variant=nosuch"], refused("nosuch") + "; fix game.variant"),
    (["game.options={ houses = 99 }"], refused("kalah", houses=99) + "; fix game.options"),
    (["game.variant=oware", "game.options={ houses = 6 }"], refused("oware", houses=6) + "; fix game.options"),
])
def test_a_variant_or_options_run_refuses_is_to_fix(tmp_path, capsys, settings, said):
    code, out = doctor(tmp_path, capsys, "camera.source=", "sensors.port=", *settings)
    assert code == 1
    assert f"\nFIX  game: {said}\n" in out, out
    assert not (tmp_path / "g.sqlite").exists()


def test_a_good_variant_is_said_with_its_options_and_board(tmp_path, capsys):
    _, out = doctor(tmp_path, capsys, "camera.source=", "sensors.port=", "game.options={ houses = 8 }")
    assert re.search(r"^ok\s+game: a new game is kalah \(Kalah: .*; played with houses = 8\), on a 2x8\+stores board$",
                     out, re.M), out


def oware_calibration(tmp_path):
    path = tmp_path / "board2.json"
    save_calibration(SyntheticCamera("oware", lambda: Game("oware").position, 3).calibration(), path)
    return path


def test_a_calibration_of_another_board_is_to_fix_with_runs_words(tmp_path, capsys):
    """Kalah configured, the camera calibrated on an Oware board: run refuses to start."""
    board = oware_calibration(tmp_path)
    code, out = doctor(tmp_path, capsys, "camera.source=synthetic:oware:3", f"camera.calibration={board}",
                       "sensors.port=")
    run = subprocess.run([sys.executable, "-m", "pitwatch.cli", "run", "--camera", "synthetic:oware:3", "--serial", "",
                          "--calibration", str(board), "--port", "0", "--db", str(tmp_path / "g.sqlite")],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2, run
    said = run.stderr.removeprefix("pitwatch run: ").rstrip("\n")
    assert said == (f"{board} calibrates a 2x6 board, but kalah is played on a 2x6+stores board: calibrate this "
                    "board, or play a variant of that one (--variant: nam-nam, oware)")
    assert not (tmp_path / "g.sqlite").exists(), "run refused, but recorded a game of 0 moves first"
    assert code == 1
    assert f"\nFIX  calibration: {said}\n" in out, out


def test_the_board_checked_is_that_of_the_game_in_progress_which_run_resumes(tmp_path, capsys):
    """Oware configured and calibrated for, but a Kalah game in progress: run resumes it, on the wrong board."""
    session = Session(Recorder(tmp_path / "g.sqlite"))
    session.new_game("kalah", {}, "Ann", "Bob")
    session.recorder.close()
    board = oware_calibration(tmp_path)
    settings = (f"camera.source={tmp_path / 'no-camera'}", f"camera.calibration={board}", "sensors.port=")
    _, out = doctor(tmp_path, capsys, "game.variant=oware", *settings)
    assert re.search(r"^FIX\s+calibration: .*board2.json calibrates a 2x6 board, but kalah is played on a 2x6\+stores "
                     r"board", out, re.M), out
    session = Session(Recorder(tmp_path / "g.sqlite"))
    session.resume_or_start("kalah", {}, "Ann", "Bob")
    session.new_game("oware", {}, "Ann", "Bob")  # the players chose Oware: the board is right now
    session.recorder.close()
    _, out = doctor(tmp_path, capsys, "game.variant=oware", *settings)
    assert re.search(r"^ok\s+calibration: .*board2.json: a 2x6 board, 12 pits", out, re.M), out


def test_a_game_in_progress_that_does_not_replay_is_said_and_the_new_games_board_checked(tmp_path, capsys):
    """A Kalah game in progress damaged outside Pitwatch: run will not resume it but start the configured
    Oware, so the doctor says so and checks the Oware calibration against Oware (ok, not FIX)."""
    session = Session(Recorder(tmp_path / "g.sqlite"))
    session.new_game("kalah", {}, "Ann", "Bob")
    damaged = session.game_id
    session.recorder.close()
    with sqlite3.connect(tmp_path / "g.sqlite") as db:
        db.execute("UPDATE games SET options='[]' WHERE id=?", (damaged,))
    db.close()
    settings = (f"camera.source={tmp_path / 'no-camera'}", f"camera.calibration={oware_calibration(tmp_path)}",
                "sensors.port=")
    _, out = doctor(tmp_path, capsys, "game.variant=oware", *settings)
    assert (f"game {damaged} (kalah, 0 moves) cannot be resumed (game {damaged} is damaged: games.options is not a "
            "JSON object): `pitwatch run` keeps it on record and starts a new game") in out, out
    assert re.search(r"^ok\s+calibration: .*board2.json: a 2x6 board, 12 pits", out, re.M), out


@pytest.mark.parametrize("fault", ["calibration", "camera"])
def test_a_camera_set_up_that_does_not_open_refuses_run_before_a_game_is_recorded(tmp_path, capsys, fault):
    """The calibration file is read once and the camera opened at start: a fault in either is named,
    and no database is made for a run that never plays."""
    board, empty_folder = oware_calibration(tmp_path), tmp_path / "no pictures"
    empty_folder.mkdir()
    if fault == "calibration":
        board.write_text('{"version": 1,')
    camera = str(empty_folder) if fault == "camera" else "synthetic:oware:3"
    code = main(["run", "--variant", "oware", "--camera", camera, "--serial", "", "--calibration", str(board),
                 "--port", "0", "--db", str(tmp_path / "g.sqlite")])
    err = capsys.readouterr().err
    said = (f"{board}: not JSON (line 1" if fault == "calibration"
            else f"camera source '{empty_folder}': the folder holds no images")
    assert code == 2 and err.startswith(f"pitwatch run: {said}"), err
    assert not (tmp_path / "g.sqlite").exists(), "run refused, but recorded a game of 0 moves first"


@pytest.mark.parametrize("health, said", [
    # a board that answers but reports nothing (its sensors' code not running), and one of a newer firmware
    (LinkHealth(2.0, 0, 0, 0, 0), (False, "the board sent no sensor reports in 2 s: check its firmware (docs/protocol.md)")),
    (LinkHealth(2.0, 60, 0, 0, 3), (True, "60 sensor reports whole in 2 s, no frame damaged; 3 messages of a newer "
                                          "firmware ignored (update Pitwatch)")),
    (LinkHealth(2.0, 55, 4, 1, 0), (False, "4 frames damaged and 1 reports lost in 2 s (55 arrived whole): try a shorter "
                                           "or shielded USB cable, away from motors and mains leads, or another USB port")),
])
def test_the_serial_link_check_says_what_the_watched_reports_showed(health, said):
    """The doctor's verdict on a link's health as the bridge measured it (measured for real, over a
    noisy cable and a clean board, in test_app_cli and tests/firmware_bridge/test_link_health.py)."""
    check = check_link(health)
    assert (check.name, check.ok, check.detail) == ("serial link", *said)
