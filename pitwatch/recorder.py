"""The game recorder: every game, move and verdict in one SQLite file.

Why SQLite in WAL mode with ``synchronous=FULL``: a verdict and the moves it
accepts are written in ONE transaction, and the session shows nothing before
that transaction has committed. Killing the process at any instant therefore
either keeps the whole verdict or none of it, and a restart resumes the
unfinished game from its recorded moves (see :meth:`Recorder.active_game`).

Schema (version in ``PRAGMA user_version``, upgraded by :data:`MIGRATIONS`;
``PRAGMA application_id`` marks the file as Pitwatch's, see :meth:`Recorder._schema_version`):

``games``
    ``id``, ``variant``, ``options`` (JSON), ``south``, ``north`` (player
    names), ``start`` (JSON of the start position, NULL for the variant's
    usual start), ``started_at``, ``ended_at`` (unix seconds), ``status``
    (``active`` | ``finished`` | ``abandoned``), ``result`` (JSON or NULL),
    ``tags`` (JSON of an imported record's tag pairs, Event, Date, Round, ...,
    written back on export; NULL for a game refereed here).
``moves``
    one row per accepted move: ``game_id``, ``ply`` (0, 1, 2, ...), ``text``
    (the move in the notation), ``player`` (``south``/``north``),
    ``position`` (JSON of the position after the move), ``verdict_id``,
    ``reading`` (JSON of the Reading that showed it, NULL for a move entered
    by hand), ``snapshot`` (a small JPEG of the camera, or NULL), ``at``.
``verdicts``
    every verdict the session acted on: ``id``, ``game_id``, ``ply`` (moves
    on record when it was judged), ``kind``, ``body`` (the verdict's JSON),
    ``at``.

A takeback deletes the moves it undoes (in the verdict's transaction); the
verdict itself stays in ``verdicts``, so the history of what happened at the
board is never lost.
"""

from __future__ import annotations

import contextlib
import datetime
import functools
import json
import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Iterator, Sequence

from rules import notation

APPLICATION_ID = 0x50697457  # "PitW" in the file's header (PRAGMA application_id): SQLite's mark of whose file it is
MIGRATIONS: tuple[str, ...] = (
    # version 1: games, moves, verdicts
    """
    CREATE TABLE games (
        id INTEGER PRIMARY KEY,
        variant TEXT NOT NULL,
        options TEXT NOT NULL DEFAULT '{}',
        south TEXT NOT NULL,
        north TEXT NOT NULL,
        start TEXT,
        started_at REAL NOT NULL,
        ended_at REAL,
        status TEXT NOT NULL DEFAULT 'active'
            CHECK (status IN ('active', 'finished', 'abandoned')),
        result TEXT
    );
    CREATE TABLE verdicts (
        id INTEGER PRIMARY KEY,
        game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        ply INTEGER NOT NULL,
        kind TEXT NOT NULL,
        body TEXT NOT NULL,
        at REAL NOT NULL
    );
    CREATE TABLE moves (
        game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        ply INTEGER NOT NULL,
        text TEXT NOT NULL,
        player TEXT NOT NULL,
        position TEXT NOT NULL,
        verdict_id INTEGER REFERENCES verdicts(id),
        reading TEXT,
        snapshot BLOB,
        at REAL NOT NULL,
        PRIMARY KEY (game_id, ply)
    );
    CREATE INDEX verdicts_by_game ON verdicts(game_id, id);
    CREATE INDEX games_by_status ON games(status, id);
    """,
    # version 2: an imported record's tags are kept; the file is marked as Pitwatch's
    f"""
    ALTER TABLE games ADD COLUMN tags TEXT;
    PRAGMA application_id={APPLICATION_ID};
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)
# What a Pitwatch database held at each version before version 2 marked it with APPLICATION_ID: a file
# with no application id is Pitwatch's only if its tables are these (version 0: an empty file).
UNMARKED_TABLES = {0: frozenset(), 1: frozenset({"games", "moves", "verdicts"})}
TAGS_VERSION = 2  # the migration that added games.tags: read as NULL from an older file opened read-only
SQLITE_INTEGERS = range(-2**63, 2**63)  # what an SQLite INTEGER holds: a game id or ply beyond it names no row


def _row_number(value: Any) -> bool:
    """Whether ``value`` can name a row: a whole number an SQLite INTEGER holds. Asked of anything
    else, ``in range(...)`` walks all 2**64 numbers (``Recorder.game("1")`` never returned)."""
    return isinstance(value, int) and value in SQLITE_INTEGERS
CHOOSE_ANOTHER = "choose another file with --db or recorder.database"
LOCKED = ("is locked by another process writing to it (another pitwatch, such as a games import, or an SQLite tool): "
          "try again when it is done, or close that program")
# How long one transaction of `games import` holds the database's write lock: a live game's verdict waits
# for it (up to busy_timeout, 5 s), so a long import is stored in batches of whole games this short, with
# a pause between them: SQLite hands the lock to no one in turn, and a writer waiting for it tries again
# only every 100 ms, so without the pause the import would take it again first, batch after batch.
IMPORT_BATCH_SECONDS = 0.25
IMPORT_PAUSE_SECONDS = 0.15


class RecorderError(Exception):
    """The database cannot be used (newer schema, not a database, unknown game) or cannot be
    written (the disk full, the file gone)."""


class ImportInterrupted(KeyboardInterrupt):
    """Ctrl-C during ``games import``: still an interrupt, saying which games were stored before it
    (each whole), so that the user knows what to import again."""


class DamagedGame(RecorderError):
    """A recorded game whose row was changed outside Pitwatch and no longer reads (a JSON field that
    is not a JSON object). It names the game, the move and the field, and stops only that game
    from being shown: the list still lists the others."""


def write_problem(path: Path) -> str | None:
    """Why a game database at ``path`` cannot be written, as the file system tells (None: nothing
    it can tell). Beside the file SQLite makes its ``-wal`` and ``-shm`` files, so its folder must
    be writable too, even to read a database in WAL mode."""
    if not path.exists():
        problem = folder_problem(path)
        return f"cannot be created, {problem}" if problem else None
    if not os.access(path, os.W_OK):
        return "cannot be written: the file is read-only (make it writable)"
    if not os.access(path.parent, os.W_OK | os.X_OK):
        return (f"cannot be opened: its folder {path.parent} is not writable, and SQLite keeps the database's "
                "-wal and -shm files there, even to read it")
    return None


def folder_problem(path: Path) -> str | None:
    """Why the folder a file at ``path`` (a database, the sensors' calibration) goes in cannot be made
    or written (None: it can): the first folder from the root down that is a file, a link to nothing,
    or, the nearest one there, not writable."""
    for folder in reversed(path.parents):
        if folder.is_symlink() and not folder.exists():
            return f"its folder {folder} is a link to {os.readlink(folder)}, which does not exist"
        if not folder.exists():
            return None if os.access(folder.parent, os.W_OK | os.X_OK) else f"{folder.parent} is not writable"
        if not folder.is_dir():
            return f"{folder} is not a folder"
    return None if os.access(path.parent, os.W_OK | os.X_OK) else f"its folder {path.parent} is not writable"


def player_name(name: str, seat: str) -> str:
    """``name`` stripped, or ``ValueError`` unless it is 1 to 40 printable characters: the names a
    live game is started with and those an imported record brings are held to the same rule, so the
    dashboard and the exports never meet a name the rest of the app refuses."""
    name = str(name).strip()
    if not name or len(name) > 40 or not name.isprintable():  # no control, zero-width or lone surrogate character
        raise ValueError(f"{seat} player's name must be 1 to 40 printable characters")
    return name


def refused_player(game: dict[str, Any]) -> tuple[str, ValueError] | None:
    """The first seat of a ``[game]`` configuration section (``south``, ``north``) whose player's
    name :func:`player_name` refuses, with why; None if both pass: ``run`` and ``demo`` refuse to
    start with it, and ``doctor`` says so."""
    for seat in ("south", "north"):
        try:
            player_name(game[seat], seat)
        except ValueError as exc:
            return seat, exc
    return None


@dataclass(frozen=True)
class GameRecord:
    """One row of ``games``."""

    id: int
    variant: str
    options: dict[str, Any]
    south: str
    north: str
    started_at: float | None  # None only in a damaged row
    ended_at: float | None
    status: str
    result: dict[str, Any] | None
    start: dict[str, Any] | None = None
    move_count: int = 0
    tags: dict[str, str] | None = None  # an imported record's tag pairs; None: a game refereed here
    damage: str | None = None  # why the row does not read (its options, result, times, ... then read as empty)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id, "variant": self.variant, "options": self.options,
            "south": self.south, "north": self.north,
            "started_at": self.started_at, "ended_at": self.ended_at,
            "status": self.status, "result": self.result, "start": self.start, "moves": self.move_count,
            "tags": self.tags, "damaged": self.damage,
        }


@dataclass(frozen=True)
class MoveRecord:
    """One row of ``moves`` (the snapshot is fetched separately: it is the bulky part)."""

    ply: int
    text: str
    player: str
    position: dict[str, Any]
    verdict_id: int | None
    reading: dict[str, Any] | None
    at: float
    has_snapshot: bool


@dataclass(frozen=True)
class AcceptedMove:
    """A move the session accepts, as the recorder stores it."""

    text: str
    player: str
    position: dict[str, Any]


@dataclass(frozen=True)
class ImportedGame:
    """A game read from a record, checked move by move, as the recorder stores it."""

    variant: str
    options: dict[str, Any]
    south: str
    north: str
    moves: Sequence[AcceptedMove]
    result: dict[str, Any] | None
    start: dict[str, Any] | None  # None: the variant's own start position
    started_at: float | None  # the day of the record's Date tag; None: when it is imported
    tags: dict[str, str]  # the record's other tag pairs (Event, Date, Round, ...), written back on export


class Recorder:
    """The game database. Thread-safe: one connection guarded by a lock.

    Every public method is one transaction; :meth:`record_verdict` is the
    only way moves enter a live game, so a move is on disk together with the
    verdict that accepted it, or not at all.

    ``read_only`` (``pitwatch games list``, ``show``, ``export``): the file is opened with
    SQLite's ``mode=ro``, so looking at games never creates, converts or migrates a file; an
    older schema is read as it is. Either way a file that is not a Pitwatch database is refused
    before a byte of it is written.
    """

    def __init__(self, path: str | Path, *, read_only: bool = False) -> None:
        self.path = Path(path).expanduser()
        self._lock = threading.Lock()
        self.failure: str | None = None  # why the last write failed, until one succeeds: the dashboard says it
        self._db = self._connect(read_only)
        try:
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.execute("PRAGMA busy_timeout=5000")
            version = self._schema_version(read_only)
            if not read_only:
                self._check_writable()
                self._db.execute("PRAGMA journal_mode=WAL")
                version = self._migrate(version)
        except sqlite3.Error as exc:
            self._db.close()
            raise RecorderError(f"{self.path}: {self._cannot_open(exc)}") from None
        except RecorderError:
            self._db.close()
            raise
        self._game_select = _game_select(version)
        self._file = _file_id(self.path)  # what the name led to when opened: see _check_still_there

    def _check_still_there(self) -> None:
        """:class:`RecorderError` if the database's name no longer leads to the file opened (deleted
        or replaced while a session ran). SQLite goes on writing to the open file, deleted or not,
        so every move after it was lost with the process, and the dashboard said nothing."""
        if _file_id(self.path) != self._file:
            self.failure = (f"{self.path}: cannot record: the game database was deleted or replaced while Pitwatch "
                            "was recording: restart Pitwatch to record again (in a new file, or the one now there)")
            raise RecorderError(self.failure)

    def _connect(self, read_only: bool) -> sqlite3.Connection:
        """The connection; a writer creates the file (and its folders), a reader needs it there."""
        if read_only and not self.path.exists():  # a mistyped --db is named, not created empty
            raise RecorderError(f"{self.path}: no game database there (`pitwatch run` creates it); "
                                "choose another with --db or recorder.database")
        if self.path.is_dir():
            raise RecorderError(f"{self.path}: is a folder, not a game database file; {CHOOSE_ANOTHER}")
        if self.path.exists() and not self.path.is_file():  # a named pipe would block SQLite for ever
            raise RecorderError(f"{self.path}: is not a file (a named pipe or a device), not a game database; "
                                f"{CHOOSE_ANOTHER}")
        if not read_only:
            self._make_folder()
        target = f"{self.path.resolve().as_uri()}?mode=ro" if read_only else str(self.path)
        try:
            return sqlite3.connect(target, uri=read_only, check_same_thread=False, isolation_level=None)
        except sqlite3.Error as exc:
            raise RecorderError(f"{self.path}: {self._cannot_open(exc)}") from None

    def _make_folder(self) -> None:
        """The database's folder, made if missing; what stands in the way (a file, a dangling link) is named."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError:
            problem = folder_problem(self.path)
            if problem is None:
                raise  # the system's own reason, which the command line names with the folder
            raise RecorderError(f"{self.path}: cannot be created, {problem}; {CHOOSE_ANOTHER}") from None

    def _check_writable(self) -> None:
        """A writer refuses a file it could open but not write (a read-only file: SQLite then opens it
        read-only without a word), before the game it would claim to record: a write undone at once
        tells, and leaves the file as it was."""
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        self._db.execute("BEGIN IMMEDIATE")
        try:
            self._db.execute(f"PRAGMA user_version={version}")
        finally:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")

    def _cannot_open(self, exc: sqlite3.Error) -> str:
        """What SQLite's error while opening the file means, as the user can act on it: the file
        locked, not writable (it, or its folder), or not a Pitwatch database at all."""
        if _locked(exc):
            return LOCKED
        if getattr(exc, "sqlite_errorname", "").startswith(("SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_IOERR")):
            return f"{write_problem(self.path) or f'cannot be opened ({exc})'}; {CHOOSE_ANOTHER}"
        if _damaged(exc):
            return self._damaged_file(exc)
        return f"not a Pitwatch game database ({exc}); {CHOOSE_ANOTHER}"

    def _damaged_file(self, exc: sqlite3.Error) -> str:
        """What to do with a game database whose pages are damaged (cut short, written over): it is
        the players' own file, so the way to its games is named, not another file."""
        return (f"the game database is damaged ({exc}): restore a backup, or rescue its games into a new file with "
                f"`sqlite3 {self.path} .recover | sqlite3 rescued.sqlite`")

    # -- schema --------------------------------------------------------------
    def _schema_version(self, read_only: bool) -> int:
        """The file's Pitwatch schema version, read before anything is written: another program's
        database (its own application id, or tables that are not Pitwatch's) and one from a newer
        Pitwatch are refused as they are. Version 0 is an empty file, which only a writer fills."""
        application_id = self._db.execute("PRAGMA application_id").fetchone()[0]
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        tables = {name for (name,) in self._db.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")}
        if application_id not in (0, APPLICATION_ID):
            raise RecorderError(f"{self.path}: not a Pitwatch game database (another program's: its application id "
                                f"is {application_id:#x}); {CHOOSE_ANOTHER}")
        if version < 0:
            raise RecorderError(f"{self.path}: schema version {version} is none Pitwatch ever wrote (the file was "
                                f"changed outside Pitwatch); {CHOOSE_ANOTHER}")
        if version > SCHEMA_VERSION:
            raise RecorderError(
                f"{self.path}: schema version {version} is newer than this Pitwatch understands "
                f"({SCHEMA_VERSION}); upgrade Pitwatch or use another database file"
            )
        if application_id == 0 and tables != UNMARKED_TABLES.get(version):
            held = (f"tables {', '.join(sorted(tables))}" if tables else "no tables") + (
                f", schema version {version}" if version else "")
            raise RecorderError(f"{self.path}: not a Pitwatch game database (it holds {held}); {CHOOSE_ANOTHER}")
        if missing := self._missing_columns(version):
            more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
            raise RecorderError(f"{self.path}: not a Pitwatch game database (it lacks Pitwatch's columns "
                                f"{', '.join(missing[:3])}{more}); {CHOOSE_ANOTHER}")
        if read_only and version == 0:
            raise RecorderError(f"{self.path}: no game database in this file yet (it is empty; `pitwatch run` "
                                "creates one); choose another with --db or recorder.database")
        return version

    def _missing_columns(self, version: int) -> list[str]:
        """The columns (``table.column``) Pitwatch's schema of ``version`` has and the file lacks:
        tables named as Pitwatch's are not enough to read a file as Pitwatch's."""
        missing = []
        for table, columns in _schema_columns(version).items():
            held = {row[1] for row in self._db.execute(f"PRAGMA table_info({table})")}
            missing += [f"{table}.{column}" for column in columns if column not in held]
        return missing

    def _migrate(self, version: int) -> int:
        """Upgrade the file from ``version`` to :data:`SCHEMA_VERSION`, one atomic step a version."""
        for target in range(version + 1, SCHEMA_VERSION + 1):
            # executescript commits first; BEGIN/COMMIT make each step atomic
            self._db.executescript(
                f"BEGIN; {MIGRATIONS[target - 1]}; PRAGMA user_version={target}; COMMIT;"
            )
        return SCHEMA_VERSION

    @property
    def schema_version(self) -> int:
        with self._reading() as db:
            return db.execute("PRAGMA user_version").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _transaction(self) -> "_Transaction":
        return _Transaction(self)

    @contextlib.contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        """The connection, under the lock, for a read; SQLite's errors come out as a :class:`RecorderError`
        naming the file: a damaged page is met only when a query reaches it, long after the file opened."""
        with self._lock:
            try:
                yield self._db
            except sqlite3.Error as exc:
                problem = self._damaged_file(exc) if _damaged(exc) else LOCKED if _locked(exc) else f"cannot read ({exc})"
                raise RecorderError(f"{self.path}: {problem}") from None

    # -- games ---------------------------------------------------------------
    def start_game(self, variant: str, options: dict[str, Any], south: str, north: str,
                   *, start: dict[str, Any] | None = None, abandon_active: bool = True) -> int:
        """Open a new game; any game still active is marked abandoned (one live game at a time)."""
        now = time.time()
        with self._transaction() as db:
            if abandon_active:
                db.execute("UPDATE games SET status='abandoned', ended_at=? WHERE status='active'", (now,))
            cur = db.execute(
                "INSERT INTO games (variant, options, south, north, start, started_at) VALUES (?, ?, ?, ?, ?, ?)",
                (variant, json.dumps(options, sort_keys=True), south, north,
                 json.dumps(start) if start is not None else None, now),
            )
            return int(cur.lastrowid)

    def finish_game(self, game_id: int, result: dict[str, Any]) -> None:
        with self._transaction() as db:
            db.execute("UPDATE games SET status='finished', ended_at=?, result=? WHERE id=?",
                       (time.time(), json.dumps(result), game_id))

    def reopen_game(self, game_id: int) -> None:
        """A takeback from a finished game makes it active again."""
        with self._transaction() as db:
            db.execute("UPDATE games SET status='active', ended_at=NULL, result=NULL WHERE id=?", (game_id,))

    def forget_unplayed(self, game_id: int) -> None:
        """Delete game ``game_id`` if nothing was recorded of it (no move, no verdict): a game begun by
        a run that then failed to start was never played. A game with anything recorded stays."""
        with self._transaction() as db:
            db.execute("DELETE FROM games WHERE id=? AND NOT EXISTS (SELECT 1 FROM moves WHERE game_id=?) "
                       "AND NOT EXISTS (SELECT 1 FROM verdicts WHERE game_id=?)", (game_id, game_id, game_id))

    def active_game(self) -> GameRecord | None:
        """The game to resume after a restart: the newest game still active."""
        with self._reading() as db:
            row = db.execute(
                f"{self._game_select} WHERE g.status='active' GROUP BY g.id ORDER BY g.id DESC LIMIT 1"
            ).fetchone()
        return _game(row) if row else None

    def game(self, game_id: int) -> GameRecord:
        """The game's row; one damaged outside Pitwatch comes back with its ``damage`` said."""
        if not _row_number(game_id):  # sqlite3 raises OverflowError for one too large: no such game either
            raise RecorderError(f"no recorded game with id {game_id}")
        with self._reading() as db:
            row = db.execute(f"{self._game_select} WHERE g.id=? GROUP BY g.id", (game_id,)).fetchone()
        if row is None:
            raise RecorderError(f"no recorded game with id {game_id}")
        return _game(row)

    def games(self, limit: int = 100, offset: int = 0) -> list[GameRecord]:
        """Recorded games, newest first (a damaged one with its ``damage`` said, the others as they are)."""
        with self._reading() as db:
            rows = db.execute(
                f"{self._game_select} GROUP BY g.id ORDER BY g.id DESC LIMIT ? OFFSET ?", (limit, offset)
            ).fetchall()
        return [_game(r) for r in rows]

    # -- moves and verdicts ---------------------------------------------------
    def record_verdict(
        self,
        game_id: int,
        verdict: dict[str, Any],
        *,
        ply: int,
        accepted: Sequence[AcceptedMove] = (),
        takeback_to: int | None = None,
        reading: dict[str, Any] | None = None,
        snapshot: bytes | None = None,
    ) -> int:
        """Write a verdict and what it changes in one transaction; return the verdict id.

        ``ply`` is the number of moves on record when the verdict was given.
        ``takeback_to`` deletes the moves from that ply on; ``accepted`` moves
        are then appended from the resulting ply. The Reading and snapshot are
        stored with every accepted move of this verdict.
        """
        now = time.time()
        reading_text = json.dumps(reading) if reading is not None else None
        with self._transaction() as db:
            cur = db.execute(
                "INSERT INTO verdicts (game_id, ply, kind, body, at) VALUES (?, ?, ?, ?, ?)",
                (game_id, ply, str(verdict.get("kind", "?")), json.dumps(verdict), now),
            )
            verdict_id = int(cur.lastrowid)
            next_ply = ply
            if takeback_to is not None:
                db.execute("DELETE FROM moves WHERE game_id=? AND ply>=?", (game_id, takeback_to))
                next_ply = takeback_to
            for move in accepted:
                db.execute(
                    "INSERT INTO moves (game_id, ply, text, player, position, verdict_id, reading, snapshot, at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (game_id, next_ply, move.text, move.player, json.dumps(move.position), verdict_id,
                     reading_text, snapshot, now),
                )
                next_ply += 1
        return verdict_id

    def moves(self, game_id: int) -> list[MoveRecord]:
        """The game's moves; :class:`DamagedGame` names the first that does not read (its ply, text, player,
        position or Reading changed outside Pitwatch), which would otherwise stop ``run`` resuming the game."""
        with self._reading() as db:
            rows = db.execute(
                "SELECT ply, text, player, position, verdict_id, reading, at, snapshot IS NOT NULL"
                " FROM moves WHERE game_id=? ORDER BY ply", (game_id,)
            ).fetchall()
        return [_move(game_id, row) for row in rows]

    def snapshot(self, game_id: int, ply: int) -> bytes | None:
        if not (_row_number(game_id) and _row_number(ply)):
            return None
        with self._reading() as db:
            row = db.execute("SELECT snapshot FROM moves WHERE game_id=? AND ply=?", (game_id, ply)).fetchone()
        return row[0] if row else None

    def verdicts(self, game_id: int, limit: int = 200, *, leave_out: Sequence[str] = (),
                 referee_moves: bool = True) -> list[dict[str, Any]]:
        """The newest ``limit`` verdicts of a game, oldest first, but those of the kinds ``leave_out``
        (a still board judged unchanged again and again is no part of a game's story) and, without
        ``referee_moves``, the moves the referee committed (those the players entered, chose or
        corrected stay: their body says ``"by": "players"``). Left out here, not after, so that
        ``limit`` counts only what is asked for. A body that does not read stays in, to be named."""
        conditions = ["game_id = ?", f"kind NOT IN ({', '.join('?' * len(leave_out))})"]
        if not referee_moves:
            conditions.append("NOT (kind = 'move' AND CASE WHEN NOT json_valid(body) OR json_type(body) != 'object' "
                              "THEN 0 ELSE coalesce(json_extract(body, '$.by'), 'referee') = 'referee' END)")
        with self._reading() as db:
            rows = db.execute(
                f"SELECT id, ply, kind, body, at FROM verdicts WHERE {' AND '.join(conditions)} ORDER BY id DESC LIMIT ?",
                (game_id, *leave_out, limit),
            ).fetchall()
        return [{"id": i, "ply": p, "kind": k, "verdict": _stored_object(b, f"game {game_id}, verdict {i}", "verdicts.body"),
                 "at": a} for i, p, k, b, a in reversed(rows)]

    def import_games(self, games: Sequence[ImportedGame]) -> list[int]:
        """Store games read from a record (``pitwatch games import``) and return their ids: each
        finished if it has a result, else abandoned (an imported game is never resumed as the live
        game), started on its record's date (else now) and with its record's tags.

        Each game is stored whole, in transactions of :data:`IMPORT_BATCH_SECONDS` at most (a game
        longer than that its own) and :data:`IMPORT_PAUSE_SECONDS` apart, so that a live game and
        another import write between them. A write that fails (the disk full) stops the import: the
        error says which games were stored, and so does Ctrl-C (:class:`ImportInterrupted`)."""
        now = time.time()
        stored: list[int] = []
        batch: list[int] = []
        try:
            while len(stored) < len(games):
                batch = []
                try:
                    with self._transaction() as db:
                        deadline = time.monotonic() + IMPORT_BATCH_SECONDS
                        for game in games[len(stored):]:
                            batch.append(_insert_imported(db, game, now))
                            if time.monotonic() >= deadline:
                                break
                except RecorderError as exc:
                    if stored:
                        raise RecorderError(f"{exc}; {_imported_so_far(stored, len(games))}") from None
                    raise
                stored += batch
                if len(stored) < len(games):
                    time.sleep(IMPORT_PAUSE_SECONDS)
        except KeyboardInterrupt:  # anywhere: the batch under way is stored whole or not at all, as the file tells
            stored = self._existing(list(dict.fromkeys(stored + batch)))
            raise ImportInterrupted(f"interrupted; {_imported_so_far(stored, len(games))}") from None
        return stored

    def _existing(self, game_ids: list[int]) -> list[int]:
        """Those of ``game_ids`` that are on record, in their order."""
        with self._reading() as db:
            found = {row[0] for row in db.execute(
                f"SELECT id FROM games WHERE id IN ({', '.join('?' * len(game_ids))})", game_ids)}
        return [game_id for game_id in game_ids if game_id in found]


def _imported_so_far(stored: list[int], total: int) -> str:
    """Which of a record's ``total`` games an import that stopped had stored (``stored``: their ids)."""
    if not stored:
        return f"none of the record's {total} games was imported"
    return (f"the record's first {len(stored)} games were imported (as games {stored[0]}-{stored[-1]}), "
            f"the other {total - len(stored)} not")


def _insert_imported(db: sqlite3.Connection, game: ImportedGame, now: float) -> int:
    """Insert an imported game and its moves (in the caller's transaction); its id."""
    cur = db.execute(
        "INSERT INTO games (variant, options, south, north, start, started_at, ended_at, status, result,"
        " tags) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (game.variant, json.dumps(game.options, sort_keys=True), game.south, game.north,
         json.dumps(game.start) if game.start is not None else None,
         now if game.started_at is None else game.started_at, now,
         "finished" if game.result is not None else "abandoned",
         json.dumps(game.result) if game.result is not None else None, json.dumps(game.tags)),
    )
    game_id = int(cur.lastrowid)
    db.executemany("INSERT INTO moves (game_id, ply, text, player, position, at) VALUES (?, ?, ?, ?, ?, ?)",
                   [(game_id, ply, move.text, move.player, json.dumps(move.position), now)
                    for ply, move in enumerate(game.moves)])
    return game_id


@functools.cache
def _schema_columns(version: int) -> dict[str, tuple[str, ...]]:
    """Each table's columns at schema ``version``, in order, as :data:`MIGRATIONS` make them (in a database in memory)."""
    with contextlib.closing(sqlite3.connect(":memory:")) as db:
        for migration in MIGRATIONS[:version]:
            db.executescript(migration)
        tables = [name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {table: tuple(row[1] for row in db.execute(f"PRAGMA table_info({table})")) for table in tables}


def _game_select(version: int) -> str:
    """The query of a game row with its move count, for a file of schema ``version`` (a reader does not
    migrate: a column a later migration added reads as NULL from an older file)."""
    tags = "g.tags" if version >= TAGS_VERSION else "NULL"
    return ("SELECT g.id, g.variant, g.options, g.south, g.north, g.started_at, g.ended_at, g.status, g.result,"
            f" g.start, {tags}, COUNT(m.ply) FROM games g LEFT JOIN moves m ON m.game_id = g.id")


def _game(row: tuple) -> GameRecord:
    """A game row as a record; a row damaged outside Pitwatch says so in ``damage`` (rather than
    raising), so that one bad row does not hide every other game from the list."""
    gid, variant, options, south, north, started, ended, status, result, start, tags, count = row
    where = f"game {gid}"
    try:
        for value, column in ((variant, "variant"), (south, "south"), (north, "north"), (status, "status")):
            _stored_text(value, where, f"games.{column}")
        return GameRecord(gid, variant, _stored_object(options, where, "games.options"), south, north,
                          _stored_time(started, where, "games.started_at"), _stored_time(ended, where, "games.ended_at"),
                          status, _stored_result(result, where), _stored_object(start, where, "games.start"), count,
                          _stored_object(tags, where, "games.tags"))
    except DamagedGame as exc:  # its times too read as none: one may be what is damaged
        variant, south, north, status = (value if isinstance(value, str) else "?" for value in (variant, south, north, status))
        return GameRecord(gid, variant, {}, south, north, None, None, status, None, None, count, None, str(exc))


def _move(game_id: int, row: tuple) -> MoveRecord:
    """A move row as a record; :class:`DamagedGame` names the game, the move and the column that does not read."""
    ply, text, player, position, verdict_id, reading, at, has_snapshot = row
    if not isinstance(ply, int):  # which move it was is what it no longer says
        raise DamagedGame(f"game {game_id} is damaged: a move's moves.ply is not a whole number")
    where = f"game {game_id}, move {ply + 1}"
    return MoveRecord(ply, _stored_text(text, where, "moves.text"), _stored_text(player, where, "moves.player"),
                      _stored_object(position, where, "moves.position"), verdict_id,
                      _stored_object(reading, where, "moves.reading"), at, bool(has_snapshot))


def _stored_text(value: Any, where: str, column: str) -> str:
    """A text column's value; :class:`DamagedGame` naming ``where`` and the column if the row holds
    anything else (a blob, a number, NULL)."""
    if not isinstance(value, str):
        raise DamagedGame(f"{where} is damaged: {column} is not text")
    return value


def _stored_result(text: str | bytes | None, where: str) -> dict[str, Any] | None:
    """A game's result (None while it is played): an object that says why the game ended, which every
    list of games shows; :class:`DamagedGame` if it does not."""
    result = _stored_object(text, where, "games.result")
    if result is not None and not isinstance(result.get("reason"), str):
        raise DamagedGame(f"{where} is damaged: games.result does not say why the game ended")
    return result


def _stored_time(value: Any, where: str, column: str) -> float | None:
    """A time column's value, unix seconds (None for NULL); :class:`DamagedGame` naming ``where`` and
    the column if the row holds anything else, or a number no date can be told of (nan, 1e300)."""
    if value is None:
        return None
    try:
        datetime.datetime.fromtimestamp(value, datetime.timezone.utc)
    except (TypeError, ValueError, OverflowError, OSError):
        raise DamagedGame(f"{where} is damaged: {column} is not a time (unix seconds)") from None
    return value


def _damaged(exc: sqlite3.Error) -> bool:
    """Whether SQLite found the file's pages damaged (cut short, written over): a database, but a broken one."""
    return getattr(exc, "sqlite_errorname", "").startswith("SQLITE_CORRUPT")


def _file_id(path: Path) -> tuple[int, int] | None:
    """The device and inode ``path`` leads to, or None if it leads nowhere."""
    try:
        status = path.stat()
    except OSError:
        return None
    return status.st_dev, status.st_ino


def _locked(exc: sqlite3.Error) -> bool:
    """Whether SQLite gave up waiting for another connection's lock on the file (busy_timeout, 5 s)."""
    return getattr(exc, "sqlite_errorname", "").startswith(("SQLITE_BUSY", "SQLITE_LOCKED"))


def _stored_object(text: str | bytes | None, where: str, column: str) -> dict[str, Any] | None:
    """A JSON object column's value (None for NULL); :class:`DamagedGame` naming ``where`` (the game,
    the move) and the column if the row holds anything else."""
    if text is None:
        return None
    try:
        value = notation.parse_json(text)  # as a record's JSON is read: Infinity, a key given twice are refused
    except (TypeError, ValueError):  # not JSON or refused (ValueError, RulesError), or not text at all (an INTEGER)
        value = None
    if not isinstance(value, dict):
        raise DamagedGame(f"{where} is damaged: {column} is not a JSON object")
    return value


class _Transaction:
    """``with`` block: lock, BEGIN IMMEDIATE, COMMIT (or ROLLBACK on error). SQLite's own errors
    (``database or disk is full``) come out as a :class:`RecorderError` naming the file, and are
    kept in ``recorder.failure`` until a transaction commits again."""

    def __init__(self, recorder: Recorder) -> None:
        self._recorder = recorder
        self._db, self._lock = recorder._db, recorder._lock

    def __enter__(self) -> sqlite3.Connection:
        self._lock.acquire()
        try:
            self._recorder._check_still_there()
            self._db.execute("BEGIN IMMEDIATE")
        except BaseException as exc:
            self._lock.release()
            self._failed(exc)
            raise
        return self._db

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        try:
            if exc_type is None:
                self._db.execute("COMMIT")
                self._recorder.failure = None
        except sqlite3.Error as error:
            exc = error
        finally:
            if self._db.in_transaction:  # SQLite itself rolls back on some errors (a full disk)
                self._db.execute("ROLLBACK")
            self._lock.release()
        if exc is not None:
            self._failed(exc)

    def _failed(self, exc: BaseException) -> None:
        """An SQLite error becomes a RecorderError naming the file (anything else goes on as it is)."""
        if isinstance(exc, sqlite3.Error):
            self._recorder.failure = f"{self._recorder.path}: cannot record: {LOCKED if _locked(exc) else exc}"
            raise RecorderError(self._recorder.failure) from None
