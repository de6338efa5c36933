"""The configuration file: defaults, the file, overrides, and errors that name the key."""

from __future__ import annotations

import tomllib

import pytest

from pitwatch import config as cfg


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
])
def test_bad_files_name_the_key(tmp_path, text, message):
    with pytest.raises(cfg.ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        cfg.load(write(tmp_path, text))


@pytest.mark.parametrize("override, message", [
    ("web.port", "write section.key=value"),
    ("web.nope=1", "unknown key web.nope"),
    ("web.port=eighty", "is not a valid value"),
    ("session.settle_seconds=-1", "must not be negative"),
])
def test_bad_overrides_name_the_key(tmp_path, override, message):
    with pytest.raises(cfg.ConfigError, match=message):
        cfg.load(tmp_path / "none.toml", [override])


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
