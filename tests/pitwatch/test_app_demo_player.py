"""The demo's players: a pit clicked on the dashboard is played, and the referee's moves and the
players' own never part ways."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import pytest

from apphelpers import MUST_PASS_AFTER
from pitwatch import config as cfg
from pitwatch import demo as demo_module
from pitwatch.demo import build_demo
from pitwatch.display import game_state, led_frame
from rules import Game
from waiting import wait_until


@contextmanager
def demo_by_clicks(tmp_path, variant: str = "kalah") -> Iterator:
    """The demo of ``variant`` (no camera) played by clicks, started, its referee caught up with its
    board: the demo, stopped with its runtime after the block."""
    config = cfg.load(tmp_path / "none.toml", [f"demo.database={tmp_path / 'demo.sqlite'}", "demo.camera=false",
                                               "demo.player=clicks", "demo.move_seconds=3600",
                                               f"game.variant={variant}", "session.settle_seconds=0.1"])
    runtime, demo, _ = build_demo(config)
    try:
        demo.start()
        runtime.start()
        assert wait_until(demo.player.caught_up, 10)
        yield demo
    finally:
        demo.stop()
        runtime.stop()


def test_a_click_after_the_referee_caught_up_between_two_steps_is_played_not_set_back(tmp_path, monkeypatch):
    """The player's steps run every ``move_seconds``; the referee caught up with a click between two
    of them, and the next click was then measured from the step before: taken for a board stuck with
    no known move, it was set back, though its request had been answered with the move."""
    with demo_by_clicks(tmp_path) as demo:
        player, session = demo.player, demo.runtime.session
        monkeypatch.setattr(demo_module, "STUCK_SECONDS", 0.0)  # players who step in at once
        player.move_seconds = 0.0
        player.step()
        assert demo.click("C") == "C"  # Kalah: C's last seed lands in the store, South plays again
        assert wait_until(lambda: [m.text for m in session.game.moves] == ["C"] and player.caught_up(), 10)
        assert demo.click("A") == "A"
        player.step()  # the referee has not judged A yet
        assert wait_until(lambda: [m.text for m in session.game.moves] == ["C", "A"], 10), session.game.moves
        assert [m.text for m in demo.board.game.moves] == ["C", "A"]


def test_a_click_plays_the_direction_chosen_and_a_pit_of_two_moves_names_them(tmp_path):
    """Ethiopian: a pit sows either way. A click that says which is played so; one that does not is
    refused naming both (the first legal move was played, so clockwise could never be)."""
    with demo_by_clicks(tmp_path, "ethiopian") as demo:
        with pytest.raises(ValueError, match="pit C's legal moves are C>, C<: choose one"):
            demo.click("C")
        with pytest.raises(ValueError, match="not C"):
            demo.click("C", "C")
        assert demo.click("C", "C<") == "C<"
        session = demo.runtime.session
        assert wait_until(lambda: [m.text for m in session.game.moves] == ["C<"], 10), session.game.moves


def test_a_player_who_must_pass_sees_the_outboxes_lit_and_clicks_one(tmp_path):
    """Nothing was lit for a Pass It On player who could only pass, and no click could pass."""
    game = Game("pass-it-on")
    for text in MUST_PASS_AFTER:
        game.play(text)
    assert game_state(game, 1, ("Ann", "Bob"))["legal"] == ["N", "S"]
    lit = [label for label, led in zip(game.variant.layout.labels, led_frame(game, [], [])) if led["mode"] != "off"]
    assert lit == ["N", "S"]
    with demo_by_clicks(tmp_path, "pass-it-on") as demo:
        session = demo.runtime.session
        for text in MUST_PASS_AFTER:  # the same game on the demo's board and in the session
            session.play_by_hand(text)
            demo.board.play(game.variant.parse_move(demo.board.position, text))
        assert wait_until(demo.player.caught_up, 10)
        with pytest.raises(ValueError, match="pit S's legal moves are pass:S:w, pass:S:y: choose one"):
            demo.click("S")
        assert demo.click("N") == "pass:N:y"  # one chip to take there: played at once
        assert wait_until(lambda: session.game.moves[-1].text == "pass:N:y", 10), session.game.moves[-1]
