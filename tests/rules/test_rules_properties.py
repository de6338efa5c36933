"""Properties of random games of every registered variant (hypothesis picks the games).

For every position of every game: seeds are conserved and the position is
valid; legal moves are empty exactly when the game is over; every legal
move's text parses back to it; the JSON form round-trips; playing is
deterministic and the same with or without events; the events end with
``game_end`` exactly when the move ends the game. Every game ends within
``MAX_MOVES`` (a stalemate rule counts as an end). Every event has the type
and fields that ``rules/events.py`` documents, and every documented one occurs.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rules

MAX_MOVES = 50_000  # Nam Nam plays rounds until one player holds all 48: thousands of moves
JSON_EVERY = 7  # JSON round trips are the slow part: check every 7th position (and the last)


def play_random_game(variant: rules.Variant, seed: int) -> list[rules.Position]:
    rnd = random.Random(seed)
    pos = variant.start()
    positions = [pos]
    for ply in range(MAX_MOVES):
        moves = variant.legal_moves(pos)
        if pos.result is not None:
            assert moves == [], f"{variant.name}: legal moves after the end ({pos.result.reason})"
            break
        assert moves, f"{variant.name}: no legal move but no result in {pos!r}"
        move = moves[rnd.randrange(len(moves))]
        assert variant.parse_move(pos, str(move)) == move
        new, events = variant.play(pos, move)
        quiet, no_events = variant.play(pos, move, events=False, check=False)
        again, events_again = variant.play(pos, move)
        assert new == quiet == again and events == events_again and no_events == []
        assert (events[-1]["type"] == "game_end") == (new.result is not None), events[-3:]
        variant.validate(new)
        if ply % JSON_EVERY == 0 or new.result is not None:
            assert variant.position_from_json(json.loads(json.dumps(new.to_json()))) == new
        pos = new
        positions.append(pos)
    assert pos.result is not None, f"{variant.name}: no end after {MAX_MOVES} moves"
    return positions


@pytest.mark.parametrize("name", sorted(rules.VARIANTS))
@settings(max_examples=30, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_random_games_keep_every_rule_of_the_engine(name, seed):
    play_random_game(rules.variant(name), seed)


@pytest.mark.parametrize("name", sorted(rules.VARIANTS))
def test_game_replays_and_takes_back_a_random_game(name):
    variant = rules.variant(name)
    positions = play_random_game(variant, 7)
    game = rules.Game(variant)
    for pos in positions[1:]:
        move = next(m for m in game.legal_moves() if variant.play(game.position, m, events=False)[0] == pos)
        game.play(move)
    assert game.positions == positions and game.result == positions[-1].result
    back = rules.Game.from_json(json.loads(json.dumps(game.to_json())))
    assert back.positions == positions
    while game.moves:
        game.undo()
    assert game.positions == [variant.start()]


EVENT_REPLAYED = ["kalah", "kalah-3", "egyptian", "ethiopian", "nigerian", "oware", "bao-kenya", "bao-kenya-laps"]


def replay_events(pos: rules.Position, events: list[dict]) -> tuple[list[int], list[int]]:
    """Rebuild the pits and captured seeds after a move from its events alone, as an
    animation (dashboard, LEDs) would; asserts every event agrees with the board so far."""
    layout = pos.variant.layout
    at = layout.index_of
    pits, captured, hand = list(pos.pits), list(pos.captured), 0
    for event in events:
        kind = event["type"]
        if kind in ("lift", "lap"):
            assert hand == 0 and pits[at(event["pit"])] == event["seeds"] > 0, event
            hand, pits[at(event["pit"])] = event["seeds"], 0
        elif kind == "drop":
            hand -= 1
            pits[at(event["pit"])] += 1
            assert hand >= 0 and pits[at(event["pit"])] == event["count"], event
        elif kind in ("capture", "sweep"):
            assert pits[at(event["pit"])] >= event["seeds"] > 0, event
            pits[at(event["pit"])] -= event["seeds"]
            player = rules.PLAYER_NAMES.index(event["by"])
            store = event.get("to", "captured" if layout.store(player) is None else layout.labels[layout.store(player)])
            if store == "captured":
                captured[player] += event["seeds"]
            else:
                pits[at(store)] += event["seeds"]
        else:
            assert kind in ("skip", "extra_turn", "pass", "game_end"), event
    assert hand == 0
    return pits, captured


@pytest.mark.parametrize("name", EVENT_REPLAYED)
@settings(max_examples=10, deadline=None, database=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_events_alone_rebuild_every_move(name, seed):
    variant = rules.variant(name)
    positions = play_random_game(variant, seed)
    for before, after in zip(positions, positions[1:]):
        move = next(m for m in variant.legal_moves(before) if variant.play(before, m, events=False)[0] == after)
        pits, captured = replay_events(before, variant.play(before, move)[1])
        assert (tuple(pits), tuple(captured)) == (after.pits, after.captured)


# rules/events.py's vocabulary: for every event type, the fields it always has and those it may add
EVENT_FIELDS = {
    "lift": ({"pit", "seeds"}, set()),
    "drop": ({"pit", "count"}, {"colour"}),
    "skip": ({"pit"}, set()),
    "lap": ({"pit", "seeds"}, set()),
    "capture": ({"pit", "seeds", "by", "to"}, {"sow_from"}),
    "extra_turn": ({"player"}, set()),
    "pass": ({"player"}, set()),
    "penalty": ({"player", "outbox", "colour", "points"}, set()),
    "sweep": ({"pit", "seeds", "by"}, set()),
    "round_end": ({"round", "captured"}, set()),
    "setup": ({"round", "starts", "owners"}, set()),
    "game_end": ({"winner", "reason", "score"}, set()),
}


def test_random_games_speak_exactly_the_documented_event_vocabulary():
    """The dashboard, the app's records and the referee read events by these types and keys:
    a variant may not invent one, and every documented one is really produced."""
    seen = set()
    for name in sorted(rules.VARIANTS):
        variant = rules.variant(name)
        rnd = random.Random(3)
        for _ in range(3):
            pos = variant.start()
            while pos.result is None:
                moves = variant.legal_moves(pos)
                pos, events = variant.play(pos, moves[rnd.randrange(len(moves))])
                for event in events:
                    required, optional = EVENT_FIELDS[event["type"]]
                    assert required <= event.keys() - {"type"} <= required | optional, (name, event)
                    seen.update((event["type"], key) for key in event)
    assert seen == {(kind, key) for kind, (required, optional) in EVENT_FIELDS.items()
                    for key in {"type"} | required | optional}
