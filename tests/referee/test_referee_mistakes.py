"""The mistake catalogue: each mistake made on purpose, in every variant where it can happen.

The mistaken boards are built here from the engine's own events and the layout,
independently of ``rules.referee.mistakes``: the events of a legal move are
changed by hand (a drop moved, a capture left out) and replayed by hand. The
Readings are exact, and the check is strict: every board must be judged illegal
with the mistake made named first. Two exceptions, both verified:

* a board that a legal story explains is no mistake: it is passed over only when
  the referee found that story and it replays through the engine to exactly this
  board (``legally_explained``);
* where two mistakes leave the very same board, the referee names both, in the
  catalogue's order; the pairs that can do so are listed in ``EQUIVALENT`` (and
  in docs/referee.md), and either may come first.

Situations come from random plies of random games (openings, middle games and
ends; in Nam Nam also rounds 2 and later, where hollows have changed hands).

Where each can happen: a skipped pit and a move out of turn everywhere (a skip in
any segment of a sowing with laps too); a forgotten capture wherever there are
captures (a whole capture, the end of a chain, a capture in the middle of a
sowing); the opponent's store only where it is off the mover's track (Kalah
family, Ethiopian, Bao Kenya); the wrong direction where the variant has one
direction; a yellow last chip in Pass It On. Sowing the opponent's pit can happen
everywhere: it is told from the opponent's own move out of turn only where that
move would lap, capture or pass a store the mover skips, so it is made there
(elsewhere the two leave one board); on four ranks the opponent's kete lie on his
own rows only, and are sown along them. A capture that may not be made is not
catalogued for Bao la Kujifunza, where captured kete are sown on at once (no
raw-sowing form); a forgotten capture there is a move that stopped where its
capture was due.
"""

from __future__ import annotations

import random
from typing import Callable, Iterator

import pytest

import rules
from referee_games import check_consistent, evidence_of, random_game, reading
from rules.layout import PLAYER_NAMES
from rules.referee import judge
from rules.referee.explain import sowing_boards
from rules.referee.mistakes import MIN_GAIN

CASES = 30              # boards judged illegal per variant and mistake, each diagnosed
LATER_CASES = 15        # the same in Nam Nam rounds 2 and later
MAX_GAMES = 200         # random games searched, at most, for situations where the mistake can be made
PLIES_PER_GAME = 4      # random plies of each game looked at
RARE_PLIES = 400        # ... every ply, for a mistake that few positions allow (a sowing past the opponent's store)

CAPTURING = sorted(n for n in rules.VARIANTS if n != "pass-it-on")
OWN_STORE_ONLY = ["bao-kenya", "egyptian", "ethiopian", "kalah", "kalah-3"]  # the opponent's store is skipped
ONE_WAY = sorted(n for n in rules.VARIANTS if n not in ("ethiopian", "bao-la-kujifunza"))
ENDS = ("round_end", "game_end")

# mistakes that can leave the very same board, and how
EQUIVALENT = {
    frozenset({"out_of_turn", "opponent_side"}):
        "the opponent's own move, where it neither laps, captures nor passes a store the mover skips, "
        "is his pit sown raw by the mover",
    frozenset({"skipped_pit", "bad_capture"}):
        "a skip whose last seed goes one pit further, into the mover's store, leaves the board of the "
        "single seed of the pit skipped taken into that store (Kalah family, Nigerian)",
    frozenset({"skipped_pit", "wrong_direction"}):
        "a sowing that reaches all but one of the other pits of the track: skipping its first pit "
        "leaves the board of sowing it the other way round",
}

Board = tuple[list[int], "list[int] | None"]
Case = tuple[rules.Position, Board, str]
Play = tuple[rules.Move, rules.Position, list[dict]]
Maker = Callable[[rules.Position, Play, random.Random], "tuple[Board, str] | None"]


# -- situations: random plies of random games ------------------------------------------------
def later_round(pos: rules.Position) -> bool:
    """A Nam Nam position of round 2 or later in which some hollow has changed hands."""
    data = pos.to_json()
    return data["round"] >= 2 and owners(pos) != [p.owner for p in pos.variant.layout.pits]


def positions(name: str, seed: str, later: bool = False, plies: int = PLIES_PER_GAME
              ) -> Iterator[tuple[rules.Position, random.Random]]:
    """Positions at ``plies`` random plies of each random game of ``name`` (with ``later``: Nam
    Nam rounds 2+ only)."""
    variant = rules.variant(name)
    rng = random.Random(seed)
    for _ in range(MAX_GAMES):
        game = [p for p in random_game(variant, rng) if p.result is None and (not later or later_round(p))]
        for pos in rng.sample(game, min(plies, len(game))):
            yield pos, rng


def one_per_position(name: str, seed: str, make: Maker, later: bool = False,
                     plies: int = PLIES_PER_GAME) -> Iterator[Case]:
    """The first board ``make`` builds from a legal move of each position (moves in random order)."""
    variant = rules.variant(name)
    for pos, rng in positions(name, seed, later, plies):
        moves = [m for m in variant.legal_moves(pos) if not m.is_pass]
        rng.shuffle(moves)
        for move in moves:
            new, events = variant.play(pos, move)
            made = make(pos, (move, new, events), rng)
            if made:
                yield pos, made[0], made[1]
                break


# -- boards by hand ---------------------------------------------------------------------------
def owners(pos: rules.Position) -> list[int]:
    """Every pit's owner now: Nam Nam's position JSON names its hollows' owners, else the rows."""
    named = pos.to_json().get("owners")
    return [PLAYER_NAMES.index(named[p.label]) if named else p.owner for p in pos.variant.layout.pits]


def replayed(pos: rules.Position, move: rules.Move, events: list[dict]) -> Board:
    """The board ``events`` leave: lifts and laps take seeds up, a drop puts one down (the n-th
    chip white where the move's n-th colour is), a capture takes seeds to a store or away."""
    labels = pos.variant.layout.labels
    pits = list(pos.pits)
    white = list(pos.white) if pos.white is not None else None
    dropped = 0
    for e in events:
        i = labels.index(e["pit"]) if e.get("pit") in labels else None
        if e["type"] in ("lift", "lap"):
            pits[i] -= e["seeds"]
            if white is not None:
                white[i] = 0
        elif e["type"] == "drop":
            pits[i] += 1
            if white is not None and move.colours[dropped:dropped + 1] == "w":
                white[i] += 1
            dropped += 1
        elif e["type"] == "capture" and i is not None:
            pits[i] -= e["seeds"]
            if e["to"] in labels:
                pits[labels.index(e["to"])] += e["seeds"]
    return pits, white


def sown(pos: rules.Position, start: str, pits_in_order: list[str], colours: str = "") -> Board:
    """``pos`` with ``start`` lifted and one seed dropped in each of ``pits_in_order``."""
    events = [{"type": "lift", "pit": start, "seeds": pos.count(start)}]
    events += [{"type": "drop", "pit": p} for p in pits_in_order]
    return replayed(pos, rules.Move(0, start, colours=colours), events)


def drops(events: list[dict]) -> list[str]:
    return [e["pit"] for e in events if e["type"] == "drop"]


def single_segment(events: list[dict]) -> bool:
    return not any(e["type"] in ("lap", "capture") + ENDS for e in events)


def cycle(variant: rules.Variant, player: int, direction: str) -> list[str]:
    """The labels ``player`` sows along, ``"ccw"`` or ``"cw"``: on four ranks his own 16 (his CW
    cycle is his front row left to right, his back row right to left); else the board's track,
    the opponent's store off it where it is skipped."""
    layout = variant.layout
    if layout.player_tracks is not None:
        own = [layout.labels[i] for i in layout.player_tracks[player]]
        return own if direction == "cw" else own[::-1]
    skipped = layout.store(1 - player) if variant.name in OWN_STORE_ONLY else None
    ccw = [layout.labels[i] for i in layout.track if i != skipped]
    return ccw if direction == "ccw" else ccw[::-1]


def segments(events: list[dict]) -> list[list[int]]:
    """The event numbers of the drops of each segment: a lift, a lap or kete captured into the hand start one."""
    out: list[list[int]] = []
    for k, e in enumerate(events):
        if e["type"] in ("lift", "lap") or (e["type"] == "capture" and e["to"] == "hand"):
            out.append([])
        elif e["type"] == "drop":
            out[-1].append(k)
    return [s for s in out if s]


def one_further(pos: rules.Position, events: list[dict], pits: list[str]) -> str | None:
    """The pit past ``pits`` (a segment's drops) along the way they ran, passing what the move passed over."""
    passed = {e["pit"] for e in events if e["type"] == "skip"}
    for direction in ("ccw", "cw"):
        ring = cycle(pos.variant, pos.to_move, direction)

        def step(label: str) -> str:
            k = ring.index(label)
            while ring[(k + 1) % len(ring)] in passed:
                k += 1
            return ring[(k + 1) % len(ring)]

        if step(pits[0]) == pits[1]:
            return step(pits[-1])
    return None


# -- the mistakes, made by hand ---------------------------------------------------------------
def skip_board(pos: rules.Position, move: rules.Move, events: list[dict], segment: list[int], k: int,
               last: bool) -> Board | None:
    """Drop ``k`` of ``segment`` skipped: it and the segment's later seeds go one pit further; the
    sowing goes on from where the next lap picks up; a skip in the last segment forgoes the
    captures after the last drop. ``None`` where the seed would land back in the pit skipped, or a
    later lap or capture takes from the pits the skip changed (the story would change there)."""
    further = one_further(pos, events, [events[n]["pit"] for n in segment])
    skipped = events[k]["pit"]
    if further is None or further == skipped:
        return None
    end = segment[-1]
    kept = [(n, e) for n, e in enumerate(events) if not (last and n > end and e["type"] == "capture")]
    if any(n > k and e["type"] in ("lift", "lap", "capture") and e["pit"] in (skipped, further) for n, e in kept):
        return None
    moved = [e for n, e in kept if n != k]
    moved.insert([n for n, _ in kept if n != k].index(end) + 1, {"type": "drop", "pit": further})
    return replayed(pos, move, moved)


def skipped_pit(name: str, later: bool = False) -> Iterator[Case]:
    def make(pos: rules.Position, play: Play, rng: random.Random) -> tuple[Board, str] | None:
        move, _, events = play
        if any(e["type"] in ENDS for e in events):
            return None
        segs = segments(events)
        options = [(j, k) for j, seg in enumerate(segs) for k in seg[:-1]]
        rng.shuffle(options)
        for j, k in options:
            board = skip_board(pos, move, events, segs[j], k, j == len(segs) - 1)
            if board:
                return board, f"{move.text} without {events[k]['pit']} (segment {j + 1} of {len(segs)})"
        return None
    return one_per_position(name, f"skip {name} {later}", make, later)


def opponent_store(name: str, later: bool = False) -> Iterator[Case]:
    def make(pos: rules.Position, play: Play, rng: random.Random) -> tuple[Board, str] | None:
        move, _, events = play
        skips = [k for k, e in enumerate(events) if e["type"] == "skip"]
        store = pos.variant.layout.labels[pos.variant.layout.store(1 - pos.to_move)]
        if not (single_segment(events) and skips and events[skips[0]]["pit"] == store):
            return None
        d = drops(events)
        before = sum(1 for e in events[:skips[0]] if e["type"] == "drop")
        board = sown(pos, pos.variant.layout.labels[move.pit], d[:before] + [store] + d[before:-1])
        return board, f"{move.text} into {store}"
    return one_per_position(name, f"store {name}", make, later, RARE_PLIES)


def forgot_capture(name: str, later: bool = False) -> Iterator[Case]:
    """A capture forgotten and every one after it, the sowing carried on (Bao la Kujifunza: the
    move stopped where its first capture was due, as captured kete are sown on at once)."""
    def make(pos: rules.Position, play: Play, rng: random.Random) -> tuple[Board, str] | None:
        move, _, events = play
        captures = [k for k, e in enumerate(events) if e["type"] == "capture"]
        if not captures or any(e["type"] in ENDS for e in events):
            return None
        if name == "bao-la-kujifunza":
            return replayed(pos, move, events[:captures[0]]), f"{move.text} stopped at its capture"
        first = rng.choice(captures)
        forgotten = {k for k in captures if k >= first}
        left = {events[k]["pit"] for k in forgotten}
        if any(k > first and e["type"] in ("lift", "lap") and e["pit"] in left for k, e in enumerate(events)):
            return None  # a later lap lifts a pit not captured: another story from there
        board = replayed(pos, move, [e for k, e in enumerate(events) if k not in forgotten])
        return board, f"{move.text} without capturing {sorted(left)}"
    return one_per_position(name, f"forgot {name}", make, later)


def bad_capture(name: str, later: bool = False) -> Iterator[Case]:
    """After a move that captured nothing, the pit facing the last one is taken anyway."""
    layout = rules.variant(name).layout

    def make(pos: rules.Position, play: Play, rng: random.Random) -> tuple[Board, str] | None:
        move, new, events = play
        if any(e["type"] in ENDS + ("capture",) for e in events):
            return None
        facing = layout.opposite[layout.labels.index(drops(events)[-1])]
        if facing is None or not new.pits[facing]:
            return None
        pits = list(new.pits)
        store = layout.store(pos.to_move)
        if store is not None:
            pits[store] += pits[facing]
        pits[facing] = 0
        return (pits, None), f"{move.text} then took {layout.labels[facing]}"
    return one_per_position(name, f"bad {name}", make, later)


def wrong_direction(name: str, later: bool = False) -> Iterator[Case]:
    def make(pos: rules.Position, play: Play, rng: random.Random) -> tuple[Board, str] | None:
        move, _, events = play
        ring = cycle(pos.variant, pos.to_move, "cw")
        start = pos.variant.layout.labels[move.pit]
        seeds = pos.pits[move.pit]
        if not single_segment(events) or seeds >= len(ring):
            return None
        k = ring.index(start)
        board = sown(pos, start, [ring[(k + 1 + n) % len(ring)] for n in range(seeds)], move.colours)
        return board, f"{move.text} clockwise"
    return one_per_position(name, f"direction {name}", make, later)


def opponent_side(name: str, later: bool = False, on_own_row: bool = False) -> Iterator[Case]:
    """A pit of the opponent's (its owner now: Nam Nam hollows change hands) sown raw by the mover
    along his own track (on four ranks along the opponent's rows, both ways), where the
    opponent's own move from it would leave another board. ``on_own_row``: only hollows of the
    mover's own row that the opponent has won."""
    variant = rules.variant(name)
    layout = variant.layout
    for pos, rng in positions(name, f"side {name} {later} {on_own_row}", later):
        turned = pos._replace(to_move=1 - pos.to_move)
        theirs = {tuple(variant.play(turned, m, events=False)[0].pits) for m in variant.legal_moves(turned)}
        owner = owners(pos)
        pits = [p for p in layout.pits if not p.is_store and owner[p.index] != pos.to_move and pos.pits[p.index]
                and (not on_own_row or p.owner == pos.to_move)]
        rng.shuffle(pits)
        for pit in pits:
            n = pos.pits[pit.index]
            rings = ([cycle(variant, pit.owner, way) for way in ("cw", "ccw")] if layout.player_tracks
                     else [cycle(variant, pos.to_move, "ccw")])
            boards = [sown(pos, pit.label, [ring[(ring.index(pit.label) + 1 + j) % len(ring)] for j in range(n)])
                      for ring in rings]
            boards = [b for b in boards if tuple(b[0]) not in theirs]
            if boards:
                yield pos, rng.choice(boards), f"{pit.label} sown by the player to move"
                break


def out_of_turn(name: str, later: bool = False) -> Iterator[Case]:
    variant = rules.variant(name)
    for pos, rng in positions(name, f"turn {name} {later}", later):
        turned = pos._replace(to_move=1 - pos.to_move)
        moves = [m for m in variant.legal_moves(turned) if not m.is_pass]
        if moves:
            new = variant.play(turned, rng.choice(moves), events=False)[0]
            yield pos, (list(new.pits), None if new.white is None else list(new.white)), "out of turn"


def yellow_last(name: str, later: bool = False) -> Iterator[Case]:
    """A hand of white and yellow chips sown whites first, so that the last chip, yellow, falls
    into an empty pit (where the rules want a white)."""
    def make(pos: rules.Position, play: Play, rng: random.Random) -> tuple[Board, str] | None:
        move, _, events = play
        whites = move.colours.count("w")
        last = [e for e in events if e["type"] == "drop"][-1]
        if last["count"] != 1 or not 0 < whites < len(move.colours):
            return None
        colours = "w" * whites + "y" * (len(move.colours) - whites)
        return sown(pos, pos.variant.layout.labels[move.pit], drops(events), colours), f"{move.text} as {colours}"
    return one_per_position(name, f"yellow {name}", make)


MISTAKES: dict[str, tuple[Callable[..., Iterator[Case]], list[str]]] = {
    "skipped_pit": (skipped_pit, sorted(rules.VARIANTS)),
    "opponent_store": (opponent_store, OWN_STORE_ONLY),
    "forgot_capture": (forgot_capture, CAPTURING),
    "bad_capture": (bad_capture, [n for n in CAPTURING if n != "bao-la-kujifunza"]),
    "wrong_direction": (wrong_direction, ONE_WAY),
    "opponent_side": (opponent_side, sorted(rules.VARIANTS)),
    "out_of_turn": (out_of_turn, sorted(rules.VARIANTS)),
    "yellow_last": (yellow_last, ["pass-it-on"]),
}


# -- the check ------------------------------------------------------------------------------
def legally_explained(pos: rules.Position, board: Board, verdict) -> bool:
    """The referee found a legal story for exactly this board (a move or sequence, one caught
    half-way, a Nam Nam four left), and it replays through the engine: no mistake was made."""
    if verdict.kind == "illegal" or verdict.best is None:
        return False
    for e in (verdict.best,) + verdict.candidates:
        check_consistent([pos], e)
    pits, white = verdict.best.seen_board
    return list(pits) == list(board[0]) and (white is None or list(white) == list(board[1]))


def diagnosed(verdict, code: str, board: Board, pos: rules.Position, words: str) -> None:
    """Illegal, with ``code`` named first; or named with a mistake of ``EQUIVALENT`` that leaves
    this very board (it explains the exact Reading as well as the board made: perfectly)."""
    about = f"{pos!r}: made '{code}' ({words}), judged {verdict.kind}: {verdict.reason}"
    assert verdict.kind == "illegal", about
    mistake = verdict.mistake
    assert mistake is not None and verdict.differences, about
    assert verdict.best is not None and verdict.best.kind in ("move", "unchanged"), about
    if mistake.code != code:
        assert code in mistake.also and frozenset({mistake.code, code}) in EQUIVALENT, about
        exact = evidence_of(pos, reading(pos.variant, *board)).score(*board)
        assert mistake.log_likelihood == pytest.approx(exact), about


def check(name: str, code: str, boards: Iterator[Case], cases: int = CASES) -> None:
    found = 0
    for pos, board, words in boards:
        assert min(board[0]) >= 0, words
        verdict = judge([pos], reading(pos.variant, *board))
        if legally_explained(pos, board, verdict):
            continue
        diagnosed(verdict, code, board, pos, words)
        found += 1
        if found == cases:
            return
    pytest.fail(f"{name}: found only {found} situations for '{code}'")


@pytest.mark.parametrize("code, name", [(code, name) for code, (_, names) in MISTAKES.items() for name in names])
def test_mistake_is_diagnosed(code: str, name: str) -> None:
    make, _ = MISTAKES[code]
    check(name, code, make(name))


@pytest.mark.parametrize("code", [code for code, (_, names) in MISTAKES.items() if "nam-nam" in names])
def test_mistake_is_diagnosed_in_later_nam_nam_rounds(code: str) -> None:
    """Rounds 2 and later, where the hollows have changed hands."""
    make, _ = MISTAKES[code]
    check("nam-nam", code, make("nam-nam", later=True), LATER_CASES)


def test_a_hollow_won_in_an_earlier_round_is_the_opponents_side() -> None:
    """A hollow of the mover's own row that the opponent won in an earlier round is the
    opponent's side: sowing it is played from the opponent's side."""
    check("nam-nam", "opponent_side", opponent_side("nam-nam", later=True, on_own_row=True), LATER_CASES)


def test_a_hollow_won_on_the_opponents_row_is_the_movers() -> None:
    """A hollow the mover won on the opponent's row is his own: his move from it is legal."""
    variant = rules.variant("nam-nam")
    judged = 0
    for pos, _ in positions("nam-nam", "won hollows", later=True):
        won = [m for m in variant.legal_moves(pos)
               if not m.is_pass and variant.layout.pits[m.pit].owner != pos.to_move]
        for move in won[:1]:
            new = variant.play(pos, move)[0]
            verdict = judge([pos], reading(variant, new.pits))
            assert verdict.kind in ("move", "ambiguous"), verdict.reason
            assert new in [e.position for e in (verdict.best,) + verdict.candidates], verdict.reason
            judged += 1
        if judged == LATER_CASES:
            return
    pytest.fail(f"found only {judged} moves from hollows won on the opponent's row")


@pytest.mark.parametrize("name", ["bao-kenya-laps", "nam-nam", "oware"])
def test_a_hand_caught_mid_sowing_with_a_pit_misread_is_no_mistake(name: str) -> None:
    """Where captured seeds leave the board, a board short of seeds is a hand mid-sowing or a
    capture that may not be made. A half-sown board with one pit misread by a seed waits where
    it holds fewer seeds than the board before and after every legal move (seeds in a hand),
    else it is illegal with the pits that differ named; a catalogued mistake only where the
    misread made that mistake's board, which then explains the Reading clearly better."""
    variant = rules.variant(name)
    judged = waited = 0
    for pos, rng in positions(name, f"misread hand {name}"):
        moves = [m for m in variant.legal_moves(pos) if not m.is_pass]
        move = rng.choice(moves) if moves else None
        partial = sowing_boards(pos, move, variant.play(pos, move)[1])[0] if move else []
        if not partial:
            continue
        hand, half_sown = rng.choice(partial)
        pits = list(half_sown[0])
        misread = rng.choice(range(len(pits)))
        pits[misread] += 1 if not pits[misread] or rng.random() < 0.5 else -1
        verdict = judge([pos], reading(variant, pits))
        if legally_explained(pos, (pits, None), verdict):
            continue  # the misread made a legal board
        about = f"{pos!r}: {move.text} with {hand} in hand, pit {misread} misread: {verdict.reason}"
        results = [variant.play(pos, m, events=False)[0] for m in variant.legal_moves(pos)]
        least = min(sum(p.pits) for p in [pos] + results)
        assert verdict.kind in ("in_progress", "illegal"), about
        if verdict.kind == "illegal" and verdict.mistake.code != "unknown":
            hand_ll = evidence_of(pos, reading(variant, pits)).score(*half_sown)
            assert verdict.mistake.log_likelihood > hand_ll + MIN_GAIN, about
        else:
            assert verdict.kind == ("in_progress" if sum(pits) < least else "illegal"), about
            waited += verdict.kind == "in_progress"
        judged += 1
        if judged == CASES:
            assert waited, f"{name}: no half-sown board was short of every legal board"
            return
    pytest.fail(f"{name}: found only {judged} half-sown boards")


@pytest.mark.parametrize("name", ["bao-kenya", "egyptian", "ethiopian", "kalah", "nigerian"])
def test_a_capture_carried_to_the_store_is_in_progress(name: str) -> None:
    """A capture is made by hand: the captured seeds lifted and not yet in the store are a move
    caught half-way (wait), not a forgotten capture."""
    variant = rules.variant(name)
    judged = 0
    for pos, rng in positions(name, f"carried {name}"):
        for move in variant.legal_moves(pos):
            events = variant.play(pos, move)[1]
            to_store = [k for k, e in enumerate(events) if e["type"] == "capture" and e["to"] in variant.layout.labels]
            if not to_store or any(e["type"] in ENDS + ("sweep",) for e in events):
                continue
            pits, _ = replayed(pos, move, events[:to_store[0]])
            pits[variant.layout.index_of(events[to_store[0]]["pit"])] -= events[to_store[0]]["seeds"]
            verdict = judge([pos], reading(variant, pits))
            assert verdict.kind == "in_progress", f"{move.text}: {verdict.reason}"
            judged += 1
            break
        if judged == CASES:
            return
    pytest.fail(f"{name}: found only {judged} captures")


def test_a_seed_from_nowhere_is_no_catalogued_mistake() -> None:
    kalah = rules.variant("kalah")
    start = kalah.start()
    pits = list(kalah.play(start, kalah.parse_move(start, "B"))[0].pits)
    pits[kalah.layout.index_of("d")] += 1
    verdict = judge([start], reading(kalah, pits))
    assert verdict.kind == "illegal" and verdict.mistake.code == "unknown"
    assert [(d.pit, d.expected, d.seen) for d in verdict.differences] == [("d", 4, 5)]
    assert "d" in verdict.mistake.words and "B" in verdict.reason


@pytest.mark.parametrize("name", ["kalah", "ethiopian", "bao-la-kujifunza"])  # every seed stays on the board
def test_a_new_game_with_the_last_game_s_board_still_on_the_table_is_not_set_up(name: str) -> None:
    """Before the first move of a game, a board that no one move explains is the start still
    being laid out: the pits that differ from the start are named, not a legal result some moves
    away. A first move gone wrong, or the same board later in a game, is judged as ever (and a
    board short of seeds, as after an Oware game, says seeds are in a hand, as ever)."""
    variant = rules.variant(name)
    last_game = random_game(variant, random.Random(f"last {name}"), 40)[-1]
    new_game = rules.Game(variant)
    verdict = judge(new_game, reading(variant, last_game.pits, last_game.white))
    start = variant.start()
    differing = [label for label, now, then in zip(variant.layout.labels, last_game.pits, start.pits) if now != then]
    assert verdict.kind == "illegal" and verdict.mistake.code == "not_set_up", verdict.reason
    assert [d.pit for d in verdict.differences] == differing and list(verdict.mistake.pits) == differing
    assert verdict.reason.startswith("the board is not laid out as the game's start yet: ")
    assert verdict.best.kind == "unchanged"

    played = rules.Game(variant)
    played.play(variant.legal_moves(start)[0])
    assert judge(played, reading(variant, last_game.pits, last_game.white)).mistake.code != "not_set_up"


@pytest.mark.parametrize("name", ["kalah", "oware", "pass-it-on"])
def test_a_board_laid_before_the_game_began_shows_the_start_or_not_yet_never_a_move(name: str) -> None:
    """The last game's board, one legal move from the new start, still on the table as a new game
    begins: judged as ever it is that move (and was recorded as one, then taken back once the start
    was laid out). Laid before the game began, it is the start not laid out yet; the start itself
    is the start."""
    variant = rules.variant(name)
    start = variant.start()
    first = variant.legal_moves(start)[0]
    after, _ = variant.play(start, first)
    on_the_table = reading(variant, after.pits, after.white)
    assert judge(rules.Game(variant), on_the_table).kind == "move"
    verdict = judge(rules.Game(variant), on_the_table, laid_before=True)
    assert verdict.kind == "illegal" and verdict.mistake.code == "not_set_up", verdict.reason
    assert {d.pit for d in verdict.differences} == {
        label for label, now, then in zip(variant.layout.labels, after.pits, start.pits) if now != then}
    assert judge(rules.Game(variant), reading(variant, start.pits, start.white), laid_before=True).kind == "unchanged"


def test_a_first_move_gone_wrong_is_not_a_board_still_being_set_up() -> None:
    kalah = rules.variant("kalah")
    pits = list(kalah.play(kalah.start(), kalah.parse_move(kalah.start(), "B"))[0].pits)
    pits[kalah.layout.index_of("d")] += 1
    verdict = judge(rules.Game(kalah), reading(kalah, pits))
    assert verdict.kind == "illegal" and verdict.mistake.code == "unknown" and "B" in verdict.reason


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
        if found == 3:
            return
    pytest.fail(f"{name}: found only {found} boards that both mistakes leave")
