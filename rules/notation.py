"""Game records: a PGN-like text form and a JSON form, both read and written.

Text form (documented in ``docs/referee.md``)::

    [Event "Club night"]
    [Site "Leiden"]
    [Date "2026.11.22"]
    [South "Ada"]
    [North "Bo"]
    [Variant "kalah"]
    [Options "houses=6 seeds=4 capture_needs_opposite=false"]
    [Result "1-0"]

    1. C F {extra turn, then F} b 2. A ... 1-0

Tag pairs first (``[Name "value"]``, ``\\"`` and ``\\\\`` escape a quote and
a backslash), then the move list: move numbers (``12.`` before a South turn,
``12...`` before a North turn), moves in the rules engine's text form
(``C``, ``C<``, ``c:wyy``, ``pass``), a move after which the owner of a hollow
left a four standing (Nam Nam: the chance is lost, the position stands) with
that hollow after a slash (``c/D``, several ``c/D/E``), comments in braces
``{...}`` or after ``;`` to the end of the line (both kept), and the result
(``1-0`` South won, ``0-1`` North won, ``1/2-1/2`` drawn, ``*`` not over).
Move numbers are decoration: the reader checks their form, the moves
themselves are checked by the rules.
``Start`` holds the start position's JSON when it is not the variant's start;
``Score`` the final score (``south-north``); ``Match`` the Pass It On match
score after the game. Any other tag is kept as it is.

A malformed record raises :class:`NotationError`, which names the line and
column. Pure: text in, text out; no files.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, Iterator, NoReturn, Sequence

from .errors import IllegalMove, RulesError
from .game import Game
from .position import Move, Position, Result
from .registry import options_of
from .registry import variant as make_variant
from .variant import Variant

ROSTER = ("Event", "Site", "Date", "South", "North", "Variant", "Options", "Result")
DERIVED = ("Variant", "Options", "Start", "Result", "Score", "Match")  # written from the game itself
UNKNOWN = "?"

_TAG_NAME = "[A-Za-z][A-Za-z0-9_]*"  # what a tag pair's name may be; a JSON record's tags are held to it too
_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<tag>\[\s*(?P<name>""" + _TAG_NAME + r""")\s+"(?P<value>(?:[^"\\\n]|\\.)*)"\s*\])
  | (?P<comment>\{[^}]*\})
  | (?P<line_comment>;[^\n]*)
  | (?P<number>\d+\.(?:\.\.)?)(?![^\s{};])
  | (?P<result>(?:1-0|0-1|1/2-1/2|\*))(?![^\s{};])
  | (?P<move>[^\s{}\[\];"]+)
""", re.VERBOSE)


class NotationError(RulesError):
    """A malformed game record; ``line`` and ``column`` (1-based) say where."""

    def __init__(self, line: int, column: int, message: str) -> None:
        super().__init__(f"line {line}, column {column}: {message}")
        self.line, self.column, self.reason = line, column, message


@dataclass
class Record:
    """One game as a record: tags, the start position, the moves, comments, the result.

    ``comments[k]`` are the comments written after the ``k``-th move (``0``:
    before the first move). ``left[k]`` names the hollows whose owners left a
    four standing after the ``k``-th move (Nam Nam): the game goes on from the
    position with those fours on the board. ``result`` is ``"1-0"``,
    ``"0-1"``, ``"1/2-1/2"`` or ``"*"``.
    """

    variant: Variant
    moves: list[Move]
    start: Position | None = None
    tags: dict[str, str] = field(default_factory=dict)
    comments: dict[int, list[str]] = field(default_factory=dict)
    result: str = "*"
    left: dict[int, tuple[str, ...]] = field(default_factory=dict)
    # the hollows a round's leader took after the k-th move ended the round (Nam Nam: the players say
    # them, ``B=c=e``; seed counts cannot show who owns a hollow)
    chosen: dict[int, tuple[str, ...]] = field(default_factory=dict)
    # where each tag pair stood in the text it was read from (line, column): a reader that refuses a
    # tag's value (a player's name) says where, as the notation's own errors do
    tag_places: dict[str, tuple[int, int]] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.start is None:
            self.start = self.variant.start()

    @property
    def positions(self) -> list[Position]:
        """Every position of the game, the start first (the moves replayed, each checked)."""
        return self._replayed().positions

    def _replayed(self) -> Game:
        game = Game(self.variant, self.start, dict(self.tags))
        for number, move in enumerate(self.moves, 1):
            _play(game, move, self.left.get(number, ()), self.chosen.get(number, ()))
        return game

    def to_game(self) -> Game:
        """The record as a :class:`rules.Game` (tags kept, fours left standing kept)."""
        game = self._replayed()
        if self.result == "1/2-1/2" and game.result is None:
            game.agree_draw()
        return game

    @classmethod
    def from_game(cls, game: Game, comments: dict[int, list[str]] | None = None, /, **tags: str) -> "Record":
        """The record of ``game``; ``tags`` (and the game's own tags) fill the tag pairs. ``game`` and
        ``comments`` are positional only, so that a tag of any name (``game``, ``comments``) is a tag."""
        merged = {str(k): str(v) for k, v in {**game.tags, **tags}.items()}
        told = {ply + 1: _players_said(game, ply) for ply in sorted(game.observed)}
        return cls(game.variant, list(game.moves), game.positions[0], merged, dict(comments or {}),
                   result_token(game.result), {k: left for k, (left, _) in told.items() if left},
                   {k: chosen for k, (_, chosen) in told.items() if chosen})

    @classmethod
    def from_moves(cls, variant: Variant | str, texts: list[str], start: Position | None = None, *,
                   left: dict[int, Sequence[str]] | None = None, chosen: dict[int, Sequence[str]] | None = None,
                   **tags: str) -> "Record":
        """A record of ``texts`` played from ``start`` (or the variant's start), with the fours
        ``left[k]`` left standing after the ``k``-th move, and the hollows ``chosen[k]`` the round's
        leader took after the ``k``-th move ended a round; illegal moves raise."""
        left, chosen = left or {}, chosen or {}
        for said, what in ((left, "fours left"), (chosen, "hollows chosen")):
            if not set(said) <= set(range(1, len(texts) + 1)):
                raise RulesError(f"{what} after moves {sorted(set(said) - set(range(1, len(texts) + 1)))}, "
                                 f"but the record has moves 1 to {len(texts)}")
        game = Game(variant, start)
        for number, text in enumerate(texts, 1):
            try:
                _play(game, text, left.get(number, ()), chosen.get(number, ()))
            except RulesError as exc:
                raise RulesError(f"move {number}: {exc}") from None
        return cls.from_game(game, None, **tags)

    # -- text ----------------------------------------------------------------------
    def all_tags(self) -> dict[str, str]:
        """The tag pairs in writing order: the roster (Event ... Result), the tags derived from
        the game (Score, Match, Start), then the rest."""
        assert self.start is not None
        tags = {name: self.tags.get(name, UNKNOWN) for name in ROSTER}
        tags["Variant"] = self.variant.name
        tags["Options"] = " ".join(f"{k}={option_text(v)}" for k, v in self.variant.options.items())
        tags["Result"] = self.result
        final = self.positions[-1]
        if final.result is not None:
            tags["Score"] = f"{final.result.score[0]}-{final.result.score[1]}"
        match = final.to_json().get("match")
        if isinstance(match, dict):
            tags["Match"] = f"{match['south']}-{match['north']}"
        if self.start != self.variant.start():
            tags["Start"] = json.dumps(self.start.to_json(), separators=(",", ":"), sort_keys=True)
        for name, value in self.tags.items():
            tags.setdefault(name, value)
        return tags

    def to_text(self, width: int = 79) -> str:
        """The PGN-like text of this record."""
        lines = [f'[{name} "{_escape(value)}"]' for name, value in self.all_tags().items()]
        lines.append("")
        lines.extend(_wrap(list(self._movetext_tokens()), width))
        return "\n".join(lines) + "\n"

    def _movetext_tokens(self) -> Iterator[str]:
        """Moves with turn numbers: ``n.`` starts each South turn, ``n...`` marks North to move
        where it would be unclear (the first move, after a comment); extra turns follow on."""
        yield from (_comment(c, 0) for c in self.comments.get(0, []))
        turn, previous, after_comment = 1, None, False
        for k, (move, pos) in enumerate(zip(self.moves, self.positions), 1):
            mover = pos.to_move
            new_turn = mover != previous
            if new_turn and mover == 0 and k > 1:
                turn += 1
            if k == 1 or after_comment or (new_turn and mover == 0):
                yield f"{turn}." if mover == 0 else f"{turn}..."
            yield (move.text + "".join(f"/{hollow}" for hollow in self.left.get(k, ()))
                   + "".join(f"={hollow}" for hollow in self.chosen.get(k, ())))
            comments = self.comments.get(k, [])
            yield from (_comment(c, k) for c in comments)
            after_comment = bool(comments)
            previous = mover
        yield self.result

    # -- JSON ------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """``{"tags", "variant", "options", "start", "moves", "comments", "left_for_owner", "round_choices",
        "result"}`` (``start`` is ``null`` for the variant's own start position; ``left_for_owner`` maps a
        move number to the hollows whose fours were left standing after it, ``round_choices`` one that
        ended a round to the hollows its leader took)."""
        assert self.start is not None
        return {
            "tags": dict(self.tags),
            "variant": self.variant.name,
            "options": dict(self.variant.options),
            "start": None if self.start == self.variant.start() else self.start.to_json(),
            "moves": [m.text for m in self.moves],
            "comments": {str(k): list(v) for k, v in sorted(self.comments.items())},
            "left_for_owner": {str(k): list(v) for k, v in sorted(self.left.items())},
            "round_choices": {str(k): list(v) for k, v in sorted(self.chosen.items())},
            "result": self.result,
        }

    @classmethod
    def from_json(cls, data: Any) -> "Record":
        """Read :meth:`to_json`'s form; errors name the field (and the move) that is wrong."""
        if not isinstance(data, dict):
            raise RulesError(f"a game record is a JSON object, not {type(data).__name__}")
        for key, kind in (("variant", str), ("moves", list)):
            if not isinstance(data.get(key), kind):
                raise RulesError(f"a game record needs '{key}' ({kind.__name__})")
        options = data.get("options") or {}
        if not isinstance(options, dict):
            raise RulesError("'options' must be an object of option names and values")
        variant = make_variant(data["variant"], **options)
        start = variant.position_from_json(data["start"]) if data.get("start") else None
        if not all(isinstance(t, str) for t in data["moves"]):
            raise RulesError("'moves' must be a list of move texts")
        tags = _tags_of_json(data.get("tags") or {})
        record = cls.from_moves(variant, data["moves"], start,
                                left=_hollows_by_move(data.get("left_for_owner") or {}, "left_for_owner"),
                                chosen=_hollows_by_move(data.get("round_choices") or {}, "round_choices"))
        record.tags = tags
        try:
            record.comments = {int(k): [str(c) for c in v] for k, v in (data.get("comments") or {}).items()}
        except (TypeError, ValueError, AttributeError):
            raise RulesError("'comments' maps move numbers to lists of comments") from None
        result = data.get("result", "*")
        _check_result(result, record, lambda message: RulesError(f"'result': {message}"))
        record.result = result
        return record


def _tags_of_json(tags: Any) -> dict[str, str]:
    """A JSON record's tags, held to what the text form can write back: a name of the notation's
    grammar, a value that is text (not an object's printout) on one line and that UTF-8 can encode (JSON can
    name a lone surrogate, ``"\\ud800"``, which no file can hold). Else a RulesError naming the tag."""
    if not isinstance(tags, dict):
        raise RulesError("'tags' must be an object of tag names and values")
    for name, value in tags.items():
        if not isinstance(name, str) or not re.fullmatch(_TAG_NAME, name):
            raise RulesError(f"'tags': the tag name {str(name)[:40]!r} is not one a record can hold (a letter, "
                             "then letters, digits or _)")
        if not isinstance(value, str):
            raise RulesError(f"'tags.{name[:40]}': the value is {type(value).__name__}, not text")
        if "\n" in value:
            raise RulesError(f"'tags.{name[:40]}': the value holds a line break, which a tag pair cannot: "
                             "a record's text keeps each tag on one line")
        surrogate = re.search(r"[\ud800-\udfff]", value)
        if surrogate:
            raise RulesError(f"'tags.{name[:40]}': the value holds a lone surrogate ({surrogate.group()!r}), "
                             "which no UTF-8 text can hold")
    return dict(tags)


def _hollows_by_move(data: Any, field_name: str) -> dict[int, list[str]]:
    """A JSON record's ``left_for_owner`` or ``round_choices``: move numbers to lists of hollows."""
    if not isinstance(data, dict) or not all(isinstance(v, list) for v in data.values()):
        raise RulesError(f"'{field_name}' maps move numbers to lists of hollows")
    return {_move_number(k, field_name): [str(h) for h in v] for k, v in data.items()}


def _move_number(key: Any, field_name: str) -> int:
    """A key of ``field_name`` (``"12"``) as its move number: decimal digits that ``int`` reads
    (``str.isdigit`` also takes ``"²"``, which ``int`` refuses; ``int`` reads at most 4,300 digits)."""
    text = str(key)
    if text.isdecimal():
        try:
            return int(text)
        except ValueError:  # more digits than int reads
            pass
    raise RulesError(f"'{field_name}' maps move numbers to lists of hollows: {text[:20]!r} is not a move number")


def _play(game: Game, move: Move | str, left: Sequence[str] = (), chosen: Sequence[str] = ()) -> None:
    """Play ``move`` in ``game``; ``left`` names hollows whose owners left the four a drop of
    the move made there (Nam Nam: the game goes on with those fours on the board), ``chosen`` the
    hollows the leader of the round the move ended took (Nam Nam: the next round starts so)."""
    if not left and not chosen:
        game.play(move, events=False)
        return
    variant = game.variant
    if left and not hasattr(variant, "leave_fours"):
        raise IllegalMove(f"{variant.name}: no four is ever left for its owner, so a move cannot name one "
                          f"({', '.join(left)})")
    if chosen and not hasattr(variant, "set_up_round"):
        raise IllegalMove(f"{variant.name}: no round's leader chooses hollows, so a move cannot name them "
                          f"({', '.join(chosen)})")
    if isinstance(move, str):
        move = variant.parse_move(game.position, move)
    after, events = variant.play(game.position, move)
    if left:
        after = variant.leave_fours(after, events, left)
    if chosen:
        after = variant.set_up_round(after, chosen)
    game.play(move, events=False, observed=after)


def _players_said(game: Game, ply: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What the players said after move ``ply`` (from 0) of ``game``, read from the position the
    game accepted there: the hollows whose fours were left standing, and those the leader of the
    round the move ended took; ``RulesError`` if neither explains that position (a record carries
    nothing else)."""
    variant = game.variant
    observed = game.positions[ply + 1]
    after, events = variant.play(game.positions[ply], game.moves[ply])
    leavable = getattr(variant, "fours_to_leave", None)
    left = tuple(h for h in (leavable(events) if leavable else ()) if observed.count(h) != after.count(h))
    if left:
        after = variant.leave_fours(after, events, left)
    choice = variant.round_choice(observed) if hasattr(variant, "round_choice") else None
    chosen = choice.chosen if choice is not None and after != observed else ()
    if chosen and variant.round_choice(after) is not None and variant.set_up_round(after, chosen) == observed:
        return left, chosen
    if not left or after != observed:
        raise RulesError(f"move {ply + 1} ({game.moves[ply].text}): the game accepted a position that is not "
                         "the rules' result, and neither a four left for its owner nor a round's choice of "
                         "hollows explains it")
    return left, ()


def result_token(result: Result | None) -> str:
    """``1-0`` / ``0-1`` / ``1/2-1/2`` for a game won by South / won by North / drawn, ``*`` if not over."""
    if result is None:
        return "*"
    return {0: "1-0", 1: "0-1", None: "1/2-1/2"}[result.winner]


def read(text: str) -> Record:
    """The one game in ``text``; ``NotationError`` says where it is malformed."""
    records = read_all(text)
    if len(records) != 1:
        raise NotationError(1, 1, f"expected one game, found {len(records)}; use read_all for a match")
    return records[0]


def read_all(text: str, most_games: int | None = None) -> list[Record]:
    """Every game in ``text`` (a Pass It On match is a series of games), in order. The text is read
    as the games are checked, so a malformed or illegal move is named without the rest being read.
    ``most_games``: a reader's bound on what it will hold (the bytes of a file bound it only loosely: a
    game may be 20 bytes); the game past it is a NotationError where it starts, before it is read."""
    tokens = _tokens(text)
    records: list[Record] = []
    for first in tokens:
        if len(records) == most_games:
            raise NotationError(first.line, first.column, f"game {most_games + 1:,} starts here, but a record may "
                                f"hold at most {most_games:,} games: split it into smaller files")
        records.append(_Reader(first, tokens).record())
    return records


def write_all(records: list[Record]) -> str:
    """Several games, one after the other (a match)."""
    return "\n".join(r.to_text() for r in records)


def parse_json(text: str | bytes) -> Any:
    """``text`` read as JSON (a record, a Start tag, a recorded position). ``json.loads`` converts every
    whole number it meets, and one of more digits than ``int`` reads (4,300) would be a bare ValueError:
    here it is a RulesError saying so. So is a number no count can be: ``Infinity``, ``NaN`` (which
    ``json`` reads though JSON has neither) or one too large for a float (``1e400``); as infinity it
    reached a count's ``int()`` as a bare OverflowError. Malformed JSON is ``json.JSONDecodeError``, as
    from ``json.loads``."""
    return json.loads(text, parse_int=_whole_number, parse_float=_finite_number, parse_constant=_no_number,
                      object_pairs_hook=object_of_unique_keys)


def object_of_unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, for ``json.loads``'s ``object_pairs_hook``; a key given twice is a RulesError
    naming it. ``json`` keeps the last silently, so a hand edit that gave a field again (a tag, a
    calibration's limit) would be taken or lost by where it stands."""
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            shown = key if len(key) <= 40 else f"{key[:37]}..."
            raise RulesError(f'"{shown}" is given twice in one object: which one is meant?')
        obj[key] = value
    return obj


def _whole_number(digits: str) -> int:
    """``parse_json``'s reading of a whole number: ``int``'s, its refusal of too many digits named."""
    try:
        return int(digits)
    except ValueError:
        raise RulesError(f"a number of {len(digits.lstrip('-')):,} digits (a record's numbers are a few digits "
                         "long)") from None


def _finite_number(text: str) -> float:
    """``parse_json``'s reading of a number with a fraction or exponent: one too large is refused."""
    value = float(text)
    if math.isinf(value):
        raise RulesError(f"the number {text[:40]} is too large for any count or score")
    return value


def _no_number(name: str) -> NoReturn:
    """``parse_json``'s answer to ``Infinity``, ``-Infinity`` and ``NaN``."""
    raise RulesError(f"{name} is not a number JSON allows, nor any count or score")


# -- reading ------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Token:
    kind: str
    text: str
    line: int
    column: int
    name: str = ""
    value: str = ""


def _tokens(text: str) -> Iterator[_Token]:
    pos, line, line_start = 0, 1, 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        column = pos - line_start + 1
        if m is None:
            ch = text[pos]
            if ch == "{":
                raise NotationError(line, column, "comment opened with '{' is never closed")
            if ch == "[":
                raise NotationError(line, column, 'malformed tag pair: expected [Name "value"]')
            raise NotationError(line, column, f"unexpected character {ch!r}")
        kind = m.lastgroup if m.lastgroup not in ("name", "value") else "tag"
        if m.group("tag"):
            kind = "tag"
        if kind != "space":
            yield _Token(kind, m.group(0), line, column, m.group("name") or "",
                         _unescape(m.group("value")) if m.group("value") is not None else "")
        newlines = m.group(0).count("\n")
        if newlines:
            line += newlines
            line_start = m.start() + m.group(0).rindex("\n") + 1
        pos = m.end()


class _Reader:
    """Turns one game's tokens, ``first`` and then the ``rest`` up to its result, into a Record,
    checking each move with the rules as it comes."""

    def __init__(self, first: _Token, rest: Iterator[_Token]) -> None:
        self.first, self.rest, self.last = first, rest, first

    def _next(self) -> _Token:
        """The game's next token; the text ending before the game's result is a NotationError."""
        token = next(self.rest, None)
        if token is None:
            raise NotationError(self.last.line, self.last.column + len(self.last.text),
                                "the record ends without a result (1-0, 0-1, 1/2-1/2 or *)")
        self.last = token
        return token

    def record(self) -> Record:
        tags: dict[str, str] = {}
        tag_tokens: dict[str, _Token] = {}
        token = self.first
        while token.kind == "tag":
            if token.name in tags:
                raise NotationError(token.line, token.column, f"tag {token.name} appears twice")
            tags[token.name] = token.value
            tag_tokens[token.name] = token
            token = self._next()
        if "Variant" not in tags:
            raise NotationError(self.first.line, self.first.column, "the record has no [Variant \"...\"] tag")
        variant = self._variant(tags, tag_tokens)
        start = self._start(variant, tags, tag_tokens)
        game = Game(variant, start)
        comments: dict[int, list[str]] = {}
        left: dict[int, tuple[str, ...]] = {}
        chosen: dict[int, tuple[str, ...]] = {}
        while token.kind != "result":
            if token.kind == "tag":
                raise NotationError(token.line, token.column, "a tag pair inside the move list")
            if token.kind in ("comment", "line_comment"):
                body = token.text[1:-1] if token.kind == "comment" else token.text[1:]
                comments.setdefault(len(game.moves), []).append(body.strip())
            elif token.kind == "move":
                text, *said = re.split(r"(?=[/=])", token.text)  # B/D (a four left in D), B=c=e (c and e taken)
                hollows = tuple(part[1:] for part in said if part[0] == "/")
                taken = tuple(part[1:] for part in said if part[0] == "=")
                try:
                    _play(game, text, hollows, taken)
                except RulesError as exc:
                    raise NotationError(token.line, token.column, f"move {len(game.moves) + 1}: {exc}") from None
                if hollows:
                    left[len(game.moves)] = hollows
                if taken:
                    chosen[len(game.moves)] = taken
            token = self._next()
        result_token_seen = token
        result = result_token_seen.text
        record = Record(variant, list(game.moves), start,
                        {k: v for k, v in tags.items() if k not in DERIVED}, comments, result, left, chosen,
                        {name: (token.line, token.column) for name, token in tag_tokens.items()})
        _check_result(result, record, lambda message: NotationError(
            result_token_seen.line, result_token_seen.column, message))
        derived = record.all_tags()
        for name in DERIVED:
            if name in tags and name in ("Result", "Score", "Match") and tags[name] != derived.get(name):
                token = tag_tokens[name]
                raise NotationError(token.line, token.column, f"the {name} tag says {tags[name]!r} but the "
                                    f"moves give {derived.get(name, 'none')!r}")
        return record

    @staticmethod
    def _variant(tags: dict[str, str], tag_tokens: dict[str, _Token]) -> Variant:
        token = tag_tokens["Variant"]
        try:
            known = {o.name: o for o in options_of(tags["Variant"])}
        except RulesError as exc:
            raise NotationError(token.line, token.column, str(exc)) from None
        options: dict[str, Any] = {}
        opt_token = tag_tokens.get("Options", token)
        for item in tags.get("Options", "").split():
            key, sep, value = item.partition("=")
            if not sep or key not in known:
                valid = ", ".join(known) or "none"
                raise NotationError(opt_token.line, opt_token.column,
                                    f"option {item!r} is not name=value with a known name ({valid})")
            if key in options:  # as a JSON key given twice: which one is meant?
                raise NotationError(opt_token.line, opt_token.column, f"option {key!r} is given twice: which one is meant?")
            options[key] = _option_value(value, known[key].default)
        try:
            return make_variant(tags["Variant"], **options)
        except RulesError as exc:
            raise NotationError(opt_token.line, opt_token.column, str(exc)) from None

    @staticmethod
    def _start(variant: Variant, tags: dict[str, str], tag_tokens: dict[str, _Token]) -> Position | None:
        if "Start" not in tags:
            return None
        token = tag_tokens["Start"]
        try:
            start = parse_json(tags["Start"])
        except json.JSONDecodeError as exc:
            raise NotationError(token.line, token.column, f"the Start tag is not JSON: {exc.msg}") from None
        except RulesError as exc:  # a number too long to read
            raise NotationError(token.line, token.column, f"the Start tag is not JSON: {exc}") from None
        try:
            return variant.position_from_json(start)
        except RulesError as exc:
            raise NotationError(token.line, token.column, f"the Start tag: {exc}") from None


def _check_result(result: Any, record: Record, error: Any) -> None:
    """The result token must be one of the four, and agree with a game the rules ended."""
    if result not in ("1-0", "0-1", "1/2-1/2", "*"):
        raise error(f"result {result!r} is not 1-0, 0-1, 1/2-1/2 or *")
    final = record.positions[-1] if record.moves else record.start
    assert final is not None
    if final.result is not None and result != result_token(final.result):
        raise error(f"the game ended {result_token(final.result)} by the rules ({final.result.reason}), "
                    f"not {result}")
    if final.result is None and result in ("1-0", "0-1"):
        raise error(f"the rules have not ended the game, so it cannot be {result} (use * or 1/2-1/2)")
    if final.result is None and result == "1/2-1/2" and not getattr(record.variant, "draw_by_agreement", False):
        raise error(f"{record.variant.name} has no draw by agreement and the rules have not ended the game")


# -- small helpers -------------------------------------------------------------------------
def _escape(value: str) -> str:
    """A tag's value between quotes; a line break (in a tag stored before JSON imports refused one) as a space."""
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def option_text(value: Any) -> str:
    """An option's value as records, the configuration file and the dashboard write it (``true``, ``6``)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def _option_value(text: str, default: Any) -> Any:
    """An option's text read as its default's type (``true``/``false``, whole numbers, words)."""
    if isinstance(default, bool):
        return {"true": True, "false": False}.get(text.lower(), text)
    if isinstance(default, int):
        try:
            return int(text)
        except ValueError:
            return text
    return text


def _comment(text: str, k: int) -> str:
    """A comment as written: in braces, or after ``;`` (then the line ends) if it holds a ``}``."""
    if "}" not in text:
        return f"{{{text}}}"
    if "\n" not in text:
        return f"; {text}"
    raise ValueError(f"comment after move {k} holds both '}}' and a line break, which no comment form can "
                     f"carry: {text!r}")


def _wrap(tokens: list[str], width: int) -> list[str]:
    """Tokens joined into lines of at most ``width`` (a longer token stands alone); a ``;``
    comment runs to the end of its line, so a new line follows it."""
    lines, line, closed = [], "", False
    for token in tokens:
        if line and (closed or len(line) + 1 + len(token) > width):
            lines.append(line)
            line = token
        else:
            line = f"{line} {token}" if line else token
        closed = token.startswith(";")
    if line:
        lines.append(line)
    return lines
