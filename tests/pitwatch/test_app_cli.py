"""The `pitwatch` command: config, games, doctor and run, through main() and real subprocesses."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
import time
import tomllib
import urllib.request
from contextlib import closing
from dataclasses import replace
from typing import Callable

import pytest

from apphelpers import sensor_calibration_for, version_1_database
from network_camera import MjpegCamera, NumberedCamera
from processes import start_pitwatch, stop
from transcript import Transcript
from calibration.calibfile import save_calibration, save_sensor_file
from firmware_bridge.emulator import EmulatedBoard
from pitwatch.cli import main
from pitwatch.errors import INTERRUPTED
from pitwatch.recorder import SCHEMA_VERSION, Recorder
from pitwatch.session import Session
from rules import Game, Reading
from waiting import wait_until


@pytest.fixture(autouse=True)
def no_user_config(monkeypatch, tmp_path):
    monkeypatch.setenv("PITWATCH_CONFIG", str(tmp_path / "no-such-config.toml"))


@pytest.fixture
def recorded(tmp_path):
    db = tmp_path / "games.sqlite"
    session = Session(Recorder(db))
    session.new_game("kalah", {}, "Ada", "Bo")
    truth = Game("kalah")
    for text in ("C", "F", "a", "B"):
        truth.play(text)
        session.submit(Reading.of_position(truth.position, "test"))
    session.recorder.close()
    return db, session.game_id, [m.text for m in truth.moves]


def test_config_prints_the_documented_default_file(capsys):
    assert main(["config"]) == 0
    assert tomllib.loads(capsys.readouterr().out)["web"]["host"] == "127.0.0.1"


def test_games_variants_lists_every_variant_with_options(capsys):
    assert main(["games", "variants"]) == 0
    out = capsys.readouterr().out
    assert "pass-it-on:" in out and "grand_slam" in out


def test_games_list_show_export_and_import_round_trip(recorded, capsys, tmp_path):
    db, game_id, moves = recorded
    assert main(["games", "--db", str(db), "list"]) == 0
    assert re.search(rf"{game_id}\s+kalah\s+Ada v Bo\s+4 moves", capsys.readouterr().out)
    assert main(["games", "list", "--db", str(db)]) == 0  # the options also after the action, where users type them
    assert re.search(rf"{game_id}\s+kalah\s+Ada v Bo\s+4 moves", capsys.readouterr().out)
    assert main(["games", "--db", str(tmp_path / "none.sqlite"), "--set", "web.port=1", "list", "--set", "web.port=2",
                 "--db", str(db)]) == 0  # an action's options add to the command's, not undo them
    assert re.search(rf"{game_id}\s+kalah", capsys.readouterr().out)
    assert main(["games", "--db", str(db), "show", str(game_id), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["moves"] == moves
    text_file, json_file = tmp_path / "game.txt", tmp_path / "game.json"
    assert main(["games", "--db", str(db), "export", str(game_id), "-o", str(text_file)]) == 0
    assert '[South "Ada"]' in text_file.read_text() and "1. C F" in text_file.read_text()
    assert main(["games", "--db", str(db), "export", str(game_id), "--format", "json", "-o", str(json_file)]) == 0
    assert json.loads(json_file.read_text())["moves"] == moves
    other = tmp_path / "other.sqlite"
    for record in (text_file, json_file):
        assert main(["games", "--db", str(other), "import", str(record)]) == 0
    capsys.readouterr()
    imported = Recorder(other)
    assert [[m.text for m in imported.moves(g.id)] for g in imported.games()] == [moves, moves]
    assert {g.south for g in imported.games()} == {"Ada"} and imported.active_game() is None


def test_games_import_stores_every_game_of_a_record_or_none(recorded, capsys, tmp_path):
    """A record of several games (a Pass It On match, or exports put one after the other) is
    imported whole; one bad move anywhere in it and nothing is stored."""
    db, game_id, moves = recorded
    game_file = tmp_path / "game.txt"
    assert main(["games", "--db", str(db), "export", str(game_id), "-o", str(game_file)]) == 0
    match, other = tmp_path / "match.txt", tmp_path / "other.sqlite"
    match.write_text(game_file.read_text() * 3)
    assert main(["games", "--db", str(other), "import", str(match)]) == 0
    assert capsys.readouterr().out == "imported 3 games as games 1-3\n"
    imported = Recorder(other)
    assert [[m.text for m in imported.moves(g.id)] for g in imported.games()] == [moves] * 3
    imported.close()
    lines = game_file.read_text().count("\n")
    match.write_text(game_file.read_text() + '[Variant "kalah"]\n1. C C *\n')
    assert main(["games", "--db", str(other), "import", str(match)]) == 2
    assert capsys.readouterr().err == (f"pitwatch games: {match}: line {lines + 2}, column 6: move 2: kalah: "
                                       "'C' is not a legal move for south: C is empty; legal moves: A, B, D, E, F\n")
    empty = tmp_path / "empty.txt"
    empty.write_text("\n")
    assert main(["games", "--db", str(other), "import", str(empty)]) == 2
    assert capsys.readouterr().err.startswith(f"pitwatch games: {empty}: line 1, column 1: no game in the record")
    with closing(Recorder(other)) as again:
        assert len(again.games()) == 3  # neither bad record stored a game


def test_bad_input_is_one_line_naming_the_problem(recorded, capsys, tmp_path):
    db, game_id, _ = recorded
    assert main(["games", "--db", str(db), "show", "999"]) == 2
    assert "no recorded game with id 999" in capsys.readouterr().err
    assert main(["games", "--db", str(db), "export", str(2**64)]) == 2  # beyond an SQLite integer
    assert capsys.readouterr().err == f"pitwatch games: no recorded game with id {2**64}\n"
    bad = tmp_path / "bad.txt"
    bad.write_text('[Variant "kalah"]\n\n1. C Q *\n')
    assert main(["games", "--db", str(db), "import", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"pitwatch games: {bad}: line 3, column ") and "Traceback" not in err
    missing = tmp_path / "missing.json"
    missing.write_text('{"moves": ["A"]}')
    assert main(["games", "--db", str(db), "import", str(missing)]) == 2
    assert capsys.readouterr().err == f"pitwatch games: {missing}: a game record needs 'variant' (str)\n"
    broken = tmp_path / "broken.json"
    broken.write_text("{ nope")
    assert main(["games", "--db", str(db), "import", str(broken)]) == 2
    assert "not valid JSON" in capsys.readouterr().err
    picture = tmp_path / "board.jpg"
    picture.write_bytes(b"\xff\xd8\xff\xe0\x00\x10JFIF")
    assert main(["games", "--db", str(db), "import", str(picture)]) == 2
    err = capsys.readouterr().err
    assert "board.jpg: not a game record (not UTF-8 text, byte 0)" in err and "Traceback" not in err
    assert main(["games", "--db", str(db), "import", str(tmp_path / "lost.txt")]) == 2
    assert capsys.readouterr().err == f"pitwatch games: {tmp_path / 'lost.txt'}: No such file or directory\n"
    assert main(["markers", "-o", str(tmp_path / "no" / "sheet.png")]) == 2
    assert capsys.readouterr().err == f"pitwatch markers: error: {tmp_path / 'no' / 'sheet.png'}: cannot write: No such file or directory\n"
    assert main(["games", "--set", "web.prot=1", "list"]) == 2
    assert "unknown key web.prot" in capsys.readouterr().err
    assert main(["games", "--db", str(db), "list", "--set", "web.prot=1"]) == 2
    assert "unknown key web.prot" in capsys.readouterr().err
    assert main(["games", "--set", "web.prot=1", "list", "--db", str(db)]) == 2
    assert "unknown key web.prot" in capsys.readouterr().err
    mistyped = tmp_path / "gmaes.sqlite"
    assert main(["games", "list", "--db", str(mistyped)]) == 2
    assert capsys.readouterr().err == (f"pitwatch games: {mistyped}: no game database there (`pitwatch run` creates it); "
                                       "choose another with --db or recorder.database\n")
    assert not mistyped.exists()
    assert main(["games", "--config", str(tmp_path / "missing.toml"), "list"]) == 2
    assert "no such configuration file" in capsys.readouterr().err
    assert main(["demo", "--host", "0.0.0.0"]) == 2
    assert "allow_network" in capsys.readouterr().err


def test_doctor_checks_everything_and_says_what_to_fix(tmp_path, capsys):
    from calibration.calibfile import save_calibration, save_sensors
    from vision.synthetic import SyntheticCamera

    game = Game("kalah")
    camera = SyntheticCamera("kalah", lambda: game.position, 3)
    save_calibration(camera.calibration(), tmp_path / "board.json")
    labels = game.variant.layout.labels
    save_sensors(tmp_path / "board.json", sensor_calibration_for(len(labels), labels, game.position.pits))
    with EmulatedBoard() as board:
        code = main(["doctor", "--set", f"recorder.database={tmp_path / 'g.sqlite'}", "--set", "camera.source=synthetic:kalah:3",
                     "--set", f"camera.calibration={tmp_path / 'board.json'}", "--set", f"sensors.port={board.port}",
                     "--set", "web.port=0"])
    out = capsys.readouterr().out
    for name in ("database", "camera", "camera picture", "calibration", "seed counter", "board in view", "pits in view",
                 "camera angle",
                 "board in the picture", "focus", "flicker",
                 "microcontroller", "serial link", "dashboard port"):
        assert re.search(rf"^ok\s+{name}:", out, re.M), (name, out)
    assert re.search(r"^ok\s+serial link: \d+ sensor reports whole in 2 s, no frame damaged$", out, re.M), out
    # the board's most, not the pit count it was left with (the emulator's 32 as it boots, shown as "32 pits")
    assert re.search(rf"^ok\s+microcontroller: {re.escape(board.port)}: firmware [\d.]+, up to 32 pits$", out, re.M), out
    # How fast a busy test machine reads is not this test's to judge (reading_delay's test does that)
    speed = re.search(r"^(ok|FIX)\s+reading speed: \d+ ms a frame \([\d.]+ frames a second at most\): a Reading \d+\.\d s after",
                      out, re.M)
    assert speed, out
    assert code == (0 if speed.group(1) == "ok" else 1), out
    assert re.search(rf"^ok\s+sensor calibration: {re.escape(str(tmp_path / 'board.json'))}: 14 pits", out, re.M), out
    assert re.search(r"^ok\s+calibration: .*: a 2x6\+stores board, 14 pits; seeds: one covers about \d+ mm2 of the board", out, re.M), out
    (tmp_path / "sensors.json").write_text("{not json")
    code = main(["doctor", "--set", f"recorder.database={tmp_path / 'g.sqlite'}",
                 "--set", f"camera.source={tmp_path / 'no-camera'}", "--set", "sensors.port=/dev/nonexistent-tty",
                 "--set", f"sensors.calibration={tmp_path / 'sensors.json'}", "--set", "web.port=0"])
    out = capsys.readouterr().out
    assert code == 1
    assert re.search(rf"^FIX\s+sensor calibration: .*delete {re.escape(str(tmp_path / 'sensors.json'))} to learn "
                     "the sensors again", out, re.M), out
    assert re.search(r"^FIX\s+camera: .*no such file", out, re.M)
    assert re.search(r"^FIX\s+calibration: camera.calibration is not set: run `pitwatch calibrate", out, re.M)
    assert re.search(r"^FIX\s+microcontroller: .*sensors.port", out, re.M)


def test_doctor_says_a_board_whose_pits_it_cannot_read_is_not_ready(tmp_path, capsys):
    """A hand over the board: the board is found, but pits are hidden, and the doctor says what to do
    rather than that everything looks ready."""
    import cv2

    from calibration.calibfile import save_calibration
    from vision.synthetic import SyntheticCamera

    game = Game("kalah")
    camera = SyntheticCamera("kalah", lambda: game.position, 3)
    save_calibration(camera.calibration(), tmp_path / "board.json")
    (tmp_path / "camera").mkdir()
    cv2.imwrite(str(tmp_path / "camera" / "frame.png"), camera.frame_of(dict(zip(game.variant.layout.labels,
                                                                                   game.position.pits)), hand=True))
    code = main(["doctor", "--set", f"recorder.database={tmp_path / 'g.sqlite'}", "--set", f"camera.source={tmp_path / 'camera'}",
                 "--set", f"camera.calibration={tmp_path / 'board.json'}", "--set", "sensors.port=", "--set", "web.port=0"])
    out = capsys.readouterr().out
    assert code == 1 and re.search(r"^ok\s+board in view:", out, re.M), out
    assert re.search(r"^FIX\s+pits in view: hand over board: \d+ of 14 pits not seen \([A-Za-z, ]+\): take hands and "
                     r"things off the board and run pitwatch doctor again; if nothing is over it, this is not the board "
                     r"calibrated \(pitwatch calibrate\)$", out, re.M), out


@pytest.mark.parametrize("shown, said", [
    ("grey", r"no colour in the picture \(a greyscale camera, or a greyscale file\): seeds are counted and chips told "
             r"apart in colour; use a colour camera"),
    ("wall", r"board not found: markers missing \(near-left, near-right, far-right, far-left\): aim the camera at the "
             r"board, all four markers in view"),
])
def test_doctor_tells_a_board_not_found_by_what_is_wrong(tmp_path, capsys, shown, said):
    """Aiming the camera is the advice for markers out of view, not for a greyscale camera."""
    import cv2
    import numpy as np

    from calibration.calibfile import save_calibration
    from vision.synthetic import SyntheticCamera

    game = Game("kalah")
    camera = SyntheticCamera("kalah", lambda: game.position, 3)
    save_calibration(camera.calibration(), tmp_path / "board.json")
    (tmp_path / "camera").mkdir()
    frame = camera.frame_of(dict(zip(game.variant.layout.labels, game.position.pits)))
    picture = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if shown == "grey" else np.full_like(frame, 120)
    cv2.imwrite(str(tmp_path / "camera" / "frame.png"), picture)
    main(["doctor", "--set", f"recorder.database={tmp_path / 'g.sqlite'}", "--set", f"camera.source={tmp_path / 'camera'}",
          "--set", f"camera.calibration={tmp_path / 'board.json'}", "--set", "sensors.port=", "--set", "web.port=0"])
    out = capsys.readouterr().out
    assert re.search(rf"^FIX\s+board in view: {said}$", out, re.M), out


def test_doctor_says_a_calibration_made_before_seeds_were_measured_is_worth_making_again(tmp_path, capsys):
    """A file calibrated before Pitwatch measured one seed's size still reads, with a reflection
    told from a seed by the largest seed there is; the doctor says what calibrating again buys."""
    from calibration.calibfile import save_calibration
    from vision.synthetic import SyntheticCamera

    calibration = SyntheticCamera("kalah", lambda: Game("kalah").position, 3).calibration()
    save_calibration(replace(calibration, seed_area_mm2=None), tmp_path / "older.json")
    main(["doctor", "--set", f"recorder.database={tmp_path / 'g.sqlite'}", "--set", f"camera.source={tmp_path / 'no-camera'}",
          "--set", f"camera.calibration={tmp_path / 'older.json'}", "--set", "sensors.port=", "--set", "web.port=0"])
    out = capsys.readouterr().out
    assert re.search(r'^ok\s+microcontroller: none \(sensors.port is ""\): the camera alone referees', out, re.M), out
    assert re.search(r"^ok\s+calibration: .*: a 2x6\+stores board, 14 pits; its seeds' size was not measured .*: calibrate "
                     "again, and a lamp's reflection in a pit is told from these seeds by their size", out, re.M), out


@pytest.mark.parametrize("restick, said", [
    ({"markers": ((0, 0), (1, 0), (2, 2), (3, 0))},
     r"markers stuck wrong: marker 2 \(far-right\) is stuck upside down: stick it upright as read from South's seat, "
     r"as the sheet prints it"),
    ({"marker_shifts": ((0.0, 0.0), (0.0, 0.0), (0.0, 9.0), (0.0, 0.0))},
     r"marker moved on the board: marker 2 \(far-right\) lies \d+ mm towards South of where calibration found it "
     r"stuck: stick it back where it was, or calibrate again \(pitwatch calibrate\)"),
])
def test_doctor_names_a_marker_stuck_back_wrong_since_calibration(tmp_path, capsys, restick, said):
    """A marker that fell off and was stuck back turned, or elsewhere, puts every pit elsewhere:
    the doctor says which marker and how, not to aim the camera at a board it has in view."""
    import cv2
    import numpy as np

    from calibration.calibfile import save_calibration
    from calibration.calibrate import calibrate
    from calibration.profiles import start_counts
    from vision.render import random_scene, random_shot, render

    rng = np.random.default_rng(5)
    scene = random_scene("2x6+stores", rng)
    counts, white = start_counts("kalah")
    empty, start = (render(scene, c, w, random_shot(rng, hard=False, hand=False)).image for c, w in (({}, None), (counts, white)))
    save_calibration(calibrate("kalah", empty, start), tmp_path / "board.json")
    (tmp_path / "camera").mkdir()
    restuck = render(replace(scene, **restick), counts, white, random_shot(rng, hard=False, hand=False))
    cv2.imwrite(str(tmp_path / "camera" / "frame.png"), restuck.image)
    main(["doctor", "--set", f"recorder.database={tmp_path / 'g.sqlite'}", "--set", f"camera.source={tmp_path / 'camera'}",
          "--set", f"camera.calibration={tmp_path / 'board.json'}", "--set", "sensors.port=", "--set", "web.port=0"])
    out = capsys.readouterr().out
    assert re.search(rf"^FIX\s+board in view: {said}$", out, re.M), out


def test_doctor_names_a_cable_that_damages_frames(tmp_path, capsys):
    """A USB cable that damages a frame in ten still connects (the link retries), so the board
    seems fine until readings go missing in play: the doctor watches its reports and says so."""
    from noisy_cable import NoisyCable

    with EmulatedBoard() as board:
        cable = NoisyCable(board.port, seed=5, noise=0.1)
        try:
            code = main(["doctor", "--set", f"recorder.database={tmp_path / 'g.sqlite'}", "--set", f"sensors.port={cable.port}",
                         "--set", "web.port=0"])
        finally:
            cable.close()
    out = capsys.readouterr().out
    assert code == 1
    assert re.search(r"^ok\s+microcontroller: ", out, re.M), out
    assert re.search(r"^FIX\s+serial link: \d+ frames damaged and \d+ reports lost in 2 s \(\d+ arrived whole\): try a "
                     r"shorter or shielded USB cable", out, re.M), out


def test_doctor_names_a_port_where_no_board_answers(tmp_path, capsys):
    """A serial port that opens but where nothing speaks Pitwatch's protocol (a pseudo-terminal
    nobody reads: a board without the firmware, a wrong port)."""
    master, silent = os.openpty()
    try:
        port = os.ttyname(silent)
        code = main(["doctor", "--set", f"recorder.database={tmp_path / 'g.sqlite'}", "--set", f"sensors.port={port}",
                     "--set", "web.port=0"])
    finally:
        os.close(master)
        os.close(silent)
    out = capsys.readouterr().out
    assert code == 1
    assert re.search(rf"^FIX\s+microcontroller: no Pitwatch board answered within 5 s \(last tried {re.escape(port)}\); "
                     "check the USB cable", out, re.M), out
    assert re.search(r'^ok\s+camera: none \(camera.source is ""\): the microcontroller alone referees; set camera.source',
                     out, re.M), out


def test_the_doctor_leaves_a_live_sessions_camera_and_microcontroller_alone(tmp_path, capsys):
    """Its serial port opened a second time would take bytes from the game being refereed, and the
    dashboard's port is taken by that session itself: the doctor says so instead of FIX."""
    from pitwatch.config import load
    from pitwatch.runtime import Runtime

    database = f"recorder.database={tmp_path / 'g.sqlite'}"
    doctor = ["doctor", "--set", database, "--set", f"sensors.port={tmp_path / 'no-such-port'}"]
    live = Runtime(load(tmp_path / "none.toml", [database]))
    live.start_session()
    try:
        assert main(doctor) == 0
    finally:
        live.stop()
    out = capsys.readouterr().out
    assert re.search(r"^ok\s+database: .*game 1 \(kalah, 0 moves\) is being played$", out, re.M), out
    assert re.search(rf"^ok\s+live session: a pitwatch run or demo is playing on this database \(pid {os.getpid()}\): "
                     "the camera, the microcontroller and the dashboard's port are its own", out, re.M), out
    assert "microcontroller:" not in out
    assert main(doctor) == 1  # the session stopped: its microcontroller is checked, and is not there
    assert re.search(r"^FIX\s+microcontroller: ", capsys.readouterr().out, re.M)


def state_when(url: str, holds: Callable[[dict], bool], timeout: float = 10.0) -> dict:
    """The dashboard's state (``/api/state``) once ``holds`` it; after ``timeout`` s, the last one."""
    def state() -> dict:
        with urllib.request.urlopen(url + "api/state", timeout=5) as response:
            return json.loads(response.read())

    def holding() -> dict | None:
        now = state()
        return now if holds(now) else None
    return wait_until(holding, timeout, 0.05) or state()


def test_a_missing_camera_is_named_once_not_warned_about_by_every_library(tmp_path):
    """OpenCV and FFmpeg print their own warnings on every try to open a camera that is not
    there; Pitwatch's status says it, and their warnings stay out of the players' terminal."""
    network = "http://127.0.0.1:9/video.mjpg"  # the discard port: nothing answers there
    for source in ("97", network):
        done = subprocess.run([sys.executable, "-m", "pitwatch.cli", "doctor", "--set", f"recorder.database={tmp_path / 'g.sqlite'}",
                               "--set", f"camera.source={source}", "--set", "sensors.port=", "--set", "web.port=0"],
                              capture_output=True, text=True, timeout=60, env={k: v for k, v in os.environ.items()
                                                                               if not k.startswith("OPENCV_")})
        assert re.search(rf"^FIX\s+camera: {re.escape(source)}: camera lost: .* does not answer", done.stdout, re.M), done.stdout
        assert done.stderr == "", done.stderr


def test_doctor_says_when_readings_would_come_too_late_for_play():
    """The stillness gate waits for ``still_frames`` frames, each as slow as the reader or the
    camera: a camera sending a frame every 2 s makes every Reading 10 s late, and so does a
    machine taking 2 s to read a frame."""
    from pitwatch.doctor import reading_delay

    slow_camera = reading_delay(0.013, still_frames=5, camera_rate=0.5)
    assert not slow_camera.ok
    assert slow_camera.detail == ("13 ms a frame (77 frames a second at most): a Reading 10.0 s after the board goes still; "
                                  "a faster machine or camera, or fewer camera.still_frames")
    assert reading_delay(0.013, still_frames=5, camera_rate=30).ok  # five frames of 33 ms
    slow_machine = reading_delay(2.0, still_frames=5, camera_rate=30)
    assert not slow_machine.ok and slow_machine.detail.startswith("2000 ms a frame (0.5 frames a second at most): a Reading 10.0 s")
    assert reading_delay(0.39, still_frames=5, camera_rate=None).ok  # 1.95 s: in time
    assert not reading_delay(0.41, still_frames=5, camera_rate=None).ok  # 2.05 s: too late


def test_doctor_says_how_to_stop_a_lamp_flickering_in_bands():
    """A lamp on mains power against a short exposure: bands across the picture that move from
    frame to frame. The doctor reads a few frames through the stillness gate and says to set the
    camera's power-line frequency; under a steady lamp, that all is well."""
    from pitwatch.doctor import FLICKER_FRAMES, check_flicker
    from vision.reader import BoardReader
    from vision.synthetic import SyntheticCamera

    game = Game("kalah")
    camera = SyntheticCamera("kalah", lambda: game.position, 3)
    reader = BoardReader(camera.calibration())
    steady = check_flicker(reader, [camera.read().image for _ in range(FLICKER_FRAMES)])
    assert steady is not None and steady.ok, steady
    camera.flicker = 0.15
    flickering = check_flicker(BoardReader(reader.calibration), [camera.read().image for _ in range(FLICKER_FRAMES)])
    assert flickering is not None and not flickering.ok
    assert "power_line_frequency=1 for 50 Hz" in flickering.detail and "between two frames" in flickering.detail
    assert check_flicker(reader, [camera.read().image]) is None  # one frame: nothing to compare


def test_doctor_measures_a_network_cameras_frame_rate(tmp_path, capsys):
    with NumberedCamera() as network:  # 30 frames a second
        code = main(["doctor", "--set", f"recorder.database={tmp_path / 'g.sqlite'}", "--set", f"camera.source={network.url}",
                     "--set", "sensors.port=", "--set", "web.port=0"])
    out = capsys.readouterr().out
    assert code == 1  # no calibration yet
    rate = re.search(rf"^ok\s+camera: {re.escape(network.url)}: 160 x 120 frames, (\d+) frames a second$", out, re.M)
    assert rate and 24 <= int(rate.group(1)) <= 36, out
    assert re.search(r"^FIX\s+camera picture: 160 x 120 is too small to count seeds well .*: record or stream the "
                     r"board at 1280x720 or more$", out, re.M), out


def test_doctor_says_how_to_get_a_picture_big_enough_to_count_seeds_in():
    """A webcam left at 640 x 480 reads pits of 5-9 seeds far worse: asked for less than
    1280 x 720 (camera.size), or unable to give it, the doctor says which."""
    import numpy as np

    from pitwatch.doctor import check_picture_size

    small, big = np.zeros((480, 640, 3), np.uint8), np.zeros((1080, 1920, 3), np.uint8)
    assert check_picture_size(big, (1920, 1080), device=True).ok
    asked_less = check_picture_size(small, (640, 480), device=True)
    assert not asked_less.ok and asked_less.detail.endswith('set camera.size = "1280x720" (it is 640x480)')
    cannot = check_picture_size(small, (1280, 720), device=True)
    assert not cannot.ok and cannot.detail.endswith("asked for 1280x720, this camera gives no more: use one that gives 1280x720")
    assert "93.9-95.0 % of the time at 640 x 480, against 99.50-99.75 % at 1280 x 720" in cannot.detail


def test_the_doctor_quotes_the_benchmark_at_the_measured_size_nearest_below_the_picture():
    """A webcam at 1024 x 768 reads nearly as well as at 1280 x 720: the doctor quotes that
    size's figure, not 640 x 480's, and a size between two measured ones the smaller's."""
    import numpy as np

    from pitwatch.doctor import check_picture_size

    def detail(width: int, height: int) -> str:
        return check_picture_size(np.zeros((height, width, 3), np.uint8), (1280, 720), device=True).detail

    assert "read exactly 99.3-99.5 % of the time at 1024 x 768, against 99.50-99.75 % at 1280 x 720" in detail(1024, 768)
    assert "93.9-95.0 % of the time at 640 x 480" in detail(800, 600)
    assert "93.9-95.0 % of the time at 640 x 480" in detail(320, 240)  # below every measured size: the smallest
    assert "99.3-99.5 % of the time at 1024 x 768" in detail(1920, 600)  # more pixels than 1280 x 720, too few rows


def test_a_picture_size_that_is_not_one_is_named(capsys):
    assert main(["doctor", "--set", "camera.size=1280*720"]) == 2
    assert "camera.size = '1280*720' is not a picture size: write WIDTHxHEIGHT, e.g. 1280x720" in capsys.readouterr().err
    assert main(["read", "--calibration", "none.json", "x.jpg", "--set", "camera.size=20x20"]) == 2
    assert "camera.size = '20x20': expected a width of 160-7680 px" in capsys.readouterr().err


def test_a_microcontrollers_learned_board_is_kept_and_names_the_variants_it_plays(tmp_path):
    """With no camera, the board the sensors were learned on is the board refereed: a variant of
    another board is refused before anything is set aside, and its game in progress is refused
    rather than learned over the Kalah board's sensors."""
    kalah = Game("kalah")
    labels = kalah.variant.layout.labels
    sensors = tmp_path / "sensors.json"
    save_sensor_file(sensors, sensor_calibration_for(len(labels), labels, kalah.position.pits))
    learned = sensors.read_text()
    db = tmp_path / "g.sqlite"
    kalah_game_in_progress(db)
    argv = [sys.executable, "-m", "pitwatch.cli", "run", "--serial", str(tmp_path / "no-such-port"), "--port", "0",
            "--db", str(db), "--set", f"sensors.calibration={sensors}"]
    asked = subprocess.run([*argv, "--variant", "oware"], capture_output=True, text=True, timeout=60)
    assert asked.returncode == 2, asked
    assert ("pitwatch run: oware is played on a 2x6 board, not on the board being watched (on which kalah, kalah-3, "
            "egyptian, ethiopian, nigerian are played)") in asked.stderr
    recorder = Recorder(db)
    assert recorder.active_game().variant == "kalah"  # refused before the game was set aside
    recorder.start_game("oware", {}, "South", "North")  # an Oware game left from another board's evening
    recorder.close()
    resumed = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert resumed.returncode == 2, resumed
    assert (f"pitwatch run: {sensors} holds the sensors learned on a 2x6+stores board, but the game is played on a "
            "2x6 board: play a variant of that board (--variant: kalah") in resumed.stderr
    assert sensors.read_text() == learned


def test_run_referees_the_microcontrollers_board(tmp_path):
    game = Game("kalah")
    labels = game.variant.layout.labels
    calibration = sensor_calibration_for(len(labels), labels, game.position.pits)
    save_sensor_file(tmp_path / "sensors.json", calibration)
    with EmulatedBoard() as board:
        board.set_counts(game.position.pits)
        proc = start_pitwatch(
            "run", "--serial", board.port, "--port", "0", "--db", str(tmp_path / "g.sqlite"),
            "--set", f"sensors.calibration={tmp_path / 'sensors.json'}", "--set", "session.settle_seconds=0.1",
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            url = None
            for line in proc.stdout:
                found = re.search(r"dashboard at (http://\S+)", line)
                if found:
                    url = found.group(1)
                    break
            assert url, proc.stderr.read()
            def lit() -> set[str]:
                return {labels[i] for i, led in enumerate(board.leds) if led.mode.name == "ON"}

            for text in ("C", "F", "a"):
                game.play(text)
                board.set_counts(game.position.pits)
                state = state_when(url, lambda now: len(now["game"]["moves"]) == len(game.moves))
                assert [m["text"] for m in state["game"]["moves"]] == [m.text for m in game.moves]
            assert state["sources"]["sensors"] == "ok"
            legal = {labels[m.pit] for m in game.legal_moves()}
            assert wait_until(lambda: lit() == legal, 5, 0.05), (lit(), legal)
            board.press(1)  # the undo button, then the players put the seeds back
            game.undo()
            board.set_counts(game.position.pits)
            state = state_when(url, lambda now: len(now["game"]["moves"]) == 2 and now["verdict"]["kind"] == "unchanged")
            assert [m["text"] for m in state["game"]["moves"]] == ["C", "F"]
            assert state["verdict"]["kind"] == "unchanged"
        finally:
            stop(proc)


@pytest.mark.parametrize("command", [["games", "export", "1"], ["markers", "-o", "sheet.png"]])
def test_output_read_no_further_stops_the_command_quietly(tmp_path, command):
    """`pitwatch games export 1 | head`: once the reader has gone, the command stops without a
    word on stderr (it said `[Errno 32] Broken pipe`; `pitwatch markers`, `calibrate` and `read`
    said `error: [Errno 32] Broken pipe`)."""
    db = tmp_path / "g.sqlite"
    kalah_game_in_progress(db)
    proc = subprocess.Popen([sys.executable, "-m", "pitwatch.cli", *command, "--db", str(db)] if command[0] == "games"
                            else [sys.executable, "-m", "pitwatch.cli", *command], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc.stdout.close()  # gone before the command has printed anything
    assert proc.wait(timeout=60) == 1
    assert proc.stderr.read() == ""


def kalah_game_in_progress(db) -> None:
    """A Kalah game left in progress in the database ``db``, as the last evening's play leaves one."""
    recorder = Recorder(db)
    recorder.start_game("kalah", {}, "South", "North")
    recorder.close()


def first_line_of(args: list[str]) -> tuple[str, str]:
    """The first line the long-running ``pitwatch *args`` prints, and what it printed on stderr by then."""
    proc = start_pitwatch(*args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        first = proc.stdout.readline()
    finally:
        stop(proc)
    return first, proc.stderr.read()


def test_the_demo_plays_the_variant_asked_for_and_names_a_misspelt_one(tmp_path, capsys):
    """`scripts/demo --variant oware`, as the README suggests, with a Kalah demo game left in progress:
    an Oware game starts (the Kalah game kept on record). A misspelt variant is named, and nothing starts."""
    db = tmp_path / "demo.sqlite"
    kalah_game_in_progress(db)
    first, errors = first_line_of(["demo", "--variant", "oware", "--no-camera", "--port", "0", "--db", str(db)])
    assert first.startswith("pitwatch: new oware game 2 (0 moves)"), first + errors
    assert main(["demo", "--variant", "owere", "--port", "0", "--db", str(db)]) == 2
    assert "pitwatch demo: --variant 'owere': unknown variant 'owere'; variants are kalah" in capsys.readouterr().err
    # from a configuration file, the file and the key are named (they were not: an audit, 2026-12-07)
    (tmp_path / "club.toml").write_text('[game]\nvariant = "owere"\n')
    (tmp_path / "houses.toml").write_text("[game]\noptions = { houses = 0 }\n")
    assert main(["demo", "--config", str(tmp_path / "club.toml"), "--port", "0", "--db", str(db)]) == 2
    assert (f"pitwatch demo: {tmp_path / 'club.toml'}: game.variant = 'owere': unknown variant 'owere'"
            in capsys.readouterr().err)
    assert main(["run", "--config", str(tmp_path / "houses.toml"), "--port", "0", "--db", str(db)]) == 2
    assert capsys.readouterr().err == (f"pitwatch run: {tmp_path / 'houses.toml'}: game.options = {{'houses': 0}}: "
                                       "kalah: option houses=0 is outside 1..8\n")


def test_a_second_demo_on_the_same_database_is_refused_naming_the_first(tmp_path):
    """Both would play the game in progress, and the second's moves were lost to SQLite's refusals.
    Once the first has stopped, its game is resumed."""
    db = tmp_path / "demo.sqlite"
    args = ["demo", "--no-camera", "--port", "0", "--db", str(db)]
    first = start_pitwatch(*args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        started = first.stdout.readline()
        assert started.startswith("pitwatch: new kalah game 1"), started + first.stderr.read()
        second = subprocess.run([sys.executable, "-m", "pitwatch.cli", *args], capture_output=True, text=True,
                                timeout=60)
    finally:
        stop(first)
    assert second.returncode == 2, second
    assert second.stderr == (f"pitwatch demo: {db} is in use by another pitwatch run or demo (pid {first.pid}): "
                             "stop it, or give this one another database (--db)\n")
    again, errors = first_line_of(args)
    assert again.startswith("pitwatch: resumed kalah game 1"), again + errors


def test_sigterm_mid_game_stops_the_demo_cleanly_with_every_shown_move_on_disk(tmp_path):
    """What a service manager (or `kill`) sends: the demo stops as Ctrl-C stops it, with exit code 0
    and nothing on stderr, every move the dashboard showed recorded, and the database closed (SQLite
    folds its write-ahead log back in and removes it only when the last connection closes)."""
    db = tmp_path / "demo.sqlite"
    proc = start_pitwatch("demo", "--no-camera", "--port", "0", "--db", str(db), "--move-seconds", "0.25",
                          "--set", "session.settle_seconds=0.1", stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        url = next((m.group(1) for line in proc.stdout if (m := re.search(r"dashboard at (http://\S+)", line))), None)
        assert url, proc.stderr.read()
        shown = state_when(url, lambda now: len(now["game"]["moves"]) >= 3, 60)["game"]
    finally:
        exit_code = stop(proc)
    assert (exit_code, proc.stderr.read()) == (0, "")
    assert not db.with_name(db.name + "-wal").exists()  # looked at before this test opens the database
    with closing(sqlite3.connect(db)) as database:
        recorded = [row[0] for row in database.execute(
            "SELECT text FROM moves WHERE game_id=? ORDER BY ply", (shown["id"],))]
    assert len(shown["moves"]) >= 3 and recorded[: len(shown["moves"])] == [m["text"] for m in shown["moves"]]


@pytest.mark.parametrize("second_after", [0.05, 0.2, 0.5])
def test_a_second_sigterm_while_stopping_ends_at_once_without_an_abort(tmp_path, second_after):
    """A second stop signal ends the process at once (status 130). Raised as an interrupt in the
    middle of the stop, it left the camera's threads inside OpenCV as Python exited: the process
    aborted ("FATAL: exception not rethrown") five times in six with a network camera."""
    from vision.synthetic import SyntheticCamera

    synthetic = SyntheticCamera("kalah", lambda: Game("kalah").position, 3)
    save_calibration(synthetic.calibration(), tmp_path / "board.json")
    picture = synthetic.read().image
    with MjpegCamera(lambda number: picture) as camera:
        proc = start_pitwatch("run", "--camera", camera.url, "--calibration", str(tmp_path / "board.json"),
                              "--serial", "", "--port", "0", "--db", str(tmp_path / "g.sqlite"),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        url = next((m.group(1) for line in proc.stdout if (m := re.search(r"dashboard at (http://\S+)", line))), None)
        assert url, proc.stderr.read()
        state_when(url, lambda now: now["sources"].get("camera") == "ok", 60)
        proc.terminate()
        time.sleep(second_after)
        assert stop(proc) in (0, INTERRUPTED)  # 0: the stop was over before the second signal came
    assert proc.stderr.read() == ""


def test_a_board_calibrated_for_another_variant_names_the_variants_it_plays_and_plays_the_one_asked(tmp_path):
    """A Kalah game in progress, and the camera's board calibrated again, for Oware: `pitwatch run`
    says which variants that board plays, and `--variant oware` plays one (the Kalah game kept)."""
    from calibration.calibfile import save_calibration
    from vision.synthetic import SyntheticCamera

    save_calibration(SyntheticCamera("oware", lambda: Game("oware").position, 3).calibration(), tmp_path / "oware.json")
    kalah_game_in_progress(tmp_path / "g.sqlite")
    args = ["run", "--camera", "synthetic:oware:3", "--serial", "", "--calibration", str(tmp_path / "oware.json"),
            "--port", "0", "--db", str(tmp_path / "g.sqlite")]
    refused = subprocess.run([sys.executable, "-m", "pitwatch.cli", *args], capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2, refused
    assert ("oware.json calibrates a 2x6 board, but kalah is played on a 2x6+stores board: calibrate this board, or "
            "play a variant of that one (--variant: nam-nam, oware)") in refused.stderr
    first, errors = first_line_of([*args, "--variant", "oware"])
    assert first.startswith("pitwatch: new oware game 2 (0 moves)"), first + errors


def run_with_sensors_to_learn(tmp_path, port: str, stdin) -> subprocess.Popen:
    """``pitwatch run`` with a microcontroller on ``port`` and no sensor calibration yet."""
    return start_pitwatch(
        "run", "--serial", port, "--port", "0", "--db", str(tmp_path / "g.sqlite"),
        "--set", f"sensors.calibration={tmp_path / 'sensors.json'}", "--set", "session.settle_seconds=0.1",
        stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_the_first_run_learns_the_sensors_from_the_players_and_keeps_them(tmp_path):
    """The players press Enter once the board is empty and once the start position is laid out;
    the sensors learned are kept and referee the game."""
    game = Game("kalah")
    with EmulatedBoard() as board:
        board.set_counts([3] * 14)  # a board left from the last game
        proc = run_with_sensors_to_learn(tmp_path, board.port, subprocess.PIPE)
        said = Transcript(proc.stdout)
        try:
            assert said.shows("Empty every pit, then press Enter... "), said.text + proc.stderr.read()
            board.set_counts([0] * 14)
            proc.stdin.write("\n")
            proc.stdin.flush()
            assert said.shows("now lay out the start position, then press Enter... "), said.text
            board.set_counts(game.position.pits)
            proc.stdin.write("\n")
            proc.stdin.flush()
            assert said.shows("dashboard at http"), said.text
            assert f"sensor calibration saved to {tmp_path / 'sensors.json'}" in said.text
            url = re.search(r"dashboard at (http://\S+)", said.text).group(1)
            assert state_when(url, lambda now: now["verdict"]["kind"] == "unchanged")["sources"]["sensors"] == "ok"
            game.play("C")
            board.set_counts(game.position.pits)
            state = state_when(url, lambda now: len(now["game"]["moves"]) == 1)
            assert [m["text"] for m in state["game"]["moves"]] == ["C"]
        finally:
            stop(proc)
    assert len(json.loads((tmp_path / "sensors.json").read_text())["pits"]) == 14


def test_boards_the_sensors_cannot_be_learned_from_are_said_and_asked_again(tmp_path):
    """Enter pressed twice on the same board (the start laid out before the first prompt): the
    sensors see no pit fill, which was a traceback and status 1; now the players are told why
    and asked again."""
    game = Game("kalah")
    with EmulatedBoard() as board:
        board.set_counts(game.position.pits)
        proc = run_with_sensors_to_learn(tmp_path, board.port, subprocess.PIPE)
        said = Transcript(proc.stdout)
        try:
            for asked in (1, 2):  # both boards the start position
                assert wait_until(lambda: said.text.count("press Enter... ") == asked, 20, 0.02), said.text
                proc.stdin.write("\n")
                proc.stdin.flush()
            assert said.shows("Once more (Ctrl-C to stop"), said.text
            assert "pitwatch: the sensors cannot be learned from these two boards: pit A: with 4 seeds it reads" in said.text
            assert wait_until(lambda: said.text.count("Empty every pit, then press Enter... ") == 2, 20, 0.02), said.text
            board.set_counts([0] * 14)
            proc.stdin.write("\n")
            proc.stdin.flush()
            assert wait_until(lambda: said.text.count("now lay out the start position") == 2, 20, 0.02), said.text
            board.set_counts(game.position.pits)
            proc.stdin.write("\n")
            proc.stdin.flush()
            assert said.shows("sensor calibration saved to"), said.text
        finally:
            stop(proc)
    assert "Traceback" not in proc.stderr.read()


def test_a_run_that_cannot_ask_the_players_says_how_to_learn_the_sensors(tmp_path):
    """Started with no terminal (a service, stdin closed) there is no one to press Enter."""
    with EmulatedBoard() as board:
        proc = run_with_sensors_to_learn(tmp_path, board.port, subprocess.DEVNULL)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2, (out, err)
    assert "Traceback" not in err
    assert ("pitwatch run: the pit sensors are not learned yet, and learning them asks the players to press Enter here: "
            "start `pitwatch run` once from a terminal") in err
    assert not (tmp_path / "sensors.json").exists()


def test_a_run_asks_the_players_nothing_before_the_microcontroller_answers(tmp_path):
    proc = run_with_sensors_to_learn(tmp_path, str(tmp_path / "no-such-port"), subprocess.PIPE)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2, (out, err)
    assert "press Enter" not in out
    assert re.search(r"pitwatch run: the pit sensors are to be learned, but the microcontroller sent no sensor values "
                     r"within 5 s \(.*no-such-port.*\): check the USB cable and sensors.port \(pitwatch doctor\), or set "
                     r'sensors.port = "" to play without a microcontroller', err), err


def test_a_webcam_left_with_the_default_auto_port_is_refereed_by_the_camera_alone(tmp_path, capsys):
    """`sensors.port = "auto"` is the default. With a camera, no sensors learned and no Pitwatch
    board on any serial port, `run` plays with the camera and says so, and so does the doctor.
    Before, `run` stopped and asked for sensors.port = "" to be set."""
    from calibration.calibfile import save_calibration
    from vision.synthetic import SyntheticCamera

    save_calibration(SyntheticCamera("kalah", lambda: Game("kalah").position, 3).calibration(), tmp_path / "board.json")
    proc = start_pitwatch(
        "run", "--camera", "synthetic:kalah:3", "--calibration", str(tmp_path / "board.json"), "--port", "0",
        "--db", str(tmp_path / "g.sqlite"), "--set", f"sensors.calibration={tmp_path / 'sensors.json'}",
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    said = Transcript(proc.stdout)
    try:
        assert said.shows("dashboard at http", 60), said.text
        assert said.text.startswith('pitwatch: no Pitwatch board answered on any serial port (sensors.port = "auto") '
                                    "and no sensors are learned yet: the camera referees alone"), said.text
        url = re.search(r"dashboard at (http://\S+)", said.text).group(1)
        assert state_when(url, lambda now: now["sources"].get("camera") == "ok")["sources"] == {"camera": "ok"}
    finally:
        stop(proc)
    main(["doctor", "--set", "camera.source=synthetic:kalah:3", "--set", f"camera.calibration={tmp_path / 'board.json'}",
          "--set", f"recorder.database={tmp_path / 'g.sqlite'}", "--set", f"sensors.calibration={tmp_path / 'sensors.json'}",
          "--set", "web.port=0"])
    assert re.search(r'^ok\s+microcontroller: no Pitwatch board answered on any serial port \(sensors.port = "auto"\)',
                     capsys.readouterr().out, re.M)


def test_run_with_a_camera_only_reads_the_board_and_streams_the_view(tmp_path):
    from calibration.calibfile import save_calibration
    from vision.synthetic import SyntheticCamera

    start = Game("kalah").position
    save_calibration(SyntheticCamera("kalah", lambda: start, 3).calibration(), tmp_path / "board.json")
    proc = start_pitwatch(
        "run", "--camera", "synthetic:kalah:3", "--serial", "", "--calibration", str(tmp_path / "board.json"),
        "--port", "0", "--db", str(tmp_path / "g.sqlite"), "--set", "camera.still_frames=2",
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        url = next((m.group(1) for line in proc.stdout if (m := re.search(r"dashboard at (http://\S+)", line))), None)
        assert url, proc.stderr.read()
        state = state_when(url, lambda now: now["verdict"]["kind"] == "unchanged", 30)
        assert state["verdict"]["kind"] == "unchanged" and state["sources"]["camera"] == "ok"
        assert state["reading"] == dict(zip(start.variant.layout.labels, start.pits))
        placement = {each["name"]: each for each in state["camera_placement"]}  # judged from the still board
        assert placement["camera angle"]["ok"] and "degrees from overhead" in placement["camera angle"]["said"]
        assert placement["board in the picture"]["ok"]
        with urllib.request.urlopen(url + "camera.jpg", timeout=5) as response:
            assert response.headers["Content-Type"] == "image/jpeg" and response.read(2) == b"\xff\xd8"
    finally:
        stop(proc)


@pytest.fixture()
def broken_counter(tmp_path, monkeypatch):
    """The seed counter's files as a broken installation leaves them: the pit network's
    description cut short."""
    import shutil

    from vision import counter

    folder = tmp_path / "models"
    shutil.copytree(counter.MODELS, folder)
    (folder / "pit_counter.json").write_text('{"format": "pitwatch-seed-counter", "vers')
    monkeypatch.setattr(counter, "MODELS", folder)
    counter.shared_counter.cache_clear()
    yield folder
    counter.shared_counter.cache_clear()


def test_a_broken_seed_counter_is_named_not_a_traceback(broken_counter, tmp_path, capsys):
    """A broken installation: `calibrate`, `read` and `demo` say which file, `doctor` says what to do."""
    import cv2

    from calibration.calibfile import save_calibration
    from calibration.calibrate import calibrate_empty
    from vision.synthetic import SyntheticCamera

    camera = SyntheticCamera("kalah", lambda: Game("kalah").position, 3)
    empty, start = tmp_path / "empty.png", tmp_path / "start.png"
    cv2.imwrite(str(empty), camera.frame_of({}))
    cv2.imwrite(str(start), camera.read().image)
    named = f"{broken_counter / 'pit_counter.json'}: cannot read the pit counter's description"

    assert main(["calibrate", "--variant", "kalah", "--empty", str(empty), "--start", str(start),
                 "-o", str(tmp_path / "board.json")]) == 2
    assert named in capsys.readouterr().err and not (tmp_path / "board.json").exists()

    save_calibration(calibrate_empty("kalah", camera.frame_of({})), tmp_path / "board.json")  # needs no counter
    assert main(["read", "--calibration", str(tmp_path / "board.json"), str(start)]) == 2
    assert named in capsys.readouterr().err
    code = main(["doctor", "--set", f"recorder.database={tmp_path / 'g.sqlite'}", "--set", f"camera.source={start}",
                 "--set", f"camera.calibration={tmp_path / 'board.json'}", "--set", "web.port=0"])
    out = capsys.readouterr().out
    assert code == 1 and re.search(rf"^FIX\s+seed counter: {re.escape(named)}.*reinstall Pitwatch", out, re.M), out
    assert re.search(r"^ok\s+calibration:", out, re.M) and "board in view" not in out
    assert main(["demo", "--port", "0", "--db", str(tmp_path / "demo.sqlite"), "--no-sensors"]) == 2
    assert f"pitwatch demo: {named}" in capsys.readouterr().err


def test_doctor_checks_the_database_and_creates_none(tmp_path, capsys):
    """The doctor opens an existing database as ``run`` would (the game it would resume, a file
    that is no game database), and for a new one only checks that ``run`` could create it."""
    def database_check(path) -> tuple[str, str]:
        """The doctor's mark (ok or FIX) and what it says of the database at ``path``."""
        assert main(["doctor", "--set", f"recorder.database={path}", "--set", "web.port=0"]) == 1  # no camera, no board
        line = next(line for line in capsys.readouterr().out.splitlines() if line.split()[1] == "database:")
        mark, _, detail = line.split(None, 2)
        return mark, detail

    new = tmp_path / "games" / "g.sqlite"
    assert database_check(new) == ("ok", f"{new}: no games yet (`pitwatch run` makes the game database there)")
    assert not new.exists() and not new.parent.exists()
    (tmp_path / "empty.sqlite").touch()  # which SQLite makes a database of: FIX, until 2026-12-07, for nothing
    assert database_check(tmp_path / "empty.sqlite") == (
        "ok", f"{tmp_path / 'empty.sqlite'}: no games yet (`pitwatch run` makes the game database there)")
    assert (tmp_path / "empty.sqlite").stat().st_size == 0
    (tmp_path / "plain-file").write_text("not a folder")
    under_a_file = tmp_path / "plain-file" / "g.sqlite"
    assert database_check(under_a_file) == ("FIX", f"{under_a_file}: cannot be created, {tmp_path / 'plain-file'} is not "
                                                   "a folder; choose another file with --db or recorder.database")
    recorder = Recorder(new)
    game = recorder.start_game("kalah", {}, "Ann", "Bob")
    recorder.close()
    mark, detail = database_check(new)
    assert mark == "ok" and re.fullmatch(rf"{re.escape(str(new))}: schema v\d+, game {game} \(kalah, 0 moves\) will be resumed",
                                         detail), detail
    mark, detail = database_check(tmp_path / "plain-file")
    assert mark == "FIX" and detail.startswith(f"{tmp_path / 'plain-file'}: not a Pitwatch game database"), detail
    assert (tmp_path / "plain-file").read_text() == "not a folder"  # named, left as it was
    older = tmp_path / "v1.sqlite"
    version_1_database(older)
    before = older.read_bytes()
    assert database_check(older) == ("ok", f"{older}: schema v1 (`pitwatch run` upgrades it to v{SCHEMA_VERSION}), no "
                                           "game in progress")
    assert older.read_bytes() == before, "the doctor migrated the file it checked"
