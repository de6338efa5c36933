"""Bao, Kenyan children's (``bao-kenya``) and Kenyan with laps (``bao-kenya-laps``).

Pit order: A..H (South), S, a..h (North, from North's left), N; A faces h, H faces a.
The laps game has no stores: A..H, a..h.
"""

import pytest
from rules_boards import counts, kinds, play, position

import rules

BAO = rules.variant("bao-kenya")
LAPS = rules.variant("bao-kenya-laps")


def test_bao_first_move_and_any_of_the_eight_hollows():
    assert [str(m) for m in BAO.legal_moves(BAO.start())] == list("ABCDEFGH")
    pos, _ = play(BAO, BAO.start(), "C")
    assert (pos.count("C"), pos.count("F"), pos.to_move) == (0, 4, rules.NORTH)


def test_bao_seventeen_seeds_skip_the_start_hollow_and_the_opponents_store():
    pos = position(BAO, A=17, C=2, a=3, b=3, c=3, d=3, e=3, f=3, g=3, h=3, N=5)
    new, events = play(BAO, pos, "A")  # B..H, S, a..h (16), N and A skipped, B
    assert new.count("A") == 0 and new.count("B") == 2 and new.count("S") == 1
    skips = [e["pit"] for e in events if e["type"] == "skip"]
    assert skips == ["N", "A"]


def test_bao_last_seed_in_own_store_moves_again():
    pos, events = play(BAO, position(BAO, C=3, H=1, a=3, b=3, c=3, d=3, e=3, f=3, g=3, h=3, S=5, N=15), "H")
    assert pos.to_move == rules.SOUTH and events[-1] == {"type": "extra_turn", "player": "south"}


def test_bao_capture_takes_the_opposite_and_leaves_the_capturing_seed():
    pos = position(BAO, A=1, C=3, a=3, b=3, c=3, d=3, e=3, f=3, g=3, h=3, S=5, N=15)
    new, events = play(BAO, pos, "A")  # B was empty; g (3) goes to S; B keeps its seed
    assert (new.count("B"), new.count("g"), new.count("S")) == (1, 0, 8)
    assert {"type": "capture", "pit": "g", "seeds": 3, "by": "south", "to": "S"} in events


def test_bao_empty_landing_facing_an_empty_hollow_captures_nothing():
    pos = position(BAO, A=1, C=3, a=3, b=3, c=3, d=3, e=3, f=3, h=6, S=5, N=15)
    new, events = play(BAO, pos, "A")
    assert (new.count("B"), new.count("S")) == (1, 5) and "capture" not in kinds(events)


def test_bao_twenty_five_in_store_wins():
    pos = position(BAO, G=2, C=3, a=3, b=3, d=3, h=3, S=23, N=8)
    new, _ = play(BAO, pos, "G")  # H, S (24): extra turn, not yet
    assert new.result is None
    new, _ = play(BAO, position(BAO, G=2, C=3, a=3, b=3, d=3, h=2, S=24, N=8), "G")
    assert new.result == rules.Result(rules.SOUTH, "south has 25 in store", (25, 8))


@pytest.mark.parametrize("stores, result", [
    ((20, 20), rules.Result(rules.NORTH, "south has no seeds", (21, 27))),
    ((23, 17), rules.Result(None, "south has no seeds", (24, 24))),
])
def test_bao_extra_turn_with_an_empty_row_ends_the_game_and_the_opponent_takes_the_rest(stores, result):
    pos = position(BAO, H=1, a=3, c=4, S=stores[0], N=stores[1])
    new, events = play(BAO, pos, "H")
    assert new.result == result
    assert counts(new) == {"S": result.score[0], "N": result.score[1]}
    assert "extra_turn" not in kinds(events)


def test_laps_first_move_relays_until_an_empty_hollow_and_captures_there():
    pos, events = play(LAPS, LAPS.start(), "C")
    # C: D E(3) lap: F G H(3) lap: a b c(3) lap: d e f(3) lap: g h A(3) lap: B C(1) D(4)
    # lap: E(1) F G H(1): H was empty, in South's row: takes a (3)
    assert [e["pit"] for e in events if e["type"] == "lap"] == ["E", "H", "c", "f", "A", "D"]
    assert counts(pos) == {"B": 3, "C": 1, "E": 1, "F": 4, "G": 4, "H": 1,
                           "b": 3, "d": 3, "e": 3, "g": 3, "h": 3}
    assert pos.captured == (3, 0) and events[-1]["type"] == "capture"


def test_laps_ending_in_the_opponents_row_captures_nothing():
    pos = position(LAPS, H=2, B=2, d=2, captured=(9, 17))
    new, events = play(LAPS, pos, "H")  # a, b (empty): the end, in North's row (b faces G: empty anyway)
    assert "capture" not in kinds(events) and new.captured == (9, 17)
    assert counts(new) == {"B": 2, "a": 1, "b": 1, "d": 2}
    pos = position(LAPS, H=2, B=2, G=3, d=2, captured=(6, 17))
    new, events = play(LAPS, pos, "H")  # the same, with G (facing b) full: still nothing
    assert "capture" not in kinds(events) and new.count("G") == 3


def test_laps_single_seed_ban():
    pos = position(LAPS, A=1, B=2, a=2, captured=(10, 17))
    assert [str(m) for m in LAPS.legal_moves(pos)] == ["B"]
    singles = position(LAPS, A=1, C=1, a=2, captured=(11, 17))
    assert [str(m) for m in LAPS.legal_moves(singles)] == ["A", "C"]


NEVER_ENDING = dict(B=3, D=1, E=2, F=1, H=4, b=2, c=1, d=6, e=6, f=1, h=1)


def naive_laps_sowing(pits: list[int], pit: int, max_laps: int) -> bool:
    """An independent plain sowing with laps on a 16-hollow ring: True if it ends within ``max_laps``."""
    for _ in range(max_laps):
        seeds, pits[pit] = pits[pit], 0
        for _ in range(seeds):
            pit = (pit + 1) % 16
            pits[pit] += 1
        if pits[pit] == 1:
            return True
    return False


def test_laps_a_never_ending_sowing_is_not_a_legal_move():
    pos = position(LAPS, "north", captured=(2, 2), **NEVER_ENDING)
    d, e = LAPS.layout.index_of("d"), LAPS.layout.index_of("e")
    assert not naive_laps_sowing(list(pos.pits), d, 20_000)
    assert naive_laps_sowing(list(pos.pits), e, 20_000)
    assert [str(m) for m in LAPS.legal_moves(pos)] == ["b", "e"]
    with pytest.raises(rules.IllegalMove, match="'d' is not a legal move"):
        LAPS.parse_move(pos, "d")


def test_laps_the_game_goes_on_while_the_player_to_move_has_seeds():
    pos = position(LAPS, "north", h=1, A=1, captured=(15, 15))
    new, _ = play(LAPS, pos, "h")  # A (2): lap: B C (empty): North is empty, but South is to move
    assert new.result is None and counts(new) == {"B": 1, "C": 1}


@pytest.mark.parametrize("captured, result", [
    ((15, 15), rules.Result(rules.SOUTH, "north has no seeds", (17, 15))),
    ((14, 16), rules.Result(None, "north has no seeds", (16, 16))),
])
def test_laps_player_to_move_without_seeds_loses_the_rest(captured, result):
    pos = position(LAPS, A=1, g=1, captured=captured)
    new, events = play(LAPS, pos, "A")  # B (empty, own row): takes g, North's last seed; South takes B
    assert new.result == result
    assert kinds(events)[-3:] == ["capture", "sweep", "game_end"]


REPEATING_GAME = "D e G e D c H f H b B d C f G b G e B f C b D c B f C b D c".split()


def test_laps_third_repetition_is_a_draw():
    game = rules.Game(LAPS)
    for text in REPEATING_GAME[:-1]:
        game.play(text)
        assert not game.is_over
    game.play(REPEATING_GAME[-1])
    assert game.result.winner is None and game.result.reason == "the position occurred 3 times"
    final = game.position
    same = [p for p in game.positions if p.pits == final.pits and p.to_move == final.to_move]
    assert len(same) == 3


def test_agreement_is_allowed_in_both_bao_games_only_where_rules_say():
    for name in ("bao-kenya", "bao-kenya-laps", "oware"):
        assert rules.Game(name).agree_draw().reason == "agreement"
    for name in ("kalah", "ethiopian", "nigerian"):
        with pytest.raises(rules.RulesError, match="do not allow a draw by agreement"):
            rules.Game(name).agree_draw()
