"""The vision subcommands, run in-process through argparse as ``pitwatch`` runs them."""

import argparse
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from network_camera import MjpegCamera, PictureCamera
from transcript import Transcript

from calibration.calibfile import load_calibration, save_sensors
from calibration.profiles import start_counts
from firmware_bridge.sensors import SensorCalibration
from pitwatch.cli import main
from pitwatch.vision_commands import add_vision_commands
from vision.synthetic import SyntheticCamera


def run(*argv):
    parser = argparse.ArgumentParser(prog="pitwatch")
    add_vision_commands(parser.add_subparsers())
    args = parser.parse_args([str(a) for a in argv])
    return args.func(args)


@pytest.fixture(scope="module")
def pictures(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pictures")
    camera = SyntheticCamera("2x5+outboxes", lambda: ({}, None), rng_seed=5)
    cv2.imwrite(str(folder / "empty.png"), camera.frame_of({}))
    counts, white = start_counts("2x5+outboxes")
    cv2.imwrite(str(folder / "start.png"), camera.frame_of(counts, white))
    game = dict(counts, A=0, B=4, C=4, D=4, N=1)
    game_white = dict(white, A=0, N=1)
    cv2.imwrite(str(folder / "game.jpg"), camera.frame_of(game, game_white))
    return folder, game, game_white


@pytest.fixture()
def board(pictures, tmp_path, capsys):
    """The pictures' board calibrated, as a calibration file (what calibrate printed left unread)."""
    folder = pictures[0]
    path = tmp_path / "board.json"
    assert run("calibrate", "--variant", "2x5+outboxes", "--empty", folder / "empty.png", "--start", folder / "start.png",
               "-o", path) == 0
    capsys.readouterr()
    return path


def test_calibrate_then_read_json(pictures, tmp_path, capsys):
    folder, game, game_white = pictures
    board = tmp_path / "board.json"
    assert run("calibrate", "--variant", "2x5+outboxes", "--empty", folder / "empty.png", "--start", folder / "start.png", "-o", board) == 0
    assert json.loads(board.read_text())["version"] == 2
    said = capsys.readouterr().out
    assert "start position read exactly in 12 of them" in said
    assert re.search(r"^camera: \d+ degrees from overhead at the board's middle", said, re.M), said
    assert re.search(r"^camera: the board's far edge spans \d\.\d\d camera pixels a millimetre", said, re.M), said
    assert re.search(r"^seeds: one covers about 1\d\d mm2 of the board seen from above \(a disc 1\d mm across", said, re.M), said
    assert run("read", "--calibration", board, folder / "game.jpg", folder / "empty.png", "--json") == 0
    lines = capsys.readouterr().out.strip().splitlines()
    first = json.loads(lines[0])
    assert first["status"]["board_found"] and first["status"]["markers_seen"] == [0, 1, 2, 3]
    assert {label: pit["count"] for label, pit in first["pits"].items()} == game
    assert first["pits"]["N"]["white"] == 1 and first["pits"]["N"]["yellow"] == 0
    assert first["pits"]["B"]["yellow"] == 4 and 0 < first["pits"]["B"]["p"] <= 1
    assert all(pit["count"] == 0 for pit in json.loads(lines[1])["pits"].values())


def test_a_board_is_calibrated_from_cameras_once_their_exposure_has_settled(pictures, tmp_path, capsys, monkeypatch):
    """``--empty`` and ``--start`` as network cameras just opened: each brings its picture up from
    a third of the light over its first 14 frames. The empty board is remembered in the light it
    settles to, as from the still pictures, not in the first dark frame; ``read`` from a camera
    reads one settled picture of it. (Each camera's picture is taken when Enter is pressed: here
    the terminal is a string of two Enters.)"""
    monkeypatch.setattr("sys.stdin", io.StringIO("\n\n"))
    folder, _, _ = pictures
    empty, start = cv2.imread(str(folder / "empty.png")), cv2.imread(str(folder / "start.png"))
    exposure = lambda number: min(1.0, 0.35 + 0.05 * number)  # noqa: E731
    board, still = tmp_path / "camera.json", tmp_path / "still.json"
    with PictureCamera(empty, exposure) as empty_camera, PictureCamera(start, exposure) as start_camera:
        assert run("calibrate", "--variant", "2x5+outboxes", "--empty", empty_camera.url, "--start", start_camera.url,
                   "-o", board) == 0
        assert "start position read exactly in 12 of them" in capsys.readouterr().out
        assert run("read", "--calibration", board, start_camera.url, "--json") == 0  # one settled picture, read
    read = [json.loads(line) for line in capsys.readouterr().out.strip().splitlines()]
    counts, _ = start_counts("2x5+outboxes")
    assert len(read) == 1 and read[0]["status"]["message"] == "ok"
    assert int(read[0]["image"].rsplit("#", 1)[1]) > 14  # a frame after the exposure came up, not the first
    assert {label: pit["count"] for label, pit in read[0]["pits"].items()} == counts
    run("calibrate", "--variant", "2x5+outboxes", "--empty", folder / "empty.png", "--start", folder / "start.png", "-o", still)
    remembered, reference = load_calibration(board).empty.astype(float), load_calibration(still).empty.astype(float)
    assert abs(remembered.mean() - reference.mean()) < 2  # from the first frame, 77 darker (and calibrated "fine")


def calibrate_at_a_terminal(camera_url: str, output, stdin) -> subprocess.Popen:
    """``pitwatch calibrate`` with one camera for both pictures, as at the table."""
    return subprocess.Popen([sys.executable, "-m", "pitwatch.cli", "calibrate", "--variant", "2x5+outboxes", "--empty",
                             camera_url, "--start", camera_url, "-o", str(output)],
                            stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_one_camera_takes_the_empty_board_and_the_start_position_when_the_players_say(pictures, tmp_path):
    """The camera that will watch the game takes both pictures: each when Enter is pressed, once
    the board is set up."""
    folder, _, _ = pictures
    shown = [cv2.imread(str(folder / "empty.png"))]
    with MjpegCamera(lambda number: shown[0]) as camera:
        proc = calibrate_at_a_terminal(camera.url, tmp_path / "board.json", subprocess.PIPE)
        said = Transcript(proc.stdout)
        try:
            assert said.shows("empty every pit, the whole board in the camera's view, then press Enter... ", 30), said.text
            proc.stdin.write("\n")
            proc.stdin.flush()
            assert said.shows("now lay out the start position, then press Enter... ", 30), said.text
            shown[0] = cv2.imread(str(folder / "start.png"))  # the players lay out the start position
            proc.stdin.write("\n")
            proc.stdin.flush()
            assert proc.wait(timeout=60) == 0, proc.stderr.read()
        finally:
            proc.kill()
    assert "start position read exactly in 12 of them" in said.text


@pytest.mark.parametrize("start, corners, said", [
    ("missing.png", (), "camera source 'missing.png': no such file, folder, device number or URL"),
    ("5", (), "camera source '5': no usable picture (camera lost: camera 5 does not answer)"),
    (None, ("--corners", "1,1,2,2,3,3,4,4"),
     "corners: near-left and near-right are only 1 px apart: click the board's four different corners"),
])
def test_a_start_or_corners_that_cannot_work_are_named_before_the_players_set_up_the_empty_board(
        pictures, tmp_path, capsys, monkeypatch, start, corners, said):
    """Found only after the empty board's picture, they cost the players emptying the board for nothing."""
    monkeypatch.setattr("sys.stdin", io.StringIO("\n\n"))
    folder, _, _ = pictures
    with MjpegCamera(lambda number: cv2.imread(str(folder / "empty.png"))) as camera:
        assert run("calibrate", "--variant", "2x5+outboxes", "--empty", camera.url, "--start", start or camera.url,
                   *corners, "-o", tmp_path / "board.json") == 2
    told = capsys.readouterr()
    assert told.err == f"pitwatch calibrate: error: {said}\n" and "empty every pit" not in told.out


def test_a_calibration_file_that_could_not_be_written_is_named_before_any_picture_is_taken(tmp_path, capsys):
    output = tmp_path / "no-such-folder" / "board.json"
    assert run("calibrate", "--variant", "kalah", "--empty", "0", "--start", "0", "-o", output) == 2
    assert capsys.readouterr().err == (f"pitwatch calibrate: error: {output}: cannot be written, there is no folder "
                                       f"{output.parent}\n")


@pytest.mark.parametrize("make, kind", [(Path.mkdir, "a folder"), (os.mkfifo, "a named pipe")])
def test_an_output_that_is_not_a_file_is_named_before_any_picture_is_taken(tmp_path, capsys, make, kind):
    """A folder was written to only after both pictures; a named pipe (or -o /dev/stdout) was
    opened to look for learned sensors, and calibrate waited there for ever."""
    output = tmp_path / "board.json"
    make(output)
    assert run("calibrate", "--variant", "kalah", "--empty", "0", "--start", "0", "-o", output) == 2
    assert capsys.readouterr().err == (f"pitwatch calibrate: error: {output}: is {kind}, not a file: -o names the "
                                       f"calibration file to write\n")


def test_a_blank_output_or_a_dangling_link_is_named_before_any_picture_is_taken(tmp_path, capsys):
    """``-o ""`` was said as ": is a folder" (Path("") is the folder the command runs in); a link to a
    file in a missing folder failed only once both pictures were taken."""
    assert run("calibrate", "--variant", "kalah", "--empty", "0", "--start", "0", "-o", " ") == 2
    assert capsys.readouterr().err == "pitwatch calibrate: error: -o is blank: name the calibration file to write\n"
    output = tmp_path / "board.json"
    output.symlink_to(tmp_path / "gone" / "board.json")
    assert run("calibrate", "--variant", "kalah", "--empty", "0", "--start", "0", "-o", output) == 2
    assert capsys.readouterr().err == (f"pitwatch calibrate: error: {output}: is a link to {tmp_path / 'gone' / 'board.json'}, "
                                       "which does not exist: give -o another file\n")


@pytest.mark.parametrize("option, message", [
    (("--variant", "chess"), "unknown variant or board 'chess'"),
    (("--variant", "kalah", "--corners", "1,2,3"), "expected 8 numbers"),
    (("--variant", "kalah", "--corners", ""), "expected 8 numbers (near-left, near-right, far-right, far-left x,y), got 0"),
])
def test_a_wrong_variant_or_corners_is_named_before_any_picture_is_taken(tmp_path, capsys, option, message):
    """Camera 0 does not exist here: any picture asked for would fail on it first."""
    assert run("calibrate", *option, "--empty", "0", "--start", "0", "-o", tmp_path / "board.json") == 2
    err = capsys.readouterr().err
    assert err.startswith("pitwatch calibrate: error: ") and message in err and err.count("\n") == 1


def test_corners_left_of_the_picture_are_a_value_not_an_option(tmp_path, capsys):
    """argparse took ``-5,3,...`` for an option and said that --corners had no value."""
    calibrate = ["calibrate", "--variant", "kalah", "--empty", "0", "--start", "0", "-o", str(tmp_path / "b.json")]
    assert main([*calibrate, "--corners", "-5,3,100"]) == 2
    assert capsys.readouterr().err.endswith("expected 8 numbers (near-left, near-right, far-right, far-left x,y), "
                                            "got 3\n")
    with pytest.raises(SystemExit):
        main([*calibrate, "--corners"])
    assert capsys.readouterr().err.endswith("argument --corners: expected one argument\n")


def test_a_camera_calibration_with_no_terminal_says_to_give_pictures(pictures, tmp_path):
    folder, _, _ = pictures
    empty = cv2.imread(str(folder / "empty.png"))
    with MjpegCamera(lambda number: empty) as camera:
        proc = calibrate_at_a_terminal(camera.url, tmp_path / "board.json", subprocess.DEVNULL)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2, (out, err)
    assert ("pitwatch calibrate: error: a camera's pictures are taken when you press Enter, once the board is set up: "
            "run `pitwatch calibrate` at a terminal, or give it pictures (--empty empty.jpg --start start.jpg)") in err
    assert not (tmp_path / "board.json").exists()


def test_read_plain_text(pictures, board, tmp_path, capsys):
    folder, _, _ = pictures
    assert run("read", "--calibration", board, folder / "game.jpg") == 0
    out = capsys.readouterr().out
    assert "game.jpg: ok" in out and "B: 4 (0 white, 4 yellow)" in out


def test_read_reads_every_picture_then_fails_for_those_it_could_not_read(pictures, board, tmp_path, capsys):
    """A folder with a corrupt file and a black picture beside a good one: the good one is read,
    each bad one gets its record, and the exit code is 1 with the bad ones named, so a script
    does not take a corrupt file for a read board."""
    folder, game, _ = pictures
    shots = tmp_path / "shots"
    shots.mkdir()
    (shots / "a-game.jpg").write_bytes((folder / "game.jpg").read_bytes())
    (shots / "b-cut-off.jpg").write_bytes((folder / "game.jpg").read_bytes()[:300])
    cv2.imwrite(str(shots / "c-lens-covered.png"), np.zeros((720, 1280, 3), np.uint8))
    wall = cv2.GaussianBlur(np.random.default_rng(1).integers(90, 160, (720, 1280, 3), np.uint8), (0, 0), 3)
    cv2.imwrite(str(shots / "d-the-wall.png"), wall)  # the camera knocked aside: a picture, with no board in it
    assert run("read", "--calibration", board, shots, "--json") == 1
    said = capsys.readouterr()
    records = [json.loads(line) for line in said.out.strip().splitlines()]
    assert [Path(record["image"]).name for record in records] == ["a-game.jpg", "b-cut-off.jpg", "c-lens-covered.png",
                                                                  "d-the-wall.png"]
    assert {label: pit["count"] for label, pit in records[0]["pits"].items()} == game
    assert records[1]["pits"] is None and records[2]["pits"] is None
    assert not records[3]["status"]["board_found"]
    assert said.err.startswith("pitwatch read: 3 of 4 pictures gave nothing to read: ")
    assert "d-the-wall.png (board not found" in said.err
    assert f"{shots / 'b-cut-off.jpg'} (cannot read image {shots / 'b-cut-off.jpg'}: not a whole picture" in said.err
    assert "c-lens-covered.png (black frame" in said.err


def test_a_picture_whose_header_claims_a_giant_is_named_and_the_next_is_read(pictures, board, tmp_path, capsys):
    """69 bytes that claim 40,000 x 40,000 pixels made OpenCV raise out of ``read``, and the pictures
    after it were never read; a JPEG that claims 32,000 x 32,000 took 8 GB to decode."""
    folder, game, _ = pictures
    forged = bytearray(cv2.imencode(".png", np.zeros((8, 8, 3), np.uint8))[1].tobytes())
    forged[16:24] = (40_000).to_bytes(4, "big") * 2
    (tmp_path / "forged.png").write_bytes(bytes(forged))
    assert run("read", "--calibration", board, tmp_path / "forged.png", folder / "game.jpg", "--json") == 1
    said = capsys.readouterr()
    records = [json.loads(line) for line in said.out.strip().splitlines()]
    assert records[0]["pits"] is None and "its header claims 40000 x 40000 pixels" in records[0]["status"]["message"]
    assert {label: pit["count"] for label, pit in records[1]["pits"].items()} == game


def test_read_reads_the_pictures_after_one_that_is_not_there(pictures, board, tmp_path, capsys):
    """A picture that cannot be opened is one that gave nothing to read: named with the others,
    and the pictures after it are read all the same."""
    folder, game, _ = pictures
    missing = tmp_path / "missing.jpg"
    assert run("read", "--calibration", board, folder / "game.jpg", missing, folder / "empty.png", "--json") == 1
    said = capsys.readouterr()
    records = [json.loads(line) for line in said.out.strip().splitlines()]
    assert [record["image"] for record in records] == [str(folder / "game.jpg"), str(missing), str(folder / "empty.png")]
    assert {label: pit["count"] for label, pit in records[0]["pits"].items()} == game
    assert records[1]["pits"] is None and records[1]["status"]["board_found"] is False
    assert all(pit["count"] == 0 for pit in records[2]["pits"].values())
    assert said.err == (f"pitwatch read: 1 of 3 pictures gave nothing to read: {missing} (camera source "
                        f"'{missing}': no such file, folder, device number or URL)\n")


def test_a_picture_whose_name_is_not_utf8_is_read_and_named_escaped(pictures, board, tmp_path):
    """A file named with a byte that is no UTF-8 (0xff, from a camera's card or an old system) is
    read, and its name printed with that byte escaped: a terminal or a pipe that takes only UTF-8
    refused the whole line before, and the command stopped."""
    folder = tmp_path / "from the card"
    folder.mkdir()
    odd = folder / os.fsdecode(b"b\xffd.jpg")
    odd.write_bytes((pictures[0] / "game.jpg").read_bytes())
    done = subprocess.run([sys.executable, "-m", "pitwatch.cli", "read", "--calibration", str(board), str(folder)],
                          env={**os.environ, "PYTHONIOENCODING": "utf-8:strict"}, capture_output=True, timeout=120)
    assert (done.returncode, done.stderr) == (0, b""), done.stderr
    assert done.stdout.startswith(f"{folder}/b\\udcffd.jpg: ok\n".encode()), done.stdout


def test_each_picture_is_read_on_its_own_whatever_came_before(pictures, board, tmp_path, capsys):
    """A picture with a marker stuck back turned, read after a right one: read on its own, it says
    which marker and how. One reader for both had kept the first picture's board and said a hand
    was over it."""
    from dataclasses import replace

    from vision.render import render

    folder, game, game_white = pictures
    camera = SyntheticCamera("2x5+outboxes", lambda: ({}, None), rng_seed=5)
    turned = replace(camera.scene, markers=((0, 0), (1, 1), (2, 0), (3, 0)))
    cv2.imwrite(str(tmp_path / "turned.png"), render(turned, game, game_white).image)
    capsys.readouterr()
    assert run("read", "--calibration", board, folder / "game.jpg", tmp_path / "turned.png", "--json") == 1
    said = capsys.readouterr()
    assert said.err.startswith(f"pitwatch read: 1 of 2 pictures gave nothing to read: {tmp_path / 'turned.png'} (markers "
                               "stuck wrong: ")  # no pit of it read
    records = [json.loads(line) for line in said.out.strip().splitlines()]
    assert records[0]["status"]["message"] == "ok"
    assert records[1]["status"]["message"].startswith("markers stuck wrong: marker 1 (near-right) is stuck a quarter "
                                                      "turn clockwise")


def test_markers_png_and_pdf(tmp_path, capsys):
    assert run("markers", "-o", tmp_path / "sheet.png") == 0
    png = (tmp_path / "sheet.png").read_bytes()
    assert b"pHYs" in png[:100]  # true size: 300 dpi recorded in the file
    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_GRAYSCALE)
    assert image.shape == (3508, 2480)
    found = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)).detectMarkers(image)[1]
    assert sorted(found.ravel()) == [0, 1, 2, 3]
    assert run("markers", "-o", tmp_path / "sheet.pdf") == 0
    pdf = (tmp_path / "sheet.pdf").read_bytes()
    assert pdf.startswith(b"%PDF-1.4") and pdf.rstrip().endswith(b"%%EOF") and b"/MediaBox [0 0 595.276 841.890]" in pdf


def test_a_marker_sheet_the_disk_refuses_is_named(tmp_path, capsys):
    """/dev/full takes a file's place: the device is written (and left a device), and the error
    names the sheet asked for, not Python's '[Errno 28] No space left on device'."""
    sheet = tmp_path / "sheet.png"
    sheet.symlink_to("/dev/full")
    assert run("markers", "-o", sheet) == 2
    assert capsys.readouterr().err == f"pitwatch markers: error: {sheet}: cannot write: No space left on device\n"
    assert Path("/dev/full").is_char_device() and sheet.is_symlink()
    assert not Path("/dev/full.tmp").exists() and [p.name for p in tmp_path.iterdir()] == ["sheet.png"]


def test_a_marker_sheet_cut_short_leaves_the_sheet_printed_before(tmp_path):
    """The disk fills half-way through the sheet (here: pitwatch may write files of 64 KiB, the
    sheet is bigger): the sheet already there stays whole, no half a picture nor temporary file
    is left, and the error names the sheet."""
    sheet = tmp_path / "sheet.png"
    assert run("markers", "-o", sheet) == 0
    before = sheet.read_bytes()
    assert len(before) > 65536
    limited = ("import resource, runpy; resource.setrlimit(resource.RLIMIT_FSIZE, (65536, 65536)); "
               "runpy.run_module('pitwatch.cli', run_name='__main__')")
    done = subprocess.run([sys.executable, "-c", limited, "markers", "-o", str(sheet)], capture_output=True, text=True,
                          timeout=120)
    assert (done.returncode, done.stderr) == (2, f"pitwatch markers: error: {sheet}: cannot write: File too large\n")
    assert sheet.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["sheet.png"]


@pytest.mark.parametrize("argv, message", [
    (["markers", "-o", "sheet.svg"], "written as .png or .pdf"),
    (["calibrate", "--variant", "kalah", "--empty", "x.png", "--start", "y.png", "-o", "b.json"], "no such file"),
    (["read", "--calibration", "missing.json", "x.png"], "cannot read calibration file"),
])
def test_bad_input_is_one_line_and_exit_code_2(argv, message, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert run(*argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_calibrate_errors_name_the_problem(pictures, tmp_path, capsys):
    folder, _, _ = pictures
    code = run("calibrate", "--variant", "chess", "--empty", folder / "empty.png", "--start", folder / "start.png", "-o", tmp_path / "b.json")
    assert code == 2 and "unknown variant or board 'chess'" in capsys.readouterr().err
    code = run("calibrate", "--variant", "2x5+outboxes", "--empty", folder / "empty.png", "--start", folder / "start.png",
               "--corners", "1,2,3", "-o", tmp_path / "b.json")
    assert code == 2 and "expected 8 numbers" in capsys.readouterr().err
    assert not (tmp_path / "b.json").exists()


def test_calibrating_again_keeps_the_sensors_already_learned(pictures, tmp_path, capsys):
    """`pitwatch calibrate -o board.json` over the board's own file: the camera is calibrated
    anew, the pit sensors' calibration learned during play stays."""
    folder, _, _ = pictures
    board = tmp_path / "board.json"
    arguments = ("calibrate", "--variant", "2x5+outboxes", "--empty", folder / "empty.png", "--start", folder / "start.png", "-o", board)
    assert run(*arguments) == 0
    labels = load_calibration(board).profile.layout.labels
    start = [counts for counts in start_counts("2x5+outboxes")[0].values()]
    sensors = SensorCalibration.fit(labels, [[100] * len(labels)] * 3, [[100 + 40 * n for n in start]] * 3, start)
    save_sensors(board, sensors)
    assert run(*arguments) == 0
    assert load_calibration(board).sensors.to_json() == sensors.to_json()
    capsys.readouterr()
    # another board's calibration over this file is refused before the first picture is asked for (of
    # camera 0, not there), and from picture files too: it was a warning to press Ctrl-C, which picture
    # files gave no time for, and the sensors were lost (an audit, 2026-12-07)
    picture_files = ("--empty", folder / "empty.png", "--start", folder / "start.png")
    for sources in (("--empty", "0", "--start", "0"), picture_files):
        assert run("calibrate", "--variant", "kalah", *sources, "-o", board) == 2
        assert capsys.readouterr().err == (
            f"pitwatch calibrate: error: {board} holds the pit sensors learned for a 2x5+outboxes board, which a "
            f"2x6+stores board's calibration cannot keep: give -o another file, or delete {board} first to drop them "
            "(pitwatch run learns a board's sensors again)\n")
        assert load_calibration(board).sensors.to_json() == sensors.to_json()


@pytest.mark.parametrize("flag", ["--empty", "--start"])
def test_calibrate_refuses_to_write_over_its_own_picture_before_any_picture_is_taken(pictures, tmp_path, capsys, flag):
    """-o naming the picture given as --empty or --start (here by another path to the same file) is
    refused, the picture left as it was, before the other picture is asked of camera 0, which is
    not there: asked for one, it would fail first."""
    folder, _, _ = pictures
    photo = tmp_path / "board.png"
    photo.write_bytes((folder / "start.png").read_bytes())
    kept = photo.read_bytes()
    (tmp_path / "same").mkdir()
    output = tmp_path / "same" / ".." / "board.png"
    sources = {"--empty": "0", "--start": "0", flag: photo}
    assert run("calibrate", "--variant", "2x5+outboxes", *[v for pair in sources.items() for v in pair], "-o", output) == 2
    assert capsys.readouterr().err == (f"pitwatch calibrate: error: {output}: is the {flag} picture, which the "
                                       f"calibration would replace: give -o another file\n")
    assert photo.read_bytes() == kept


@pytest.mark.parametrize("name, contents, fault", [
    ("game.jpg", None, "not a calibration file (not JSON text)"),
    ("players.json", b'{"players": ["Ann", "Bob"]}', "format: expected 'pitwatch-calibration', the file has none"),
])
def test_calibrate_writes_over_no_file_but_a_calibration(pictures, tmp_path, capsys, name, contents, fault):
    """A file that is there and is not a calibration (a photo, someone's notes) is named and left
    as it is, as save_corners leaves a damaged calibration, before any picture is asked of camera
    0 (not there); a calibration is replaced, as a board is calibrated again
    (test_calibrating_again_keeps_the_sensors_already_learned)."""
    folder, _, _ = pictures
    output = tmp_path / name
    output.write_bytes((folder / name).read_bytes() if contents is None else contents)
    kept = output.read_bytes()
    assert run("calibrate", "--variant", "2x5+outboxes", "--empty", "0", "--start", "0", "-o", output) == 2
    assert capsys.readouterr().err == (f"pitwatch calibrate: error: {output}: {fault}; not overwritten: -o names a new "
                                       f"file or a calibration file to replace\n")
    assert output.read_bytes() == kept
