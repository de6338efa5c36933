"""The configuration file: defaults, the file, overrides, and errors that name the key."""

from __future__ import annotations

import math
import tomllib

import pytest

from pitwatch import config as cfg
from pitwatch.cli import build_parser


def write(tmp_path, text: str):
    path = tmp_path / "pitwatch.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_without_a_file(tmp_path):
    c = cfg.load(tmp_path / "missing.toml")
    assert c["web"]["host"] == "127.0.0.1" and c["web"]["allow_network"] is False
    assert c.get("game.variant") == "kalah"


def test_file_then_overrides_take_precedence(tmp_path):
    path = write(tmp_path, '[web]\nport = 9000\n[game]\nvariant = "oware"\noptions = { grand_slam = "forbidden" }\n')
    c = cfg.load(path, ["web.port=9100", "game.south=Ann Lee", "demo.move_seconds=0.5"])
    assert c["web"]["port"] == 9100
    assert c["game"]["variant"] == "oware" and c["game"]["options"] == {"grand_slam": "forbidden"}
    assert c["game"]["south"] == "Ann Lee"
    assert c["demo"]["move_seconds"] == 0.5


@pytest.mark.parametrize("text, message", [
    ("[webb]\nport = 1\n", "unknown section [webb]"),
    ("[web]\nprot = 1\n", "unknown key web.prot"),
    ("[web]\nport = \"80\"\n", "web.port must be a whole number"),
    ("[web]\nallow_network = 1\n", "web.allow_network must be true or false"),
    ("[demo]\nplayer = \"robot\"\n", "demo.player = 'robot' is not one of random, clicks"),
    ("[web]\nhost = \"0.0.0.0\"\n", "set web.allow_network = true"),
    ("[web\n", "not valid TOML"),
    # blank: taken for a camera, read as the folder Pitwatch runs in (and a port to search)
    ("[camera]\nsource = \"  \"\n", "camera.source = '  ' is blank: write \"\" for no camera, or name one"),
    ("[sensors]\nport = \" \"\n", "sensors.port = ' ' is blank: write \"\" for no microcontroller"),
    # paths no file can have: each was a traceback (ValueError, RuntimeError) from doctor, games or demo
    ("[recorder]\ndatabase = \"\"\n", "recorder.database = '' is blank: name the file"),
    ("[recorder]\ndatabase = \"a\\u0000b\"\n", "recorder.database = .a.*b. holds a NUL character, which no file name can"),
    ("[camera]\ncalibration = \"a\\u0000b\"\n", "camera.calibration = .a.*b. holds a NUL character, which no file name can"),
    ("[demo]\ndatabase = \"~no-such-user-here/g.sqlite\"\n",
     "demo.database = '~no-such-user-here/g.sqlite' begins with ~no-such-user-here, the home folder of no user here"),
    ("x = " + "[" * 2000 + "]" * 2000 + "\n", r"not a configuration file \(its tables or arrays are nested too deeply to read\)"),
])
def test_bad_files_name_the_key(tmp_path, text, message):
    with pytest.raises(cfg.ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        cfg.load(write(tmp_path, text))


@pytest.mark.parametrize("override, message", [
    ("web.port", "write section.key=value"),
    ("web.nope=1", "unknown key web.nope"),
    ("web.port=eighty", "is not a valid value"),
    ("session.settle_seconds=-1", "session.settle_seconds must be from 0 to 10, not -1.0"),
    # 400 digits: a traceback once (float() and math.isfinite overflow), and then named in full
    ("session.settle_seconds=1" + "0" * 400, "session.settle_seconds must be from 0 to 10, not 100000000000000000\\.\\.\\.0+$"),
    ("camera.still_frames=1" + "0" * 400, "camera.still_frames must be from 1 to 50, not 100000000000000000\\.\\.\\.0+$"),
])
def test_bad_overrides_name_the_key(tmp_path, override, message):
    with pytest.raises(cfg.ConfigError, match=message):
        cfg.load(tmp_path / "none.toml", [override])


def test_a_file_notepad_saved_with_a_byte_order_mark_is_read(tmp_path):
    path = tmp_path / "pitwatch.toml"
    path.write_bytes("\ufeff[web]\nport = 8081\n".encode("utf-8"))
    assert cfg.load(path)["web"]["port"] == 8081


def test_a_binary_file_is_named_not_decoded(tmp_path):
    picture = tmp_path / "board.jpg"
    picture.write_bytes(b"\xff\xd8\xff\xe0\x00\x10JFIF")
    with pytest.raises(cfg.ConfigError, match="board.jpg: not a configuration file \\(not UTF-8 text, byte 0\\)"):
        cfg.load(picture, required=True)


def test_a_named_missing_file_is_an_error(tmp_path):
    with pytest.raises(cfg.ConfigError, match="no such configuration file"):
        cfg.load(tmp_path / "none.toml", required=True)


def test_network_needs_the_explicit_option(tmp_path):
    c = cfg.load(tmp_path / "none.toml", ["web.host=0.0.0.0", "web.allow_network=true"])
    assert c["web"]["host"] == "0.0.0.0"


def test_the_documented_file_is_valid_and_equals_the_defaults(tmp_path):
    text = cfg.documented_toml()
    tomllib.loads(text)
    for section, keys in cfg.SCHEMA.items():
        for key, setting in keys.items():
            assert f"# {setting.doc}" in text
    assert cfg.load(write(tmp_path, text)).values == cfg.load(tmp_path / "none.toml").values


@pytest.mark.parametrize("text, message", [
    ("[demo]\ncamera_fps = 0\n", "demo.camera_fps must be from 0.1 to 30, not 0.0"),  # divided by: ZeroDivisionError
    ("[demo]\ncamera_fps = inf\n", "demo.camera_fps must be from 0.1 to 30, not inf"),
    ("[demo]\nmove_seconds = inf\n", "demo.move_seconds must be from 0.1 to 3600, not inf"),  # OverflowError, in a thread
    ("[demo]\nmove_seconds = nan\n", "demo.move_seconds must be from 0.1 to 3600, not nan"),
    ("[demo]\nmove_seconds = 0\n", "demo.move_seconds must be from 0.1 to 3600, not 0.0"),
    ("[demo]\nseed = -3\n", "demo.seed must be 0 or more, not -3"),
    ("[camera]\nstill_frames = 0\n", "camera.still_frames must be from 1 to 50, not 0"),  # ValueError in vision.live
    ("[session]\nsettle_seconds = inf\n", "session.settle_seconds must be from 0 to 10, not inf"),
    ("[session]\nsnapshot_width = 100000\n", "session.snapshot_width must be from 0 to 1920, not 100000"),
    ("[web]\nport = 70000\n", "web.port must be from 0 to 65535, not 70000"),
])
def test_a_number_outside_its_range_is_refused_naming_the_key_and_the_range(tmp_path, text, message):
    """Values of the right type that crashed the part using them: each number knows its range."""
    path = write(tmp_path, text)
    with pytest.raises(cfg.ConfigError) as refused:
        cfg.load(path)
    assert str(refused.value) == f"{path}: {message}"


def test_every_number_has_a_finite_range_holding_its_default():
    """A numeric option added without a range would let nan, inf or 0 through again."""
    for section, keys in cfg.SCHEMA.items():
        for key, setting in keys.items():
            if type(setting.default) in (int, float):
                assert setting.bounds is not None, f"{section}.{key} has no range"
                low, high = setting.bounds
                assert math.isfinite(low) and (high is None or math.isfinite(high))
                assert low <= setting.default and (high is None or setting.default <= high), f"{section}.{key}"
    assert "# from 0.1 to 30\ncamera_fps = 4.0" in cfg.documented_toml()  # `pitwatch config` says each range


@pytest.mark.parametrize("argv, message", [
    (["demo", "--port", "abc"], "--port 'abc': 'abc' is not a valid value"),
    (["demo", "--port", "70000"], "--port '70000': web.port must be from 0 to 65535, not 70000"),
    (["demo", "--move-seconds", "inf"], "--move-seconds 'inf': demo.move_seconds must be from 0.1 to 3600, not inf"),
    (["demo", "--seed", "-1"], "--seed '-1': demo.seed must be 0 or more, not -1"),
    (["run", "--port", "8o8o"], "--port '8o8o': '8o8o' is not a valid value"),
    (["demo", "--set", "demo.camera_fps=0"], "--set 'demo.camera_fps=0': demo.camera_fps must be from 0.1 to 30, not 0.0"),
    (["run", "--set", "camera.still_frames=0"], "--set 'camera.still_frames=0': camera.still_frames must be from 1 to 50"),
])
def test_a_bad_value_is_blamed_on_the_flag_or_set_the_user_typed(tmp_path, monkeypatch, argv, message):
    """`demo --port abc` was blamed on `--set 'web.port=abc'`, which the user never typed."""
    monkeypatch.setenv("PITWATCH_CONFIG", str(tmp_path / "none.toml"))
    with pytest.raises(cfg.ConfigError) as refused:
        cfg.from_arguments(build_parser().parse_args(argv))
    assert str(refused.value).startswith(message)


def test_flags_still_override_the_file_and_set(tmp_path):
    path = write(tmp_path, "[web]\nport = 9000\n")
    args = build_parser().parse_args(["demo", "--config", str(path), "--set", "web.port=9100", "--port", "9200",
                                      "--move-seconds", "0.5"])
    config = cfg.from_arguments(args)
    assert config["web"]["port"] == 9200 and config["demo"]["move_seconds"] == 0.5


def test_relative_paths_in_a_file_are_taken_from_its_folder(tmp_path, monkeypatch):
    """Taken from the folder Pitwatch started in, a service started elsewhere recorded into a new,
    empty database there, and the games seemed gone (an audit, 2026-12-07). `--set` is typed where
    Pitwatch runs, so its paths stay as given."""
    club = tmp_path / "club"
    club.mkdir()
    path = write(club, '[recorder]\ndatabase = "games.sqlite"\n[camera]\ncalibration = "boards/kalah.json"\n'
                       '[sensors]\ncalibration = "/srv/sensors.json"\n[demo]\ndatabase = "~/demo.sqlite"\n')
    monkeypatch.chdir(tmp_path)
    c = cfg.load(path, ["demo.database=here.sqlite"])
    assert c.database_path() == club / "games.sqlite"
    assert c["camera"]["calibration"] == str(club / "boards" / "kalah.json")
    assert c["sensors"]["calibration"] == "/srv/sensors.json"  # absolute: as written
    assert c["demo"]["database"] == "here.sqlite"  # --set: as typed


def test_what_is_no_configuration_file_is_refused_unread(tmp_path, monkeypatch):
    """A named pipe waited for a writer for ever, /dev/zero filled the memory (a MemoryError's
    traceback), and links in a loop were called missing (an audit, 2026-12-07)."""
    import os

    os.mkfifo(tmp_path / "pipe.toml")
    (tmp_path / "huge.toml").write_bytes(b"# " + b"x" * cfg.MOST_CONFIG_BYTES)
    (tmp_path / "loop1.toml").symlink_to(tmp_path / "loop2.toml")
    (tmp_path / "loop2.toml").symlink_to(tmp_path / "loop1.toml")
    said = {}
    for name in ("pipe.toml", "huge.toml", "loop1.toml"):
        with pytest.raises(cfg.ConfigError) as refused:
            cfg.load(tmp_path / name, required=True)
        said[name] = str(refused.value)
    assert said == {
        "pipe.toml": f"{tmp_path / 'pipe.toml'}: not a configuration file but a named pipe",
        "huge.toml": f"{tmp_path / 'huge.toml'}: not a configuration file (more than 1000 kB; the documented one is "
                     "under 5 kB)",
        "loop1.toml": f"{tmp_path / 'loop1.toml'}: a link to nothing (a link to a file that is gone, or links in a loop)"}
    with pytest.raises(cfg.ConfigError, match="not a configuration file but a device"):
        cfg.load("/dev/zero", required=True)


def test_an_empty_pitwatch_config_is_as_if_unset(monkeypatch, tmp_path):
    """It named the folder Pitwatch runs in, and every command failed: `.: cannot read: Is a directory`."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("PITWATCH_CONFIG", "")
    assert cfg.default_path() == tmp_path / ".config" / "pitwatch" / "pitwatch.toml"
    assert cfg.load().source == "(defaults)"
