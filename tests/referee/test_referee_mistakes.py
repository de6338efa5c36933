"""The mistake catalogue: each mistake made on purpose, in every variant where it can happen.

The mistaken boards are built here from the engine's own events and the layout,
independently of ``rules.referee.mistakes``: drops and skips come from the
events of a legal move, and the mistake is applied to them by hand. A board
that some legal sequence happens to explain is not a mistake and is passed
over; every board that is judged illegal must be diagnosed as the mistake made.

Where each can happen: a skipped pit, a forgotten capture and a move out of
turn everywhere (captures: wherever there are any); the opponent's store only
where it is off the mover's track (Kalah family, Ethiopian, Bao Kenya); the
wrong direction where the variant has one direction; a yellow last chip in
Pass It On. Sowing the opponent's pit can happen everywhere: it is told from
the opponent's own move out of turn only where that move would lap, capture or
pass a store the mover skips, so it is made there (elsewhere the two leave one
board and are named together, see the last test); on four ranks the opponent's
kete lie on his own rows only, and are sown along them. A capture that may not
be made is not catalogued for Bao la Kujifunza, where captured kete are sown
on at once (no raw-sowing form); a forgotten capture there is a move that
stopped where its capture was due.
"""

from __future__ import annotations

import random
from typing import Callable, Iterator

import pytest

import rules
from referee_games import random_game, reading
from rules.referee import judge

CASES = 3            # boards judged illegal per variant and mistake
GAMES = 40           # random games searched for situations where the mistake can be made

CAPTURING = sorted(n for n in rules.VARIANTS if n != "pass-it-on")
OWN_STORE_ONLY = ["bao-kenya", "egyptian", "ethiopian", "kalah", "kalah-3"]  # the opponent's store is skipped
ONE_WAY = sorted(n for n in rules.VARIANTS if n not in ("ethiopian", "bao-la-kujifunza"))

Board = tuple[list[int], "list[int] | None"]


def situations(name: str, seed: str) -> Iterator[tuple[rules.Position, rules.Move, rules.Position, list[dict]]]:
    """(position, legal move, position after, events) over random games of ``name``."""
    variant = rules.variant(name)
    rng = random.Random(seed)
    for _ in range(GAMES):
        for pos in random_game(variant, rng):
            for move in variant.legal_moves(pos):
                if not move.is_pass:
                    new, events = variant.play(pos, move)
                    yield pos, move, new, events


def drops(events: list[dict]) -> list[str]:
    return [e["pit"] for e in events if e["type"] == "drop"]


def single_segment(events: list[dict], captures: bool = False) -> bool:
    kinds = {e["type"] for e in events}
    return "lap" not in kinds and (captures or "capture" not in kinds) and "game_end" not in kinds \
        and "round_end" not in kinds


def sown(pos: rules.Position, start: str, pits_in_order: list[str], colours: str = "") -> Board:
    """``pos`` with ``start`` lifted and one seed dropped in each of ``pits_in_order``."""
    labels = pos.variant.layout.labels
    pits = list(pos.pits)
    white = list(pos.white) if pos.white is not None else None
    pits[labels.index(start)] = 0
    if white is not None:
        white[labels.index(start)] = 0
    for k, label in enumerate(pits_in_order):
        pits[labels.index(label)] += 1
        if white is not None and k < len(colours) and colours[k] == "w":
            white[labels.index(label)] += 1
    return pits, white


def ccw_track(variant: rules.Variant, player: int) -> list[str]:
    """The CCW cycle of pit labels ``player`` sows along (the opponent's store off it where skipped)."""
    layout = variant.layout
    skipped = layout.store(1 - player) if variant.name in OWN_STORE_ONLY else None
    return [layout.labels[i] for i in layout.track if i != skipped]


def check(name: str, code: str, boards: Iterator[tuple[rules.Position, Board, str]]) -> None:
    found = 0
    for pos, (pits, white), words in boards:
        if min(pits) < 0:
            continue
        verdict = judge([pos], reading(pos.variant, pits, white))
        if verdict.kind != "illegal":
            continue  # a legal explanation fits this board: not a mistake after all
        assert verdict.mistake is not None and verdict.mistake.code == code, (
            f"{name}: made '{code}' ({words}), diagnosed {verdict.mistake}")
        assert verdict.differences, "an illegal verdict names the pits that differ"
        assert verdict.best is not None and verdict.best.kind in ("move", "unchanged")
        found += 1
        if found == CASES:
            return
    pytest.fail(f"{name}: found only {found} situations for '{code}'")


# -- the mistakes, made by hand ---------------------------------------------------------------
def skipped_pit(name: str) -> Iterator[tuple[rules.Position, Board, str]]:
    for pos, move, _, events in situations(name, f"skip {name}"):
        d = drops(events)
        if single_segment(events) and len(d) >= 3 and len(set(d)) == len(d):
            # the pit after the last one: where one more seed would have gone
            probe_pits = list(pos.pits)
            probe_pits[move.pit] += 1
            probe = pos._replace(pits=tuple(probe_pits), white=None if pos.white is None else tuple(
                w + (i == move.pit and move.colours[-1:] == "w") for i, w in enumerate(pos.white)))
            probe_move = move._replace(colours=move.colours + move.colours[-1:]) if move.colours else move
            further = drops(pos.variant.play(probe, probe_move, check=False)[1])[len(d)]
            yield pos, sown(pos, pos.variant.layout.labels[move.pit], d[:1] + d[2:] + [further],
                            move.colours[:1] + move.colours[2:] + move.colours[-1:]), f"{move.text} without {d[1]}"


def opponent_store(name: str) -> Iterator[tuple[rules.Position, Board, str]]:
    for pos, move, _, events in situations(name, f"store {name}"):
        skips = [k for k, e in enumerate(events) if e["type"] == "skip"]
        store = pos.variant.layout.labels[pos.variant.layout.store(1 - pos.to_move)]
        if single_segment(events) and skips and events[skips[0]]["pit"] == store:
            d = drops(events)
            before = sum(1 for e in events[:skips[0]] if e["type"] == "drop")
            yield pos, sown(pos, pos.variant.layout.labels[move.pit], d[:before] + [store] + d[before:-1]), \
                f"{move.text} into {store}"


def forgot_capture(name: str) -> Iterator[tuple[rules.Position, Board, str]]:
    """The captures that end a move (after its last drop), left undone."""
    labels = rules.variant(name).layout.labels
    for pos, move, new, events in situations(name, f"forgot {name}"):
        if any(e["type"] in ("round_end", "game_end") for e in events):
            continue
        if name == "bao-la-kujifunza":  # captured kete are sown on: the player stopped instead
            if any(e["type"] == "capture" for e in events):
                yield pos, board_before_first_capture(pos, events), f"{move.text} stopped at its capture"
            continue
        last_drop = max(k for k, e in enumerate(events) if e["type"] == "drop")
        captures = [e for e in events[last_drop + 1:] if e["type"] == "capture"]
        if not captures:
            continue
        pits = list(new.pits)
        for e in captures:
            pits[labels.index(e["pit"])] += e["seeds"]
            if e["to"] in labels:
                pits[labels.index(e["to"])] -= e["seeds"]
        yield pos, (pits, None), f"{move.text} without capturing {[e['pit'] for e in captures]}"


def board_before_first_capture(pos: rules.Position, events: list[dict]) -> Board:
    labels = pos.variant.layout.labels
    pits = list(pos.pits)
    for e in events:
        if e["type"] == "capture":
            break
        if e["type"] in ("lift", "lap"):
            pits[labels.index(e["pit"])] -= e["seeds"]
        elif e["type"] == "drop":
            pits[labels.index(e["pit"])] += 1
    return pits, None


def bad_capture(name: str) -> Iterator[tuple[rules.Position, Board, str]]:
    """After a move that captured nothing, the pit facing the last one is taken anyway."""
    layout = rules.variant(name).layout
    for pos, move, new, events in situations(name, f"bad {name}"):
        if any(e["type"] in ("round_end", "game_end", "capture") for e in events):
            continue
        facing = layout.opposite[layout.labels.index(drops(events)[-1])]
        if facing is None or not new.pits[facing]:
            continue
        pits = list(new.pits)
        store = layout.store(pos.to_move)
        if store is not None:
            pits[store] += pits[facing]
        pits[facing] = 0
        yield pos, (pits, None), f"{move.text} then took {layout.labels[facing]}"


def wrong_direction(name: str) -> Iterator[tuple[rules.Position, Board, str]]:
    for pos, move, _, events in situations(name, f"direction {name}"):
        if not single_segment(events):
            continue
        track = ccw_track(pos.variant, pos.to_move)[::-1]  # clockwise
        start = pos.variant.layout.labels[move.pit]
        k = track.index(start)
        seeds = pos.pits[move.pit]
        if seeds >= len(track):
            continue
        yield pos, sown(pos, start, [track[(k + 1 + n) % len(track)] for n in range(seeds)], move.colours), \
            f"{move.text} clockwise"


def opponent_side(name: str) -> Iterator[tuple[rules.Position, Board, str]]:
    variant = rules.variant(name)
    four_ranks = variant.layout.player_tracks is not None
    for pos in random_game(variant, random.Random(f"side {name}"))[1:40]:
        turned = pos._replace(to_move=1 - pos.to_move)
        theirs = [variant.play(turned, m, events=False)[0].pits for m in variant.legal_moves(turned)]
        for pit in variant.layout.pits:
            n = pos.pits[pit.index]
            if pit.owner == pos.to_move or pit.is_store or n < 3:
                continue
            # his pit sown along the mover's own track; on four ranks, along his own rows (both ways)
            tracks = ([[variant.layout.labels[i] for i in cycle] for cycle in
                       (variant.layout.player_tracks[pit.owner], variant.layout.player_tracks[pit.owner][::-1])]
                      if four_ranks else [ccw_track(variant, pos.to_move)])
            for track in tracks:
                k = track.index(pit.label)
                board = sown(pos, pit.label, [track[(k + 1 + j) % len(track)] for j in range(n)])
                if tuple(board[0]) not in theirs:  # not the owner's own move: it would lap, capture or skip
                    yield pos, board, f"{pit.label} sown by the player to move"


def out_of_turn(name: str) -> Iterator[tuple[rules.Position, Board, str]]:
    variant = rules.variant(name)
    for pos in random_game(variant, random.Random(f"turn {name}"))[1:60]:
        turned = pos._replace(to_move=1 - pos.to_move)
        for move in variant.legal_moves(turned):
            if not move.is_pass:
                new = variant.play(turned, move, events=False)[0]
                yield pos, (list(new.pits), None if new.white is None else list(new.white)), f"{move.text} out of turn"


def yellow_last(name: str) -> Iterator[tuple[rules.Position, Board, str]]:
    for pos, move, _, events in situations(name, f"yellow {name}"):
        d = drops(events)
        whites = move.colours.count("w")
        if move.colours.endswith("w") and 0 < whites < len(move.colours):
            colours = "w" * whites + "y" * (len(move.colours) - whites)  # whites first: the last is yellow
            yield pos, sown(pos, pos.variant.layout.labels[move.pit], d, colours), f"{move.text} as {colours}"


MISTAKES: dict[str, tuple[Callable, list[str]]] = {
    "skipped_pit": (skipped_pit, sorted(rules.VARIANTS)),
    "opponent_store": (opponent_store, OWN_STORE_ONLY),
    "forgot_capture": (forgot_capture, CAPTURING),
    "bad_capture": (bad_capture, [n for n in CAPTURING if n != "bao-la-kujifunza"]),
    "wrong_direction": (wrong_direction, ONE_WAY),
    "opponent_side": (opponent_side, sorted(rules.VARIANTS)),
    "out_of_turn": (out_of_turn, sorted(rules.VARIANTS)),
    "yellow_last": (yellow_last, ["pass-it-on"]),
}


@pytest.mark.parametrize("code, name", [(code, name) for code, (_, names) in MISTAKES.items() for name in names])
def test_mistake_is_diagnosed(code: str, name: str) -> None:
    make, _ = MISTAKES[code]
    check(name, code, make(name))


def test_a_seed_from_nowhere_is_no_catalogued_mistake() -> None:
    kalah = rules.variant("kalah")
    start = kalah.start()
    pits = list(kalah.play(start, kalah.parse_move(start, "B"))[0].pits)
    pits[kalah.layout.index_of("d")] += 1
    verdict = judge([start], reading(kalah, pits))
    assert verdict.kind == "illegal" and verdict.mistake.code == "unknown"
    assert [(d.pit, d.expected, d.seen) for d in verdict.differences] == [("d", 4, 5)]
    assert "d" in verdict.mistake.words and "B" in verdict.reason


@pytest.mark.parametrize("name", ["nigerian", "oware", "pass-it-on"])
def test_two_mistakes_that_leave_one_board_are_named_together(name: str) -> None:
    """The opponent's own move, where it neither laps nor captures, leaves the board that his
    pit sown by the player to move would: both are named, the move out of turn first."""
    found = 0
    for pos, board, words in out_of_turn(name):
        verdict = judge([pos], reading(pos.variant, *board))
        if verdict.kind != "illegal" or verdict.mistake.code != "out_of_turn" or not verdict.mistake.also:
            continue
        assert verdict.mistake.also == ("opponent_side",), verdict.mistake
        assert "played out of turn" in verdict.mistake.words and "from the opponent's side" in verdict.mistake.words
        assert verdict.mistake.to_json()["also"] == ["opponent_side"]
        found += 1
        if found == CASES:
            return
    pytest.fail(f"{name}: found only {found} boards that both mistakes leave")
