"""The demo's players: a pit clicked on the dashboard is played, and the referee's moves and the
players' own never part ways."""

from __future__ import annotations

import pytest

from pitwatch import config as cfg
from pitwatch import demo as demo_module
from pitwatch.demo import build_demo
from waiting import wait_until


def test_a_click_after_the_referee_caught_up_between_two_steps_is_played_not_set_back(tmp_path, monkeypatch):
    """The player's steps run every ``move_seconds``; the referee caught up with a click between two
    of them, and the next click was then measured from the step before: taken for a board stuck with
    no known move, it was set back, though its request had been answered with the move."""
    config = cfg.load(tmp_path / "none.toml", [f"demo.database={tmp_path / 'demo.sqlite'}", "demo.camera=false",
                                               "demo.player=clicks", "demo.move_seconds=3600",
                                               "session.settle_seconds=0.1"])
    runtime, demo, _ = build_demo(config)
    try:
        demo.start()
        runtime.start()
        player, session = demo.player, runtime.session
        monkeypatch.setattr(demo_module, "STUCK_SECONDS", 0.0)  # players who step in at once
        player.move_seconds = 0.0
        assert wait_until(player.caught_up, 10)
        player.step()
        assert demo.click("C") == "C"  # Kalah: C's last seed lands in the store, South plays again
        assert wait_until(lambda: [m.text for m in session.game.moves] == ["C"] and player.caught_up(), 10)
        assert demo.click("A") == "A"
        player.step()  # the referee has not judged A yet
        assert wait_until(lambda: [m.text for m in session.game.moves] == ["C", "A"], 10), session.game.moves
        assert [m.text for m in demo.board.game.moves] == ["C", "A"]
    finally:
        demo.stop()
        runtime.stop()


def test_a_click_plays_the_direction_chosen_and_a_pit_of_two_moves_names_them(tmp_path):
    """Ethiopian: a pit sows either way. A click that says which is played so; one that does not is
    refused naming both (the first legal move was played, so clockwise could never be)."""
    config = cfg.load(tmp_path / "none.toml", [f"demo.database={tmp_path / 'demo.sqlite'}", "demo.camera=false",
                                               "demo.player=clicks", "demo.move_seconds=3600", "game.variant=ethiopian",
                                               "session.settle_seconds=0.1"])
    runtime, demo, _ = build_demo(config)
    try:
        demo.start()
        runtime.start()
        session = runtime.session
        assert wait_until(demo.player.caught_up, 10)
        with pytest.raises(ValueError, match="pit C's legal moves are C>, C<: choose one"):
            demo.click("C")
        with pytest.raises(ValueError, match="not C"):
            demo.click("C", "C")
        assert demo.click("C", "C<") == "C<"
        assert wait_until(lambda: [m.text for m in session.game.moves] == ["C<"], 10), session.game.moves
    finally:
        demo.stop()
        runtime.stop()
