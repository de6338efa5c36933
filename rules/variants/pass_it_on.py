"""Pass It On (seed 000, two-person game): coloured chips, a white last chip, penalties, a match.

Each row is an outbox at its owner's left and five sections. A move lifts a
section and drops its chips one by one CCW through sections and both
outboxes, in an order of colours the mover chooses; a chip ending in an empty
pit must be white. A player with no such move passes and takes a penalty chip
from an outbox. The game is won by emptying one's sections or by the
opponent's sixth penalty; games are played into a match to 500.

Extra state (``Position.state``): ``(penalties, chips, match, game, starter)``:
penalty points per player, penalty chips per player as ``(yellow, white)``,
the match score per player (the game's points are added to it by the move
that ends the game), the number of the game in the match and who made the
game's first move. ``Position.white`` counts the white chips in every pit.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from .. import events as ev
from ..errors import BadPosition, RulesError
from ..layout import PLAYER_NAMES, Layout, two_row_layout
from ..position import WHITE, YELLOW, Move, Position, Result
from ..registry import register
from ..variant import Event, Option, Variant

SECTIONS = 5
PITS = 12  # A B C D E N a b c d e S: the track is the canonical order
OUTBOXES = (11, 5)  # South's outbox S, North's outbox N
WHITES = 2  # of the 30 chips
PENALTY_LIMIT = 6


def colour_orders(chips: int, whites: int, white_last: bool) -> tuple[str, ...]:
    """The distinct drop orders of a hand (chips of one colour are interchangeable):
    C(chips, whites) of them, or only those ending in white."""
    orders = []
    for spots in combinations(range(chips), whites):
        order = [YELLOW] * chips
        for spot in spots:
            order[spot] = WHITE
        if not white_last or order[-1] == WHITE:
            orders.append("".join(order))
    return tuple(orders)


class PassItOn(Variant):
    """Pass It On: sow a section's chips in any colour order through sections and both outboxes;
    a last chip into an empty pit must be white; passes cost penalty chips."""

    OPTIONS = (
        Option("match_target", 500, "match points that win the match", bounds=(1, 100_000)),
        Option("loser_starts", True,
               "true: the loser of a game starts the next; false: the players take turns to start"),
    )

    store_word = "an outbox"

    def _make_layout(self) -> Layout:
        return two_row_layout(SECTIONS, "left")

    def __init__(self, name: str, description: str, /, **options: Any) -> None:
        super().__init__(name, description, **options)
        self._labels = self.layout.labels  # the property builds a new tuple on every call
        self._sections = (tuple(range(0, 5)), tuple(range(6, 11)))
        self._move_cache: dict[tuple[int, int, int, bool], tuple[Move, ...]] = {}
        self._passes = {
            (outbox, colour): Move(-1, f"pass:{outbox}:{colour}", penalty=(outbox, colour))
            for outbox in ("S", "N") for colour in (WHITE, YELLOW)
        }
        self._bare_pass = Move(-1, "pass")

    # -- positions ---------------------------------------------------------------
    def start(self) -> Position:
        return self._new_game(0, (0, 0), 1)

    def _new_game(self, first: int, match: tuple[int, int], game: int) -> Position:
        pits = (3,) * SECTIONS + (0,) + (3,) * SECTIONS + (0,)
        white = (1,) + (0,) * 4 + (0,) + (1,) + (0,) * 4 + (0,)
        return Position(self, pits, first, (0, 0), white, ((0, 0), ((0, 0), (0, 0)), match, game, first))

    def next_game(self, final: Position) -> Position:
        """The start of the match's next game after ``final``, the match score carried over.

        The loser starts (option ``loser_starts``; off: whoever did not start
        this game). An error if the game is not over or the match is.
        """
        if final.result is None:
            raise RulesError(f"{self.name}: the game is not over yet, so there is no next game")
        winner = self.match_winner(final)
        if winner is not None:
            raise RulesError(f"{self.name}: the match is over, {PLAYER_NAMES[winner]} reached "
                             f"{self.options['match_target']}")
        _, _, match, game, starter = final.state
        first = 1 - final.result.winner if self.options["loser_starts"] else 1 - starter
        return self._new_game(first, match, game + 1)

    def match_winner(self, pos: Position) -> int | None:
        """The player whose match score reached ``match_target``, else ``None``."""
        match = pos.state[2]
        for player in (0, 1):
            if match[player] >= self.options["match_target"]:
                return player
        return None

    # -- moves ---------------------------------------------------------------------
    def legal_moves(self, pos: Position) -> list[Move]:
        if pos.result is not None:
            return []
        pits, white = pos.pits, pos.white
        moves: list[Move] = []
        for i in self._sections[pos.to_move]:
            chips = pits[i]
            if chips:
                moves.extend(self._section_moves(i, chips, white[i], self._lands_empty(pits, i, chips)))
        return moves or self._pass_moves(pos)

    @staticmethod
    def _lands_empty(pits: tuple[int, ...], start: int, chips: int) -> bool:
        """Is the pit the last chip falls in empty when it falls? (This move's earlier drops
        count, and the start section is empty once lifted.)"""
        last = (start + chips) % PITS
        before = 0 if last == start else pits[last]
        return before + (chips - 1) // PITS == 0

    def _why_not_written(self, pos: Position, index: int, text: str, from_here: list[str]) -> str:
        """A move names the colour of every chip of the section, in the order they are sown."""
        label, order = self._labels[index], text.partition(":")[2]
        whites, chips = pos.white[index], pos.pits[index]
        if sorted(order) == sorted("w" * whites + "y" * (chips - whites)):  # the hand's chips, white not last
            return f"the last chip from {label} falls into an empty section, where it must be white"
        return (f"{label} holds {_chips(whites, 'white')} and {_chips(chips - whites, 'yellow')}: a move names "
                f"each chip's colour in the order it is sown (w, y), as {from_here[0]}")

    def _why_not_from(self, pos: Position, index: int) -> str | None:
        """A section of yellow chips only, whose last chip falls into an empty section."""
        return (f"the last chip from {self._labels[index]} falls into an empty section, where it must be white, "
                "and the section holds no white chip")

    def _section_moves(self, pit: int, chips: int, whites: int, white_last: bool) -> tuple[Move, ...]:
        key = (pit, chips, whites, white_last)
        moves = self._move_cache.get(key)
        if moves is None:
            label = self._labels[pit]
            moves = tuple(Move(pit, f"{label}:{order}", colours=order)
                          for order in colour_orders(chips, whites, white_last))
            self._move_cache[key] = moves
        return moves

    def _pass_moves(self, pos: Position) -> list[Move]:
        """A forced pass, one for every distinct chip the passer may take as his penalty."""
        moves = []
        for outbox in OUTBOXES:
            whites = pos.white[outbox]
            if whites:
                moves.append(self._passes[(self._labels[outbox], WHITE)])
            if pos.pits[outbox] > whites:
                moves.append(self._passes[(self._labels[outbox], YELLOW)])
        return moves or [self._bare_pass]

    # -- playing ---------------------------------------------------------------------
    def _apply(self, pos: Position, move: Move, events: list[Event] | None) -> Position:
        if move.is_pass:
            return self._apply_pass(pos, move, events)
        player, labels = pos.to_move, self._labels
        pits, white = list(pos.pits), list(pos.white)
        i = move.pit
        if events is not None:
            events.append(ev.lift(labels[i], pits[i]))
        pits[i] = white[i] = 0
        for colour in move.colours:
            i = i + 1 if i < PITS - 1 else 0
            pits[i] += 1
            if colour == WHITE:
                white[i] += 1
            if events is not None:
                events.append(ev.drop(labels[i], pits[i], colour=colour))
        new = Position(self, tuple(pits), 1 - player, (0, 0), tuple(white), pos.state)
        for side in (player, 1 - player):
            if not any(pits[s] for s in self._sections[side]):
                return self._end_game(new, side, True, events)
        return new

    def _apply_pass(self, pos: Position, move: Move, events: list[Event] | None) -> Position:
        """The passer scores a penalty point and takes the chip he chose, if any is left."""
        player = pos.to_move
        penalties, chips, match, game, starter = pos.state
        pits, white = list(pos.pits), list(pos.white)
        penalties = _with(penalties, player, penalties[player] + 1)
        if move.penalty is not None:
            outbox_label, colour = move.penalty
            outbox = self.layout.index_of(outbox_label)
            pits[outbox] -= 1
            yellow_white = chips[player]
            if colour == WHITE:
                white[outbox] -= 1
                yellow_white = (yellow_white[0], yellow_white[1] + 1)
            else:
                yellow_white = (yellow_white[0] + 1, yellow_white[1])
            chips = _with(chips, player, yellow_white)
        if events is not None:
            events.append(ev.pass_turn(player))
            outbox_label, colour = move.penalty or (None, None)
            events.append(ev.penalty(player, outbox_label, colour, penalties[player]))
        new = Position(self, tuple(pits), 1 - player, (0, 0), tuple(white),
                       (penalties, chips, match, game, starter))
        if penalties[player] >= PENALTY_LIMIT:
            return self._end_game(new, 1 - player, False, events)
        return new

    def _end_game(self, pos: Position, winner: int, by_emptying: bool, events: list[Event] | None) -> Position:
        """Score the game (50 + 5 x ... by emptying, 25 by default) and add it to the match."""
        penalties, chips, match, game, starter = pos.state
        loser = 1 - winner
        if by_emptying:
            loser_chips = sum(pos.pits[s] for s in self._sections[loser])
            points = 50 + 5 * penalties[loser] + 5 * loser_chips - 5 * penalties[winner]
            reason = f"{PLAYER_NAMES[winner]} emptied his sections"
        else:
            points = 25
            reason = f"{PLAYER_NAMES[loser]} has {PENALTY_LIMIT} penalty points (win by default)"
        match = _with(match, winner, match[winner] + points)
        score = _with((0, 0), winner, points)
        result = Result(winner, reason, score)
        if events is not None:
            events.append(ev.game_end(result))
        return pos._replace(state=(penalties, chips, match, game, starter), result=result)

    # -- JSON and invariants -------------------------------------------------------------
    def _seeds_aside(self, pos: Position) -> int:
        """Penalty chips are out of play but still part of the 30."""
        return sum(sum(chips) for chips in pos.state[1])

    def state_to_json(self, state: tuple) -> dict[str, Any]:
        penalties, chips, match, game, starter = state
        return {
            "penalties": _per_player(penalties),
            "penalty_chips": {PLAYER_NAMES[p]: {"yellow": chips[p][0], "white": chips[p][1]} for p in (0, 1)},
            "match": _per_player(match),
            "game": game,
            "game_starter": PLAYER_NAMES[starter],
        }

    def state_from_json(self, data: dict[str, Any]) -> tuple:
        """Missing fields mean a first game with no penalties yet: 0s, game 1, South started."""
        zeros = {"south": 0, "north": 0}
        no_chips = {"yellow": 0, "white": 0}
        try:
            penalties = tuple(_count(data.get("penalties", zeros)[p], f"penalties.{p}") for p in PLAYER_NAMES)
            chips_json = data.get("penalty_chips", {"south": no_chips, "north": no_chips})
            chips = tuple(
                (_count(chips_json[p]["yellow"], f"penalty_chips.{p}.yellow"),
                 _count(chips_json[p]["white"], f"penalty_chips.{p}.white"))
                for p in PLAYER_NAMES
            )
            match = tuple(_count(data.get("match", zeros)[p], f"match.{p}") for p in PLAYER_NAMES)
            game = _count(data.get("game", 1), "game")
            starter = PLAYER_NAMES.index(data.get("game_starter", "south"))
        except (KeyError, TypeError, ValueError) as exc:
            raise BadPosition(
                f"{self.name}: penalties {{south, north}}, penalty_chips {{south: {{yellow, white}}, north: ...}}, "
                f"match {{south, north}}, game (a number) and game_starter ('south'|'north') are malformed: {exc}"
            ) from None
        return (penalties, chips, match, game, starter)

    def _check_invariants(self, pos: Position) -> None:
        name = self.name
        if pos.white is None:
            raise BadPosition(f"{name}: a position needs the white chips of every pit")
        penalties, chips, match, game, starter = pos.state
        labels = self._labels
        for i, (n, w) in enumerate(zip(pos.pits, pos.white)):
            if w > n:
                raise BadPosition(f"{name}: pit {labels[i]} holds {n} chips but {w} white ones")
        whites = sum(pos.white) + chips[0][1] + chips[1][1]
        if whites != WHITES:
            raise BadPosition(f"{name}: {whites} white chips on the board and aside, but the game has {WHITES}")
        if pos.captured != (0, 0):
            raise BadPosition(f"{name}: nothing is captured in Pass It On; penalty chips go in penalty_chips")
        for p in (0, 1):
            if sum(chips[p]) > penalties[p]:
                raise BadPosition(f"{name}: {PLAYER_NAMES[p]} holds {sum(chips[p])} penalty chips "
                                  f"for {penalties[p]} penalty points")
            if penalties[p] > PENALTY_LIMIT:
                raise BadPosition(f"{name}: {PLAYER_NAMES[p]} has {penalties[p]} penalty points; "
                                  f"the game ends at {PENALTY_LIMIT}")
        if game < 1:
            raise BadPosition(f"{name}: games in a match are numbered from 1, not {game}")
        finished = PENALTY_LIMIT in penalties or any(
            not any(pos.pits[s] for s in self._sections[p]) for p in (0, 1))
        if finished != (pos.result is not None):
            raise BadPosition(f"{name}: a game is over exactly when a player has emptied his sections "
                              f"or has {PENALTY_LIMIT} penalty points")
        target = self.options["match_target"]
        reached = [p for p in (0, 1) if match[p] >= target]
        if len(reached) == 2:  # only a game's winner scores, and his game is the match's last
            raise BadPosition(f"{name}: both players have {target} match points or more; the match ends when "
                              "the first reaches them")
        if reached and pos.result is None:
            raise BadPosition(f"{name}: {PLAYER_NAMES[reached[0]]} has {match[reached[0]]} match points of the "
                              f"{target} that win the match, so no game of it is still being played")


def _with(pair: tuple, player: int, value: Any) -> tuple:
    """``pair`` (one entry per player) with ``player``'s entry replaced by ``value``."""
    return (value, pair[1]) if player == 0 else (pair[0], value)


def _per_player(pair: tuple[int, int]) -> dict[str, int]:
    return {"south": pair[0], "north": pair[1]}


def _count(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{field} must be a count of 0 or more, not {value!r}")
    return value


register("pass-it-on", PassItOn,
         "Pass It On: 2 x 5 sections and 2 outboxes, coloured chips, a white last chip into an empty pit, "
         "penalties, a match to 500")


def _chips(count: int, colour: str) -> str:
    """``count`` chips of ``colour`` in words: "1 white chip", "2 yellow chips", "no white chip"."""
    return f"{count or 'no'} {colour} chip{'' if count in (0, 1) else 's'}"
