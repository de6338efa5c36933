"""What the recorder and `pitwatch games` / `doctor` / `demo` say of a database they cannot use (read-only,
locked, a folder, a dangling link, another program's tables), of a record too big to import, of names
`run` refuses; and that an import lets a live game write while it goes on. On real SQLite files.

The tests run as root, who may write any file: a read-only file or folder is only read-only to a
process without CAP_DAC_OVERRIDE, so those cases run the command under ``setpriv`` dropping it."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from contextlib import closing
from pathlib import Path

import pytest

from pitwatch.cli import main
from pitwatch.recorder import LOCKED, AcceptedMove, ImportedGame, Recorder, RecorderError
from pitwatch.records import MAX_RECORD_BYTES, MAX_TAG_CHARS
from rules import Game, notation

CHOOSE = "choose another file with --db or recorder.database"
RECORD = '[South "Ada"]\n[North "Bo"]\n[Variant "kalah"]\n\n1. C F *\n'


@pytest.fixture(autouse=True)
def no_user_config(monkeypatch, tmp_path):
    monkeypatch.setenv("PITWATCH_CONFIG", str(tmp_path / "no-such-config.toml"))


def pitwatch(*args: str, cwd: Path, unprivileged: bool = False) -> tuple[int, str, str]:
    """``pitwatch ARGS`` in a process of its own (``unprivileged``: one to which file permissions apply
    even as root); its exit status, standard output and standard error."""
    command = [sys.executable, "-m", "pitwatch.cli", *args]
    if unprivileged and os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv: no way to be refused a read-only file")
        command = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", *command]
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=60)
    return done.returncode, done.stdout, done.stderr


def cli(args: list[str], capsys) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def a_record(folder: Path) -> str:
    """A good record file in ``folder``: what is refused is the database, not the record."""
    (folder / "rec.txt").write_text(RECORD)
    return str(folder / "rec.txt")


def a_game_in_progress(path: Path) -> None:
    with closing(Recorder(path)) as recorder:
        recorder.start_game("kalah", {}, "Ann", "Bob")


# -- a database that cannot be used -------------------------------------------------------------
def test_a_read_only_database_file_is_refused_at_start_not_resumed_as_if_recorded(tmp_path):
    """`demo` resumed the game in a read-only file, said "recorded in" it and recorded nothing."""
    db = tmp_path / "games.sqlite"
    a_game_in_progress(db)
    record = a_record(tmp_path)
    db.chmod(0o444)
    before = db.read_bytes()
    try:
        code, out, err = pitwatch("demo", "--db", str(db), "--no-camera", "--port", "0",
                                  cwd=tmp_path, unprivileged=True)
    except subprocess.TimeoutExpired:
        pytest.fail("the demo started on a database it cannot write")
    assert (code, out, err) == (2, "", f"pitwatch demo: {db}: cannot be written: the file is read-only (make it "
                                       f"writable); {CHOOSE}\n")
    assert pitwatch("games", "import", record, "--db", str(db), cwd=tmp_path, unprivileged=True)[2] == (
        f"pitwatch games: {db}: cannot be written: the file is read-only (make it writable); {CHOOSE}\n")
    assert db.read_bytes() == before  # SQLite, reading it, left its -wal (empty) and -shm files beside it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.sqlite", "games.sqlite-shm", "games.sqlite-wal", "rec.txt"]
    assert (tmp_path / "games.sqlite-wal").read_bytes() == b""
    code, out, _ = pitwatch("doctor", "--db", str(db), "--set", "web.port=0", cwd=tmp_path, unprivileged=True)
    assert f"FIX  database: {db}: cannot be written: the file is read-only (make it writable); {CHOOSE}\n" in out


def test_a_folder_that_cannot_be_written_is_named_not_the_file_called_no_database(tmp_path):
    """SQLite writes a WAL database's -shm file beside it even to read it, and a new file in the folder."""
    folder = tmp_path / "locked-up"
    folder.mkdir()
    db = folder / "games.sqlite"
    a_game_in_progress(db)
    record = a_record(tmp_path)
    folder.chmod(0o555)
    try:
        beside = (f"cannot be opened: its folder {folder} is not writable, and SQLite keeps the database's -wal and "
                  f"-shm files there, even to read it; {CHOOSE}\n")
        assert pitwatch("games", "list", "--db", str(db), cwd=tmp_path, unprivileged=True) == (
            2, "", f"pitwatch games: {db}: {beside}")
        assert pitwatch("games", "import", record, "--db", str(db), cwd=tmp_path, unprivileged=True)[2] == (
            f"pitwatch games: {db}: {beside}")
        new = folder / "new.sqlite"
        assert pitwatch("games", "import", record, "--db", str(new), cwd=tmp_path, unprivileged=True)[2] == (
            f"pitwatch games: {new}: cannot be created, its folder {folder} is not writable; {CHOOSE}\n")
        deeper = folder / "sub" / "new.sqlite"
        assert pitwatch("games", "import", record, "--db", str(deeper), cwd=tmp_path, unprivileged=True)[2] == (
            f"pitwatch games: {deeper}: cannot be created, {folder} is not writable; {CHOOSE}\n")
        assert sorted(p.name for p in folder.iterdir()) == ["games.sqlite"]
    finally:
        folder.chmod(0o755)


def test_a_folder_where_the_file_should_be_is_named_as_such(tmp_path, capsys):
    folder = tmp_path / "games.sqlite"
    folder.mkdir()
    said = f"{folder}: is a folder, not a game database file; {CHOOSE}"
    for read_only in (False, True):
        with pytest.raises(RecorderError) as refused:
            Recorder(folder, read_only=read_only)
        assert str(refused.value) == said
    assert cli(["games", "list", "--db", str(folder)], capsys) == (2, "", f"pitwatch games: {said}\n")
    assert list(folder.iterdir()) == []


def test_a_database_another_process_is_writing_is_said_to_be_locked_not_foreign(tmp_path):
    """Another process holds the write lock longer than the recorder waits (busy_timeout, 5 s)."""
    db = tmp_path / "games.sqlite"
    a_game_in_progress(db)
    live = Recorder(db)  # opened before the lock is taken: its next write waits for it
    with closing(sqlite3.connect(db, isolation_level=None)) as other:
        other.execute("BEGIN IMMEDIATE")
        with pytest.raises(RecorderError) as opening:
            Recorder(db)
        assert str(opening.value) == f"{db}: {LOCKED}"
        with pytest.raises(RecorderError) as writing:
            live.start_game("kalah", {}, "Ann", "Bob")
        assert str(writing.value) == f"{db}: cannot record: {LOCKED}"
        other.execute("ROLLBACK")
    assert "another pitwatch" in LOCKED and "try again" in LOCKED
    live.start_game("kalah", {}, "Ann", "Bob")  # the lock gone, it records again
    live.close()


def test_a_dangling_link_as_the_databases_folder_is_named_with_where_it_points(tmp_path, capsys):
    (tmp_path / "dangling").symlink_to(tmp_path / "nothere")
    db = tmp_path / "dangling" / "x.sqlite"
    record = tmp_path / "rec.txt"
    record.write_text(RECORD)
    why = f"{db}: cannot be created, its folder {tmp_path / 'dangling'} is a link to {tmp_path / 'nothere'}, which does " \
          f"not exist; {CHOOSE}"
    assert cli(["games", "import", str(record), "--db", str(db)], capsys) == (2, "", f"pitwatch games: {why}\n")
    assert cli(["doctor", "--db", str(db), "--set", "web.port=0"], capsys)[1].count(f"FIX  database: {why}\n") == 1
    assert not (tmp_path / "nothere").exists()


# -- a record too big, a tag too long -----------------------------------------------------------
class EndlessInput:
    """Standard input that never ends (``/dev/zero``, a runaway program): reading it all never returns."""

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0:
            raise AssertionError("read to the end of an endless input")
        return b"A " * (size // 2) + b"A" * (size % 2)


def test_a_record_larger_than_a_record_may_be_is_refused_before_it_is_read(tmp_path, capsys, monkeypatch):
    db = tmp_path / "games.sqlite"
    too_big = tmp_path / "big.txt"
    with too_big.open("wb") as file:
        file.truncate(MAX_RECORD_BYTES + 1)
    said = f"more than {MAX_RECORD_BYTES:,} bytes, the most a record file may be (thousands of games): split it into " \
           "smaller files and import each"
    assert cli(["games", "import", str(too_big), "--db", str(db)], capsys) == (2, "", f"pitwatch games: {too_big}: {said}\n")
    monkeypatch.setattr("sys.stdin", type("Stdin", (), {"buffer": EndlessInput()})())
    assert cli(["games", "import", "-", "--db", str(db)], capsys) == (2, "", f"pitwatch games: standard input: {said}\n")
    assert not db.exists()
    just_fits = tmp_path / "fits.txt"
    just_fits.write_text(RECORD + " " * (MAX_RECORD_BYTES - len(RECORD)))
    assert cli(["games", "import", str(just_fits), "--db", str(db)], capsys)[1] == "imported as game 1\n"


def test_a_tag_longer_than_a_tag_may_be_is_refused_naming_where(tmp_path, capsys):
    db = tmp_path / "games.sqlite"
    text, as_json = tmp_path / "rec.txt", tmp_path / "rec.json"
    text.write_text('[Event "' + "E" * MAX_TAG_CHARS + '"]\n' + RECORD)
    as_json.write_text(json.dumps({"variant": "kalah", "moves": ["C"], "tags": {"Round": "R" * MAX_TAG_CHARS}}))
    assert cli(["games", "import", str(text), "--db", str(db)], capsys)[2] == (
        f"pitwatch games: {text}: line 1, column 1: the Event tag is {MAX_TAG_CHARS + 5} characters long, more than the "
        f"{MAX_TAG_CHARS} a tag may be (tags name an event, a place, a round)\n")
    assert cli(["games", "import", str(as_json), "--db", str(db)], capsys)[2] == (
        f"pitwatch games: {as_json}: tags.Round: the Round tag is {MAX_TAG_CHARS + 5} characters long, more than the "
        f"{MAX_TAG_CHARS} a tag may be (tags name an event, a place, a round)\n")
    assert not db.exists()
    text.write_text('[Event "' + "E" * (MAX_TAG_CHARS - 5) + '"]\n' + RECORD)
    assert cli(["games", "import", str(text), "--db", str(db)], capsys)[1] == "imported as game 1\n"


def test_an_illegal_move_is_named_before_the_rest_of_the_text_is_read():
    """The text is read as the moves are checked: what follows an illegal move (here a comment never
    closed) is not even looked at, so a huge record fails at its first wrong move, at once."""
    with pytest.raises(notation.NotationError) as refused:
        notation.read_all('[Variant "kalah"]\n\n1. C C { a comment never closed ' + "A " * 100)
    assert (refused.value.line, refused.value.column) == (3, 6) and "move 2" in str(refused.value)


# -- rows and files that are not Pitwatch's ---------------------------------------------------
def test_a_file_with_pitwatchs_table_names_but_not_its_columns_is_refused_before_a_byte_changes(tmp_path, capsys):
    fake = tmp_path / "fake.sqlite"
    with closing(sqlite3.connect(fake)) as db:
        db.executescript("CREATE TABLE games(a); CREATE TABLE moves(b); CREATE TABLE verdicts(c); PRAGMA user_version=1;")
    before = fake.read_bytes()
    record = tmp_path / "rec.txt"
    record.write_text(RECORD)
    said = (f"pitwatch games: {fake}: not a Pitwatch game database (it lacks Pitwatch's columns games.id, games.variant, "
            f"games.options and 22 more); {CHOOSE}\n")
    for action in (["list"], ["show", "1"], ["import", str(record)]):
        assert cli(["games", *action, "--db", str(fake)], capsys) == (2, "", said), action
        assert fake.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["fake.sqlite", "rec.txt"]
    out = cli(["doctor", "--db", str(fake), "--set", "web.port=0"], capsys)[1]
    assert f"FIX  database: {said.removeprefix('pitwatch games: ')}" in out


def test_a_damaged_start_time_is_named_as_other_damaged_rows_are(tmp_path, capsys):
    db = tmp_path / "games.sqlite"
    with closing(Recorder(db)) as recorder:
        game = recorder.start_game("kalah", {}, "Ann", "Bob")
        other = recorder.start_game("kalah", {}, "Cy", "Di")
    for bad in ("'x'", "x'00'", "1e300"):
        with closing(sqlite3.connect(db)) as raw:
            raw.execute(f"UPDATE games SET started_at={bad} WHERE id={game}")
            raw.commit()
        said = f"game {game} is damaged: games.started_at is not a time (unix seconds)"
        assert cli(["games", "export", str(game), "--db", str(db)], capsys) == (2, "", f"pitwatch games: {said}\n"), bad
        code, out, _ = cli(["games", "list", "--db", str(db)], capsys)
        assert code == 0 and f"{game:5d}  {said}\n" in out and f"{other:5d}  kalah" in out
        listed = json.loads(cli(["games", "list", "--json", "--db", str(db)], capsys)[1])
        assert [(g["damaged"], g["started_at"]) for g in listed if g["id"] == game] == [(said, None)]


# -- names, options ---------------------------------------------------------------------------
def test_a_players_name_run_refuses_is_named_with_its_setting_and_the_doctor_says_so(tmp_path, capsys):
    config = tmp_path / "south.toml"
    config.write_text('[game]\nsouth = ""\n')
    db = ["--db", str(tmp_path / "demo.sqlite"), "--no-camera", "--port", "0"]
    rule = "south player's name must be 1 to 40 printable characters"
    assert cli(["demo", "--config", str(config), *db], capsys)[2] == f"pitwatch demo: {config}: game.south = '': {rule}\n"
    assert cli(["demo", "--south", " ", *db], capsys)[2] == f"pitwatch demo: --south ' ': {rule}\n"
    assert cli(["run", "--set", "game.north=\t", "--port", "0"], capsys)[2] == (
        "pitwatch run: --set 'game.north=\\t': north player's name must be 1 to 40 printable characters\n")
    assert not (tmp_path / "demo.sqlite").exists()
    code, out, _ = cli(["doctor", "--config", str(config), "--db", str(tmp_path / "g.sqlite"), "--set", "web.port=0"],
                       capsys)
    assert code == 1 and f"FIX  game: {rule}, not ''; fix game.south\n" in out


def test_doctor_takes_the_db_its_messages_name_and_every_games_action_the_same_options(tmp_path, capsys):
    db = tmp_path / "elsewhere.sqlite"
    out = cli(["doctor", "--db", str(db), "--set", "web.port=0"], capsys)[1]
    assert f"ok   database: {db}: no games yet" in out
    missing = tmp_path / "none.toml"
    for args in (["games", "variants", "--config", str(missing)], ["games", "--config", str(missing), "variants"]):
        code, out, _ = cli(args, capsys)
        assert code == 0 and "kalah:" in out, args


def test_a_game_of_one_move_is_listed_as_one_move(tmp_path, capsys):
    db = tmp_path / "games.sqlite"
    truth = Game("kalah")
    truth.play("A")
    with closing(Recorder(db)) as recorder:
        game = recorder.start_game("kalah", {}, "Ann", "Bob")
        recorder.record_verdict(game, {"kind": "move"}, ply=0,
                                accepted=[AcceptedMove("A", "south", truth.position.to_json())])
    assert "  1 move  active\n" in cli(["games", "list", "--db", str(db)], capsys)[1]


# -- an import and a live game at once ------------------------------------------------------
def a_long_record(games: int) -> list[ImportedGame]:
    """``games`` games of 36 moves each, as ``games import`` stores them."""
    truth = Game("kalah")
    moves = []
    for text in ("C", "F", "a", "B", "e", "A"):
        truth.play(text)
        moves.append(AcceptedMove(text, "south", truth.position.to_json()))
    return [ImportedGame("kalah", {}, "Ann", "Bob", moves * 6, None, None, None, {"Event": "club"})] * games


def test_a_long_import_lets_a_live_game_record_while_it_goes_on(tmp_path, monkeypatch):
    """An import used to hold the write lock for its whole run, the live game's writes waiting (and
    refused after 5 s), its games one block of ids; now it stores whole games in short transactions,
    and the live game writes between them: its rows get ids among the imported games' ids. (Batches
    of 20 ms: many of them on any machine; no wall-clock time is asserted.)"""
    monkeypatch.setattr("pitwatch.recorder.IMPORT_BATCH_SECONDS", 0.02)
    db = tmp_path / "games.sqlite"
    record = a_long_record(3000)
    live = Recorder(db)
    importer = Recorder(db)
    imported: list[int] = []
    importing = threading.Thread(target=lambda: imported.extend(importer.import_games(record)))
    importing.start()
    live_games = []
    while importing.is_alive():  # a write every 50 ms: a live game gives one every few seconds
        live_games.append(live.start_game("kalah", {}, "Cy", "Di"))
        time.sleep(0.05)
    importing.join()
    importer.close()
    assert len(imported) == len(set(imported)) == 3000
    assert any(imported[0] < game < imported[-1] for game in live_games), (imported[0], imported[-1], live_games)
    assert {g.move_count for g in live.games(limit=5000) if g.south == "Ann"} == {36}
    live.close()


def test_an_import_the_full_disk_stops_says_which_games_it_stored_each_whole(tmp_path, monkeypatch):
    monkeypatch.setattr("pitwatch.recorder.IMPORT_BATCH_SECONDS", 0.0)  # a game a transaction: the disk fills mid-import
    monkeypatch.setattr("pitwatch.recorder.IMPORT_PAUSE_SECONDS", 0.0)
    db = tmp_path / "games.sqlite"
    importer = Recorder(db)
    with importer._lock:  # room for some games, not all: SQLite's page limit fails a write as a full disk does
        pages = importer._db.execute("PRAGMA page_count").fetchone()[0]
        importer._db.execute(f"PRAGMA max_page_count = {pages + 100}")
    with pytest.raises(RecorderError) as stopped:
        importer.import_games(a_long_record(500))
    importer.close()
    with closing(Recorder(db, read_only=True)) as reader:
        stored = reader.games(limit=1000)
    assert 0 < len(stored) < 500 and {g.move_count for g in stored} == {36}
    assert str(stopped.value) == (f"{db}: cannot record: database or disk is full; the record's first {len(stored)} "
                                  f"games were imported (as games 1-{len(stored)}), the other {500 - len(stored)} not")


def test_games_stored_around_another_writers_are_said_as_the_ids_they_got(tmp_path, capsys, monkeypatch):
    """Another import or a live game may take ids between an import's batches: the ids said are those stored."""
    db = tmp_path / "games.sqlite"
    record = tmp_path / "rec.txt"
    record.write_text(RECORD * 3)
    storing = Recorder.import_games

    def a_live_game_between_batches(self, games):
        """The first game a batch, then a live game starts, then the rest a batch."""
        first = storing(self, games[:1])
        with closing(Recorder(db)) as live:
            live.start_game("kalah", {}, "Cy", "Di")
        return first + storing(self, games[1:])

    monkeypatch.setattr(Recorder, "import_games", a_live_game_between_batches)
    assert cli(["games", "import", str(record), "--db", str(db)], capsys)[1] == "imported 3 games as games 1, 3-4\n"
    with closing(Recorder(db, read_only=True)) as reader:
        assert [(g.id, g.south) for g in reader.games()] == [(4, "Ada"), (3, "Ada"), (2, "Cy"), (1, "Ada")]
