"""Pass It On, rule by rule. Every expected position was worked out by hand from seed 000
and RULES.md (the working is in the comments), not by running the engine.

The track: A B C D E N a b c d e S A ...; boards are written ``"A:wyy N:y"`` (the colours of the
chips in each pit, 0 where not named).
"""

import pytest

import rules
from rules import BadPosition, IllegalMove, RulesError

LABELS = "ABCDENabcdeS"


def position(v, text: str, to_move: str = "south", penalties=(0, 0), chips=((0, 0), (0, 0)),
             match=(0, 0), game: int = 1, starter: str = "south"):
    colours = dict.fromkeys(LABELS, "")
    for item in text.split():
        label, chip_colours = item.split(":")
        colours[label] = chip_colours
    return v.position_from_json({
        "to_move": to_move,
        "pits": {label: len(c) for label, c in colours.items()},
        "white": {label: c.count("w") for label, c in colours.items()},
        "penalties": {"south": penalties[0], "north": penalties[1]},
        "penalty_chips": {side: {"yellow": chips[k][0], "white": chips[k][1]}
                          for k, side in enumerate(("south", "north"))},
        "match": {"south": match[0], "north": match[1]},
        "game": game,
        "game_starter": starter,
    })


def texts(v, pos) -> list[str]:
    return [m.text for m in v.legal_moves(pos)]


@pytest.fixture
def v():
    return rules.variant("pass-it-on")


def test_start_position_and_first_moves(v):
    # A (w y y) ends in D, occupied: all 3 orders. B, D, E end in occupied pits. C's 3 yellows end
    # in North's outbox, empty, and hold no white: not permitted.
    pos = v.start()
    assert pos.pits == (3, 3, 3, 3, 3, 0, 3, 3, 3, 3, 3, 0)
    assert pos.white == (1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0)
    assert texts(v, pos) == ["A:wyy", "A:ywy", "A:yyw", "B:yyy", "D:yyy", "E:yyy"]


def test_chips_fall_in_the_chosen_colour_order(v):
    # A:ywy: B gets a yellow (4), C the white (4), D a yellow (4).
    new, events = v.play(v.start(), v.parse_move(v.start(), "A:ywy"))
    assert new.pits == (0, 4, 4, 4, 3, 0, 3, 3, 3, 3, 3, 0)
    assert new.white == (0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0)
    assert [(e["pit"], e["colour"]) for e in events if e["type"] == "drop"] == [("B", "y"), ("C", "w"), ("D", "y")]
    assert new.to_move == 1


@pytest.mark.parametrize("section, expected", [
    ("C:ywy", ["C:yyw"]),          # one white: it must be the last chip into the empty outbox N
    ("C:wwy", ["C:wyw", "C:yww"]),  # two whites: the C(2, 1) orders that end in white
    ("C:yyy", []),                  # no white: C may not be played
])
def test_a_last_chip_into_an_empty_pit_must_be_white(v, section, expected):
    whites = section.count("w")
    rest = "A:" + "y" * (10 + whites) + " a:yyy b:yyy c:yyy d:yyy e:yyy" + " S:" + "w" * (2 - whites)
    pos = position(v, f"{section} {rest}")
    assert [t for t in texts(v, pos) if t.startswith("C")] == expected


def test_the_lifted_section_counts_as_empty_when_the_last_chip_comes_back_to_it(v):
    # B's 12 chips: the 12th falls back into B, empty since it was lifted: it must be white.
    north = "a:yyy b:yyy c:yyy d:yyy e:yyyy"
    all_yellow = position(v, "A:w B:yyyyyyyyyyyy " + north + " S:w")
    assert not [t for t in texts(v, all_yellow) if t.startswith("B")]
    one_white = position(v, "A:w B:yyyyyyyyyyyw " + north + " S:y")
    assert [t for t in texts(v, one_white) if t.startswith("B")] == ["B:yyyyyyyyyyyw"]


def test_an_earlier_drop_of_the_same_move_makes_the_last_pit_occupied(v):
    # B's 13 yellows: the 1st and the 13th fall into C, empty before the move: not empty for the 13th.
    pos = position(v, "A:w B:yyyyyyyyyyyyy a:yyy b:yyy c:yyy d:yyy e:yyy S:w")
    assert "B:yyyyyyyyyyyyy" in texts(v, pos)


BLOCKED = "D:yyy b:yyyyy c:yyyyy d:yyyyy e:yyyyyyy"  # South's only section ends in empty a, no white


def test_a_blocked_player_passes_taking_any_distinct_chip_from_either_outbox(v):
    pos = position(v, BLOCKED + " S:ywyy N:w")
    assert texts(v, pos) == ["pass:S:w", "pass:S:y", "pass:N:w"]
    new, events = v.play(pos, v.parse_move(pos, "pass:S:w"))
    assert new.pits[LABELS.index("S")] == 3 and new.white[LABELS.index("S")] == 0
    assert new.state[0] == (1, 0) and new.state[1] == ((0, 1), (0, 0))
    assert events[1] == {"type": "penalty", "player": "south", "outbox": "S", "colour": "w", "points": 1}
    assert new.to_move == 1 and new.result is None
    assert v.position_from_json(new.to_json()) == new


def test_with_both_outboxes_empty_the_point_counts_and_no_chip_is_taken(v):
    pos = position(v, "D:yyy b:wwyyyyy c:yyyyy d:yyyyy e:yyyyyyyyy", penalties=(2, 0), chips=((1, 0), (0, 0)))
    assert texts(v, pos) == ["pass"]
    new, _ = v.play(pos, v.parse_move(pos, "pass"))
    assert new.state[0] == (3, 0) and new.state[1] == ((1, 0), (0, 0)) and new.pits == pos.pits


LAST_PASS = "D:yyy b:wwyyy c:yyyyy d:yyyyy e:yyyyyy N:y"  # South blocked, 5 chips aside


def test_the_sixth_penalty_point_loses_by_default_for_25(v):
    pos = position(v, LAST_PASS, penalties=(5, 1),
                   chips=((4, 0), (1, 0)), match=(100, 200))
    new, _ = v.play(pos, v.parse_move(pos, "pass:N:y"))
    assert new.result == rules.Result(1, "south has 6 penalty points (win by default)", (0, 25))
    assert new.state[2] == (100, 225) and v.legal_moves(new) == []


def test_emptying_your_sections_wins_50_plus_5_per_opponent_penalty_and_chip_minus_own(v):
    # E's white goes to the empty outbox N (white last: permitted); South's sections are empty.
    # 50 + 5 x 2 (North's penalties) + 5 x 12 (chips in North's sections) - 5 x 1 = 115.
    pos = position(v, "E:w a:yyy b:yyy c:yyy d:yyy S:wyyyyyyyyyyyyy", penalties=(1, 2),
                   chips=((1, 0), (2, 0)), match=(400, 300))
    new, events = v.play(pos, v.parse_move(pos, "E:w"))
    assert new.result == rules.Result(0, "south emptied his sections", (115, 0))
    assert new.state[2] == (515, 300) and events[-1]["type"] == "game_end"
    assert v.match_winner(new) == 0
    with pytest.raises(RulesError, match="match is over"):
        v.next_game(new)


def test_the_match_target_is_an_option(v):
    w = rules.variant("pass-it-on", match_target=100)
    pos = position(w, "E:w a:yyy b:yyy c:yyy d:yyy S:wyyyyyyyyyyyyy", penalties=(1, 2), chips=((1, 0), (2, 0)))
    new, _ = w.play(pos, w.parse_move(pos, "E:w"))
    assert new.state[2] == (115, 0) and w.match_winner(new) == 0
    assert v.match_winner(v.position_from_json({**new.to_json(), "options": v.options})) is None


def test_next_game_carries_the_match_and_the_loser_starts(v):
    pos = position(v, LAST_PASS, penalties=(5, 1), chips=((4, 0), (1, 0)),
                   match=(100, 200), game=3, starter="north")
    final, _ = v.play(pos, v.parse_move(pos, "pass:N:y"))  # North wins game 3 by default
    nxt = v.next_game(final)
    assert nxt.to_move == 0 and nxt.state == ((0, 0), ((0, 0), (0, 0)), (100, 225), 4, 0)
    assert nxt.pits == v.start().pits and nxt.white == v.start().white
    w = rules.variant("pass-it-on", loser_starts=False)
    final_w, _ = w.play(w.position_from_json({**pos.to_json(), "options": w.options}), w.parse_move(pos, "pass:N:y"))
    assert w.next_game(final_w).to_move == 0  # North started game 3, so South starts game 4 anyway
    final_w2 = w.position_from_json({**final_w.to_json(), "game_starter": "south"})
    assert w.next_game(final_w2).to_move == 1
    with pytest.raises(RulesError, match="not over"):
        v.next_game(v.start())


def test_illegal_colour_orders_are_refused_with_the_legal_ones(v):
    with pytest.raises(IllegalMove, match=r"'A:yyy' is not a legal move for south: A holds 1 white chip and 2 yellow "
                                          r"chips: a move names each chip's colour in the order it is sown \(w, y\), as "
                                          r"A:wyy; legal moves: A:wyy"):
        v.parse_move(v.start(), "A:yyy")


def test_json_round_trip_and_broken_positions(v):
    pos = v.play(v.start(), v.parse_move(v.start(), "A:yyw"))[0]
    data = pos.to_json()
    assert data["white"]["D"] == 1 and data["penalties"] == {"south": 0, "north": 0}
    assert data["match"] == {"south": 0, "north": 0} and data["game"] == 1
    assert v.position_from_json(data) == pos
    with pytest.raises(BadPosition, match="pit B holds 4 chips but 5 white"):
        v.position_from_json({**data, "white": {**data["white"], "B": 5, "D": 0, "a": 0}})
    with pytest.raises(BadPosition, match="3 white chips"):
        v.position_from_json({**data, "white": {**data["white"], "B": 1}})
    with pytest.raises(BadPosition, match="penalty chips for 0 penalty points"):
        v.position_from_json({**data, "pits": {**data["pits"], "B": 3},
                              "penalty_chips": {"south": {"yellow": 1, "white": 0}, "north": {"yellow": 0, "white": 0}}})
    with pytest.raises(BadPosition, match="penalties"):
        v.position_from_json({**data, "penalties": {"south": -1, "north": 0}})


def test_a_match_already_won_has_no_game_in_progress(v):
    """Positions read from outside (a record's Start tag): only a game's winner scores, and the
    match ends with the game that brings him to the target."""
    data = v.start().to_json()
    with pytest.raises(BadPosition, match="north has 700 match points of the 500 that win the match, so no game of it "
                                          "is still being played"):
        v.position_from_json({**data, "match": {"south": 0, "north": 700}})
    with pytest.raises(BadPosition, match="both players have 500 match points or more"):
        v.position_from_json({**data, "match": {"south": 600, "north": 500}})
    assert v.position_from_json({**data, "match": {"south": 499, "north": 0}}).state[2] == (499, 0)


def test_a_position_without_the_extra_state_is_a_first_game_without_penalties(v):
    data = v.start().to_json()
    bare = {key: data[key] for key in ("to_move", "pits", "white")}
    assert v.position_from_json(bare) == v.start()
    with pytest.raises(BadPosition, match="white chips of every pit"):
        v.position_from_json({key: data[key] for key in ("to_move", "pits")})


def test_north_sows_through_souths_outbox_and_row(v):
    # After South's B:yyy (C 4, D 4, E 4): North's a ends in d, b in e, d in A (past S): occupied.
    # c ends in S (empty) and e in B (emptied by South), both with no white: not permitted.
    pos, _ = v.play(v.start(), v.parse_move(v.start(), "B:yyy"))
    assert texts(v, pos) == ["a:wyy", "a:ywy", "a:yyw", "b:yyy", "d:yyy"]
    new, _ = v.play(pos, v.parse_move(pos, "d:yyy"))  # e 4, S 1, A 4
    assert new.pits == (4, 0, 4, 4, 4, 0, 3, 3, 3, 0, 4, 1)
    assert new.white == (1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0)


def test_a_hand_gives_one_move_per_distinct_colour_order(v):
    # A's 5 chips (2 white) end in N: empty -> the C(4, 1) = 4 orders ending in white; with a chip
    # in N -> all C(5, 2) = 10 distinct orders (not 5! = 120 permutations).
    south = "A:wwyyy B:yyy C:yyy D:yyy E:yyy a:yyy b:yyy c:yyy d:yy"
    empty_n = [t for t in texts(v, position(v, south + " e:yy")) if t.startswith("A")]
    assert empty_n == ["A:wyyyw", "A:ywyyw", "A:yywyw", "A:yyyww"]
    occupied_n = [t for t in texts(v, position(v, south + " e:y N:y")) if t.startswith("A")]
    assert len(occupied_n) == len(set(occupied_n)) == 10
    assert all(sorted(t[2:]) == sorted("wwyyy") for t in occupied_n)
