"""A game database that cannot be written (the disk full): the game stays as recorded, the
players are told why, and the still board is judged again until its verdict can be recorded."""

from __future__ import annotations

import time

import pytest

from apphelpers import board, fill_the_disk
from pitwatch import config as cfg
from pitwatch.recorder import Recorder, RecorderError
from pitwatch.runtime import Runtime
from pitwatch.session import Session
from rules import Game


def test_a_move_the_full_disk_refuses_is_said_and_recorded_once_there_is_room(tmp_path):
    database = tmp_path / "games.sqlite"
    runtime = Runtime(cfg.load(tmp_path / "none.toml", [f"recorder.database={database}", "session.settle_seconds=0"]))
    runtime.start_session()
    fusion = runtime.use_fusion({"sensors": 1.0})
    recorder, session = runtime.recorder, runtime.session
    game = Game("kalah")
    now = time.monotonic()

    def sensors_see_the_board() -> None:
        """The sensors report the board as it now stands, and the referee looks at it."""
        nonlocal now
        now += 0.1
        fusion.update("sensors", board(game), now)
        runtime.judge_once(now)  # a board not seen before: the still-board gate starts its wait
        runtime.judge_once(now)  # settled (settle_seconds=0): judged

    try:
        sensors_see_the_board()
        fill_the_disk(recorder)
        for _ in range(10):  # the pages the file already has take a verdict or two more
            game.play(game.legal_moves()[0])
            sensors_see_the_board()
            if session.state()["recording"]:
                break
        assert session.state()["recording"] == f"{database}: cannot record: database or disk is full"
        recorded = [m.text for m in recorder.moves(session.game_id)]
        assert [m.text for m in session.game.moves] == recorded == [m.text for m in game.moves[:-1]]

        fill_the_disk(recorder, room=True)
        runtime.judge_once(now + 0.5)  # tried again once a second, not at every look
        assert [m.text for m in recorder.moves(session.game_id)] == recorded
        runtime.judge_once(now + 1.1)
        assert session.state()["recording"] is None
        assert [m.text for m in recorder.moves(session.game_id)] == [m.text for m in game.moves]
        assert [m.text for m in session.game.moves] == [m.text for m in game.moves]
    finally:
        runtime.stop()


def test_the_same_still_board_judged_again_clears_the_warning_once_there_is_room(tmp_path):
    """A write the full disk refused while the board stood still as recorded (a control given on
    the dashboard, say): the same still board is not recorded again, but judging it again is what
    can tell that the recorder works again."""
    session = Session(Recorder(tmp_path / "games.sqlite"))
    session.new_game("kalah", {}, "Ann", "Bob")
    still = board(Game("kalah"))
    session.submit(still)
    assert session.state()["verdict"]["kind"] == "unchanged"
    fill_the_disk(session.recorder)
    with pytest.raises(RecorderError):
        for _ in range(1000):  # verdicts of no consequence until the file's pages are full
            session.recorder.record_verdict(session.game_id, {"kind": "note"}, ply=0)
    assert session.state()["recording"] is not None
    fill_the_disk(session.recorder, room=True)
    session.submit(still)
    assert session.state()["recording"] is None
    assert session.state()["verdict"]["kind"] == "unchanged" and session.game.moves == []


def test_the_boards_undo_button_on_a_full_disk_is_told_not_a_traceback(tmp_path):
    """The button's press comes from the serial bridge's thread: a RecorderError out of it was a
    traceback on stderr, the players shown nothing, and later presses ignored."""
    database = tmp_path / "games.sqlite"
    session = Session(Recorder(database))
    session.new_game("kalah", {}, "Ann", "Bob")
    session.play_by_hand("A")
    fill_the_disk(session.recorder)
    for _ in range(1000):  # verdicts of no consequence until the file's pages are full
        try:
            session.recorder.record_verdict(session.game_id, {"kind": "note"}, ply=1)
        except RecorderError:
            break
    session.press("undo")
    state = session.state()
    assert state["recording"] == f"{database}: cannot record: database or disk is full"
    assert state["verdict"]["button"] == state["recording"]
    assert [m.text for m in session.game.moves] == ["A"]  # not taken back: the record could not say so
    fill_the_disk(session.recorder, room=True)
    session.press("undo")
    assert session.game.moves == [] and session.state()["recording"] is None


@pytest.mark.parametrize("how", ["deleted", "replaced"])
def test_a_database_deleted_or_replaced_under_a_session_is_told_not_written_into_the_void(tmp_path, how):
    """SQLite goes on writing to a file deleted under it: every move after it was lost with the
    process, and the dashboard said nothing."""
    database = tmp_path / "games.sqlite"
    session = Session(Recorder(database))
    session.new_game("kalah", {}, "Ann", "Bob")
    game = Game("kalah")
    game.play("A")
    session.submit(board(game))
    assert [m.text for m in session.game.moves] == ["A"] and session.state()["recording"] is None
    for side_file in tmp_path.glob("games.sqlite*"):
        side_file.unlink()
    if how == "replaced":
        Recorder(database).close()  # another database put at its name
    game.play("f")
    with pytest.raises(RecorderError):  # the runtime's loop tells it and judges the board again a second later
        session.submit(board(game))
    said = (f"{database}: cannot record: the game database was deleted or replaced while Pitwatch was recording: "
            "restart Pitwatch to record again (in a new file, or the one now there)")
    assert session.state()["recording"] == said
    assert [m.text for m in session.game.moves] == ["A"]  # the game waits at its last recorded move
