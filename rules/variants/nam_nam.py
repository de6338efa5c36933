"""Oware Nam Nam (seed 004): hollows with owners, captures by fours, laps, rounds.

A game is a series of rounds. In a round the players sow with laps; every drop
that makes a hollow hold exactly 4 is captured at once by the hollow's owner,
except the last seed's 4, which the mover takes. When a capture leaves 4 seeds
in play, the capturer takes them too and the round ends. The round's leader
then owns one hollow for every 4 seeds he captured; the game ends when one
player captured all 48 in a round.

Extra state (``Position.state``): ``(owners, round, starter, rounds)`` with
``owners`` the owner (0/1) of every hollow in canonical order, ``round`` the
number of the round being played (of the last round once the game is over),
``starter`` who made the round's first move and ``rounds`` the captures
``(south, north)`` of every finished round. ``Position.captured`` holds the
captures of the round being played.
"""

from __future__ import annotations

import reprlib
from typing import Any, NamedTuple, Sequence

from .. import events as ev
from ..errors import BadPosition, IllegalMove, RulesError
from ..layout import PLAYER_NAMES, Layout, two_row_layout
from ..position import Move, Position, Result, count_from_json
from ..registry import register
from ..sowing import NEVER_ENDING, WATCH_FROM, never_ends
from ..variant import Event, Option, Variant

HOLLOWS = 12
SEEDS = 48
FOUR = 4
START_OWNERS = (0,) * 6 + (1,) * 6  # each player owns his own row

# what a sowing came to: the move ended, the round ended ("eight left"), or never-ending
ENDED, ROUND_OVER, NEVER_ENDS = "ended", "round over", "never ends"


class RoundChoice(NamedTuple):
    """The choice of hollows at a round's start: the round's ``leader`` (0 South, 1 North) takes
    ``count`` of the opponent's ``hollows`` (labels); ``chosen``: those he holds now."""

    leader: int
    count: int
    hollows: tuple[str, ...]
    chosen: tuple[str, ...]


class NamNam(Variant):
    """Oware Nam Nam: sow CCW from a hollow you own; 4s captured by the owner mid-sowing
    and by the mover on the last seed; laps; rounds that redistribute the hollows."""

    OPTIONS = (
        Option("leader_hollows", "left",
               "which of the opponent's hollows the round's leader takes by default: counted from "
               "the opponent's left ('left', a b c ... when South leads) or right ('right')",
               choices=("left", "right")),
        Option("loser_starts", True,
               "true: the loser of a round starts the next; false (and after a tied round): "
               "the player who did not start the previous round starts"),
    )

    def _make_layout(self) -> Layout:
        return two_row_layout(6)

    def __init__(self, name: str, description: str, /, **options: Any) -> None:
        super().__init__(name, description, **options)
        labels = self._labels = self.layout.labels  # the property builds a new tuple on every call
        self._next = tuple((i + 1) % HOLLOWS for i in range(HOLLOWS))
        self._rows = (tuple(range(6)), tuple(range(6, 12)))
        self._moves = tuple(Move(i, labels[i]) for i in range(HOLLOWS))
        self._pass = Move(-1, "pass")
        # single-entry memo: legal_moves works every sowing out (to drop the never-ending
        # ones), and play() right after it reuses that work instead of sowing again
        self._memo: tuple[Position | None, list[Move], dict[Move, tuple]] = (None, [], {})

    # -- positions -----------------------------------------------------------
    def start(self) -> Position:
        return Position(self, (FOUR,) * HOLLOWS, 0, (0, 0), None, (START_OWNERS, 1, 0, ()))

    def round_choice(self, pos: Position) -> RoundChoice | None:
        """Who chooses which of the opponent's hollows at the round start ``pos``, how many, among
        which, and those he holds now; ``None`` where no one chooses (round 1, after a tied round,
        once the round's first move is made, a game over)."""
        owners, _, _, rounds = pos.state
        if pos.result is not None or pos.captured != (0, 0) or any(n != FOUR for n in pos.pits):
            return None
        leader = _leader(rounds[-1]) if rounds else None
        if leader is None:
            return None
        loser_row = self._rows[1 - leader]
        return RoundChoice(leader, rounds[-1][leader] // FOUR - 6, tuple(self._labels[i] for i in loser_row),
                           tuple(self._labels[i] for i in loser_row if owners[i] == leader))

    def set_up_round(self, pos: Position, hollows: Sequence[str]) -> Position:
        """The round start ``pos`` with the leader's own choice of the opponent's hollows.

        On a real board the leader of the last round picks which of the
        opponent's hollows he fills; the engine's default (option
        ``leader_hollows``) is replaced here by the players' own choice
        (seed counts cannot show it: every hollow holds 4).
        """
        choice = self.round_choice(pos)
        if choice is None:
            raise RulesError(f"{self.name}: hollows are chosen at the start of a round after a decided one, "
                             "by its leader (not in round 1, after a tied round, or once the round's first "
                             "move is made)")
        chosen = set(hollows)
        if not chosen <= set(choice.hollows) or len(chosen) != choice.count or len(hollows) != choice.count:
            raise RulesError(
                f"{self.name}: {PLAYER_NAMES[choice.leader]} must choose {choice.count} distinct hollows of "
                f"{', '.join(choice.hollows)}, not {', '.join(hollows) or 'none'}"
            )
        owners, rnd, starter, rounds = pos.state
        new_owners = list(self._ownership(choice.leader, 0))
        for label in chosen:
            new_owners[self.layout.index_of(label)] = choice.leader
        return pos._replace(state=(tuple(new_owners), rnd, starter, rounds))

    # -- moves ------------------------------------------------------------------
    def legal_moves(self, pos: Position) -> list[Move]:
        if pos.result is not None:
            return []
        memo_pos, moves, _ = self._memo
        if memo_pos is not pos:
            moves, outcomes = self._work_out(pos)
            self._memo = (pos, moves, outcomes)
        return list(moves)

    def owner_of(self, pos: Position, index: int) -> int:
        return pos.state[0][index]

    def _why_not_from(self, pos: Position, index: int) -> str | None:
        return NEVER_ENDING

    def _work_out(self, pos: Position) -> tuple[list[Move], dict[Move, tuple]]:
        """Every move that ends, with what it comes to; a lone ``pass`` if none does."""
        player, owners = pos.to_move, pos.state[0]
        outcomes: dict[Move, tuple] = {}
        for i in range(HOLLOWS):
            if owners[i] == player and pos.pits[i]:
                pits, captured = list(pos.pits), list(pos.captured)
                how = self._sow(pits, captured, i, player, owners, None)
                if how is not NEVER_ENDS:
                    outcomes[self._moves[i]] = (pits, captured, how)
        if not outcomes:
            outcomes[self._pass] = (list(pos.pits), list(pos.captured), ENDED)
        return list(outcomes), outcomes

    def _sow(self, pits: list[int], captured: list[int], hollow: int, player: int,
             owners: tuple[int, ...], events: list[Event] | None) -> str:
        """Sow from ``hollow`` with laps and captures, changing ``pits`` and ``captured``."""
        labels, nxt = self._labels, self._next
        in_play = SEEDS - captured[0] - captured[1]  # board plus hand
        hand, pits[hollow] = pits[hollow], 0
        if events is not None:
            events.append(ev.lift(labels[hollow], hand))
        i, laps, seen = hollow, 0, set()
        while True:
            while hand:
                i = nxt[i]
                hand -= 1
                count = pits[i] + 1
                if events is not None:
                    events.append(ev.drop(labels[i], count))
                if count != FOUR:
                    pits[i] = count
                    continue
                taker = owners[i] if hand else player
                pits[i] = 0
                captured[taker] += FOUR
                in_play -= FOUR
                if events is not None:
                    events.append(ev.capture(labels[i], FOUR, taker, "captured"))
                if in_play == FOUR:
                    self._take_last_four(pits, captured, taker, hand, events)
                    return ROUND_OVER
                if not hand:
                    return ENDED
            if pits[i] == 1:
                return ENDED
            laps += 1
            if laps >= WATCH_FROM and never_ends(seen, laps, pits, i, pits[i]):
                return NEVER_ENDS
            hand, pits[i] = pits[i], 0
            if events is not None:
                events.append(ev.lap(labels[i], hand))

    def _take_last_four(self, pits: list[int], captured: list[int], taker: int, hand: int,
                        events: list[Event] | None) -> None:
        """The sheet's "eight left" rule: the capturer takes the last 4 (hand included)."""
        captured[taker] += FOUR
        if events is not None:
            for i, n in enumerate(pits):
                if n:
                    events.append(ev.capture(self.layout.labels[i], n, taker, "captured"))
            if hand:
                events.append(ev.capture("hand", hand, taker, "captured"))
        pits[:] = [0] * HOLLOWS

    # -- a four left standing ------------------------------------------------------
    def fours_to_leave(self, events: Sequence[Event]) -> list[str]:
        """The hollows whose owner could have left the four that a move (its ``events``) made
        there: on a real board a player who neglects to capture a 4 loses that chance and the
        position stands (RULES.md). Only a capture in the middle of the sowing (drops follow it;
        the last seed's 4 is the mover's) that the sowing never comes back to, in a move that
        does not end the round: leaving such a four changes nothing else in the move."""
        if any(e["type"] in ("round_end", "setup") for e in events):
            return []
        hollows = []
        for k, e in enumerate(events):
            if e["type"] != "capture" or e["pit"] not in self._labels:
                continue
            later = events[k + 1:]
            if any(x["type"] == "drop" for x in later) and not any(x.get("pit") == e["pit"] for x in later):
                hollows.append(e["pit"])
        return hollows

    def leave_fours(self, after: Position, events: Sequence[Event], hollows: Sequence[str]) -> Position:
        """``after``, the result of the move whose ``events`` are given, with the owners of
        ``hollows`` having left their fours on the board; ``IllegalMove`` names a hollow that
        had no four its owner could leave."""
        allowed = self.fours_to_leave(events)
        pits, captured = list(after.pits), list(after.captured)
        for label in dict.fromkeys(hollows):
            if label not in allowed:
                raise IllegalMove(f"{self.name}: no four in hollow {label!r} could be left for its owner in this "
                                  f"move; fours that could: {', '.join(allowed) or 'none'}")
            owner = next(PLAYER_NAMES.index(e["by"]) for e in events if e["type"] == "capture" and e["pit"] == label)
            pits[self._labels.index(label)] += FOUR
            captured[owner] -= FOUR
        return after._replace(pits=tuple(pits), captured=(captured[0], captured[1]))

    # -- playing ----------------------------------------------------------------
    def _apply(self, pos: Position, move: Move, events: list[Event] | None) -> Position:
        player = pos.to_move
        memo_pos, _, outcomes = self._memo
        if move.is_pass:
            if events is not None:
                events.append(ev.pass_turn(player))
            return pos._replace(to_move=1 - player)
        if events is None and memo_pos is pos and move in outcomes:
            pits, captured, how = outcomes[move]
        else:
            pits, captured = list(pos.pits), list(pos.captured)
            how = self._sow(pits, captured, move.pit, player, pos.state[0], events)
        if how is ROUND_OVER:
            return self._next_round(pos, (captured[0], captured[1]), events)
        return Position(self, tuple(pits), 1 - player, (captured[0], captured[1]), None, pos.state)

    def _next_round(self, pos: Position, captured: tuple[int, int], events: list[Event] | None) -> Position:
        """End the round: the game's end, or the set-up of the next round."""
        owners, rnd, starter, rounds = pos.state
        rounds = rounds + (captured,)
        leader = _leader(captured)
        if events is not None:
            events.append(ev.round_end(rnd, captured))
        if SEEDS in captured:
            result = Result(leader, "all 48 seeds won in a round", captured)
            if events is not None:
                events.append(ev.game_end(result))
            return Position(self, (0,) * HOLLOWS, 1 - pos.to_move, captured, None,
                            (owners, rnd, starter, rounds), result)
        if leader is not None:
            owners = self._ownership(leader, captured[leader] // FOUR - 6)
        if leader is not None and self.options["loser_starts"]:
            first = 1 - leader
        else:
            first = 1 - starter
        if events is not None:
            events.append(ev.setup(rnd + 1, first, self._labels, owners))
        return Position(self, (FOUR,) * HOLLOWS, first, (0, 0), None, (owners, rnd + 1, first, rounds))

    def _ownership(self, leader: int, extra: int) -> tuple[int, ...]:
        """The leader owns his row and ``extra`` hollows of the loser's row (option ``leader_hollows``)."""
        owners = [0] * HOLLOWS
        for i in self._rows[leader]:
            owners[i] = leader
        loser_row = self._rows[1 - leader]  # canonical order runs from its owner's left
        taken = loser_row[:extra] if self.options["leader_hollows"] == "left" else loser_row[6 - extra:]
        for i in loser_row:
            owners[i] = leader if i in taken else 1 - leader
        return tuple(owners)

    # -- JSON and invariants -------------------------------------------------------
    def state_to_json(self, state: tuple) -> dict[str, Any]:
        owners, rnd, starter, rounds = state
        return {
            "owners": {label: PLAYER_NAMES[o] for label, o in zip(self.layout.labels, owners)},
            "round": rnd,
            "round_starter": PLAYER_NAMES[starter],
            "rounds": [{"south": s, "north": n} for s, n in rounds],
        }

    def state_from_json(self, data: dict[str, Any]) -> tuple:
        """Missing fields mean round 1 as it starts: own rows, South started, no finished rounds."""
        labels = self.layout.labels
        owners_json = data.get("owners", {label: PLAYER_NAMES[o] for label, o in zip(labels, START_OWNERS)})
        if not isinstance(owners_json, dict) or sorted(owners_json) != sorted(labels):
            raise BadPosition(f"{self.name}: owners must name the owner of every hollow {', '.join(labels)}")
        owners = []
        for label in labels:
            if owners_json[label] not in PLAYER_NAMES:
                raise BadPosition(f"{self.name}: owners[{label!r}] must be 'south' or 'north', not {owners_json[label]!r}")
            owners.append(PLAYER_NAMES.index(owners_json[label]))
        rounds_json = data.get("rounds", [])
        if not isinstance(rounds_json, list):
            raise BadPosition(f"{self.name}: rounds must be a list of {{'south': n, 'north': n}}, not {rounds_json!r}")
        rounds = []
        for k, entry in enumerate(rounds_json):
            try:
                rounds.append((count_from_json(entry["south"], "south"), count_from_json(entry["north"], "north")))
            except (KeyError, TypeError, ValueError):
                raise BadPosition(f"{self.name}: rounds[{k}] must be {{'south': n, 'north': n}}, "
                                  f"not {reprlib.repr(entry)}") from None
        rnd = data.get("round", len(rounds) + 1)
        if isinstance(rnd, bool) or not isinstance(rnd, int) or rnd < 1:
            raise BadPosition(f"{self.name}: round must be a round number of 1 or more, not {rnd!r}")
        starter = data.get("round_starter", "south")
        if starter not in PLAYER_NAMES:
            raise BadPosition(f"{self.name}: round_starter must be 'south' or 'north', not {starter!r}")
        return (tuple(owners), rnd, PLAYER_NAMES.index(starter), tuple(rounds))

    def _check_invariants(self, pos: Position) -> None:
        owners, rnd, starter, rounds = pos.state
        name = self.name
        if any(n % FOUR for n in pos.captured):
            raise BadPosition(f"{name}: captures come in fours, not {pos.captured[0]} and {pos.captured[1]}")
        for k, (s, n) in enumerate(rounds):
            if s + n != SEEDS or s % FOUR or n % FOUR:
                raise BadPosition(f"{name}: round {k + 1} captures {s}+{n} must be fours adding up to {SEEDS}")
            if SEEDS in (s, n) and k != len(rounds) - 1:
                raise BadPosition(f"{name}: round {k + 1} won all {SEEDS} seeds, so the game ended there")
        over = bool(rounds) and SEEDS in rounds[-1]
        if over != (pos.result is not None):
            raise BadPosition(f"{name}: the game is over exactly when a round won all {SEEDS} seeds")
        if rnd != len(rounds) + (0 if over else 1):
            raise BadPosition(f"{name}: round {rnd} does not follow {len(rounds)} finished rounds")
        if not over and sum(pos.pits) < 2 * FOUR:
            raise BadPosition(f"{name}: a round in play has at least 8 seeds on the board, not {sum(pos.pits)}")
        self._check_owners(owners, rounds[:-1] if over else rounds)

    def _check_owners(self, owners: tuple[int, ...], rounds: tuple) -> None:
        """Ownership follows the last round that had a leader: his row plus a hollow per 4 over 24."""
        leader, extra = None, 0
        for captured in rounds:
            if _leader(captured) is not None:
                leader = _leader(captured)
                extra = captured[leader] // FOUR - 6
        if leader is None:
            if owners != START_OWNERS:
                raise BadPosition(f"{self.name}: until a round is won each player owns his own 6 hollows")
            return
        taken = sum(owners[i] == leader for i in self._rows[1 - leader])
        if any(owners[i] != leader for i in self._rows[leader]) or taken != extra:
            raise BadPosition(
                f"{self.name}: {PLAYER_NAMES[leader]} led the last decided round with {24 + 4 * extra} seeds, "
                f"so he owns his row and exactly {extra} of the opponent's hollows"
            )


def _leader(captured: tuple[int, int]) -> int | None:
    """The player who captured more in a round, ``None`` for a tie."""
    if captured[0] == captured[1]:
        return None
    return 0 if captured[0] > captured[1] else 1


register("nam-nam", NamNam,
         "Oware Nam Nam: 2 x 6, 4s captured by the hollow's owner, laps, rounds that win hollows")
