"""The rules core: layouts, the registry and its errors, Position JSON, Readings."""

import json

import pytest
from rules_boards import position

import rules
from rules import two_row_layout


# -- layouts -------------------------------------------------------------------
def test_kalah_layout_canonical_order_owners_and_grid():
    layout = rules.variant("kalah").layout
    assert layout.labels == tuple("ABCDEF") + ("S",) + tuple("abcdef") + ("N",)
    pit = {p.label: p for p in layout.pits}
    assert (pit["A"].row, pit["A"].column, pit["A"].owner) == (1, 0, 0)  # South's near row, left
    assert (pit["a"].row, pit["a"].column, pit["a"].owner) == (0, 5, 1)  # North's left is South's right
    assert (pit["S"].kind, pit["S"].row, pit["S"].column) == ("store", None, 6)
    assert (pit["N"].kind, pit["N"].column) == ("store", -1)
    assert layout.opposite[layout.index_of("A")] == layout.index_of("f")
    assert layout.opposite[layout.index_of("S")] is None
    assert layout.store(0) == 6 and layout.houses(1) == (7, 8, 9, 10, 11, 12)


def test_four_rank_layout_tracks_and_opposites():
    layout = rules.four_rank_layout(8)
    assert layout.labels[:3] == ("A1", "A2", "A3") and len(layout) == 32
    south = layout.player_tracks[0]
    assert [layout.labels[i] for i in south[:9]] == ["A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8", "B8"]
    assert layout.labels[layout.opposite[layout.index_of("A1")]] == "a8"


def test_outbox_layout_puts_outboxes_at_each_owners_left():
    layout = two_row_layout(5, "left")
    assert layout.labels == ("A", "B", "C", "D", "E", "N", "a", "b", "c", "d", "e", "S")


def test_layout_errors_name_the_problem():
    with pytest.raises(KeyError, match="no pit labelled 'Z' on a 2x6\\+stores board"):
        rules.variant("kalah").layout.index_of("Z")
    with pytest.raises(ValueError, match="1 to 26 pits, not 0"):
        two_row_layout(0)
    assert json.loads(json.dumps(rules.variant("oware").layout.to_json()))["pits"][6]["label"] == "a"


# -- registry and options ----------------------------------------------------------
MINE = ["kalah", "kalah-3", "egyptian", "ethiopian", "nigerian", "oware", "bao-kenya", "bao-kenya-laps"]


def test_registry_lists_every_variant_with_a_description():
    for name in MINE:
        assert name in rules.VARIANTS and rules.VARIANTS[name]
        assert rules.variant(name).name == name


def test_unknown_variant_lists_the_valid_names():
    with pytest.raises(rules.UnknownVariant, match="unknown variant 'awale'; variants are .*kalah.*oware"):
        rules.variant("awale")
    with pytest.raises(rules.UnknownVariant, match="variants are"):
        rules.options_of("awale")


@pytest.mark.parametrize("make", [
    lambda: rules.variant("k" * 5000),
    lambda: rules.options_of("k" * 5000),
    lambda: rules.variant("kalah", houses=10 ** 4000),
    lambda: rules.variant("kalah", houses="x" * 5000),
    lambda: rules.variant("kalah", **{"y" * 5000: 1}),
    lambda: rules.variant("oware", grand_slam="z" * 5000),
], ids=["variant", "options_of", "huge number", "long word", "long option name", "long choice"])
def test_a_long_value_is_cut_short_in_the_message(make):
    """A message that echoed a 5,000-character value in full buried what it said."""
    with pytest.raises(rules.RulesError) as refused:
        make()
    assert len(str(refused.value)) < 200 and "..." in str(refused.value)


def test_unknown_option_lists_the_valid_ones():
    with pytest.raises(rules.BadOption, match="unknown option 'grandslam'; valid options: grand_slam, "):
        rules.variant("oware", grandslam="capture")
    with pytest.raises(rules.BadOption, match="valid options: none"):
        rules.variant("nigerian", seeds=3)


def test_option_values_are_checked():
    with pytest.raises(rules.BadOption, match="grand_slam='sometimes' is not one of capture, no_capture, forbidden"):
        rules.variant("oware", grand_slam="sometimes")
    with pytest.raises(rules.BadOption, match="takes true or false"):
        rules.variant("kalah", capture_needs_opposite="yes")
    with pytest.raises(rules.BadOption, match="takes a whole number"):
        rules.variant("kalah", seeds=4.5)


def test_options_of_gives_preset_defaults():
    seeds = {o.name: o.default for o in rules.options_of("kalah-3")}["seeds"]
    assert seeds == 3
    assert {o.name: o.default for o in rules.options_of("oware")} == {
        "grand_slam": "capture", "no_feeding_move": "play_on", "repetitions": 3,
        "repetition_end": "draw", "win_leftover": "stay"}


def test_variants_compare_by_name_and_options():
    assert rules.variant("oware") == rules.variant("oware", grand_slam="capture")
    assert rules.variant("oware") != rules.variant("oware", grand_slam="forbidden")
    assert rules.variant("egyptian") != rules.variant("kalah")


# -- Position JSON -----------------------------------------------------------------
def test_position_json_names_pits_by_label_and_round_trips():
    v = rules.variant("kalah")
    pos, _ = v.play(v.start(), v.parse_move(v.start(), "D"))
    data = json.loads(json.dumps(pos.to_json()))
    assert data["variant"] == "kalah" and data["to_move"] == "north"
    assert data["pits"]["S"] == 1 and data["pits"]["a"] == 5
    assert data["captured"] == {"south": 0, "north": 0} and data["result"] is None
    assert v.position_from_json(data) == pos


def test_finished_position_round_trips_with_its_result():
    v = rules.variant("kalah")
    pos, _ = v.play(position(v, F=1, S=23, a=2, N=22), v.parse_move(position(v, F=1, S=23, a=2, N=22), "F"))
    data = json.loads(json.dumps(pos.to_json()))
    assert data["result"] == {"winner": None, "reason": "a side is empty", "score": {"south": 24, "north": 24}}
    assert v.position_from_json(data) == pos


@pytest.mark.parametrize("change, message", [
    (lambda d: d["pits"].update(A=5), "49 seeds on the board and aside, but the game has 48"),
    (lambda d: d["pits"].pop("c"), r"missing pits \['c'\]"),
    (lambda d: d["pits"].update(Z=0), r"unknown pits \['Z'\]"),
    (lambda d: d["pits"].update(A=-1), r"pits\['A'\] must be a count of 0 or more, not -1"),
    (lambda d: d["pits"].update(A="4"), r"pits\['A'\] must be a count"),
    (lambda d: d.update(to_move="east"), "to_move must be 'south' or 'north', not 'east'"),
    (lambda d: d.update(variant="oware"), "position is for variant 'oware', not 'kalah'"),
    (lambda d: d.update(options={"seeds": 3}), "options"),
    (lambda d: d.update(captured={"south": 1}), "captured must be"),
    (lambda d: d.update(captured={"south": 0.0, "north": 0}), "captured must be"),  # int() took these
    (lambda d: d.update(captured={"south": "0", "north": 0}), "captured must be"),
    (lambda d: d.update(captured={"south": False, "north": 0}), "captured must be"),
    (lambda d: d.update(captured={"south": 1, "north": 0}) or d["pits"].update(A=3),
     "'captured' must be 0 and 0"),
])
def test_bad_positions_are_rejected_with_the_reason(change, message):
    v = rules.variant("kalah")
    data = v.start().to_json()
    change(data)
    with pytest.raises(rules.BadPosition, match=message):
        v.position_from_json(data)


@pytest.mark.parametrize("score", ["24", 24.5, True, -1])
def test_a_result_whose_score_is_no_count_is_rejected(score):
    v = rules.variant("kalah")
    pos, _ = v.play(position(v, F=1, S=23, a=2, N=22), v.parse_move(position(v, F=1, S=23, a=2, N=22), "F"))
    data = pos.to_json()
    data["result"]["score"]["south"] = score
    with pytest.raises(rules.BadPosition, match="malformed result"):
        v.position_from_json(data)


def test_repetition_history_json_is_checked():
    v = rules.variant("oware")
    data = v.start().to_json()
    assert data["history"] == [{"to_move": "south", "pits": data["pits"]}]
    data["history"] = [{"to_move": "south", "pits": {"A": 4}}]
    with pytest.raises(rules.BadPosition, match=r"history\[0\] must be .*naming every pit"):
        v.position_from_json(data)
    data["history"] = [{"to_move": "south", "pits": {**data["pits"], "A": 4.0}}]  # int() took it
    with pytest.raises(rules.BadPosition, match=r"history\[0\] must be .*naming every pit"):
        v.position_from_json(data)
    data["history"] = [{"to_move": "north", "pits": v.start().to_json()["pits"]}]
    with pytest.raises(rules.BadPosition, match="history does not contain the current position"):
        v.position_from_json(data)
    del data["history"]  # a position seen for the first time
    assert v.position_from_json(data) == v.start()


def test_not_json_at_all():
    with pytest.raises(rules.BadPosition, match="a position is a JSON object, not list"):
        rules.variant("kalah").position_from_json([1, 2])


# -- moves -------------------------------------------------------------------------
def test_move_text_round_trips_and_illegal_text_is_explained():
    for name in MINE:
        v = rules.variant(name)
        pos = v.start()
        for move in v.legal_moves(pos):
            assert v.parse_move(pos, str(move)) == move
    v = rules.variant("kalah")
    with pytest.raises(rules.IllegalMove, match="'G' is not a legal move for south; legal moves: A, B, C, D, E, F"):
        v.parse_move(v.start(), "G")
    with pytest.raises(rules.IllegalMove, match="'a' is not a legal move"):
        v.play(v.start(), rules.Move(7, "a"))


# -- Readings ------------------------------------------------------------------------
def test_reading_json_round_trip_and_unseen_pits():
    pos = rules.variant("kalah").start()
    reading = rules.Reading.of_position(pos, source="vision", time=12.5)
    data = json.loads(json.dumps(reading.to_json()))
    data["pits"]["C"] = None
    back = rules.Reading.from_json(data)
    assert back.unseen == ["C"] and back.source == "vision" and back.time == 12.5
    assert back.most_likely_counts()["A"] == 4 and back.pits["A"].probability(4) == 1.0
    assert rules.pit_reading([1, 3]).counts == (0.25, 0.75)
    assert rules.pit_reading([1, 1, 2]).credible_set(0.5) == [2]


@pytest.mark.parametrize("data, message", [
    ([], "a Reading is a JSON object with a 'pits' object"),
    ({"pits": {"A": 3}}, r"pits\['A'\] must be null or an object with a list 'p'"),
    ({"pits": {"A": {"p": [0, 0]}}}, r"pits\['A'\].p: probabilities sum to zero"),
    ({"pits": {"A": {"p": [1, -1]}}}, "finite and non-negative"),
    ({"pits": {"A": {"p": [1], "white": 2}}}, "white must be a list"),
    ({"pits": {}, "time": "noon"}, "time must be a number, not 'noon'"),
    ({"pits": {"A": {"p": [10 ** 400, 1]}}}, r"pits\['A'\].p: probabilities must be numbers, got \[100000000000000000\.\.\."),
    ({"pits": {"A": {"p": ["x", 1]}}}, r"pits\['A'\].p: probabilities must be numbers, got \['x', 1\]"),
])
def test_bad_readings_are_explained(data, message):
    with pytest.raises(rules.BadReading, match=message):
        rules.Reading.from_json(data)


@pytest.mark.parametrize("option", ["name", "description", "self"])
def test_an_option_named_as_a_constructor_argument_is_an_unknown_option(option):
    """The dashboard's New game passes the options a browser sent: their names are the user's."""
    with pytest.raises(rules.BadOption, match=rf"kalah: unknown option '{option}'; valid options: houses"):
        rules.variant("kalah", **{option: 1})
