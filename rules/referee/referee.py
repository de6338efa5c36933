"""The referee: turn one stable Reading into a verdict on the game.

It reads *with* the rules: instead of counting seeds and checking the count,
it asks which legal explanation (unchanged, a move, a takeback, a short
sequence of moves the camera missed) makes the Reading most likely, and how
sure that choice is. The search widens only when it must:

1. unchanged, every legal move, earlier positions (takebacks); then the same
   moves on boards not yet tidied up (before an end-of-game sweep, a Nam Nam
   four left by its owner);
2. moves caught half-way (seeds in the hand: wait, do not judge);
3. sequences of 2, then 3 moves by the players whose turn it was;
4. nothing legal fits: seeds short of every legal board (a hand still holds
   some), else illegal, with the nearest legal result, the pits that differ and
   the likely mistake in plain words.

Choosing: each explanation gets a log likelihood (``likelihood.Evidence``)
plus a log prior (longer stories are less likely), the posterior is the
softmax over every explanation scored; the best one that *fits* (no pit ruled
out) wins if its posterior reaches ``CONFIDENT``, else the verdict is
ambiguous and names the candidates. A stage is the last one searched when
nothing the next could find might take the verdict below ``CONFIDENT``.
"""

from __future__ import annotations

import math
from itertools import takewhile
from operator import itemgetter
from typing import Any, Iterable, Sequence

from ..layout import PLAYER_NAMES
from ..position import Move, Position
from ..reading import BadReading, Reading
from ..variant import Event
from . import mistakes
from .explain import Explorer, board_of, fours_left, sowing_boards, state_key, takebacks
from .likelihood import Evidence
from .verdict import KINDS, Explanation, Mistake, Verdict

CONFIDENT = 0.99          # posterior needed to commit an explanation
SURE_LEAD = math.log(CONFIDENT / (1 - CONFIDENT))  # the log-weight lead that alone gives CONFIDENT
NEGLIGIBLE = 30.0         # an explanation this far (log) below the best cannot move a posterior
MAX_UNSEEN = 0.5          # more of the board unseen than this: unreadable
MAX_NAMED = 6             # an ambiguity among more candidates than this is unreadable (too uncertain)
NAME_AT_LEAST = 0.005     # candidates below this posterior are not named
IN_HAND_SURE = 0.95       # P(board short of every legal total) that means "a hand holds seeds"
PRIOR_TAKEBACK = -3.0     # log prior of taking back one move, minus 0.5 per further move
PRIOR_EXTRA_MOVE = -7.0   # log prior per move beyond the first: a camera misses about 1 board in 1,000
PRIOR_IN_PROGRESS = -7.0  # log prior of a stable board caught in the middle of a sowing: as rare
PRIOR_LEFT_FOUR = -1.0    # log prior of a Nam Nam four left on the board by its owner
LEAVE_FOURS = frozenset({"nam-nam"})  # variants whose owners may leave a four (RULES.md)


def _positions_of(game_or_positions: Any) -> list[Position]:
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
    def judge(self, game_or_positions: Any, reading: Reading | dict) -> Verdict:
        """The verdict on ``reading`` given the game so far (a Game, positions oldest first, or a Position)."""
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
        # a Game knows of ends no position shows (a draw agreed on the dashboard)
        over = bool(getattr(game_or_positions, "is_over", False))
        return _Judgement(self, positions, evidence, over).run()


class _Judgement:
    """One verdict in the making: the explanations scored so far and the stages of the search."""

    def __init__(self, referee: Referee, positions: list[Position], evidence: Evidence, over: bool) -> None:
        self.referee = referee
        self.over = over
        self.positions = positions
        self.current = positions[-1]
        self.evidence = evidence
        self.explorer = referee.explorer
        self.scored: dict[Any, Explanation] = {}  # one explanation per resulting position (or board)
        self._changes = 0                  # explanations added or changed so far
        # ranked() keeps its work between stages: the best weight of every explanation it has
        # seen, and the explanations added (or changed: which one each replaces) since
        self._best_of: dict[tuple, tuple[float, Explanation]] = {}
        self._unranked: list[tuple[Explanation, Explanation | None]] = []
        self._weighed: tuple[list[tuple[float, Explanation]], float, float] | None = None
        self._top = -math.inf  # the best weight scored so far: it only grows
        self._claimed: set[tuple] = set()  # positions claimed by takebacks too unlikely to weigh

    def add(self, e: Explanation, key: Any = None) -> None:
        """Keep ``e`` unless its position is explained already; a second way to the same
        position by as many moves is recorded as equivalent."""
        key = state_key(e.position) if key is None else key
        known = self.scored.get(key)
        if known is None:
            if key in self._claimed:
                return
            self.scored[key] = e
            self._unranked.append((e, None))
            self._changes += 1
            self._top = max(self._top, e.log_likelihood + e.prior)
        elif known.kind == e.kind == "move" and len(e.moves) == len(known.moves):
            self.scored[key] = again = known._replace(equivalent=known.equivalent + (tuple(e.texts),))
            self._unranked.append((again, known))
            self._changes += 1

    def negligible(self, weight: float) -> bool:
        """An explanation this unlikely can never be weighed (``ranked`` leaves it out, as the
        best weight only grows) and adds under exp(-NEGLIGIBLE) to any posterior: not kept."""
        return weight <= self._top - NEGLIGIBLE

    def explanation(self, kind: str, moves: tuple[Move, ...], pos: Position, prior: float,
                    board: Any = None, **kw: Any) -> Explanation:
        pits, white = board if board is not None else (pos.pits, pos.white)
        return Explanation(kind, moves, pos, self.evidence.score(pits, white), prior, board=board, **kw)

    def run(self) -> Verdict:
        current = self.current
        successors = () if self.over else self.explorer.successors(current)
        if not _forced_silent_pass(current, successors):
            self.add(self.explanation("unchanged", (), current, 0.0))
        for move, pos in successors:
            self.add(self.explanation("move", (move,), pos, 0.0))
        self.add_takebacks()
        # before any verdict: an untidy board's prior (0, or -1 for a four left) is far above
        # the -7 of a longer sequence that settled() bounds, so it could beat a settled move
        self.add_untidy_boards(successors)
        verdict = self.decide(1, True)
        if verdict and self.settled(verdict, 1):
            return verdict
        # a move caught half-way, or a poor fit, still has to beat longer sequences
        self.add_partial_boards(successors)
        verdict = self.decide(1, True)
        exhaustive = True
        first: dict[tuple, tuple] = {}
        for move, pos in successors:
            first.setdefault(state_key(pos), ((move,), pos))
        level = list(first.values())  # sequences so far, one per position
        deepest = self.referee.depth
        for depth in range(2, 1 if self.over else deepest + 1):
            if verdict and self.settled(verdict, depth - 1):
                return verdict
            # the last level keeps only what can count: positions within NEGLIGIBLE of its best
            found, complete = self.explorer.extend(level, self.referee.budget, self.evidence.score,
                                                    NEGLIGIBLE if depth == deepest else math.inf)
            exhaustive = exhaustive and complete
            floor = max((ll for _, ll in found), default=0.0) - NEGLIGIBLE
            for (moves, pos), ll in found:
                if ll > floor:
                    self.add(Explanation("move", moves, pos, ll, PRIOR_EXTRA_MOVE * (depth - 1)))
            level = [sequence for sequence, _ in found]
            verdict = self.decide(depth, exhaustive)
        return verdict or self.seeds_in_hand(successors) or self.illegal(exhaustive)

    def settled(self, verdict: Verdict, depth: int) -> bool:
        """Nothing left unscored could change the verdict: it leads the best weight that any
        explanation not yet scored (a sequence one move longer, a move caught half-way) could
        reach by more than ``SURE_LEAD``. For a one-move verdict that means fitting within
        -PRIOR_EXTRA_MOVE - SURE_LEAD (2.4) of the best board the Reading allows."""
        best = verdict.best
        if best is None:
            return False
        return best.weight - SURE_LEAD >= self.evidence.ideal + PRIOR_EXTRA_MOVE * depth

    def add_takebacks(self) -> None:
        """Earlier positions of the game, nearest first, while their prior still counts. Added
        after the moves: a move back to an earlier position is a move (same position, new history)."""
        for undo, pos in takebacks(self.positions):
            prior = PRIOR_TAKEBACK - 0.5 * (undo - 1)
            if prior < -NEGLIGIBLE:
                break
            if self.negligible(self.evidence.score(pos.pits, pos.white) + prior):
                self._claimed.add(state_key(pos))  # still explained: no longer sequence may claim it
                continue
            self.add(self.explanation("takeback", (), pos, prior, undo=undo))

    # -- stage 1 extras: boards that show a legal move before the players tidy up --------
    def add_untidy_boards(self, successors: Sequence[tuple[Move, Position]]) -> None:
        """A move that ends the game (or a Nam Nam round) is seen before the sweep; a Nam Nam
        four may be left on the board by its owner. Same move, different board."""
        leave = self.current.variant.name in LEAVE_FOURS
        for move, pos in successors:
            if pos.result is None and not leave:
                continue
            events = _play_events(self.current, (move,))
            _, before_end = sowing_boards(self.current, move, events)
            if before_end != board_of(pos):
                self.add(self.explanation("move", (move,), pos, 0.0, board=before_end), ("before_end", move))
            if leave:
                for label, left in fours_left(self.current, move, pos, events):
                    self.add(self.explanation("move", (move,), left, PRIOR_LEFT_FOUR, left=(label,)))

    # -- choosing ------------------------------------------------------------------------
    def ranked(self, kinds: tuple[str, ...] = KINDS, negligible: float = NEGLIGIBLE) -> list[Explanation]:
        """The explanations of ``kinds`` worth weighing, best first, each with its posterior
        among *every* explanation scored. Boards that stand for the same explanation (a move
        before and after the sweep) count once, at their best; explanations too unlikely to
        change a posterior (``NEGLIGIBLE``) are left out."""
        if self._unranked:
            best_of = self._best_of
            for e, replaced in self._unranked:
                weight = e.log_likelihood + e.prior  # e.weight, worked out once
                key = (e.kind, state_key(e.position), e.board if e.kind == "in_progress" else None)
                known = best_of.get(key)
                if known is None or weight > known[0] or known[1] is replaced:
                    best_of[key] = (weight, e)
            self._unranked.clear()
            everyone = sorted(best_of.values(), key=itemgetter(0), reverse=True)
            top = everyone[0][0]
            norm = sum([math.exp(weight - top) for weight, _ in everyone])
            self._weighed = (everyone, top, norm)
        assert self._weighed is not None, "ranked() before any explanation was scored"
        everyone, top, norm = self._weighed
        worth = takewhile(lambda weighed: weighed[0] > top - negligible, everyone)
        return [e._replace(posterior=math.exp(weight - top) / norm) for weight, e in worth if e.kind in kinds]

    def decide(self, depth: int, exhaustive: bool, kinds: tuple[str, ...] = KINDS) -> Verdict | None:
        """Commit the best fitting explanation if sure enough, else name the candidates."""
        ranked = self.ranked(kinds)
        best = next((e for e in ranked if self.evidence.fits(*e.seen_board)), None)
        if best is None:
            return None
        runner_up = next((e for e in ranked if e is not best), None)
        margin = best.weight - runner_up.weight if runner_up else math.inf
        notes = self.search_notes(depth, exhaustive)
        if best.posterior >= CONFIDENT:
            return self.verdict_for(best, margin, depth, exhaustive, notes)
        named, mass = [], 0.0  # the likeliest explanations that together hold CONFIDENT of the posterior
        for e in ranked:
            if e.posterior < NAME_AT_LEAST or mass >= CONFIDENT:
                break
            named.append(e)
            mass += e.posterior
        if len(named) > MAX_NAMED or mass < CONFIDENT:
            return Verdict("unreadable", f"the reading is too uncertain: {len(ranked)} explanations share "
                           f"the evidence, the best has only {best.posterior:.0%}",
                           best, tuple(named[:MAX_NAMED]), best.posterior, margin, depth, exhaustive, notes=notes)
        if all(e.kind == "in_progress" for e in named):
            return self.verdict_for(best, margin, depth, exhaustive, notes, tuple(named))
        words = "; ".join(e.describe() for e in named)
        return Verdict("ambiguous", f"the board fits several explanations about equally well: {words}",
                       best, tuple(named), best.posterior, margin, depth, exhaustive, notes=notes)

    @staticmethod
    def search_notes(depth: int, exhaustive: bool) -> tuple[str, ...]:
        if depth == 1:
            return ()
        note = f"no single move explains the board: searched sequences of up to {depth} moves"
        return (note if exhaustive else note + " (the longest only from the most likely positions)",)

    def verdict_for(self, best: Explanation, margin: float, depth: int, exhaustive: bool,
                    notes: tuple[str, ...], candidates: tuple[Explanation, ...] = ()) -> Verdict:
        mover = self.current.to_move
        extra: list[str] = []
        events: tuple[Event, ...] = ()
        if best.kind == "move":
            events = tuple(_play_events(self.current, best.moves))
            reason = f"{PLAYER_NAMES[mover]} played {best.describe()}"
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
        return Verdict(best.kind, reason, best, candidates or (best,), best.posterior, margin, depth,
                       exhaustive, events, notes=notes + tuple(extra))

    # -- stage 2: a move caught half-way -----------------------------------------------------
    def add_partial_boards(self, successors: Sequence[tuple[Move, Position]]) -> None:
        """Boards seen while a legal move is being sown (seeds still in the hand). Not looked
        for when every board that fits the Reading holds all the seeds of the current position."""
        if self.evidence.least_total >= sum(self.current.pits):
            return
        for move, _ in successors:
            partial, _ = sowing_boards(self.current, move, _play_events(self.current, (move,)))
            for hand, board in partial:
                if not self.negligible(self.evidence.score(*board) + PRIOR_IN_PROGRESS):
                    self.add(self.explanation("in_progress", (move,), self.current, PRIOR_IN_PROGRESS,
                                              board=board, in_hand=hand), ("in_progress", move, board))

    # -- stage 4: nothing legal fits ----------------------------------------------------------
    def seeds_in_hand(self, successors: Sequence[tuple[Move, Position]]) -> Verdict | None:
        """Every pit is seen and the board holds fewer seeds than any legal result: a hand holds some."""
        if self.evidence.unseen_fraction > 0:
            return None
        least = min(sum(p.pits) for p in [self.current] + [p for _, p in successors])
        p_short = self.evidence.total_short_probability(least)
        if p_short < IN_HAND_SURE:
            return None
        return Verdict("in_progress", f"the board holds fewer seeds than any legal result ({least}): "
                       "seeds are still in a hand; wait", confidence=p_short, margin=math.inf)

    def illegal(self, exhaustive: bool) -> Verdict:
        """Nothing legal fits: the nearest legal result, the pits that differ, the likely mistake."""
        legal = self.ranked(("move", "unchanged"), math.inf)
        nearest = legal[0]
        differences = tuple(self.evidence.differences(*nearest.seen_board))
        if self.over or self.current.result is not None:
            mistake = Mistake("unknown", "the game is over: no move may be played", None,
                              tuple(d.pit for d in differences), nearest.log_likelihood)
        else:
            mistake = mistakes.diagnose(self.current, self.evidence, nearest)
        where = "; ".join(d.words() for d in differences) or "the board fits no legal result"
        return Verdict("illegal", f"no legal move explains the board ({mistake.words}). Nearest legal result: "
                       f"{nearest.describe()}; {where}", nearest, tuple(legal[:MAX_NAMED]),
                       nearest.posterior, nearest.weight - legal[1].weight if len(legal) > 1 else math.inf,
                       self.referee.depth, exhaustive, differences=differences, mistake=mistake)


_DEFAULT = Referee()


def judge(game_or_positions: Any, reading: Reading | dict) -> Verdict:
    """Judge ``reading`` against the game so far with the shared default :class:`Referee`
    (from one thread; a server judging from several threads gives each its own Referee).

    ``game_or_positions``: a ``rules.Game``, a list of Positions oldest first
    (the last one is the current position), or a single Position.
    """
    return _DEFAULT.judge(game_or_positions, reading)
