"""The ``pitwatch`` command: run, demo, calibrate/read/markers, games, doctor, config.

Every subcommand but ``markers`` and ``config`` reads the configuration file (``--config``,
default ``~/.config/pitwatch/pitwatch.toml``) and takes ``--set section.key=value``
for any option; the named flags (``--port``, ``--db``, ...) are shorthands
for the same ``--set``. Errors are one line on stderr naming what is wrong,
with exit status 2; never a traceback. Output nobody reads any more (a pipe
into ``head``) stops the command quietly, with status 1.
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import io
import json
import os
import sys
from contextlib import closing, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

import rules
from vision.counter import CounterError

from . import config as cfg
from .errors import INTERRUPTED, said
from .recorder import Recorder, RecorderError, refused_player
from .session import SessionError

if TYPE_CHECKING:  # the records module loads when a record is read
    from .records import RecordImport

# flag -> configuration key: the shorthands every live command understands
LIVE_FLAGS: tuple[tuple[str, str, str], ...] = (
    ("--host", "web.host", "address to serve the dashboard on"),
    ("--port", "web.port", "dashboard port (0: any free port)"),
    ("--token", "web.token", "access token for control actions when serving on the network"),
    ("--variant", "game.variant", "variant to play: a game in progress of another variant is kept on record and "
                                  "a new game of this one starts"),
    ("--south", "game.south", "South player's name"),
    ("--north", "game.north", "North player's name"),
)


def _live(parser: argparse.ArgumentParser, extra: Sequence[tuple[str, str, str]] = ()) -> None:
    cfg.add_options(parser)
    for flag, key, text in (*LIVE_FLAGS, *extra):
        cfg.add_flag(parser, flag, key, metavar=key.split(".")[1].upper(), help=f"{text} ({key})")
    cfg.add_flag(parser, "--allow-network", "web.allow_network", action="store_const", const="true",
                 help="serve the dashboard to other machines (then control actions need the token)")


LIST_LIMIT = range(1, 100_001)  # how many games `games list --limit` may ask for


def _list_limit(text: str) -> int:
    """``--limit``: a whole number of games within :data:`LIST_LIMIT` (0 or -5 would list none or all)."""
    digits = text.strip()
    if not (digits.isascii() and digits.isdigit() and len(digits) <= 6 and int(digits) in LIST_LIMIT):
        raise argparse.ArgumentTypeError(f"must be a whole number of games from {LIST_LIMIT.start} to "
                                         f"{LIST_LIMIT.stop - 1}, not {text[:40]!r}")
    return int(digits)


def _game_database(parser: argparse.ArgumentParser, *, after_action: bool = False) -> None:
    """``--config``, ``--set`` and ``--db``: where ``pitwatch games`` finds the recorded games."""
    cfg.add_options(parser, after_action=after_action)
    cfg.add_flag(parser, "--db", "recorder.database", metavar="DATABASE", help="SQLite game database",
                 **({"default": argparse.SUPPRESS} if after_action else {}))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pitwatch", description="A referee for physical mancala boards.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = sub.add_parser("run", help="referee a real board: camera and microcontroller from the configuration")
    _live(run, (("--db", "recorder.database", "SQLite game database"),
                ("--camera", "camera.source", "camera source"),
                ("--calibration", "camera.calibration", "board calibration file"),
                ("--serial", "sensors.port", "microcontroller serial port ('auto', or '' for none)")))
    run.set_defaults(func=cmd_run)

    demo = sub.add_parser("demo", help="no hardware: a virtual board, the synthetic camera and the emulated "
                                       "microcontroller play a game you watch on the dashboard")
    _live(demo, (("--db", "demo.database", "SQLite database of the demo's games"),
                 ("--player", "demo.player", "random | clicks"),
                 ("--move-seconds", "demo.move_seconds", "seconds between the random player's moves"),
                 ("--seed", "demo.seed", "random seed (0: new every time)")))
    cfg.add_flag(demo, "--no-camera", "demo.camera", action="store_const", const="false",
                 help="do not render and read the virtual board with the synthetic camera")
    cfg.add_flag(demo, "--no-sensors", "demo.sensors", action="store_const", const="false",
                 help="do not run the emulated microcontroller")
    demo.set_defaults(func=cmd_demo)

    from .vision_commands import add_vision_commands

    add_vision_commands(sub)

    games = sub.add_parser("games", help="recorded games: list, show, export, import; and the variants")
    _game_database(games)
    on_the_database = argparse.ArgumentParser(add_help=False)  # `games list --db F` as well as `games --db F list`
    _game_database(on_the_database, after_action=True)
    gsub = games.add_subparsers(dest="games_command", required=True, metavar="ACTION")
    listing = gsub.add_parser("list", help="recorded games, newest first", parents=[on_the_database])
    listing.add_argument("--limit", type=_list_limit, default=20, help="how many games (default 20)")
    listing.add_argument("--json", action="store_true", help="print JSON")
    show = gsub.add_parser("show", help="one game with its moves", parents=[on_the_database])
    show.add_argument("game_id", type=int)
    show.add_argument("--json", action="store_true", help="print JSON")
    export = gsub.add_parser("export", help="write a game in the text notation or JSON", parents=[on_the_database])
    export.add_argument("game_id", type=int)
    export.add_argument("--format", choices=("text", "json"), default="text")
    export.add_argument("-o", "--output", metavar="FILE", help="file to write (default: standard output)")
    imp = gsub.add_parser("import", help="store a game from a record (text notation or JSON)",
                          parents=[on_the_database])
    imp.add_argument("file", help="record file, '-' for standard input")
    gsub.add_parser("variants", help="the variants and their options", parents=[on_the_database])  # taken, not needed
    games.set_defaults(func=cmd_games)

    doctor = sub.add_parser("doctor", help="check camera, serial port, calibration and database; say what to fix")
    cfg.add_options(doctor)
    cfg.add_flag(doctor, "--db", "recorder.database", metavar="DATABASE", help="SQLite game database to check")
    doctor.set_defaults(func=cmd_doctor)

    config = sub.add_parser("config", help="print the documented default configuration file")
    config.set_defaults(func=lambda args: print(cfg.documented_toml()) or 0)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(with_corners_joined(sys.argv[1:] if argv is None else argv))
    quiet_camera_libraries()
    for stream in (sys.stdout, sys.stderr):  # a file name that is not UTF-8 is printed escaped, not refused
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:
        # What read our output stopped reading (`pitwatch games export 1 | head`): stop quietly, as
        # every Unix tool does, and keep Python from complaining as it flushes stdout on the way out.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except (cfg.ConfigError, RecorderError, rules.RulesError, SessionError, CounterError, OSError) as exc:
        print(f"pitwatch {args.command}: {said(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        if str(exc):  # what the interrupted command had done (ImportInterrupted)
            print(f"pitwatch {args.command}: {exc}", file=sys.stderr)
        return INTERRUPTED


def with_corners_joined(argv: Sequence[str]) -> list[str]:
    """``argv`` with ``--corners X,Y,...`` written ``--corners=X,Y,...``. A corner left of or above the
    picture begins with a minus, and argparse took ``-5,3,...`` for an option and said that --corners
    had no value; calibration names the corner that lies outside the picture."""
    joined: list[str] = []
    words = iter(argv)
    for word in words:
        if word == "--corners" and (value := next(words, None)) is not None:
            joined.append(f"--corners={value}")
        else:
            joined.append(word)
    return joined


FFMPEG_FATAL = 8  # FFmpeg's AV_LOG_FATAL: only what stops it altogether


def quiet_camera_libraries() -> None:
    """Leave telling the players about the camera to Pitwatch's own statuses.

    A camera that is unplugged or a stream that is down is tried again every
    2 s, and on every try OpenCV and FFmpeg would print their own warnings
    ("can't open camera by index", "Connection refused") to the terminal,
    while the dashboard already says "camera lost: ...". Only their errors
    (OpenCV) and fatal errors (FFmpeg) are printed; set ``OPENCV_LOG_LEVEL``
    or ``OPENCV_FFMPEG_LOGLEVEL`` (e.g. ``INFO``, ``32``) to see more when
    diagnosing a camera.
    """
    import cv2

    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", str(FFMPEG_FATAL))  # read when FFmpeg first opens a source
    if "OPENCV_LOG_LEVEL" not in os.environ:
        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)


# -- live commands ----------------------------------------------------------------
def tune_memory() -> None:
    """Keep a long-running session's memory flat (glibc only; elsewhere nothing happens).

    Why: the camera loop allocates and frees frame-sized arrays (megabytes) many
    times a second on several threads. With glibc's defaults each thread grows
    its own arena and the mmap threshold creeps up, so freed frames stay
    resident: ``pitwatch demo`` sat at 240-285 MB. Two arenas and a fixed
    1 MiB mmap threshold (large blocks go straight back to the system) keep it
    at 120-200 MB (benchmarks/session_bench.py).
    """
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt(M_ARENA_MAX, 2)
        libc.mallopt(M_MMAP_THRESHOLD, 1 << 20)
    except (OSError, AttributeError):
        pass


M_ARENA_MAX, M_MMAP_THRESHOLD = -8, -3  # glibc's mallopt parameters (malloc.h)


def cmd_run(args: argparse.Namespace) -> int:
    from .live import run_live

    tune_memory()
    return run_live(_live_config(args), _given(args, "game.variant") is not None)


def cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    tune_memory()
    return run_demo(_live_config(args), _given(args, "game.variant") is not None)


def _live_config(args: argparse.Namespace) -> cfg.Config:
    """The configuration of ``run`` or ``demo``, its players' names held to the recorder's rule before
    anything starts; a name refused is blamed on where it was set (``--south``, ``--set``, the file).
    (The variant named on the command line, :func:`_given`, is the one to play even over a game in
    progress; the configuration file's is only that of a new game.)"""
    config = cfg.from_arguments(args)
    game = config["game"]
    try:
        rules.variant(game["variant"], **game["options"])
    except rules.RulesError as exc:  # named with where it was set, as doctor names it
        key = "game.variant" if isinstance(exc, rules.UnknownVariant) else "game.options"
        raise cfg.ConfigError(f"{_set_where(args, config, key)}: {exc}") from None
    if refused := refused_player(game):
        seat, exc = refused
        raise cfg.ConfigError(f"{_set_where(args, config, f'game.{seat}')}: {exc}")
    return config


def _set_where(args: argparse.Namespace, config: cfg.Config, key: str) -> str:
    """Where ``key``'s value was set, for an error that blames it: as the command line gave it, else
    the configuration file with the key and value (``pitwatch.toml: game.south = ''``)."""
    return _given(args, key) or f"{config.source}: {key} = {config.get(key)!r}"


def _given(args: argparse.Namespace, key: str) -> str | None:
    """How the command line sets configuration ``key``, as the user typed it (``--south ''``,
    ``--set 'game.south='``; a named flag wins over ``--set``), or None where it does not."""
    value = getattr(args, f"opt:{key}", None)
    if value is not None:
        return f"{getattr(args, cfg.FLAGS)[key]} {value!r}"
    settings = [item for item in [*getattr(args, "overrides", []), *getattr(args, "overrides_after_action", [])]
                if item.partition("=")[0].strip() == key]
    return f"--set {settings[-1]!r}" if settings else None


# -- games ----------------------------------------------------------------------
def cmd_games(args: argparse.Namespace) -> int:
    if args.games_command == "variants":
        for name, description in rules.VARIANTS.items():
            print(f"{name}: {description}")
            for option in rules.options_of(name):
                print(f"    {option.name} = {json.dumps(option.default)}: {option.description}")
        return 0
    database = cfg.from_arguments(args).database_path()
    if args.games_command == "import":
        record = _record_games(args.file)  # every game checked first: a refused record creates no database
        with closing(Recorder(database)) as recorder:
            game_ids = recorder.import_games(record.games)
        print(f"imported as game {game_ids[0]}" if len(game_ids) == 1 else
              f"imported {len(game_ids)} games as games {_id_ranges(game_ids)}")
        if record.comments_left_out:
            left_out = record.comments_left_out
            print(f"{left_out} comment{'' if left_out == 1 else 's'} left out: the game database keeps none")
        return 0
    with closing(Recorder(database, read_only=True)) as recorder:  # looking changes no file
        return _games_action(args, recorder)


def _id_ranges(ids: list[int]) -> str:
    """Ascending game ids as runs (``2-100, 201-300``): an import is stored in batches, and a live game or
    another import may take the ids between them."""
    runs = [[ids[0], ids[0]]]
    for game_id in ids[1:]:
        if game_id == runs[-1][1] + 1:
            runs[-1][1] = game_id
        else:
            runs.append([game_id, game_id])
    return ", ".join(f"{first}-{last}" if last > first else f"{first}" for first, last in runs)


def _games_action(args: argparse.Namespace, recorder: Recorder) -> int:
    """``games list``, ``show`` and ``export`` on a database opened read-only."""
    from . import records

    if args.games_command == "list":
        games = recorder.games(args.limit)
        if args.json:
            print(json.dumps([g.to_json() for g in games], indent=2))
        for g in [] if args.json else games:
            result = g.result["reason"] if g.result else g.status
            moves = f"{g.move_count} move{'' if g.move_count == 1 else 's'}"
            print(f"{g.id:5d}  {g.damage}" if g.damage else
                  f"{g.id:5d}  {g.variant:18s} {g.south} v {g.north}  {moves}  {result}")
        if not games and not args.json:
            print(f"no recorded games in {recorder.path}")
        return 0
    if args.games_command == "show":
        record, game = records.game_of(recorder, args.game_id)
        if args.json:
            print(json.dumps({"game": record.to_json(), "moves": [m.text for m in game.moves]}, indent=2))
            return 0
        options = records.options_text(game)
        print(f"game {record.id}: {record.variant}{f' ({options})' if options else ''}, "
              f"{record.south} (South) v {record.north} (North)")
        print(f"status: {record.status}" + (f", {game.result.reason}: {game.result.score[0]}-{game.result.score[1]}"
                                             if game.result else ""))
        print(" ".join(f"{i + 1}.{m.text}" for i, m in enumerate(game.moves)) or "(no moves yet)")
        return 0
    if args.games_command == "export":
        text = records.export(recorder, args.game_id, args.format)
        if args.output:
            _write_export(Path(args.output), text + ("" if text.endswith("\n") else "\n"), recorder.path)
        else:
            print(text)
        return 0
    raise AssertionError(args.games_command)


def _write_export(output: Path, text: str, database: Path) -> None:
    """Write an exported record to ``output``, which must not be the game database itself (or its
    ``-wal`` and ``-shm`` files): ``-o`` naming it wrote the record over every game. The text is
    encoded before the file is opened, so a record that cannot be written leaves a file as it was."""
    if any(_same_file(output, database.with_name(database.name + suffix)) for suffix in ("", "-wal", "-shm")):
        raise RecorderError(f"{output}: is the game database (or one of its files); writing the record there "
                            "would destroy every game: choose another file with -o")
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise RecorderError(f"{output}: the record holds text that is not Unicode (character {exc.start}, stored "
                            "outside Pitwatch): it cannot be written") from None
    output.write_bytes(data)


def _same_file(one: Path, other: Path) -> bool:
    """Whether two paths name one file (through links too); not when either is missing."""
    try:
        return one.samefile(other)
    except OSError:
        return False


def _record_games(file: str) -> RecordImport:
    """The games of the record ``file`` (``-``: standard input), read as bytes and decoded as UTF-8
    either way, every move and name checked; errors name the file."""
    from . import records

    source = "standard input" if file == "-" else file  # named in every error about the record
    with nullcontext(sys.stdin.buffer) if file == "-" else open(file, "rb") as stream:
        data = stream.read(records.MAX_RECORD_BYTES + 1)  # no more than a record may be, whatever comes
    if len(data) > records.MAX_RECORD_BYTES:
        raise rules.RulesError(f"{source}: more than {records.MAX_RECORD_BYTES:,} bytes, the most a record file may "
                               "be (thousands of games): split it into smaller files and import each")
    try:
        text = data.decode("utf-8-sig")  # a record Notepad saved begins with a byte-order mark
    except UnicodeDecodeError as exc:
        raise rules.RulesError(f"{source}: not a game record (not UTF-8 text, byte {exc.start})") from None
    try:
        return records.read_import(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise rules.RulesError(f"{source}: not valid JSON: {exc}") from None
    except rules.RulesError as exc:
        raise rules.RulesError(f"{source}: {exc}") from None


def cmd_doctor(args: argparse.Namespace) -> int:
    from .doctor import diagnose

    config = cfg.from_arguments(args)
    problems = 0
    for check in diagnose(config):
        mark = "ok  " if check.ok else "FIX "
        print(f"{mark} {check.name}: {check.detail}")
        problems += not check.ok
    print("everything looks ready" if not problems else f"{problems} thing(s) to fix")
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
