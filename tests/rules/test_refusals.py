"""A move refused says which rule refuses it, in every variant, before the list of legal moves:
a player who types C at the table wants to know why not C."""

from __future__ import annotations

import re

import pytest
from rules_boards import position

import rules


def refusal(variant: rules.Variant, pos: rules.Position, text: str) -> str:
    """The reason ``IllegalMove`` gives for ``text`` in ``pos``: what it says between the mover and
    the legal moves (it must give one)."""
    with pytest.raises(rules.IllegalMove) as refused:
        variant.parse_move(pos, text)
    found = re.fullmatch(rf"{re.escape(variant.name)}: '{re.escape(text)}' is not a legal move for (south|north): "
                         r"(?P<reason>.+); legal moves: .+", str(refused.value))
    assert found, str(refused.value)
    return found["reason"]


KALAH = rules.variant("kalah")


@pytest.mark.parametrize("text, reason", [
    ("a", "a is north's"),
    ("S", "S is a store: no move starts there"),
    ("N", "N is a store: no move starts there"),
    ("A", "A is empty"),
    ("pass", "a player passes only when he has no move"),
])
def test_the_pit_named_is_not_the_mover_s_to_sow(text, reason):
    assert refusal(KALAH, position(KALAH, B=4, a=4, S=20, N=20), text) == reason


def test_a_text_that_names_no_pit_gets_the_legal_moves_alone():
    with pytest.raises(rules.IllegalMove, match=r"^kalah: 'Z' is not a legal move for south; legal moves: A, B, C"):
        KALAH.parse_move(KALAH.start(), "Z")


def test_a_move_written_without_its_direction_is_shown_written():
    ethiopian = rules.variant("ethiopian")
    assert refusal(ethiopian, ethiopian.start(), "C") == "from C the legal moves are C> and C<"
    bao = rules.variant("bao-la-kujifunza")
    assert refusal(bao, bao.start(), "A1") == "from A1 the legal move is A1<"


def test_a_house_of_one_seed_in_ethiopian():
    ethiopian = rules.variant("ethiopian")
    pos = position(ethiopian, A=1, B=2, S=20, a=3, N=22)
    assert refusal(ethiopian, pos, "A>") == "a house of one seed never starts a move"


def test_oware_must_feed_and_its_forbidden_grand_slam():
    oware = rules.variant("oware")
    starved = position(oware, captured=(23, 23), A=1, F=1)  # North has nothing: only F reaches him
    assert refusal(oware, starved, "A") == "north has no seeds, and a move from A gives him none"
    forbidding = rules.variant("oware", grand_slam="forbidden")
    slam = position(forbidding, captured=(22, 23), A=1, F=1, a=1)  # F makes a 2, North's only seeds
    assert refusal(forbidding, slam, "F") == ("a move from F would capture every seed of north's row, a grand slam, "
                                              "which this game forbids (grand_slam=forbidden)")


def test_a_single_seed_and_a_sowing_that_never_ends_in_kenyan_bao_with_laps():
    bao = rules.variant("bao-kenya-laps")
    singles = position(bao, "north", (12, 16), B=1, c=2, d=1)
    assert refusal(bao, singles, "d") == "a single seed is sown only when none of your hollows holds 2 or more"
    endless = position(bao, "south", (9, 10), A=1, C=3, D=2, F=1, H=1, b=1, d=1, f=2, g=1)
    assert refusal(bao, endless, "D") == "its sowing would never end, and only a move that ends may be played"


def test_bao_la_kujifunza_chooses_its_turn_by_the_rules_order():
    bao = rules.variant("bao-la-kujifunza")
    capturing = position(bao, "north", A6=1, B1=1, B2=2, B4=2, B8=2, a2=9, a3=2, a5=18, a7=14, b1=3, b2=1, b3=1, b5=5,
                         b7=3)
    assert refusal(bao, capturing, "a2<") == "a capture (mtaji) can be made, so the turn must capture"
    assert refusal(bao, capturing, "b2<") == "a single kete never starts a turn"
    sowing = position(bao, "north", A1=1, A2=2, A3=18, A4=2, A6=6, A7=6, B2=1, B3=4, B5=5, B6=3, B7=3, a3=1, a7=6,
                      b1=2, b5=3, b7=1)
    assert refusal(bao, sowing, "b1<") == "the back row is sown only when no turn from the front row ends"


def test_a_nam_nam_hollow_is_sown_by_its_owner_of_the_round():
    nam_nam = rules.variant("nam-nam")
    owners = dict.fromkeys("ABCDEF", "south") | {"a": "south"} | dict.fromkeys("bcdef", "north")

    def second_round(to_move: str) -> rules.Position:  # South won the first, and with it North's hollow a
        return nam_nam.position_from_json({
            "to_move": to_move, "pits": dict.fromkeys(owners, 4), "captured": {"south": 0, "north": 0},
            "owners": owners, "round": 2, "round_starter": "north", "rounds": [{"south": 28, "north": 20}]})

    assert refusal(nam_nam, second_round("north"), "a") == "a is south's"
    assert "a" in [move.text for move in nam_nam.legal_moves(second_round("south"))]


def test_pass_it_on_names_the_chips_a_move_sows():
    pass_it_on = rules.variant("pass-it-on")
    start = pass_it_on.start()
    assert refusal(pass_it_on, start, "B:w") == ("B holds no white chip and 3 yellow chips: a move names each chip's "
                                                 "colour in the order it is sown (w, y), as B:yyy")
    assert refusal(pass_it_on, start, "S") == "S is an outbox: no move starts there"
    counts = {"A": 2, "B": 3, "D": 3, "E": 3, "a": 3, "b": 3, "c": 3, "d": 3, "e": 3, "N": 2, "S": 2}
    landing_empty = pass_it_on.position_from_json({  # A's last chip falls into C, empty
        "to_move": "south", "pits": {label: counts.get(label, 0) for label in pass_it_on.layout.labels},
        "white": {label: int(label in ("A", "a")) for label in pass_it_on.layout.labels}})
    assert refusal(pass_it_on, landing_empty, "A:wy") == ("the last chip from A falls into an empty section, where it "
                                                          "must be white")
    no_white = pass_it_on.position_from_json({
        "to_move": "south", "pits": {label: counts.get(label, 0) for label in pass_it_on.layout.labels},
        "white": {label: int(label in ("B", "a")) for label in pass_it_on.layout.labels}})
    assert refusal(pass_it_on, no_white, "A:yy") == ("the last chip from A falls into an empty section, where it must "
                                                     "be white, and the section holds no white chip")
