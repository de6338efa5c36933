"""The referee: turn one stable Reading into a verdict on the game.

It reads *with* the rules: instead of counting seeds and checking the count,
it asks which legal explanation (unchanged, a move, a takeback, a short
sequence of moves the camera missed) makes the Reading most likely, and how
sure that choice is. Every verdict weighs the same explanations:

1. unchanged, every legal move, earlier positions (takebacks); the same moves
   on boards not yet tidied up (before an end-of-game sweep, a Nam Nam four
   left by its owner);
2. moves caught half-way (seeds in the hand: wait, do not judge);
3. sequences of 2 and 3 moves by the players whose turn it was;
4. nothing legal fits: illegal, with the nearest legal result, the pits that
   differ and the likely mistake in plain words; or, where the board is short of
   the seeds of every legal board and no catalogued mistake explains the Reading
   clearly better than a move caught half-way, a hand still holds some (wait).

Choosing: each explanation gets a log likelihood (``likelihood.Evidence``)
plus a log prior (longer stories are less likely). Two shares are worked out
over every explanation scored: the *posterior* (softmax of log likelihood +
log prior) and the *evidence share* (softmax of the log likelihood alone: what
the Reading says with every story equally likely). The best explanation that
*fits* (no pit ruled out) is committed only when both reach ``CONFIDENT``: the
priors rank and weigh, but never commit a story the Reading cannot tell from
another one (a wrong commit derails the game, a question costs the players a
click). Otherwise the verdict is ambiguous and names the candidates. Because
any longer story could fit the Reading as well as a short one, the search
always goes to the full depth (see docs/referee.md).
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Sequence

from ..game import Game
from ..layout import PLAYER_NAMES
from ..position import Move, Position
from ..reading import BadReading, Reading
from ..variant import Event
from . import mistakes
from .explain import Explorer, Sequence_, board_of, sowing_boards, state_key, takebacks
from .likelihood import Evidence
from .verdict import Explanation, Mistake, Verdict

CONFIDENT = 0.99          # posterior and evidence share needed to commit an explanation
SURE_LEAD = math.log(CONFIDENT / (1 - CONFIDENT))  # the log-likelihood lead that alone gives CONFIDENT
NEGLIGIBLE = 30.0         # an explanation this far (log) below the best cannot move a posterior
MAX_UNSEEN = 0.5          # more of the board unseen than this: unreadable
MAX_NAMED = 6             # an ambiguity among more candidates than this is unreadable (too uncertain)
NAME_AT_LEAST = 0.005     # candidates below this posterior and this share are not named
IN_HAND_SURE = 0.95       # P(board short of every legal total) that means "a hand holds seeds"
PRIOR_TAKEBACK = -3.0     # log prior of taking back one move, minus 0.5 per further move
PRIOR_EXTRA_MOVE = -7.0   # log prior per board missed: a camera misses about 1 board in 1,000
PRIOR_IN_PROGRESS = -7.0  # log prior of a stable board caught in the middle of a sowing: as rare
PRIOR_LEFT_FOUR = -1.0    # log prior of a Nam Nam four left on the board by its owner

# the game a Reading is judged against: a Game, its positions oldest first, or the current Position alone
GameSoFar = Game | Sequence[Position] | Position


def _positions_of(game_or_positions: GameSoFar) -> list[Position]:
    if isinstance(game_or_positions, Position):
        return [game_or_positions]
    positions = getattr(game_or_positions, "positions", game_or_positions)
    positions = list(positions)
    if not positions or not all(isinstance(p, Position) for p in positions):
        raise TypeError("judge() takes a Game, a list of Positions (oldest first) or one Position")
    return positions


def _play_events(pos: Position, moves: Iterable[Move]) -> list[Event]:
    out: list[Event] = []
    for m in moves:
        pos, log = pos.variant.play(pos, m, check=False)
        out.extend(log)
    return out


def _who_played(pos: Position, moves: Sequence[Move]) -> str:
    """Who played which of ``moves`` from ``pos``, a mover named where the turn passes: "south played
    C", "north played a, then south played B then C" (B earned South another turn). Only the first
    mover was named: "north played a then B then C" (a dashboard audit, 2026-12-07)."""
    turns: list[tuple[int, list[str]]] = []
    for k, move in enumerate(moves):
        if k:  # the position this move was played in (a single move costs no replay)
            pos, _ = pos.variant.play(pos, moves[k - 1], check=False)
        if turns and turns[-1][0] == pos.to_move:
            turns[-1][1].append(move.text)
        else:
            turns.append((pos.to_move, [move.text]))
    return ", then ".join(f"{PLAYER_NAMES[player]} played {' then '.join(texts)}" for player, texts in turns)


def _forced_silent_pass(current: Position, successors: Sequence[tuple[Move, Position]]) -> bool:
    """The mover can only pass and passing changes nothing on the board: the pass *is* what
    an unchanged board shows, so it is committed (RULES.md: a pass is an explicit move)."""
    return bool(successors) and all(m.is_pass and board_of(p) == board_of(current) for m, p in successors)


class Referee:
    """Judges Readings. Keeps a cache of legal successors, so reuse one per session (and
    one per thread: the cache is not shared safely between threads).

    ``depth`` is the longest move sequence searched (1..3), ``budget`` the
    engine calls allowed per level of a sequence search before it narrows to
    the best-looking positions.
    """

    def __init__(self, depth: int = 3, budget: int = 2500) -> None:
        if not 1 <= depth <= 3:
            raise ValueError(f"depth is 1, 2 or 3, not {depth}")
        self.depth = depth
        self.budget = budget
        self.explorer = Explorer()

    # -- the entry point ---------------------------------------------------
    def judge(self, game_or_positions: GameSoFar, reading: Reading | dict, *, laid_before: bool = False) -> Verdict:
        """The verdict on ``reading`` given the game so far (a Game, positions oldest first, or a Position).

        ``laid_before``: the board was laid on the table before the game began and has not been
        touched since (a new game begun with the last one's board there). It shows the start, or the
        start not laid out yet, never a move of this game: an old board one move from the new start
        would otherwise be taken for that move (and taken back once the start was laid out)."""
        positions = _positions_of(game_or_positions)
        current = positions[-1]
        variant = current.variant
        if isinstance(reading, dict):
            reading = Reading.from_json(reading)
        if not isinstance(reading, Reading):
            raise BadReading(f"judge() needs a Reading or its JSON, not {type(reading).__name__}")
        evidence = Evidence(variant.layout, reading, variant.total_seeds)
        if reading.status != "ok":
            return Verdict("unreadable", f"the {reading.source} reading is not usable: {reading.status}")
        if evidence.unseen_fraction > MAX_UNSEEN:
            unseen = ", ".join(reading.unseen) or "pits missing from the reading"
            return Verdict("unreadable", f"too much of the board is unseen ({unseen})")
        # a Game knows of ends no position shows (a draw agreed on the dashboard), and whether it has begun
        over = bool(getattr(game_or_positions, "is_over", False))
        begun = bool(getattr(game_or_positions, "moves", True))
        return _Judgement(self, positions, evidence, over, begun, laid_before).run()


class _Judgement:
    """One verdict in the making: the explanations scored so far and the stages of the search."""

    def __init__(self, referee: Referee, positions: list[Position], evidence: Evidence, over: bool,
                 begun: bool, laid_before: bool = False) -> None:
        self.referee = referee
        self.over = over
        self.begun = begun  # False: a Game in which no move has been played yet
        self.laid_before = laid_before  # the board lay there before the game began: no move of it can show
        self.positions = positions
        self.current = positions[-1]
        self.evidence = evidence
        self.explorer = referee.explorer
        self.scored: dict[Any, Explanation] = {}  # one explanation per resulting position (or board)
        self._top_weight = -math.inf  # the best weight and log likelihood scored so far: they only grow
        self._top_ll = -math.inf
        self._claimed: set[tuple] = set()  # positions claimed by takebacks too unlikely to weigh
        # sequences of the last level too unlikely to weigh, in the order found: (moves, position,
        # log likelihood, prior), made explanations only where nothing fits (see add_sequence)
        self._unlikely: list[tuple[tuple[Move, ...], Position, float, float]] = []
        self._ranked: list[Explanation] | None = None  # worth weighing, of every one scored
        self._outcomes: tuple[dict[tuple, float], dict[tuple, float]] = ({}, {})  # best weight, best ll
        self._totals = (1.0, 1.0)  # the softmax denominators of the posterior and the evidence share
        self._top_state_ll = -math.inf  # the best log likelihood of a state of the game (not half-sown)
        self._after: dict[Move, Position] = {}  # the legal moves and where they lead
        self._half_sown: list[tuple[Move, int, Any]] | None = None  # boards of moves caught half-way
        self._events: dict[Move, list[Event]] = {}  # the events of the legal moves replayed so far

    def add(self, e: Explanation, key: Any = None) -> None:
        """Keep ``e`` unless its position is explained already; a second way to the same
        position by as many moves is recorded as equivalent."""
        key = state_key(e.position) if key is None else key
        known = self.scored.get(key)
        if known is None:
            if key in self._claimed:
                return
            self.scored[key] = e
            if e.log_likelihood + e.prior > self._top_weight:
                self._top_weight = e.log_likelihood + e.prior
            if e.log_likelihood > self._top_ll:
                self._top_ll = e.log_likelihood
        elif known.kind == e.kind == "move" and len(e.moves) == len(known.moves):
            self.scored[key] = known._replace(equivalent=known.equivalent + (tuple(e.texts),))

    def negligible(self, log_likelihood: float, prior: float) -> bool:
        """An explanation this far below the best, by its weight and by its log likelihood alone,
        adds under exp(-NEGLIGIBLE) to any posterior and any evidence share: not kept (the best
        only grows, so it could never count)."""
        return (log_likelihood + prior <= self._top_weight - NEGLIGIBLE
                and log_likelihood <= self._top_ll - NEGLIGIBLE)

    def explanation(self, kind: str, moves: tuple[Move, ...], pos: Position, prior: float,
                    board: Any = None, **kw: Any) -> Explanation:
        pits, white = board if board is not None else (pos.pits, pos.white)
        return Explanation(kind, moves, pos, self.evidence.score(pits, white), prior, board=board, **kw)

    def run(self) -> Verdict:
        current = self.current
        successors = () if self.over or self.laid_before else self.explorer.successors(current)
        self._after = dict(successors)
        if not _forced_silent_pass(current, successors):
            self.add(self.explanation("unchanged", (), current, 0.0))
        for move, pos in successors:
            self.add(self.explanation("move", (move,), pos, 0.0))
        self.add_takebacks()
        self.add_untidy_boards(successors)
        self.add_partial_boards(successors)
        exhaustive = self.add_sequences(successors)
        return self.decide(exhaustive) or self.nothing_fits(successors, exhaustive)

    def add_takebacks(self) -> None:
        """Earlier positions of the game, nearest first, while their prior still counts. Added
        after the moves: a move back to an earlier position is a move (same position, new history)."""
        for undo, pos in takebacks(self.positions):
            prior = PRIOR_TAKEBACK - 0.5 * (undo - 1)
            if prior < -NEGLIGIBLE:
                break
            if self.negligible(self.evidence.score(pos.pits, pos.white), prior):
                self._claimed.add(state_key(pos))  # still explained: no longer sequence may claim it
                continue
            self.add(self.explanation("takeback", (), pos, prior, undo=undo))

    # -- stage 1 extras: boards that show a legal move before the players tidy up --------
    def add_untidy_boards(self, successors: Sequence[tuple[Move, Position]]) -> None:
        """A move that ends the game (or a Nam Nam round) is seen before the sweep; a Nam Nam
        four may be left on the board by its owner (the variant says which). Same move,
        different board."""
        variant = self.current.variant
        leavable = getattr(variant, "fours_to_leave", None)
        for move, pos in successors:
            if pos.result is None and leavable is None:
                continue
            events = self.events_of(move)
            _, before_end = sowing_boards(self.current, move, events)
            if before_end != board_of(pos):
                self.add(self.explanation("move", (move,), pos, 0.0, board=before_end), ("before_end", move))
            for label in leavable(events) if leavable else ():
                left = variant.leave_fours(pos, events, (label,))
                self.add(self.explanation("move", (move,), left, PRIOR_LEFT_FOUR, left=(label,)))

    # -- stage 2: a move caught half-way -----------------------------------------------------
    def add_partial_boards(self, successors: Sequence[tuple[Move, Position]]) -> None:
        """Boards seen while a legal move is being sown (seeds still in the hand). Not looked
        for when every board that fits the Reading holds all the seeds of the current position."""
        if self.evidence.least_total >= sum(self.current.pits):
            return
        for move, hand, board in self.half_sown(successors):
            ll = self.evidence.score(*board)
            if not self.negligible(ll, PRIOR_IN_PROGRESS):
                self.add(Explanation("in_progress", (move,), self.current, ll, PRIOR_IN_PROGRESS,
                                     in_hand=hand, board=board), ("in_progress", move, board))

    def half_sown(self, successors: Sequence[tuple[Move, Position]]) -> list[tuple[Move, int, Any]]:
        """Every board seen while a legal move is sown, as ``(move, seeds in hand, board)``,
        replayed from the engine's events once per verdict (stage 2 and the mistakes weigh them)."""
        if self._half_sown is None:
            self._half_sown = [(move, hand, board) for move, _ in successors
                               for hand, board in sowing_boards(self.current, move, self.events_of(move))[0]]
        return self._half_sown

    def events_of(self, move: Move) -> list[Event]:
        """The events of a legal move of the current position, replayed once per verdict: the
        boards before the sweep, the half-sown boards and the verdict's events all read them."""
        events = self._events.get(move)
        if events is None:
            events = self._events[move] = _play_events(self.current, (move,))
        return events

    # -- stage 3: moves the camera missed ----------------------------------------------------
    def add_sequences(self, successors: Sequence[tuple[Move, Position]]) -> bool:
        """Sequences of 2 up to ``depth`` moves, one per resulting position; returns whether the
        search was exhaustive. A sequence ending in a forced pass that changed nothing is no new
        explanation: its board is the one before the pass (committed one Reading later)."""
        first: dict[tuple, Sequence_] = {}
        for move, pos in successors:
            silent = move.is_pass and board_of(pos) == board_of(self.current)
            first.setdefault(state_key(pos), ((move,), pos, int(not silent), silent))
        level = list(first.values())
        exhaustive = True
        deepest = self.referee.depth
        for depth in range(2, deepest + 1):
            # the last level keeps only what can count: positions within NEGLIGIBLE of its best
            found, complete = self.explorer.extend(level, self.referee.budget, self.evidence.score_all,
                                                    NEGLIGIBLE if depth == deepest else math.inf)
            exhaustive = exhaustive and complete
            floor = max((ll for _, ll in found), default=0.0) - NEGLIGIBLE
            for (moves, pos, shown, silent), ll in found:
                if ll > floor and not silent:
                    self.add_sequence(moves, pos, ll, PRIOR_EXTRA_MOVE * max(0, shown - 1), depth == deepest)
            level = [sequence for sequence, _ in found]
        return exhaustive

    def add_sequence(self, moves: tuple[Move, ...], pos: Position, ll: float, prior: float, last: bool) -> None:
        """Keep the sequence ``moves`` (see ``add``). Of the last level most are far too unlikely
        to weigh (after one move, about three in four of all the explanations of a verdict):
        those are set aside as they are, not made explanations, and count only towards the
        softmax denominators (under exp(-NEGLIGIBLE) each) and among the nearest legal results
        where nothing fits (``everyone``). Only on the last level: nothing added after it could
        have been kept out by them, and they come after every explanation kept, as in ``scored``."""
        if not (last and self.negligible(ll, prior)):
            self.add(Explanation("move", moves, pos, ll, prior))
            return
        key = state_key(pos)
        if key not in self.scored and key not in self._claimed:
            self._unlikely.append((moves, pos, ll, prior))

    # -- choosing ------------------------------------------------------------------------
    def outcome(self, e: Explanation) -> tuple:
        """What committing ``e`` would make of the game: the position it leads to. A move caught
        half-way leads where the move does; a move seen before the sweep, where it is swept."""
        if e.kind == "in_progress":
            return state_key(self._after[e.moves[-1]])
        return state_key(e.position)

    def ranked(self) -> list[Explanation]:
        """The explanations worth weighing, best weight first, each with the posterior and the
        evidence share of its outcome among every outcome scored. An outcome counts once, at its
        best: several boards or stories leading to one position (a move before and after the
        sweep, or caught half-way) are one explanation of the board, not several votes for it.
        A move caught half-way is weighed by the posterior only: it is no state of the game (the
        next Reading settles it), so it takes no evidence share from the states the Reading
        shows. Explanations too unlikely to change either share (``NEGLIGIBLE``) are left out,
        before their shares are written in: most of a sequence search's are."""
        if self._ranked is None:
            weights, lls = self._weigh_outcomes()
            top_weight, top_ll = max(weights.values()), self._top_state_ll
            self._ranked = self._shared([e for e in self.scored.values()
                                         if e.log_likelihood + e.prior > top_weight - NEGLIGIBLE
                                         or e.log_likelihood > top_ll - NEGLIGIBLE])
        return self._ranked

    def everyone(self) -> list[Explanation]:
        """Every explanation scored, best weight first, with the shares of its outcome: where
        nothing fits, the nearest legal results are named from these, however unlikely."""
        self.ranked()
        unlikely = [Explanation("move", moves, pos, ll, prior) for moves, pos, ll, prior in self._unlikely]
        return self._shared(list(self.scored.values()) + unlikely)

    def _weigh_outcomes(self) -> tuple[dict[tuple, float], dict[tuple, float]]:
        """The best weight and the best log likelihood (states of the game only) of every outcome,
        and the softmax denominators of both shares."""
        weights: dict[tuple, float] = {}
        lls: dict[tuple, float] = {}
        for e in self.scored.values():
            key = self.outcome(e)
            weights[key] = max(weights.get(key, -math.inf), e.weight)
            if e.kind != "in_progress":
                lls[key] = max(lls.get(key, -math.inf), e.log_likelihood)
        top_weight, top_ll = max(weights.values()), max(lls.values(), default=-math.inf)
        self._top_state_ll = top_ll
        self._outcomes = weights, lls
        unlikely = self._unlikely  # each its own outcome (a move), never the best
        self._totals = (sum(math.exp(w - top_weight) for w in weights.values())
                        + sum(math.exp(ll + prior - top_weight) for _, _, ll, prior in unlikely),
                        sum(math.exp(ll - top_ll) for ll in lls.values())
                        + sum(math.exp(ll - top_ll) for _, _, ll, _ in unlikely))
        return weights, lls

    def _shared(self, explanations: list[Explanation]) -> list[Explanation]:
        """``explanations`` best weight first (a stable sort: ties keep the order they were
        scored in), each with the posterior and the evidence share of its outcome."""
        weights, lls = self._outcomes
        by_weight, by_evidence = self._totals
        top_weight, top_ll = max(weights.values()), self._top_state_ll
        out = []
        for e in sorted(explanations, key=lambda e: e.weight, reverse=True):
            key = self.outcome(e)
            if key in weights:
                weight, ll = weights[key], lls.get(key)  # no ll: only half-sown boards lead there
            else:  # set aside as unlikely: a move, its own outcome
                weight, ll = e.weight, e.log_likelihood
            out.append(e.with_shares(math.exp(weight - top_weight) / by_weight,
                                     math.exp(ll - top_ll) / by_evidence if ll is not None else 0.0))
        return out

    def decide(self, exhaustive: bool) -> Verdict | None:
        """Commit the best fitting explanation if its outcome is sure enough (by both shares; a
        move caught half-way, which commits nothing but "wait", by the posterior), else name the
        candidates; ``None`` when nothing fits or nothing that fits is likely enough to name."""
        ranked = self.ranked()
        fitting = [e for e in ranked if self.evidence.fits(*e.seen_board)]
        if not fitting:
            return None
        best = fitting[0]
        mine = self.outcome(best)
        # the runner-up is the likeliest explanation of another outcome that could have been chosen: one that fits
        runner_up = next((e for e in fitting if self.outcome(e) != mine), None)
        margin = best.weight - runner_up.weight if runner_up else math.inf
        sure = best.posterior >= CONFIDENT and best.share >= CONFIDENT  # of its outcome
        if best.kind == "in_progress":
            # wait: the move is sure and seen half-way, or the Reading shows boards half-sown (which
            # move does not matter) far likelier than any state of the game
            waiting = self.representatives([e for e in fitting if e.kind == "in_progress"])
            posterior = sum(e.posterior for e in waiting)
            if sure or (posterior >= CONFIDENT and best.log_likelihood >= self._top_state_ll + SURE_LEAD):
                return self.verdict_for(best, margin, exhaustive, tuple(waiting[:MAX_NAMED]), posterior)
        elif sure:
            return self.verdict_for(best, margin, exhaustive, (best,), best.posterior)
        named = self.named(ranked)
        if mine not in {self.outcome(e) for e in named}:
            return None  # every explanation likely enough to name is ruled out by the Reading: illegal
        notes = self.search_notes(named, exhaustive)
        if len(named) > MAX_NAMED or sum(e.posterior for e in named) < CONFIDENT \
                or sum(e.share for e in named) < CONFIDENT:
            return Verdict("unreadable", f"the reading is too uncertain: {len(ranked)} explanations share "
                           f"the evidence, the best has {best.share:.0%} of it ({best.posterior:.0%} with the "
                           f"rules' priors)", best,
                           tuple(named[:MAX_NAMED]), best.posterior, margin, self.referee.depth, exhaustive,
                           notes=notes)
        words = "; ".join(e.describe() for e in named)
        return Verdict("ambiguous", f"the board fits several explanations about equally well: {words}",
                       best, tuple(named), best.posterior, margin, self.referee.depth, exhaustive, notes=notes)

    def representatives(self, ranked: Sequence[Explanation]) -> list[Explanation]:
        """The best explanation of each outcome, best weight first."""
        seen: set[tuple] = set()
        out = []
        for e in ranked:
            key = self.outcome(e)
            if key not in seen:
                seen.add(key)
                out.append(e)
        return out

    def named(self, ranked: Sequence[Explanation]) -> list[Explanation]:
        """The candidates of an ambiguous verdict: the likeliest outcomes (by the larger of their
        posterior and evidence share), each by its best explanation, that together hold
        ``CONFIDENT`` of both."""
        named: list[Explanation] = []
        posterior = share = 0.0
        for e in sorted(self.representatives(ranked), key=lambda e: max(e.posterior, e.share), reverse=True):
            if (posterior >= CONFIDENT and share >= CONFIDENT) or max(e.posterior, e.share) < NAME_AT_LEAST:
                break
            named.append(e)
            posterior += e.posterior
            share += e.share
        return named

    def search_notes(self, named: Sequence[Explanation], exhaustive: bool) -> tuple[str, ...]:
        """Say how far the search went where a sequence is named, and where it was narrowed."""
        notes = []
        if any(len(e.moves) > 1 and e.kind == "move" for e in named):
            notes.append(f"no single move explains the board: searched sequences of up to {self.referee.depth} moves")
        if not exhaustive:
            notes.append(f"sequences of {self.referee.depth} moves were searched only from the most likely positions")
        return tuple(notes)

    def verdict_for(self, best: Explanation, margin: float, exhaustive: bool,
                    candidates: tuple[Explanation, ...], confidence: float) -> Verdict:
        mover = self.current.to_move
        extra: list[str] = []
        events: tuple[Event, ...] = ()
        if best.kind == "move":
            events = tuple(self.events_of(best.moves[0]) if len(best.moves) == 1
                           else _play_events(self.current, best.moves))
            reason = _who_played(self.current, best.moves) + best.left_said
            if len(best.moves) == 1 and _forced_silent_pass(self.current, self.explorer.successors(self.current)):
                reason = f"{PLAYER_NAMES[mover]} cannot move and passes"
            after = best.position
            for label in best.left:  # the capture the owner did not make is not an event of the game
                declined = next(e for e in events if e.get("type") == "capture" and e.get("pit") == label)
                events = tuple(e for e in events if e is not declined)
                extra.append(f"hollow {label} holds 4: {declined['by']} could capture them and left them, "
                             "the chance is lost (accepted and recorded)")
            if best.board is not None and not best.left:
                extra.append("the seeds left on the board are still to be swept or set up")
            if after.result is not None:
                extra.append(f"the game is over: {after.result.reason}")
            elif events and events[-1].get("type") == "extra_turn":
                extra.append(f"{events[-1]['player']} moves again")
        elif best.kind == "takeback":
            reason = f"the board is back where it was {best.undo} move{'s' if best.undo > 1 else ''} ago"
        elif best.kind == "in_progress":
            reason = (f"{PLAYER_NAMES[mover]} is sowing {best.moves[-1].text}: {best.in_hand} "
                      f"seed{'s' if best.in_hand > 1 else ''} still in hand; wait")
        else:
            reason = "the board has not changed"
            legal = self.explorer.successors(self.current)
            if len(legal) == 1 and legal[0][0].is_pass:
                extra.append(f"{PLAYER_NAMES[mover]} cannot move and must pass ({legal[0][0].text})")
        return Verdict(best.kind, reason, best, candidates, confidence, margin, self.referee.depth,
                       exhaustive, events, notes=self.search_notes(candidates, exhaustive) + tuple(extra))

    # -- stage 4: nothing legal fits ----------------------------------------------------------
    def nothing_fits(self, successors: Sequence[tuple[Move, Position]], exhaustive: bool) -> Verdict:
        """Seeds in a hand (wait), or illegal with the likely mistake.

        A board short of the seeds of every legal result says a hand holds some, unless a
        catalogued mistake explains the Reading clearly better than the nearest legal result
        and than any move caught half-way (``mistakes.diagnose``). Seeds captured off the board
        (Oware, Nam Nam, Bao with laps) leave a board as short as seeds in a hand: a capture that
        may not be made, or the opponent's capturing move out of turn, is a completed sowing with
        a pit emptied, while a hand caught mid-sowing leaves the lifted pit empty and the sowing
        short of its last pits. The likelier story wins."""
        legal = [e for e in self.everyone() if e.kind in ("move", "unchanged")]
        if self.laid_before:  # untouched since the game began: neither a move nor a move gone wrong
            return self.not_set_up(legal[0], exhaustive)
        if self.over or self.current.result is not None:
            mistake = Mistake("unknown", "the game is over: no move may be played", None,
                              tuple(d.pit for d in self.evidence.differences(*legal[0].seen_board)),
                              legal[0].log_likelihood)
        else:
            half_way = max((self.evidence.score(*board) for _, _, board in self.half_sown(successors)),
                           default=-math.inf)
            mistake = mistakes.diagnose(self.current, self.evidence, legal[0], half_way)
        in_hand = self.seeds_in_hand(successors)
        if in_hand is not None and mistake.code == "unknown":
            return in_hand
        start = next((e for e in legal if e.kind == "unchanged"), None)
        if (mistake.code == "unknown" and not self.begun and not self.over and start is not None
                and len(legal[0].moves) != 1):
            return self.not_set_up(start, exhaustive)
        return self.illegal(legal, mistake, exhaustive)

    def seeds_in_hand(self, successors: Sequence[tuple[Move, Position]]) -> Verdict | None:
        """Every pit is seen and the board holds fewer seeds than any legal result: a hand holds some."""
        if self.evidence.unseen_fraction > 0:
            return None
        least = min(sum(p.pits) for p in [self.current] + [p for _, p in successors])
        p_short = self.evidence.total_short_probability(least)
        if p_short < IN_HAND_SURE:
            return None
        return Verdict("in_progress", f"the board holds fewer seeds than any legal result ({least}): "
                       "seeds are still in a hand; wait", confidence=p_short, margin=math.inf,
                       depth=self.referee.depth)

    def not_set_up(self, start: Explanation, exhaustive: bool) -> Verdict:
        """No move played yet in the game, and the board is nearest to no one move from its start:
        the players are still laying the start out (a new game begun with the last one's board on
        the table). The pits to put right are the ones that differ from the start, not from a
        legal result some moves away. (A first move gone wrong is nearest to one move: illegal as
        ever, with that move named.)"""
        differences = tuple(self.evidence.differences(*start.seen_board))
        pits = tuple(d.pit for d in differences)
        mistake = Mistake("not_set_up", f"{mistakes.CATALOGUE['not_set_up']}; pits that differ: {', '.join(pits)}",
                          None, pits, start.log_likelihood)
        where = "; ".join(d.words() for d in differences)
        return Verdict("illegal", f"the board is not laid out as the game's start yet: {where}", start, (start,),
                       start.posterior, math.inf, self.referee.depth, exhaustive, differences=differences, mistake=mistake)

    def illegal(self, legal: list[Explanation], mistake: Mistake, exhaustive: bool) -> Verdict:
        """Nothing legal fits: the nearest legal result, the pits that differ, the likely mistake."""
        nearest = legal[0]
        differences = tuple(self.evidence.differences(*nearest.seen_board))
        where = "; ".join(d.words() for d in differences) or "the board fits no legal result"
        return Verdict("illegal", f"no legal move explains the board ({mistake.words}). Nearest legal result: "
                       f"{nearest.describe()}; {where}", nearest, tuple(legal[:MAX_NAMED]),
                       nearest.posterior, nearest.weight - legal[1].weight if len(legal) > 1 else math.inf,
                       self.referee.depth, exhaustive, differences=differences, mistake=mistake)


_DEFAULT = Referee()


def judge(game_or_positions: GameSoFar, reading: Reading | dict, *, laid_before: bool = False) -> Verdict:
    """Judge ``reading`` against the game so far with the shared default :class:`Referee`
    (from one thread; a server judging from several threads gives each its own Referee).

    ``game_or_positions``: a ``rules.Game``, a list of Positions oldest first
    (the last one is the current position), or a single Position; ``laid_before``: see
    :meth:`Referee.judge`.
    """
    return _DEFAULT.judge(game_or_positions, reading, laid_before=laid_before)
