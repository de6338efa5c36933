"""The configuration file: one TOML file, every option documented here, every option overridable.

Why one schema table (:data:`SCHEMA`): the same entries validate the file,
print the documented default file (``pitwatch config``), and name the bad key
in every error, so the three can never drift apart.

Precedence: built-in default < configuration file < ``--set section.key=value``
(and the named command-line flags, which are shorthands for ``--set``).
"""

from __future__ import annotations

import argparse
import math
import os
import reprlib
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from vision.picture_file import not_a_file
from vision.picture_size import DEVICE_SIZE, parse_picture_size, picture_size_text


class ConfigError(ValueError):
    """A configuration problem; the message names the file and the key."""


@dataclass(frozen=True)
class Setting:
    """One option: its default (whose type is the option's), what it means, and the values it takes:
    one of ``choices``, or a finite number within ``bounds`` (inclusive; ``None``: no maximum). A
    number that passed as a number once crashed the part that used it (a camera at 0 frames a second)."""

    default: Any
    doc: str
    choices: tuple[Any, ...] | None = None
    bounds: tuple[float, float | None] | None = None

    def range_text(self) -> str:
        """The values a number takes, in words: ``from 0.1 to 30``, ``0 or more``."""
        low, high = self.bounds
        return f"{low:g} or more" if high is None else f"from {low:g} to {high:g}"


DEFAULT_DATABASE = "~/.local/share/pitwatch/games.sqlite"
MOST_FLOAT = sys.float_info.max
MOST_CONFIG_BYTES = 1_000_000  # a configuration file is a few kB: a bigger one is none (a video given by mistake)

SCHEMA: dict[str, dict[str, Setting]] = {
    "game": {
        "variant": Setting("kalah", "variant of a new game (see `pitwatch games variants`)"),
        "options": Setting({}, "variant options of a new game, e.g. { houses = 6, seeds = 4 }"),
        "south": Setting("South", "name of the player on the camera side"),
        "north": Setting("North", "name of the player opposite"),
    },
    "camera": {
        "source": Setting("", "camera: a device index (0), a video file, an rtsp:// or http:// URL, "
                              "a folder of images, or \"\" for no camera"),
        "calibration": Setting("", "board calibration file written by `pitwatch calibrate`"),
        "still_frames": Setting(5, "frames the board must stay still, with no hand over it, before it is read",
                                bounds=(1, 50)),
        "size": Setting(picture_size_text(DEVICE_SIZE),
                        "picture size (WIDTHxHEIGHT) a camera device is asked for: seeds are counted "
                        "worse at 640x480, a little better at 1920x1080 (README, Benchmarks)"),
    },
    "sensors": {
        "port": Setting("auto", "serial port of the microcontroller, \"auto\" to find it, \"\" for none"),
        "calibration": Setting("", "pit sensor calibration file (learned on first start if missing; "
                                   "\"\": sensors.json beside recorder.database)"),
    },
    "session": {
        "settle_seconds": Setting(0.25, "how long the fused reading must stay the same before the referee judges it",
                                  bounds=(0, 10)),
        "snapshot_width": Setting(320, "width in pixels of the camera snapshot stored with each move (0: none)",
                                  bounds=(0, 1920)),
    },
    "recorder": {
        "database": Setting(DEFAULT_DATABASE, "SQLite file holding every game, move and verdict"),
    },
    "web": {
        "host": Setting("127.0.0.1", "address the dashboard listens on; anything but 127.0.0.1/localhost "
                                     "needs allow_network = true"),
        "port": Setting(8080, "port of the dashboard (0: any free port)", bounds=(0, 65535)),
        "allow_network": Setting(False, "serve the dashboard to other machines; then every control "
                                        "action needs the token"),
        "token": Setting("", "token for control actions when serving on the network (\"\": a random one, printed)"),
    },
    "demo": {
        "database": Setting("~/.local/share/pitwatch/demo.sqlite",
                            "SQLite file of the demo's games (kept apart from the real games)"),
        "player": Setting("random", "who moves on the demo's virtual board", ("random", "clicks")),
        "move_seconds": Setting(2.0, "seconds between the random player's moves", bounds=(0.1, 3600)),
        "seed": Setting(0, "random seed of the demo (0: a new game every time)", bounds=(0, None)),
        "camera": Setting(True, "render the demo board with the synthetic camera and read it with vision"),
        "camera_fps": Setting(4.0, "frames per second the synthetic camera renders (each costs CPU)",
                              bounds=(0.1, 30)),
        "sensors": Setting(True, "drive the emulated microcontroller and read its pit sensors"),
    },
}

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")  # the host names of a dashboard served to this machine only (web.security)


@dataclass(frozen=True)
class Config:
    """Validated settings: ``config["web"]["port"]`` or ``config.get("web.port")``."""

    values: dict[str, dict[str, Any]]
    source: str = "(defaults)"

    def __getitem__(self, section: str) -> dict[str, Any]:
        return self.values[section]

    def get(self, dotted: str) -> Any:
        section, key = _split(dotted, "setting")
        return self.values[section][key]

    def database_path(self, key: str = "recorder.database") -> Path:
        return Path(os.path.expanduser(self.get(key)))

    @property
    def camera_size(self) -> tuple[int, int]:
        """The picture (width, height px) a camera device is asked for (``camera.size``)."""
        return picture_size(self.get("camera.size"))


FLAGS = "config:flags"  # in a command's parsed arguments: the named flag that sets each key (add_flag)


def add_options(parser: argparse.ArgumentParser, *, after_action: bool = False) -> None:
    """``--config FILE`` and ``--set SECTION.KEY=VALUE``, which every subcommand takes.

    ``after_action``: the same options again on a command's action, for ``pitwatch games list
    --config F`` as well as ``pitwatch games --config F list``. argparse fills an action's options
    into a namespace of their own and copies it over the command's, so there they default to
    nothing (not to a value that would undo the command's) and ``--set`` gathers into a list of
    its own, applied after the command's."""
    parser.add_argument("--config", metavar="FILE", help="configuration file (TOML)",
                        **({"default": argparse.SUPPRESS} if after_action else {}))
    parser.add_argument("--set", dest="overrides_after_action" if after_action else "overrides", action="append",
                        default=argparse.SUPPRESS if after_action else [], metavar="SECTION.KEY=VALUE",
                        help="override one configuration option (repeatable)")


def add_flag(parser: argparse.ArgumentParser, flag: str, key: str, **kwargs: Any) -> None:
    """A named flag (``--port``) that sets configuration ``key`` (``web.port``) as ``--set`` would, over
    the file; the parser remembers the flag (:data:`FLAGS`), so a bad value is blamed on what the
    user typed (``--port 'abc'``), not on a ``--set`` they never wrote."""
    parser.add_argument(flag, dest=f"opt:{key}", **kwargs)
    parser.set_defaults(**{FLAGS: {**(parser.get_default(FLAGS) or {}), key: flag}})


def from_arguments(args: argparse.Namespace) -> Config:
    """The configuration file plus ``--set`` plus the named flags (``opt:SECTION.KEY`` attributes;
    later wins). A bad value given with a flag is blamed on the flag the user typed (``--port 'abc'``)."""
    overrides = [*getattr(args, "overrides", []), *getattr(args, "overrides_after_action", [])]
    named = getattr(args, FLAGS, {})
    flags = [(named.get(name[4:]), name[4:], str(value)) for name, value in vars(args).items()
             if name.startswith("opt:") and value is not None]
    return load(getattr(args, "config", None), overrides, required=bool(getattr(args, "config", None)), flags=flags)


def default_path() -> Path:
    """``$PITWATCH_CONFIG`` or ``~/.config/pitwatch/pitwatch.toml``; set but empty, as unset (it named
    the folder Pitwatch runs in, and every command failed reading it)."""
    return Path(os.environ.get("PITWATCH_CONFIG") or "~/.config/pitwatch/pitwatch.toml").expanduser()


def load(path: str | Path | None = None, overrides: Iterable[str] = (), *, required: bool = False,
         flags: Iterable[tuple[str | None, str, str]] = ()) -> Config:
    """Defaults, then the file at ``path`` (if it exists), then ``section.key=value`` overrides, then
    the named flags' values, each ``(flag, section.key, value)`` (the flag None where it is not known).

    ``required``: a missing file is an error (the user named it explicitly).
    """
    values = {section: {key: s.default for key, s in keys.items()} for section, keys in SCHEMA.items()}
    source = "(defaults)"
    file = Path(path).expanduser() if path else default_path()
    if file.is_symlink() and not file.exists():
        raise ConfigError(f"{file}: a link to nothing (a link to a file that is gone, or links in a loop)")
    if file.exists():
        if (kind := not_a_file(file)) is not None:  # a named pipe would wait for a writer, /dev/zero fill the memory
            raise ConfigError(f"{file}: not a configuration file but {kind}")
        try:
            data = tomllib.loads(_text_of(file))
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{file}: not valid TOML: {exc}") from None
        except RecursionError:
            raise ConfigError(f"{file}: not a configuration file (its tables or arrays are nested too deeply to read)") from None
        except UnicodeDecodeError as exc:
            raise ConfigError(f"{file}: not a configuration file (not UTF-8 text, byte {exc.start})") from None
        except OSError as exc:
            raise ConfigError(f"{file}: cannot read: {exc.strerror}") from None
        _merge(values, data, str(file))
        _paths_beside(values, data, file.parent)
        source = str(file)
    elif required:
        raise ConfigError(f"{file}: no such configuration file")
    for item in overrides:
        dotted, sep, raw = item.partition("=")
        if not sep:
            raise ConfigError(f"--set {item!r}: write section.key=value, e.g. --set web.port=8081")
        _override(values, dotted.strip(), raw.strip(), f"--set {item!r}")
    for flag, dotted, raw in flags:
        _override(values, dotted, raw, f"{flag} {raw!r}" if flag else f"--set '{dotted}={raw}'")
    config = Config(values, source)
    _check_consistency(config)
    return config


def _text_of(file: Path) -> str:
    """The configuration file's text (UTF-8; Notepad begins a file with a byte-order mark); a file
    far larger than any configuration is refused unread."""
    with open(file, "rb") as stream:
        data = stream.read(MOST_CONFIG_BYTES + 1)
    if len(data) > MOST_CONFIG_BYTES:
        raise ConfigError(f"{file}: not a configuration file (more than {MOST_CONFIG_BYTES // 1000} kB; the documented "
                          "one is under 5 kB)")
    return data.decode("utf-8-sig")


def _paths_beside(values: dict, data: dict, folder: Path) -> None:
    """The file paths the configuration file gives (:data:`PATH_SETTINGS`), relative ones taken from
    its ``folder``: taken from the folder Pitwatch was started in, a service started elsewhere
    recorded into a new, empty database there, and the games seemed gone (an audit, 2026-12-07)."""
    for section, key in PATH_SETTINGS:
        value = data.get(section, {}).get(key)
        if isinstance(value, str) and value.strip() and "\0" not in value and _relative(value):
            values[section][key] = str(folder / value)


def _relative(value: str) -> bool:
    try:
        return not Path(value).expanduser().is_absolute()
    except RuntimeError:  # ~name of no user here: _check_consistency names it
        return False


def _override(values: dict, dotted: str, raw: str, where: str) -> None:
    """Set ``section.key`` to the command line's ``raw`` text; errors name ``where`` it was given."""
    section, key = _split(dotted, where)
    try:
        value = _parse_value(raw, SCHEMA[section][key].default)
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    _store(values, section, key, value, where)


def _split(dotted: str, where: str) -> tuple[str, str]:
    section, _, key = dotted.partition(".")
    if section not in SCHEMA:
        raise ConfigError(f"{where}: unknown section {section!r}; sections are {', '.join(SCHEMA)}")
    if key not in SCHEMA[section]:
        raise ConfigError(f"{where}: unknown key {section}.{key}; keys of [{section}] are "
                          f"{', '.join(SCHEMA[section])}")
    return section, key


def _merge(values: dict, data: dict, where: str) -> None:
    for section, table in data.items():
        if section not in SCHEMA:
            raise ConfigError(f"{where}: unknown section [{section}]; sections are {', '.join(SCHEMA)}")
        if not isinstance(table, dict):
            raise ConfigError(f"{where}: {section} must be a table ([{section}])")
        for key, value in table.items():
            _split(f"{section}.{key}", where)
            _store(values, section, key, value, where)


def _store(values: dict, section: str, key: str, value: Any, where: str) -> None:
    setting = SCHEMA[section][key]
    expected = type(setting.default)
    ok = isinstance(value, expected) and not (expected is int and isinstance(value, bool))
    if expected is float and isinstance(value, int) and not isinstance(value, bool):
        ok = True
        if abs(value) <= MOST_FLOAT:  # a whole number of 400 digits stays one, to be refused as out of range
            value = float(value)
    if not ok:
        raise ConfigError(f"{where}: {section}.{key} must be {_TYPE_WORDS[expected]}, not {reprlib.repr(value)}")
    if setting.choices and value not in setting.choices:
        raise ConfigError(f"{where}: {section}.{key} = {reprlib.repr(value)} is not one of {', '.join(setting.choices)}")
    if setting.bounds and not _within(value, setting.bounds):
        raise ConfigError(f"{where}: {section}.{key} must be {setting.range_text()}, not {reprlib.repr(value)}")
    values[section][key] = value


def _within(value: float, bounds: tuple[float, float | None]) -> bool:
    """Whether ``value`` is a finite number within ``bounds`` (nan and inf are neither)."""
    low, high = bounds
    if isinstance(value, float) and not math.isfinite(value):  # an int is finite, and math.isfinite overflows on 10**400
        return False
    return low <= value and (high is None or value <= high)


_TYPE_WORDS = {str: "a string", int: "a whole number", float: "a number", bool: "true or false",
               dict: "a table like { key = value }"}


def _parse_value(raw: str, default: Any) -> Any:
    """A command-line value: taken verbatim for a string setting, else read as a TOML value."""
    if isinstance(default, str):
        return raw
    try:
        return tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        raise ConfigError(f"{raw!r} is not a valid value (write it as in the TOML file, e.g. 8080, "
                          "true, 2.5, { houses = 6 })") from None


def picture_size(text: str, where: str = "camera.size") -> tuple[int, int]:
    """``"1280x720"`` -> (1280, 720); a :class:`ConfigError` naming ``where`` otherwise."""
    try:
        return parse_picture_size(text)
    except ValueError as error:
        raise ConfigError(f"{where} = {error}") from None


def _check_consistency(config: Config) -> None:
    web = config["web"]
    where = "configuration" if config.source == "(defaults)" else config.source
    try:
        config.camera_size
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    for section, key, none in (("camera", "source", "no camera"), ("sensors", "port", "no microcontroller")):
        value = config[section][key]
        if value and not value.strip():  # taken for a camera (or a port) and opened as the folder Pitwatch runs in
            raise ConfigError(f'{where}: {section}.{key} = {value!r} is blank: write "" for {none}, or name one')
    for section, key in PATH_SETTINGS:
        if (problem := _path_problem(config[section][key], blank_allowed=key == "calibration")) is not None:
            raise ConfigError(f"{where}: {section}.{key} = {reprlib.repr(config[section][key])} {problem}")
    if web["host"] not in LOCAL_HOSTS and not web["allow_network"]:
        raise ConfigError(
            f"{where}: web.host = {web['host']!r} serves the dashboard to the network; "
            "set web.allow_network = true (or --allow-network) to do that on purpose"
        )


PATH_SETTINGS = (("recorder", "database"), ("demo", "database"), ("camera", "calibration"), ("sensors", "calibration"))


def _path_problem(value: str, blank_allowed: bool) -> str | None:
    """What keeps ``value`` from naming a file, in words that follow the setting's name, or None."""
    if not value.strip():
        return None if blank_allowed else "is blank: name the file"
    if "\0" in value:
        return "holds a NUL character, which no file name can"
    try:
        Path(value).expanduser()
    except RuntimeError:  # ~name of a user this machine does not have
        return f"begins with {value.split('/')[0]}, the home folder of no user here"
    return None


def documented_toml() -> str:
    """The default configuration file with every option documented."""
    lines = ["# Pitwatch configuration (TOML). Every key can also be set with --set section.key=value.", ""]
    for section, keys in SCHEMA.items():
        lines.append(f"[{section}]")
        for key, setting in keys.items():
            lines.append(f"# {setting.doc}")
            if setting.choices:
                lines.append(f"# one of: {', '.join(map(str, setting.choices))}")
            if setting.bounds:
                lines.append(f"# {setting.range_text()}")
            lines.append(f"{key} = {_toml_value(setting.default)}")
        lines.append("")
    return "\n".join(lines)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + " }" if value else "{}"
    return repr(value)
