"""The recorder on a real SQLite file: schema, atomic verdicts, takebacks, and kill -9 safety."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap

import pytest

from pitwatch.recorder import SCHEMA_VERSION, AcceptedMove, Recorder, RecorderError


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
