"""Nigerian: both stores on the track, owners take every house that reaches 4, laps.

Pit order: A B C D E F S a b c d e f N, all on everyone's track.
"""

import pytest
from rules_boards import counts, kinds, play, position

import rules

NIGERIAN = rules.variant("nigerian")


def test_first_move_ends_in_the_store_without_an_extra_turn():
    pos, events = play(NIGERIAN, NIGERIAN.start(), "C")
    assert (pos.count("S"), pos.to_move) == (1, rules.NORTH)
    assert "extra_turn" not in kinds(events)


def test_sowing_into_the_opponents_store_and_his_4_goes_to_him_mid_sowing():
    pos = position(NIGERIAN, A=2, F=3, S=10, a=3, c=2, N=28)
    new, events = play(NIGERIAN, pos, "F")  # S, a (4: North's), b (was empty: the end)
    assert counts(new) == {"A": 2, "S": 11, "b": 1, "c": 2, "N": 32}
    assert {"type": "capture", "pit": "a", "seeds": 4, "by": "north", "to": "N"} in events
    assert new.to_move == rules.NORTH


def test_a_house_already_holding_4_is_passed_over_and_not_taken():
    pos = position(NIGERIAN, A=2, B=4, S=10, b=2, N=30)
    new, events = play(NIGERIAN, pos, "A")  # B 5 (not 4), C empty: the end
    assert counts(new) == {"B": 5, "C": 1, "S": 10, "b": 2, "N": 30}
    assert "capture" not in kinds(events)


def test_relay_ending_in_an_empty_house():
    pos = position(NIGERIAN, A=2, C=4, S=10, b=2, N=30)
    new, events = play(NIGERIAN, pos, "A")  # B, C (5): lap: D E F S a (empty)
    assert counts(new) == {"B": 1, "D": 1, "E": 1, "F": 1, "S": 11, "a": 1, "b": 2, "N": 30}
    assert {"type": "lap", "pit": "C", "seeds": 5} in events


def test_relay_ending_in_a_store():
    pos = position(NIGERIAN, A=1, B=4, S=10, b=3, N=30)
    new, _ = play(NIGERIAN, pos, "A")  # B (5): lap: C D E F S
    assert counts(new) == {"C": 1, "D": 1, "E": 1, "F": 1, "S": 11, "b": 3, "N": 30}


def test_relay_ending_on_a_4_that_the_owner_takes():
    pos = position(NIGERIAN, A=1, B=2, E=3, S=10, b=2, N=30)
    new, events = play(NIGERIAN, pos, "A")  # B (3): lap: C D E (4, South's): taken, the end
    assert counts(new) == {"C": 1, "D": 1, "S": 14, "b": 2, "N": 30}
    assert kinds(events)[-2:] == ["drop", "capture"]


def test_last_seed_making_4_in_the_opponents_house_goes_to_him_and_ends_the_move():
    pos = position(NIGERIAN, F=2, S=10, a=3, b=1, N=32)
    new, _ = play(NIGERIAN, pos, "F")  # S, a (4): North takes it; no lap
    assert counts(new) == {"S": 11, "b": 1, "N": 36}


def test_the_start_house_is_sown_into_and_taken_on_a_later_lap():
    pos = position(NIGERIAN, "north", A=5, C=1, D=6, E=6, S=3, a=5, b=5, c=5, d=5, e=1, f=5, N=1)
    new, events = play(NIGERIAN, pos, "f")
    drops_into_f = [e["count"] for e in events if e["type"] == "drop" and e["pit"] == "f"]
    assert drops_into_f == [1, 2, 3, 4]
    assert {"type": "capture", "pit": "f", "seeds": 4, "by": "north", "to": "N"} in events
    assert new.count("f") == 0
    assert sum(new.pits) == 48


def test_game_ends_when_the_next_player_has_no_seeds_and_board_seeds_count_for_nobody():
    pos = position(NIGERIAN, A=1, C=2, S=20, N=25)
    new, events = play(NIGERIAN, pos, "A")
    assert new.result == rules.Result(rules.NORTH, "north has no seeds", (20, 25))
    assert counts(new) == {"B": 1, "C": 2, "S": 20, "N": 25}
    assert events[-1]["type"] == "game_end"


def test_a_position_whose_player_to_move_has_no_seeds_is_over():
    with pytest.raises(rules.BadPosition, match="north has no seeds"):
        position(NIGERIAN, "north", A=1, C=2, S=20, N=25)
