"""Oware: 2-3 captures that stop at the row end, the 12+ skip, grand slam, must feed, the end.

Pit order: A..F (South, left to right), a..f (North, from North's left); CCW
is A..F then a..f. Captured seeds are kept aside (``captured``).
"""

import pytest
from rules_boards import counts, kinds, play, position

import rules

OWARE = rules.variant("oware")


def test_first_move():
    pos, events = play(OWARE, OWARE.start(), "C")
    assert counts(pos) == {"A": 4, "B": 4, "D": 5, "E": 5, "F": 5, "a": 5, "b": 4, "c": 4, "d": 4, "e": 4, "f": 4}
    assert kinds(events) == ["lift", "drop", "drop", "drop", "drop"]


def test_capture_chain_stops_at_the_end_of_the_opponents_row():
    pos = position(OWARE, A=10, B=3, E=3, F=1, a=2, b=1, c=4, d=4, captured=(10, 10))
    new, events = play(OWARE, pos, "E")  # F 2, a 3, b 2: takes b and a, never F (own row)
    assert counts(new) == {"A": 10, "B": 3, "F": 2, "c": 4, "d": 4}
    assert new.captured == (15, 10)
    assert [(e["pit"], e["seeds"]) for e in events if e["type"] == "capture"] == [("b", 2), ("a", 3)]


def test_capture_chain_stops_at_a_hollow_not_holding_2_or_3():
    pos = position(OWARE, A=10, B=3, E=4, a=1, b=3, c=1, d=4, captured=(10, 12))
    new, _ = play(OWARE, pos, "E")  # F 1, a 2, b 4, c 2: takes c only
    assert counts(new) == {"A": 10, "B": 3, "F": 1, "a": 2, "b": 4, "d": 4}
    assert new.captured == (12, 12)


def test_twelve_or_more_skips_the_start_hollow():
    pos = position(OWARE, A=12, b=4, captured=(16, 16))
    new, events = play(OWARE, pos, "A")  # B..F, a..f (11), A skipped, B
    assert counts(new) == {"B": 2, "C": 1, "D": 1, "E": 1, "F": 1, "a": 1, "b": 5, "c": 1, "d": 1, "e": 1, "f": 1}
    assert {"type": "skip", "pit": "A"} in events


def test_grand_slam_captures_by_default_and_the_empty_row_ends_the_game():
    pos = position(OWARE, A=1, F=2, a=1, b=2, captured=(19, 23))
    new, _ = play(OWARE, pos, "F")  # a 2, b 3: both taken (24), North has nothing left: South takes A
    assert new.result == rules.Result(rules.SOUTH, "north has no seeds", (25, 23))


def test_grand_slam_no_capture_plays_the_move_and_takes_nothing():
    v = rules.variant("oware", grand_slam="no_capture")
    new, events = play(v, position(v, A=1, F=2, a=1, b=2, captured=(20, 22)), "F")
    assert counts(new) == {"A": 1, "a": 2, "b": 3} and new.captured == (20, 22)
    assert "capture" not in kinds(events)


def test_grand_slam_forbidden_unless_it_is_the_only_move():
    v = rules.variant("oware", grand_slam="forbidden")
    assert [str(m) for m in v.legal_moves(position(v, A=1, F=2, a=1, b=2, captured=(20, 22)))] == ["A"]
    only = position(v, F=2, a=1, b=2, captured=(21, 22))
    assert [str(m) for m in v.legal_moves(only)] == ["F"]
    new, _ = play(v, only, "F")
    assert new.captured == (26, 22) and new.result.winner == rules.SOUTH


def test_must_feed_an_empty_row():
    pos = position(OWARE, A=1, F=1, captured=(22, 24))
    assert [str(m) for m in OWARE.legal_moves(pos)] == ["F"]


def test_no_feeding_move_lets_any_move_be_played_and_the_mover_takes_the_rest():
    pos = position(OWARE, A=1, B=1, captured=(22, 24))
    assert [str(m) for m in OWARE.legal_moves(pos)] == ["A", "B"]
    new, events = play(OWARE, pos, "A")
    assert new.result == rules.Result(None, "north has no seeds", (24, 24))  # 24-24 is a draw
    assert [e["type"] for e in events][-2:] == ["sweep", "game_end"]


def test_no_feeding_move_collect_ends_the_game_at_once():
    v = rules.variant("oware", no_feeding_move="collect")
    pos = position(v, "north", B=1, C=1, f=1, captured=(21, 24))
    new, _ = play(v, pos, "f")  # A 1: North's row is now empty and South cannot feed it
    assert new.result == rules.Result(None, "south cannot feed", (24, 24))
    assert sum(new.pits) == 0
    played_on, _ = play(OWARE, OWARE.position_from_json(pos.to_json() | {"options": OWARE.options}), "f")
    assert played_on.result is None and len(OWARE.legal_moves(played_on)) == 3


def test_twenty_five_wins_at_once():
    pos = position(OWARE, A=5, E=2, a=1, c=2, d=4, captured=(22, 12))
    new, _ = play(OWARE, pos, "E")  # F 1, a 2: takes 2 -> 24: not yet
    assert new.result is None
    pos = position(OWARE, A=5, E=2, a=2, c=2, d=3, captured=(22, 12))
    new, _ = play(OWARE, pos, "E")  # F 1, a 3: takes 3 -> 25
    assert new.result == rules.Result(rules.SOUTH, "south captured 25 or more", (25, 12))
    assert counts(new) == {"A": 5, "F": 1, "c": 2, "d": 3}  # the board stays as it is


CYCLE = ["F", "f", "A", "a", "B", "b", "C", "c", "D", "d", "E", "e"]  # two lone seeds chase round


@pytest.mark.parametrize("repetitions", [2, 3])
def test_stalemate_on_the_nth_occurrence_counting_the_start(repetitions):
    v = rules.variant("oware", repetitions=repetitions)
    game = rules.Game(v, position(v, F=1, f=1, captured=(23, 23)))
    for lap in range(repetitions - 1):
        for number, text in enumerate(CYCLE, 1):
            assert not game.is_over, f"ended early at move {number} of lap {lap}"
            game.play(text)
    assert game.result == rules.Result(None, f"the position occurred {repetitions} times", (23, 23))
    assert game.position.pits == game.positions[0].pits


def test_repetition_history_survives_json():
    game = rules.Game(OWARE, position(OWARE, F=1, f=1, captured=(23, 23)))
    for text in CYCLE + CYCLE[:5]:
        game.play(text)
    restored = OWARE.position_from_json(game.position.to_json())
    assert restored == game.position
    rest = rules.Game(OWARE, restored)
    for text in CYCLE[5:]:
        rest.play(text)
    assert rest.result.reason == "the position occurred 3 times"


def test_draw_by_agreement():
    game = rules.Game("oware")
    game.play("C")
    assert game.agree_draw() == rules.Result(None, "agreement", (0, 0))
    assert game.is_over and game.legal_moves() == []
    with pytest.raises(rules.IllegalMove, match="drawn by agreement"):
        game.play("a")
    game.undo()
    assert not game.is_over


def test_positions_that_are_already_over_are_rejected():
    with pytest.raises(rules.BadPosition, match="25 or more"):
        position(OWARE, A=1, a=1, captured=(25, 21))
    with pytest.raises(rules.BadPosition, match="south is to move with no seeds"):
        position(OWARE, a=2, captured=(23, 23))
