"""The calibration file: versioned, validated, and every error names its field."""

import base64
import json
import os
import threading
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration import calibfile
from calibration.calibfile import CalibrationError, load_calibration, save_calibration, write_whole


@pytest.fixture()
def saved(tmp_path, kalah_setup):
    path = tmp_path / "board.json"
    save_calibration(kalah_setup[1], path)
    return path


def test_round_trip_keeps_everything(saved, kalah_setup):
    loaded = load_calibration(saved)
    original = kalah_setup[1]
    assert loaded.board == "2x6+stores" and loaded.variant == "kalah"
    assert loaded.hollows.keys() == original.hollows.keys()
    assert (loaded.temperature, loaded.start_exact) == (original.temperature, original.start_exact)
    assert loaded.whitest_seed == pytest.approx(original.whitest_seed, abs=0.05) and original.whitest_seed > 0
    assert loaded.seed_area_mm2 == pytest.approx(original.seed_area_mm2, abs=0.05) and original.seed_area_mm2 > 0
    assert (loaded.empty == original.empty).all()
    assert loaded.markers.keys() == original.markers.keys() == {0, 1, 2, 3}
    assert all(abs(loaded.markers[i] - original.markers[i]).max() <= 0.005 for i in original.markers)


def _png(image):
    return base64.b64encode(cv2.imencode(".png", image)[1].tobytes()).decode()


def _swapped(one, other):
    """A change that swaps two hollows' centres."""
    def swap(data):
        hollows = data["hollows"]
        hollows[one]["centre"], hollows[other]["centre"] = hollows[other]["centre"], hollows[one]["centre"]
    return swap


def _png_header(width, height):
    """A PNG's signature and the start of its IHDR chunk, which hold its size."""
    return b"\x89PNG\r\n\x1a\n" + (13).to_bytes(4, "big") + b"IHDR" + width.to_bytes(4, "big") + height.to_bytes(4, "big")


def _empty_size(data):
    image = cv2.imdecode(np.frombuffer(base64.b64decode(data["empty"]), np.uint8), cv2.IMREAD_COLOR)
    return image.shape[1], image.shape[0]


def _broken(saved, change):
    data = json.loads(saved.read_text())
    change(data)
    saved.write_text(json.dumps(data))
    with pytest.raises(CalibrationError) as error:
        load_calibration(saved)
    return str(error.value)


@pytest.mark.parametrize("change, field", [
    (lambda d: d.update(version=99), "version"),
    (lambda d: d.update(format="other"), "format"),
    (lambda d: d.update(board="3x7"), "board"),
    (lambda d: d.update(px_per_mm="big"), "px_per_mm"),
    (lambda d: d["hollows"].pop("C"), "hollows: no ellipse for pit(s) C"),
    (lambda d: d["hollows"].update(Z=d["hollows"]["A"]), "hollows: Z are not pits of a 2x6+stores board"),
    (lambda d: d["hollows"]["B"].update(axes=[3, -1]), "hollows.B.axes"),
    (lambda d: d["hollows"]["B"].update(axes=[1e-9, 1e-9]), "hollows.B.axes: [1e-09, 1e-09] px; a 2x6+stores board's hollow"),
    (lambda d: d["hollows"]["S"].update(axes=[1e5, 40]), "hollows.S.axes: [100000.0, 40.0] px"),
    (lambda d: d.update(version=True), "version: this Pitwatch reads versions 1, 2, the file is version True"),
    (lambda d: d.update(version=2.0), "the file is version 2.0"),
    (lambda d: d.update(px_per_mm=10 ** 400), "px_per_mm: expected a number, got 100000000000000000...000"),  # float()
    # and math.isfinite overflow on such an int
    (lambda d: d["hollows"]["B"].update(centre=[1e4, 5]), "hollows.B.centre"),
    (lambda d: d["counter"].update(temperature=None), "counter.temperature"),
    (lambda d: d["counter"].update(temperature=0.5), "counter.temperature"),
    (lambda d: d["counter"].update(start_exact=2), "counter.start_exact"),
    (lambda d: d["counter"].update(whitest_seed="white"), "counter.whitest_seed"),
    (lambda d: d["counter"].update(blur_limit_mm=-1), "counter.blur_limit_mm"),
    (lambda d: d["counter"].update(seed_area_mm2="large"), "counter.seed_area_mm2"),
    (lambda d: d["counter"].update(seed_area_mm2=0), "counter.seed_area_mm2"),
    (lambda d: d["counter"].update(blur_limit_mm="sharp"), "counter.blur_limit_mm"),
    (lambda d: d.pop("counter"), "counter"),
    (lambda d: d.update(empty="not base64!"), "empty"),
    (lambda d: d.update(empty=_png(np.zeros((40, 60, 3), np.uint8))), "empty: image is 60x40 px, a 2x6+stores board at 1.5 px/mm needs "),
    (lambda d: d.update(corners=[1, 2, 3]), "corners"),
    # corners edited by hand that cannot be a board: each frame read as "picture too blurred" before
    (lambda d: d.update(corners=[0] * 8), "corners: near-left and near-right are only 0 px apart"),
    (lambda d: d.update(corners=[100, 600, 500, 600, 900, 600, 1200, 600]),
     "corners: the outline is almost straight or folded back at near-left"),
    (lambda d: d.update(corners=[100, 100, 1100, 100, 1100, 600, 100, 600]), "corners: the points go round clockwise"),
    (lambda d: d.update(corners=[100, 460, 1100, 460, 1000, 100, 200, 100], corners_picture=[640, 480]),
     "corners[1] (near-right): (1100, 460) lies outside the 640 x 480 camera picture"),
    (lambda d: d.update(corners_picture=[1280.5, 720]), "corners_picture"),
    (lambda d: d.update(corners_picture="1280x720"), "corners_picture"),
    (lambda d: d.update(board="2x8+stores"),  # file of another board
     "variant: expected null or a variant played on a 2x8+stores board, got 'kalah'"),
    (lambda d: d.update(board="2x8+stores", variant=None), "hollows: no ellipse for pit(s) G, H"),
    (lambda d: d.update(markers=[1, 2]), "markers: expected null or an object mapping marker ids 0 to 3"),
    (lambda d: d["markers"].update({"4": d["markers"]["0"]}), "markers: expected null or an object mapping marker ids"),
    (lambda d: d["markers"].update({"1": d["markers"]["1"][:3]}), "markers.1: expected four corners"),
    (lambda d: d["markers"]["2"][3].append(0), "markers.2[3]: expected two numbers"),
    (lambda d: d["markers"]["2"][0].__setitem__(0, "left"), "markers.2[0][0]: expected a number"),
    (lambda d: d["markers"].update({"3": [[x + 900, y] for x, y in d["markers"]["3"]]}), "markers.3: its corners [[9"),
    (lambda d: d["markers"].update({"0": [[x * 3, y] for x, y in d["markers"]["0"]]}), "markers.0: its corners are"),
    # found by fuzzing hand-edited files (2026-12-07): each loaded, then read wrong or never read
    (_swapped("A", "a"), "hollows.A.centre: "),  # read A's seeds from a's hollow, status ok
    (lambda d: d.update(variant="no-such-variant"), "variant: expected null or a variant played on a 2x6+stores board"),
    (lambda d: d.update(variant="oware"), "variant: expected null or a variant played on a 2x6+stores board, got 'oware'"),
    (lambda d: d["counter"].update(blur_limit_mm=0), "counter.blur_limit_mm: 0 is outside 0.8..10.0"),
    (lambda d: d.update(empty=base64.b64encode(cv2.imencode(".jpg", np.zeros((40, 60, 3), np.uint8))[1]).decode()),
     "empty: not a PNG image"),
    (lambda d: d.update(empty=base64.b64encode(_png_header(30_000, 30_000) + bytes(64)).decode()),
     "empty: image is 30000x30000 px, a 2x6+stores board"),  # told by its header: 2.7 GB decoded
    (lambda d: d.update(empty=base64.b64encode(_png_header(*_empty_size(d)) + bytes(64)).decode()),
     "empty: not a whole PNG image"),
    (lambda d: d.update(empty=_png(np.full((*_empty_size(d)[::-1], 3), 255, np.uint8))),
     "empty: a picture of one colour, no board in it"),  # read a start position "ok", 1 seed as 8
    (lambda d: d["markers"]["0"].reverse(), "markers.0: its corners do not go round a square clockwise"),
    (lambda d: d["markers"].update({"0": [d["markers"]["0"][k] for k in (0, 2, 1, 3)]}),
     "markers.0: its corners do not go round a square clockwise"),  # crossing itself: S read one off
    (lambda d: d["markers"].update({"1": d["markers"]["0"]}), "markers.1: it lies on markers.0"),
    (lambda d: d.pop("version"), "version: this Pitwatch reads versions 1, 2, the file gives no version"),  # not "None"
    (lambda d: d.update(corner=d.pop("corners")), "corner: no field of a calibration file (its fields are format, "
                                                   "version, board,"),  # a typo was dropped unsaid
    # an audit's (2026-12-07): A and B moved 13 mm towards each other, each inside the 20 mm let pass: B read 3 of 4
    (lambda d: [d["hollows"][label]["centre"].__setitem__(0, d["hollows"][label]["centre"][0] + shift)
                for label, shift in (("A", 20), ("B", -20))],
     "hollows.A and hollows.B: their ellipses reach 17 mm into each other"),
])
def test_malformed_file_names_the_field(saved, change, field):
    message = _broken(saved, change)
    assert field in message and str(saved) in message


def test_a_bad_value_is_named_short(saved):
    """A megabyte string in a field named in full made an error line of a megabyte."""
    message = _broken(saved, lambda d: d.update(format="x" * 1_000_000))
    assert message.startswith(f"{saved}: format: expected 'pitwatch-calibration', got 'xxx") and len(message) < 300


def test_what_is_no_file_is_refused_unread(tmp_path, monkeypatch):
    """A named pipe waited for a writer for ever, /dev/zero filled the memory, and a video given by
    mistake was read whole."""
    pipe = tmp_path / "board.json"
    os.mkfifo(pipe)
    outcome = []
    reader = threading.Thread(target=lambda: outcome.append(_refusal(pipe)), daemon=True)
    reader.start()
    reader.join(10)
    assert outcome == [f"{pipe}: not a calibration file but a named pipe"]
    assert _refusal(Path("/dev/zero")) == "/dev/zero: not a calibration file but a device"
    assert _refusal(tmp_path) == f"{tmp_path}: not a calibration file but a folder"
    assert _refusal("") == "'': a blank name names no calibration file"  # was the folder Pitwatch runs in
    big = tmp_path / "video.json"
    big.write_bytes(b"{" + b" " * 2_000)
    monkeypatch.setattr(calibfile, "MOST_FILE_BYTES", 1_000)
    assert _refusal(big) == f"{big}: not a calibration file (more than 0 MB; a calibration file is under 2 MB)"


def _refusal(path):
    try:
        load_calibration(path)
    except CalibrationError as error:
        return str(error)
    return None


def test_not_json_and_missing_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{oops")
    with pytest.raises(CalibrationError, match="not JSON"):
        load_calibration(bad)
    with pytest.raises(CalibrationError, match="cannot read"):
        load_calibration(tmp_path / "missing.json")
    binary = tmp_path / "image.json"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff")
    with pytest.raises(CalibrationError, match="not a calibration file"):
        load_calibration(binary)
    nested = tmp_path / "nested.json"
    nested.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(CalibrationError, match="nested.json: not a calibration file .its JSON is nested too deeply"):
        load_calibration(nested)
    digits = tmp_path / "digits.json"
    digits.write_text('{"px_per_mm": 1' + "0" * 5000 + "}")
    with pytest.raises(CalibrationError, match="digits.json: not a calibration file .a number in it has more digits"):
        load_calibration(digits)


def test_a_field_given_twice_is_named_not_taken_by_where_it_stands(saved, tmp_path):
    """A hand edit that gives a field again: json would keep the last one silently."""
    text = saved.read_text()
    assert text.count('"version": 2') == 1
    twice = tmp_path / "twice.json"
    twice.write_text(text.replace('"version": 2', '"version": 2, "version": 2', 1))
    assert _refusal(twice) == (f'{twice}: not a calibration file ("version" is given twice in one object: '
                               "which one is meant?)")


def test_a_file_that_cannot_be_written_is_named_and_leaves_nothing_behind(tmp_path, kalah_setup):
    taken = tmp_path / "board.json"
    taken.mkdir()  # -o naming a folder
    with pytest.raises(OSError) as error:
        save_calibration(kalah_setup[1], taken)
    assert error.value.filename == str(taken)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["board.json"]  # no board.json.tmp left


def test_a_file_written_again_keeps_its_permissions(tmp_path, kalah_setup):
    """Replaced through a temporary file, a calibration kept private (0600) became 0644 (an audit, 2026-12-07)."""
    path = tmp_path / "board.json"
    save_calibration(kalah_setup[1], path)
    path.chmod(0o600)
    save_calibration(kalah_setup[1], path)
    assert path.stat().st_mode & 0o777 == 0o600


def test_ctrl_c_in_the_middle_of_a_write_keeps_the_old_file_and_leaves_no_temporary_one(tmp_path, kalah_setup,
                                                                                        monkeypatch):
    kept = tmp_path / "board.json"
    save_calibration(kalah_setup[1], kept)
    before = kept.read_bytes()

    def interrupted(fd):
        raise KeyboardInterrupt
    monkeypatch.setattr("calibration.calibfile.os.fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_whole(kept, "a calibration half written")
    assert kept.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["board.json"]


def test_a_version_1_file_is_still_read(saved, kalah_setup):
    """Files written before the seed counter carry the area of one seed and no counter field:
    they read with the counter as it comes."""
    data = json.loads(saved.read_text())
    data.pop("counter")
    data.update(version=1, seed={"area": 210.0, "white_area": None})
    saved.write_text(json.dumps(data))
    loaded = load_calibration(saved)
    assert (loaded.temperature, loaded.start_exact) == (1.0, 1.0)
    assert loaded.hollows == kalah_setup[1].hollows


def test_a_file_from_before_markers_were_placed_reads_them_where_the_profile_puts_them(saved):
    """Files before 2026-12-05 kept no marker places: every marker is taken at the profile's."""
    data = json.loads(saved.read_text())
    del data["markers"]
    saved.write_text(json.dumps(data))
    assert load_calibration(saved).markers is None


@pytest.mark.parametrize("measure", ["whitest_seed", "seed_area_mm2"])
def test_a_file_from_before_a_seed_measure_reads_without_it(saved, measure):
    """Files written before calibration measured the whitest seed, or one seed's area, read as not
    measured: the reader then tells a reflection inside a hollow from a white seed only by its
    size, or allows any seed's size."""
    data = json.loads(saved.read_text())
    data["counter"].pop(measure)
    saved.write_text(json.dumps(data))
    assert getattr(load_calibration(saved), measure) is None


def test_a_board_s_blur_limit_is_kept_and_a_file_without_one_has_the_general_limit(saved, kalah_setup):
    """Calibration writes the blur from which this board's start position was misread; a file
    without it (older, or a board that read well up to the general limit) reads as None."""
    assert load_calibration(saved).blur_limit_mm is None and kalah_setup[1].blur_limit_mm is None
    data = json.loads(saved.read_text())
    data["counter"]["blur_limit_mm"] = 0.955
    saved.write_text(json.dumps(data))
    loaded = load_calibration(saved)
    assert loaded.blur_limit_mm == 0.955
    save_calibration(loaded, saved)
    assert json.loads(saved.read_text())["counter"]["blur_limit_mm"] == 0.955


def test_a_calibration_no_reader_would_load_is_not_written_over_a_good_file(saved, kalah_setup):
    """A seed measured 0 mm2 (an empty picture taken with the seeds in: calibration refuses it now, and this is
    the net under every such measurement) is refused, named, and the good file on disk is kept."""
    before = saved.read_bytes()
    with pytest.raises(CalibrationError) as refused:
        save_calibration(replace(kalah_setup[1], seed_area_mm2=0.0), saved)
    assert str(refused.value) == (f"{saved}: not written, no reader would load it: counter.seed_area_mm2: 0.0 is "
                                  "outside 1.0..2000.0")
    assert saved.read_bytes() == before
