"""The recorder on a real SQLite file: schema, atomic verdicts, takebacks, and kill -9 safety."""

from __future__ import annotations

import re
import sqlite3
import subprocess
import sys
import textwrap
from contextlib import closing

import pytest

from apphelpers import version_1_database
from pitwatch.recorder import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION, AcceptedMove, DamagedGame, Recorder, RecorderError


def move(text: str, player: str = "south") -> AcceptedMove:
    return AcceptedMove(text, player, {"pits": {}, "note": text})


def test_new_database_is_migrated_to_current_schema_in_wal_mode(tmp_path):
    rec = Recorder(tmp_path / "sub" / "games.sqlite")
    assert rec.schema_version == SCHEMA_VERSION
    mode = sqlite3.connect(tmp_path / "sub" / "games.sqlite").execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_database_from_a_newer_pitwatch_is_refused_with_its_version(tmp_path):
    path = tmp_path / "games.sqlite"
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(RecorderError, match=f"schema version {SCHEMA_VERSION + 1} is newer"):
        Recorder(path)


def test_a_file_that_is_not_a_database_is_refused(tmp_path):
    path = tmp_path / "games.sqlite"
    path.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(RecorderError, match="not a Pitwatch game database"):
        Recorder(path)



def foreign_table(db: sqlite3.Connection) -> None:
    db.execute("CREATE TABLE foo (x)")


def foreign_games_table(db: sqlite3.Connection) -> None:
    db.execute("CREATE TABLE games (x)")


def foreign_application(db: sqlite3.Connection) -> None:
    db.execute("PRAGMA application_id=1234")
    db.execute("CREATE TABLE games (x)")


def unmarked_version_2(db: sqlite3.Connection) -> None:
    db.execute("PRAGMA user_version=2")  # Pitwatch marks every file from version 2 on
    db.execute("CREATE TABLE games (x)")


def pitwatch_tables_other_columns(db: sqlite3.Connection) -> None:
    db.executescript("CREATE TABLE games (a); CREATE TABLE moves (b); CREATE TABLE verdicts (c); PRAGMA user_version=1;")


def marked_without_a_column(db: sqlite3.Connection) -> None:
    db.executescript(MIGRATIONS[0].replace("        result TEXT\n", "        outcome TEXT\n"))
    db.execute(f"PRAGMA application_id={APPLICATION_ID}")
    db.execute("PRAGMA user_version=1")


@pytest.mark.parametrize("make, says", [
    (pitwatch_tables_other_columns, r"not a Pitwatch game database \(it lacks Pitwatch's columns games\.id, "
                                    r"games\.variant, games\.options and 22 more\)"),
    (marked_without_a_column, r"not a Pitwatch game database \(it lacks Pitwatch's columns games\.result\)"),
    (foreign_table, r"not a Pitwatch game database \(it holds tables foo\)"),
    (foreign_games_table, r"not a Pitwatch game database \(it holds tables games\)"),
    (foreign_application, r"not a Pitwatch game database \(another program's: its application id is 0x4d2\)"),
    (unmarked_version_2, r"not a Pitwatch game database \(it holds tables games, schema version 2\)"),
])
def test_another_programs_database_is_refused_before_a_byte_of_it_changes(tmp_path, make, says):
    """Reader or writer, the recorder names a file that is not Pitwatch's before it writes anything:
    it used to add its tables to any SQLite file and switch it to WAL."""
    path = tmp_path / "other.sqlite"
    with closing(sqlite3.connect(path)) as db:
        make(db)
        db.commit()
    before = path.read_bytes()
    for read_only in (False, True):
        with pytest.raises(RecorderError, match=rf"^{re.escape(str(path))}: {says}; choose another file"):
            Recorder(path, read_only=read_only)
        assert path.read_bytes() == before
        assert sorted(p.name for p in tmp_path.iterdir()) == ["other.sqlite"]


def test_a_reader_creates_no_database_and_fills_no_empty_file(tmp_path):
    missing, empty = tmp_path / "missing.sqlite", tmp_path / "empty.sqlite"
    with pytest.raises(RecorderError, match="missing.sqlite: no game database there"):
        Recorder(missing, read_only=True)
    assert not missing.exists()
    empty.touch()
    with pytest.raises(RecorderError, match="empty.sqlite: no game database in this file yet"):
        Recorder(empty, read_only=True)
    assert empty.read_bytes() == b""
    with closing(Recorder(empty)) as writer:  # a writer makes an empty file a game database
        assert writer.schema_version == SCHEMA_VERSION


def test_an_older_schema_is_read_as_it_is_and_migrated_by_a_writer_keeping_its_games(tmp_path):
    path = tmp_path / "games.sqlite"
    version_1_database(path)
    before = path.read_bytes()
    with closing(Recorder(path, read_only=True)) as reader:
        assert [(g.id, g.south, g.move_count, g.tags) for g in reader.games()] == [(1, "Ann", 2, None)]
        assert reader.schema_version == 1
    assert path.read_bytes() == before  # looking does not migrate
    with closing(Recorder(path)) as writer:
        assert writer.schema_version == SCHEMA_VERSION
        assert [(g.id, g.south, g.started_at, g.move_count, g.tags) for g in writer.games()] == [
            (1, "Ann", 1700000000, 2, None)]
        assert [m.text for m in writer.moves(1)] == ["C", "F"]
    with closing(sqlite3.connect(path)) as db:
        assert db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    with closing(Recorder(path, read_only=True)) as reader:  # and the migrated file reads as Pitwatch's
        assert reader.game(1).tags is None


def test_a_damaged_row_is_named_and_hides_only_its_own_game(tmp_path):
    path = tmp_path / "games.sqlite"
    with closing(Recorder(path)) as rec:
        ids = [rec.start_game("kalah", {}, "Ann", "Bob") for _ in range(3)]
        rec.record_verdict(ids[2], {"kind": "move"}, ply=0, accepted=[move("C")], reading={"pits": {}})
    with closing(sqlite3.connect(path)) as db:
        db.execute("UPDATE games SET options='{not json' WHERE id=?", (ids[0],))
        db.execute("UPDATE games SET result='[1, 2]' WHERE id=?", (ids[1],))
        db.execute("UPDATE moves SET reading=7 WHERE game_id=?", (ids[2],))
        db.commit()
    with closing(Recorder(path, read_only=True)) as rec:
        assert [(g.id, g.damage) for g in rec.games()] == [
            (ids[2], None),
            (ids[1], f"game {ids[1]} is damaged: games.result is not a JSON object"),
            (ids[0], f"game {ids[0]} is damaged: games.options is not a JSON object")]
        assert rec.game(ids[0]).damage == f"game {ids[0]} is damaged: games.options is not a JSON object"
        with pytest.raises(DamagedGame, match=rf"^game {ids[2]}, move 1 is damaged: moves.reading is not a JSON object$"):
            rec.moves(ids[2])


def test_moves_verdicts_and_takeback_are_recorded_and_survive_reopening(tmp_path):
    path = tmp_path / "games.sqlite"
    rec = Recorder(path)
    gid = rec.start_game("kalah", {"houses": 6}, "Ann", "Bob")
    rec.record_verdict(gid, {"kind": "move"}, ply=0, accepted=[move("C"), move("F")],
                       reading={"pits": {}}, snapshot=b"\xff\xd8jpeg")
    rec.record_verdict(gid, {"kind": "move"}, ply=2, accepted=[move("a", "north")])
    rec.record_verdict(gid, {"kind": "takeback"}, ply=3, takeback_to=2)
    rec.record_verdict(gid, {"kind": "illegal"}, ply=2)
    rec.close()

    again = Recorder(path)
    assert [m.text for m in again.moves(gid)] == ["C", "F"]
    assert [v["kind"] for v in again.verdicts(gid)] == ["move", "move", "takeback", "illegal"]
    assert again.snapshot(gid, 0) == b"\xff\xd8jpeg"
    assert again.moves(gid)[0].reading == {"pits": {}}
    active = again.active_game()
    assert active is not None and active.id == gid and active.move_count == 2


def test_the_referee_s_own_moves_left_out_do_not_count_toward_the_limit(tmp_path):
    """A story of a game's doubts and the players' changes: the many moves the referee committed after
    them must not push them out of the newest ``limit`` verdicts."""
    rec = Recorder(tmp_path / "games.sqlite")
    gid = rec.start_game("kalah", {}, "Ann", "Bob")
    rec.record_verdict(gid, {"kind": "illegal"}, ply=0)
    rec.record_verdict(gid, {"kind": "move", "by": "players"}, ply=0, accepted=[move("C")])
    for ply, text in enumerate(["F", "a", "B"], start=1):
        rec.record_verdict(gid, {"kind": "move"}, ply=ply, accepted=[move(text)])
    kept = rec.verdicts(gid, 2, referee_moves=False)
    assert [(v["id"], v["kind"], v["verdict"].get("by")) for v in kept] == [(1, "illegal", None), (2, "move", "players")]
    assert [v["id"] for v in rec.verdicts(gid, 2)] == [4, 5]
    for damage in ("[not json", "[]"):  # a move whose body does not read is named, not taken for the referee's
        with closing(sqlite3.connect(rec.path)) as db, db:
            db.execute("UPDATE verdicts SET body=? WHERE id=2", (damage,))
        with pytest.raises(DamagedGame, match="verdicts.body"):
            rec.verdicts(gid, 2, referee_moves=False)


def test_a_failing_verdict_writes_nothing(tmp_path):
    rec = Recorder(tmp_path / "games.sqlite")
    gid = rec.start_game("kalah", {}, "Ann", "Bob")
    rec.record_verdict(gid, {"kind": "move"}, ply=0, accepted=[move("C")])
    with pytest.raises(RecorderError, match="games.sqlite: cannot record: UNIQUE constraint failed: moves.game_id, "
                                            "moves.ply"):  # ply 0 is taken: the whole verdict must roll back
        rec.record_verdict(gid, {"kind": "move"}, ply=0, accepted=[move("D")])
    assert [m.text for m in rec.moves(gid)] == ["C"]
    assert len(rec.verdicts(gid)) == 1
    assert rec.failure is not None  # until a write succeeds again
    rec.record_verdict(gid, {"kind": "move"}, ply=1, accepted=[move("D")])
    assert rec.failure is None


def test_a_new_game_abandons_the_active_one_and_finish_ends_it(tmp_path):
    rec = Recorder(tmp_path / "games.sqlite")
    first = rec.start_game("kalah", {}, "Ann", "Bob")
    second = rec.start_game("oware", {}, "Cy", "Di")
    assert rec.game(first).status == "abandoned"
    assert rec.active_game().id == second
    rec.finish_game(second, {"winner": "south", "reason": "test", "score": {"south": 25, "north": 3}})
    assert rec.active_game() is None
    assert rec.game(second).result["winner"] == "south"
    assert [g.id for g in rec.games()] == [second, first]
    with pytest.raises(RecorderError, match="no recorded game with id 999"):
        rec.game(999)


WRITER = textwrap.dedent("""
    import sys
    from pitwatch.recorder import AcceptedMove, Recorder
    rec = Recorder(sys.argv[1])
    gid = rec.start_game("kalah", {}, "Ann", "Bob")
    ply = 0
    while True:
        rec.record_verdict(gid, {"kind": "move"}, ply=ply,
                           accepted=[AcceptedMove(f"m{ply}", "south", {"ply": ply})],
                           snapshot=b"x" * 4000)
        print(ply, flush=True)  # acknowledged only after the commit returned
        ply += 1
""")


def test_kill_9_at_any_instant_loses_no_acknowledged_move(tmp_path):
    path = tmp_path / "games.sqlite"
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, text=True)
    acknowledged = -1
    for line in proc.stdout:
        acknowledged = int(line)
        if acknowledged >= 60:
            break
    proc.kill()  # SIGKILL, mid-write of the next verdict
    proc.wait()
    rec = Recorder(path)
    game = rec.active_game()
    plies = [m.ply for m in rec.moves(game.id)]
    assert plies == list(range(len(plies)))  # no hole, no half-written verdict
    assert len(plies) >= acknowledged + 1
