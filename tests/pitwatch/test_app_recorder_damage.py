"""A game database damaged outside Pitwatch, and the commands that could damage one: each named, never a
traceback, and no game lost. Found by a fuzzer (2026-12-07), on real SQLite files:

* ``games export N -o`` naming the database wrote the record over every game, exit status 0;
* a damaged page (a file cut short, written over) gave SQLite's traceback from list, show and export;
* a row changed by hand (a move's ply as text, a blob for a name, a result without its reason) made
  ``games list`` fail for every game, and ``run`` and ``demo`` fail to start on the game to resume;
* Ctrl-C during an import stored some games and said nothing of which.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from pitwatch.cli import main
from pitwatch.recorder import AcceptedMove, DamagedGame, Recorder, RecorderError
from rules import Game
from waiting import wait_until

GAMES = 400  # 20 s of storing, a game each 50 ms, in the interrupted import
RECORD = '[South "Ada"]\n[North "Bo"]\n[Variant "kalah"]\n\n1. C F *\n'


@pytest.fixture(autouse=True)
def no_user_config(monkeypatch, tmp_path):
    monkeypatch.setenv("PITWATCH_CONFIG", str(tmp_path / "no-such-config.toml"))


def cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def games_in(tmp_path: Path, count: int) -> Path:
    """A database of ``count`` imported games (enough rows for several pages)."""
    (tmp_path / "rec.txt").write_text(RECORD * count)
    db = tmp_path / "games.sqlite"
    assert main(["games", "import", str(tmp_path / "rec.txt"), "--db", str(db)]) == 0
    return db


def test_export_refuses_to_write_over_the_game_database(tmp_path, capsys):
    db = games_in(tmp_path, 3)
    before = db.read_bytes()
    for output in (db, db.with_name("games.sqlite-wal"), tmp_path / "link.sqlite"):
        if output.name == "link.sqlite":
            output.symlink_to(db)
        elif not output.exists():
            continue
        code, _, err = cli(capsys, "games", "export", "1", "--db", str(db), "-o", str(output))
        assert code == 2 and "is the game database (or one of its files); writing the record there would destroy " \
                              "every game: choose another file with -o" in err, err
    assert db.read_bytes() == before
    assert cli(capsys, "games", "export", "1", "--db", str(db), "-o", str(tmp_path / "one.txt"))[0] == 0
    assert (tmp_path / "one.txt").read_text().startswith("[Event")


def test_a_record_that_cannot_be_written_leaves_the_file_there_as_it_was(tmp_path, capsys):
    db = games_in(tmp_path, 1)
    with closing(sqlite3.connect(db)) as raw:  # a lone surrogate, as a JSON escape stores one
        raw.execute("""UPDATE games SET tags='{"Event": "club \\ud800"}' WHERE id=1""")
        raw.commit()
    (tmp_path / "kept.txt").write_text("yesterday's export")
    code, _, err = cli(capsys, "games", "export", "1", "--db", str(db), "-o", str(tmp_path / "kept.txt"))
    assert code == 2 and "the record holds text that is not Unicode" in err, err
    assert (tmp_path / "kept.txt").read_text() == "yesterday's export"


def test_a_damaged_page_is_named_with_the_way_to_rescue_the_games(tmp_path, capsys):
    db = games_in(tmp_path, 200)
    with closing(Recorder(db)) as recorder:  # back into one file, as a copy taken of it would be
        recorder._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(db.read_bytes())
    page = 4096
    assert len(data) > 4 * page
    data[page:] = bytes(range(256)) * ((len(data) - page) // 256)  # every page past the schema's written over
    db.write_bytes(bytes(data))
    said = (f"{db}: the game database is damaged (database disk image is malformed): restore a backup, or rescue its "
            f"games into a new file with `sqlite3 {db} .recover | sqlite3 rescued.sqlite`")
    for action in (["list"], ["show", "1"], ["export", "1"]):
        code, _, err = cli(capsys, "games", *action, "--db", str(db))
        assert (code, err) == (2, f"pitwatch games: {said}\n"), (action, err)
    db.write_bytes(bytes(data[:5 * page // 2]))  # cut short, as a copy that did not finish
    code, _, err = cli(capsys, "games", "list", "--db", str(db))
    assert code == 2 and "the game database is damaged" in err and "Traceback" not in err, err


@pytest.mark.parametrize("change, said", [
    ("UPDATE games SET result='{\"winner\": 0}' WHERE id=2", "games.result does not say why the game ended"),
    ("UPDATE games SET variant=x'00ff' WHERE id=2", "games.variant is not text"),
    ("UPDATE games SET south=x'ff' WHERE id=2", "games.south is not text"),
])
def test_a_game_row_changed_by_hand_is_named_and_the_others_listed(tmp_path, capsys, change, said):
    db = games_in(tmp_path, 3)
    with closing(sqlite3.connect(db)) as raw:
        raw.execute(change)
        raw.commit()
    code, out, _ = cli(capsys, "games", "list", "--db", str(db))
    assert code == 0 and f"    2  game 2 is damaged: {said}\n" in out and "    1  kalah" in out and "    3  kalah" in out
    listed = json.loads(cli(capsys, "games", "list", "--json", "--db", str(db))[1])
    assert [g["damaged"] for g in listed] == [None, f"game 2 is damaged: {said}", None]
    assert cli(capsys, "games", "show", "2", "--db", str(db))[2] == f"pitwatch games: game 2 is damaged: {said}\n"


@pytest.mark.parametrize("change, said", [
    ("UPDATE moves SET ply='abc' WHERE ply=1", "game 1 is damaged: a move's moves.ply is not a whole number"),
    ("UPDATE moves SET text=x'41' WHERE ply=1", "game 1, move 2 is damaged: moves.text is not text"),
    ("UPDATE moves SET player=x'00' WHERE ply=0", "game 1, move 1 is damaged: moves.player is not text"),
])
def test_a_game_in_progress_whose_move_was_changed_by_hand_stays_on_record_and_a_new_game_starts(
        tmp_path, capsys, change, said):
    db = tmp_path / "games.sqlite"
    game = Game("kalah")
    with closing(Recorder(db)) as recorder:
        game_id = recorder.start_game("kalah", {}, "Ann", "Bob")
        for text in ("C", "F"):
            game.play(text)
            recorder.record_verdict(game_id, {"kind": "move"}, ply=len(game.moves) - 1,
                                    accepted=[AcceptedMove(text, "south", game.position.to_json())])
    with closing(sqlite3.connect(db)) as raw:
        raw.execute(change)
        raw.commit()
    with closing(Recorder(db)) as recorder, pytest.raises(DamagedGame, match=said):
        recorder.moves(game_id)
    code, out, _ = cli(capsys, "doctor", "--db", str(db), "--set", "camera.source=", "--set", "sensors.port=",
                       "--set", "web.port=0")
    assert (f"game {game_id} (kalah, 2 moves) cannot be resumed ({said}): `pitwatch run` keeps it on record and starts "
            "a new game") in out, out


def test_ctrl_c_during_an_import_says_which_games_it_stored(tmp_path):
    """A real SIGINT to ``pitwatch games import`` once its first games are on disk: exit status 130, as
    for any interrupt, and the games stored named (each whole; the batch under way rolled back). The
    importing process stores a game a transaction, 50 ms apart, so that the interrupt lands in the
    middle on any machine (with its own batches of a quarter second, a loaded machine's poll came
    after the last one)."""
    (tmp_path / "rec.txt").write_text(RECORD * GAMES)
    db = tmp_path / "games.sqlite"
    slowly = ("import sys, pitwatch.recorder as recorder; from pitwatch.cli import main; "
              "recorder.IMPORT_BATCH_SECONDS, recorder.IMPORT_PAUSE_SECONDS = 0.0, 0.05; sys.exit(main(sys.argv[1:]))")
    importing = subprocess.Popen([sys.executable, "-c", slowly, "games", "import", str(tmp_path / "rec.txt"),
                                  "--db", str(db)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 env={**os.environ, "PITWATCH_CONFIG": str(tmp_path / "none.toml")},
                                 preexec_fn=_interruptible)

    def stored() -> int:
        """The games on disk now, read as another writer would (a read-only connection to a WAL file
        may be refused while its writer runs: then the test waited for the import to end)."""
        if not db.exists():
            return 0
        try:
            with closing(sqlite3.connect(db, timeout=5)) as raw:
                return raw.execute("SELECT count(*) FROM games").fetchone()[0]
        except sqlite3.Error:  # its tables not made yet
            return 0

    try:
        assert wait_until(lambda: stored() > 0 or importing.poll() is not None, 120, 0.02)
        importing.send_signal(signal.SIGINT)
        _, err = importing.communicate(timeout=60)
    finally:
        importing.kill()
    count = stored()
    assert importing.returncode == 130, (importing.returncode, err)
    assert 0 < count < GAMES
    assert err == (f"pitwatch games: interrupted; the record's first {count} games were imported (as games 1-{count}), "
                   f"the other {GAMES - count} not\n"), err


def _interruptible() -> None:
    """SIGINT as a terminal leaves it to a program, whatever the process running the tests does with
    it: one started in the background of a non-interactive shell ignores it, and a child inherits that."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_a_named_pipe_or_a_schema_version_pitwatch_never_wrote_is_refused(tmp_path, capsys):
    os.mkfifo(tmp_path / "pipe.sqlite")  # SQLite blocked on it for ever
    code, _, err = cli(capsys, "games", "list", "--db", str(tmp_path / "pipe.sqlite"))
    assert code == 2 and "is not a file (a named pipe or a device), not a game database" in err, err
    db = games_in(tmp_path, 1)
    with closing(sqlite3.connect(db)) as raw:
        raw.execute("PRAGMA user_version=-1")
    for args in (["games", "list"], ["games", "import", str(tmp_path / "rec.txt")]):
        code, _, err = cli(capsys, *args, "--db", str(db))
        assert code == 2 and "schema version -1 is none Pitwatch ever wrote" in err, (args, err)


def test_a_record_notepad_saved_with_a_byte_order_mark_is_imported(tmp_path, capsys):
    (tmp_path / "rec.txt").write_bytes(("\ufeff" + RECORD).encode("utf-8"))
    code, out, err = cli(capsys, "games", "import", str(tmp_path / "rec.txt"), "--db", str(tmp_path / "g.sqlite"))
    assert (code, out, err) == (0, "imported as game 1\n", "")


def test_a_game_id_that_is_no_whole_number_names_no_game_at_once(tmp_path):
    """``Recorder.game("1")`` asked ``"1" in range(-2**63, 2**63)``, which walks the whole range: it never returned."""
    with closing(Recorder(games_in(tmp_path, 1))) as recorder:
        for game_id in ("1", 1.5, None):
            with pytest.raises(RecorderError, match=f"no recorded game with id {game_id}"):
                recorder.game(game_id)  # type: ignore[arg-type]
            assert recorder.snapshot(game_id, 0) is None  # type: ignore[arg-type]
