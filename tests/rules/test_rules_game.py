"""rules.Game: history, events, takeback, results, agreement and its JSON form."""

import json

import pytest

import rules


def test_a_game_keeps_positions_moves_and_events_in_step():
    game = rules.Game("kalah", tags={"south": "Ama", "north": "Kofi"})
    assert game.variant == rules.variant("kalah") and game.positions == [game.variant.start()]
    events = game.play("C")
    assert events[-1] == {"type": "extra_turn", "player": "south"}
    game.play(game.legal_moves()[0])
    assert [m.text for m in game.moves] == ["C", "A"]
    assert len(game.positions) == 3 and len(game.events) == 2 and game.events[0] is events
    assert game.position is game.positions[-1] and game.result is None and not game.is_over


def test_undo_takes_back_one_move_at_a_time():
    game = rules.Game("oware")
    game.play("C")
    game.play("a")
    assert game.undo().text == "a"
    assert game.position == game.positions[1] and len(game.events) == 1
    assert game.undo().text == "C"
    assert game.position == rules.variant("oware").start()
    with pytest.raises(rules.RulesError, match="no move to take back"):
        game.undo()


def test_illegal_moves_are_refused_and_change_nothing():
    game = rules.Game("kalah")
    with pytest.raises(rules.IllegalMove, match="'a' is not a legal move for south"):
        game.play("a")
    assert game.moves == [] and len(game.positions) == 1


def test_the_result_ends_the_game():
    v = rules.variant("kalah")
    start = v.position_from_json({"to_move": "south", "pits": {**{l: 0 for l in v.layout.labels},
                                                                "F": 1, "S": 23, "a": 2, "N": 22}})
    game = rules.Game(v, start)
    game.play("F")
    assert game.is_over and game.result.winner is None and game.legal_moves() == []
    with pytest.raises(rules.IllegalMove, match="the game is over"):
        game.play("A")
    game.undo()
    assert not game.is_over


def test_start_position_of_another_variant_is_refused():
    with pytest.raises(rules.RulesError, match="is a variant\\('oware'.* position"):
        rules.Game("kalah", rules.variant("oware").start())


def test_agreed_draw_only_where_the_rules_allow_it():
    game = rules.Game("bao-kenya")
    game.play("C")
    result = game.agree_draw()
    assert result == rules.Result(None, "agreement", (0, 0)) and game.result == result
    with pytest.raises(rules.RulesError, match="already over"):
        game.agree_draw()
    with pytest.raises(rules.RulesError, match="kalah: the rules do not allow a draw by agreement"):
        rules.Game("kalah").agree_draw()


def test_game_json_round_trip_replays_the_moves():
    game = rules.Game("oware", tags={"event": "club night"})
    for text in ["C", "a", "D"]:
        game.play(text)
    game.agree_draw()
    data = json.loads(json.dumps(game.to_json()))
    assert data["moves"] == ["C", "a", "D"] and data["tags"] == {"event": "club night"}
    back = rules.Game.from_json(data)
    assert back.positions == game.positions and back.result == game.result
    assert back.events == game.events


def test_game_json_with_an_illegal_move_names_it():
    data = rules.Game("kalah").to_json()
    data["moves"] = ["C", "C"]
    with pytest.raises(rules.IllegalMove, match="move 2: kalah: 'C' is not a legal move"):
        rules.Game.from_json(data)
    with pytest.raises(rules.RulesError, match="a game is a JSON object"):
        rules.Game.from_json({"moves": []})


def test_score_of_counts_stores_and_captured_seeds():
    v = rules.variant("oware")
    game = rules.Game(v)
    assert rules.score_of(game.position) == (0, 0)
    kalah = rules.variant("kalah")
    pos, _ = kalah.play(kalah.start(), kalah.parse_move(kalah.start(), "C"))
    assert rules.score_of(pos) == (1, 0)
