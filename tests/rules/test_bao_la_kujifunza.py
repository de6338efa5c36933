"""Bao la Kujifunza, rule by rule. Every expected position was worked out by hand from seed 004
and RULES.md (the working is in the comments), not by running the engine.

Reminders: South's clockwise track is A1..A8 then B8..B1; A(k) faces a(9-k); ``<`` is CW, ``>`` ACW.
"""

import random

import pytest

from rules_boards import counts

import rules
from rules import BadPosition

LABELS = [f"{row}{k}" for row in "ABab" for k in range(1, 9)]


def board(text: str) -> dict[str, int]:
    """``"A1:2 b3:7"`` -> counts of every shimo (0 where not named)."""
    counts = dict.fromkeys(LABELS, 0)
    for item in text.split():
        label, n = item.split(":")
        counts[label] = int(n)
    return counts


def nonzero(text: str) -> dict[str, int]:
    return {label: n for label, n in board(text).items() if n}


def position(v, text: str, to_move: str = "south"):
    return v.position_from_json({"to_move": to_move, "pits": board(text)})


def texts(v, pos) -> set[str]:
    return {m.text for m in v.legal_moves(pos)}


@pytest.fixture
def v():
    return rules.variant("bao-la-kujifunza")


def test_start_position_and_its_mtaji_moves(v):
    # Every sowing of 2 that ends on an occupied front shimo (all fronts face occupied ones):
    # A1< A2< (CW), A3..A6 both ways, A7> A8> (ACW), B8> B7> (ACW into A8/A7), B2< B1< (CW into A1/A2).
    pos = v.start()
    assert sum(pos.pits) == 64 and set(pos.pits) == {2}
    assert texts(v, pos) == {"A1<", "A2<", "A3<", "A3>", "A4<", "A4>", "A5<", "A5>", "A6<", "A6>",
                             "A7>", "A8>", "B8>", "B7>", "B2<", "B1<"}
    move = v.parse_move(pos, "A3<")
    assert (move.pit, move.direction) == (2, "cw") and v.parse_move(pos, "A3>").direction == "ccw"


def test_mtaji_capture_sowing_from_left_and_right_ends_with_laps(v):
    # A1< sows A2 3, A3 3: A3 (central column) captures a6's 2; the segment ran CW, so they are
    # sown from the far left CW: A1 1, A2 4. A2 captures a7's 2 (left column: from the left): A1 2,
    # A2 5. a7 is now empty: lap of 5 from A2 CW: A3 4, A4 3, A5 3, A6 3, A7 3. A7 captures a2's 2
    # (right column: from the far right ACW): A8 3, A7 4. Lap of 4 ACW: A6 4, A5 4, A4 4, A3 5. a6
    # empty: lap of 5 ACW: A2 1, A1 3, B1 3, B2 3, B3 3; lap of 3: B4 3, B5 3, B6 3; lap of 3: B7 3,
    # B8 3, A8 4. A8 captures a1's 2 (right column): A8 5, A7 1, which was empty: the turn ends.
    new, events = v.play(v.start(), v.parse_move(v.start(), "A1<"))
    assert counts(new) == {
        "A1": 3, "A2": 1, "A4": 4, "A5": 4, "A6": 4, "A7": 1, "A8": 5,
        "B1": 3, "B2": 3, "B4": 3, "B5": 3, "B7": 3, "B8": 3,
        "a3": 2, "a4": 2, "a5": 2, "a8": 2, **{f"b{k}": 2 for k in range(1, 9)},
    }
    assert [(e["pit"], e["sow_from"]) for e in events if e["type"] == "capture" and e["to"] == "hand"] == [
        ("a6", "A1"), ("a7", "A1"), ("a2", "A8"), ("a1", "A8")]
    assert new.to_move == 1 and new.result is None


def test_central_capture_by_an_anticlockwise_segment_is_sown_from_the_right(v):
    # A6> sows A5 3, A4 3: A4 (central) captures a5's 2; the segment ran ACW: from the far right
    # ACW: A8 3, A7 3. A7 captures a2's 2 (right column): A8 4, A7 4. Lap of 4 ACW: A6 1, A5 4,
    # A4 4, A3 3. A3 (central) captures a6's 2, made by an ACW lap: from the right: A8 5, A7 1: end.
    new, _ = v.play(v.start(), v.parse_move(v.start(), "A6>"))
    assert counts(new) == {
        "A1": 2, "A2": 2, "A3": 3, "A4": 4, "A5": 4, "A6": 1, "A7": 1, "A8": 5,
        **{f"B{k}": 2 for k in range(1, 9)},
        "a1": 2, "a3": 2, "a4": 2, "a7": 2, "a8": 2, **{f"b{k}": 2 for k in range(1, 9)},
    }


def test_left_column_capture_by_an_anticlockwise_segment_is_still_sown_from_the_left(v):
    # A3> sows A2 3, A1 3: A1 (left column) captures a8's 2, sown from the far LEFT CW though the
    # segment ran ACW: A1 4, A2 4. A2 captures a7's 2: A1 5, A2 5. Lap of 5 CW: A3 1, A4 3, A5 3,
    # A6 3, A7 3. A7 captures a2's 2 from the right ACW: A8 3, A7 4. Lap of 4 ACW: A6 4, A5 4, A4 4,
    # A3 2. A3 (central, ACW lap) captures a6's 2 from the right: A8 4, A7 1: end.
    new, _ = v.play(v.start(), v.parse_move(v.start(), "A3>"))
    assert counts(new) == {
        "A1": 5, "A3": 2, "A4": 4, "A5": 4, "A6": 4, "A7": 1, "A8": 4,
        **{f"B{k}": 2 for k in range(1, 9)},
        "a1": 2, "a3": 2, "a4": 2, "a5": 2, **{f"b{k}": 2 for k in range(1, 9)},
    }


SPARSE_NORTH = "a1:3 b1:7 b2:7 b3:7 b4:7 b5:7 b6:7 b7:7 b8:7"  # 59 kete, a1 faces A8


def test_kutakata_from_the_front_row_when_no_mtaji_exists(v):
    # No sowing of 2..15 ends on an occupied front shimo facing an occupied one (only A8 faces a1,
    # and A8 is empty), so the turn is kutakata, and B8 may not be used while A1 can.
    pos = position(v, "A1:3 B8:2 " + SPARSE_NORTH)
    assert texts(v, pos) == {"A1<", "A1>"}
    new, _ = v.play(pos, v.parse_move(pos, "A1<"))  # CW: A2 1, A3 1, A4 1 (empty): end
    assert counts(new) == {"A2": 1, "A3": 1, "A4": 1, "B8": 2, **nonzero(SPARSE_NORTH)}
    assert new.result is None


def test_back_row_kutakata_only_when_no_front_row_kutakata_exists(v):
    # Front row: only a single, so no front kutakata; B8's 5 end either way (B3 / A4 empty).
    pos = position(v, "A1:1 B8:5 " + SPARSE_NORTH.replace("b8:7", "b8:6"))
    assert texts(v, pos) == {"B8<", "B8>"}


def test_kutakata_never_captures_and_a_shimo_of_16_or_more_cannot_start_a_mtaji(v):
    # A1 holds 17: no mtaji (16+), kutakata A1<: a round of 16 (every shimo 1, A1 too), then A2 2.
    # A2 faces a7, which is occupied, but kutakata only laps: A2 2 -> A3 2, A4 2; A4 -> A5 2, A6 2;
    # A6 -> A7 2, A8 2; A8 -> B8 2, B7 2; B7 -> B6 2, B5 2; B5 -> B4 2, B3 2; B3 -> B2 2, B1 2;
    # B1 -> A1 2, A2 1 (emptied by its lap): end. a7 keeps its kete.
    north = "a7:2 b1:6 b2:6 b3:6 b4:6 b5:6 b6:5 b7:5 b8:5"
    pos = position(v, "A1:17 " + north)
    assert texts(v, pos) == {"A1<", "A1>"}
    new, events = v.play(pos, v.parse_move(pos, "A1<"))
    assert counts(new) == {"A1": 2, "A2": 1, "A3": 2, "A5": 2, "A7": 2,
                           "B8": 2, "B6": 2, "B4": 2, "B2": 2, **nonzero(north)}
    assert not [e for e in events if e["type"] == "capture"]


def test_emptying_the_opponents_front_row_wins(v):
    # A1< sows A2 1, A3 2: A3 captures a6's 2, North's last front kete: from the left, A1 1, A2 2;
    # lap of 2: A3 3, A4 1: end. North's front row is empty: South wins.
    north = "a6:2 b1:8 b2:8 b3:8 b4:7 b5:7 b6:7 b7:7 b8:7"
    pos = position(v, "A1:2 A3:1 " + north)
    assert texts(v, pos) == {"A1<"}
    new, events = v.play(pos, v.parse_move(pos, "A1<"))
    assert counts(new) == {"A1": 1, "A3": 3, "A4": 1, **nonzero(north.replace("a6:2", ""))}
    assert new.result.winner == 0 and new.result.reason == "north's front row is empty"
    assert new.result.score == (5, 59) and events[-1]["type"] == "game_end"


def test_emptying_your_own_front_row_loses(v):
    # South's only front kete: A1 2. Kutakata A1> sows B1, B2 (empty): South's front row is empty.
    north = " ".join(f"a{k}:4" for k in range(1, 9)) + " b1:4 b2:4 b3:4 b4:4 b5:4 b6:4 b7:3 b8:3"
    pos = position(v, "A1:2 " + north)
    assert texts(v, pos) == {"A1<", "A1>"}
    new, _ = v.play(pos, v.parse_move(pos, "A1>"))
    assert new.result.winner == 1 and new.result.reason == "south's front row is empty"


def test_a_player_left_with_neither_mtaji_nor_kutakata_loses(v):
    # North holds only singles. South: A1 2 and three 16s in the back row (16+ cannot start a
    # mtaji; A1's sowings land on empty shimo): kutakata A1< sows A2 1, A3 1: end. North has no
    # shimo of 2 or more: North cannot move and loses.
    north = " ".join(f"a{k}:1" for k in range(1, 9)) + " " + " ".join(f"b{k}:1" for k in range(1, 7))
    pos = position(v, "A1:2 B6:16 B7:16 B8:16 " + north)
    assert texts(v, pos) == {"A1<", "A1>"}
    new, _ = v.play(pos, v.parse_move(pos, "A1<"))
    assert counts(new)["A2"] == 1 and counts(new)["A3"] == 1
    assert new.result.winner == 0 and new.result.reason == "north has neither a mtaji nor a kutakata move"
    assert v.legal_moves(new) == []


def test_json_round_trip_and_broken_positions(v):
    pos = v.play(v.start(), v.parse_move(v.start(), "A6>"))[0]
    assert v.position_from_json(pos.to_json()) == pos
    with pytest.raises(BadPosition, match="64"):
        position(v, "A1:2 a1:2")
    with pytest.raises(BadPosition, match="north's front row is empty"):
        position(v, "A1:32 b1:32")
    stuck = " ".join(f"A{k}:1" for k in range(1, 9)) + " a1:56"  # singles only: South cannot move
    with pytest.raises(BadPosition, match="south has neither a mtaji nor a kutakata move, so the game is over"):
        position(v, stuck)
    assert texts(v, position(v, stuck, "north")), "North, to move there, can"


def test_a_never_ending_kutakata_is_not_a_legal_move(v):
    # North's front kete face A3 and A5, both empty: no mtaji. Kutakata A7> (3, ACW): A6 2, A5 1,
    # A4 2 | lap A4: A3 1, A2 3 | lap A2: A1 2, B1 1, B2 3 | lap B2: B3 2, B4 1, B5 4 | lap B5: B6 3,
    # B7 2, B8 1, A8 2 | lap A8: A7 1, A6 3 -> about to lift A6's 3 with A1 2 A3 1 A5 1 A6 3 A7 1 B8 1
    # B7 2 B6 3 B4 1 B3 2 B1 1: the start board moved one shimo ACW. Without captures only the ring
    # matters, so the same six laps repeat one shimo further each time: A7> never ends.
    # A2< ends in B1 (laps at A4 A6 A8 B7 B5), A2> in B1, A7< in B1 (laps at B7 B5).
    south = "A1:1 A2:2 A4:1 A6:1 A7:3 A8:1 B7:1 B6:2 B5:3 B3:1 B2:2"
    pos = position(v, south + " a4:2 a6:2 b1:5 b2:5 b3:5 b4:5 b5:5 b6:5 b7:6 b8:6")
    assert texts(v, pos) == {"A2<", "A2>", "A7<"}


def test_north_plays_the_same_game_from_his_own_side(v):
    # Labels, columns and directions are each player's own: North's A6> mirrored is South's A6>
    # (worked above) with the rows' letters swapped.
    pos = position(v, " ".join(f"{label}:2" for label in LABELS), to_move="north")
    assert texts(v, pos) == {"a1<", "a2<", "a3<", "a3>", "a4<", "a4>", "a5<", "a5>", "a6<", "a6>",
                             "a7>", "a8>", "b8>", "b7>", "b2<", "b1<"}
    new, _ = v.play(pos, v.parse_move(pos, "a6>"))
    south_view = {"A1": 2, "A2": 2, "A3": 3, "A4": 4, "A5": 4, "A6": 1, "A7": 1, "A8": 5,
                  **{f"B{k}": 2 for k in range(1, 9)},
                  "a1": 2, "a3": 2, "a4": 2, "a7": 2, "a8": 2, **{f"b{k}": 2 for k in range(1, 9)}}
    assert counts(new) == {label.swapcase(): n for label, n in south_view.items()}
    assert new.to_move == 0


def literal_kutakata(ring: list[int], start: int, step: int, laps: int = 2000) -> str:
    """Laps without captures round a 16-shimo ring (track order), written straight from the sheet:
    "ends" when a kete falls into an empty shimo, "repeats" when a state comes back."""
    ring, seen, at = ring[:], set(), start
    hand, ring[at] = ring[at], 0
    for _ in range(laps):
        for _ in range(hand):
            at = (at + step) % 16
            ring[at] += 1
        if ring[at] == 1:
            return "ends"
        if (tuple(ring), at) in seen:
            return "repeats"
        seen.add((tuple(ring), at))
        hand, ring[at] = ring[at], 0
    raise AssertionError("neither ended nor repeated")


def test_back_row_kutakata_when_every_front_row_kutakata_never_ends(v):
    # South's ring (A1..A8, B8..B1) is the mirror image of itself around A1 and B8, so A1's sowings
    # either way are mirror images: both never end (the ring above shows a state coming back).
    # No mtaji: A1< lands on A4, which faces the empty a5; the rest land on empty or back shimo.
    # So B8, though in the back row, may be played: B8< B7 2, B6 1 (end); B8> A8 2, A7 1 (end).
    ring = [3, 1, 0, 1, 0, 1, 0, 1, 2, 1, 0, 1, 0, 1, 0, 1]
    assert literal_kutakata(ring, 0, 1) == literal_kutakata(ring, 0, -1) == "repeats"
    south = "A1:3 A2:1 A4:1 A6:1 A8:1 B8:2 B7:1 B5:1 B3:1 B1:1"
    north = "a1:2 a2:2 a3:2 a4:2 a6:2 a7:2 a8:2 b1:5 b2:5 b3:5 b4:5 b5:5 b6:4 b7:4 b8:4"
    pos = position(v, f"{south} {north}")
    assert texts(v, pos) == {"B8<", "B8>"}
    new, _ = v.play(pos, v.parse_move(pos, "B8<"))
    assert counts(new)["B7"] == 2 and counts(new)["B6"] == 1 and "B8" not in counts(new)


def test_a_turn_whose_only_mtaji_never_ends_is_kutakata(v):
    # South's only mtaji is A8> (A7 2, A6 3: A6 faces a3's 2; every other sowing of 2 lands on an
    # empty or back shimo or faces an empty one). It captures a3 (central column, ACW segment: from
    # the far right ACW: A8 1, A7 3) and A7 faces the now empty a2: a lap of 3 ACW from A7 with
    # North's front row empty, so no capture can follow: laps only, and they repeat for ever.
    # The turn is therefore kutakata: the front-row sowings of 2 that end (laps, no captures).
    ring = [0, 1, 2, 1, 2, 2, 1, 2, 0, 1, 2, 1, 2, 1, 0, 1]  # A1..A8, B8..B1
    after_capture = [0, 1, 2, 1, 2, 3, 3, 1, 0, 1, 2, 1, 2, 1, 0, 1]  # about to lap from A7
    assert literal_kutakata(after_capture, 6, -1) == "repeats"
    south = "A2:1 A3:2 A4:1 A5:2 A6:2 A7:1 A8:2 B7:1 B6:2 B5:1 B4:2 B3:1 B1:1"
    north = "a3:2 b1:6 b2:6 b3:6 b4:5 b5:5 b6:5 b7:5 b8:5"
    pos = position(v, f"{south} {north}")
    names = [f"A{k}" for k in range(1, 9)] + [f"B{k}" for k in range(8, 0, -1)]
    expected = {names[k] + sign for k in range(8) if ring[k] >= 2
                for step, sign in ((1, "<"), (-1, ">")) if literal_kutakata(ring, k, step) == "ends"}
    assert expected and texts(v, pos) == expected



def test_remembered_moves_change_no_move_position_or_event():
    # The engine keeps the moves it worked out for the last two positions (legal_moves and play
    # reuse them; the end check of a move may work them out for the next player). Over random
    # games, an engine that remembers must give the same moves, the same positions (results
    # included) and the same events as a new engine asked each question on its own.
    warm = rules.variant("bao-la-kujifunza")
    rng = random.Random(2024)
    plies = 0
    for _ in range(40):
        pos = warm.start()
        while pos.result is None:
            moves = warm.legal_moves(pos)
            assert rules.variant("bao-la-kujifunza").legal_moves(pos) == moves
            for move in moves:  # every move in turn, as the referee's search plays them
                expected = rules.variant("bao-la-kujifunza").play(pos, move)
                assert warm.play(pos, move, events=False, check=False)[0] == expected[0]
                assert warm.play(pos, move) == expected
            pos = warm.play(pos, rng.choice(moves), events=False)[0]
            plies += 1
    assert plies > 1000


def test_the_end_check_shortcut_agrees_with_working_out_every_turn():
    # The end check answers "does the player to move have a turn that ends?" without sowing when
    # 2..15 kete fall into an empty shimo; it must agree with the full list of legal moves on
    # boards with and without moves, heaps of 16 or more, and turns that never end.
    rng = random.Random(7)
    answers = {True: 0, False: 0}
    for _ in range(3000):
        pits = [rng.choice((0, 0, 1, 1, 1, 1, 1, 1, 2)) for _ in range(32)]
        for _ in range(rng.randrange(4)):
            pits[rng.randrange(32)] += rng.choice((2, 3, 7, 15, 16, 20))
        for player in (0, 1):
            v = rules.variant("bao-la-kujifunza")  # nothing remembered
            pos = rules.Position(v, tuple(pits), player)  # any board: the end check sees unchecked ones
            expected = bool(v._work_out(pos.pits, player)[0])
            assert rules.variant("bao-la-kujifunza")._can_move(pos) == expected, (pits, player)
            answers[expected] += 1
    assert min(answers.values()) > 300, answers
