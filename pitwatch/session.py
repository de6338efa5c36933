"""The live session: stable Reading -> referee -> Verdict -> recorder -> LEDs and dashboard.

The session owns the game. Every change to it follows one order, because
"nothing is shown as played that is not on disk":

1. judge (or take the players' instruction from the dashboard),
2. change the in-memory :class:`rules.Game`,
3. write the verdict and the moves it accepts in ONE recorder transaction
   (on failure the in-memory change is rolled back and the error shown),
4. only then send the LED frame and publish the dashboard state.

All public methods are thread-safe (one lock): readings arrive from the
camera and sensor threads, control actions from web requests.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import rules
from rules import PLAYER_NAMES, Game, Reading
from rules.reading import STILL_BOARD
from rules.game import score_of

from .boards import variants_on
from .display import LedFrame, captured_pits, game_state, led_frame, match_history, round_choice
from .hub import Hub
from .recorder import AcceptedMove, DamagedGame, Recorder, RecorderError, player_name
from .records import game_of
from .settled import SettledBoard
from .verdicts import VerdictView, judge_reading, view_of

log = logging.getLogger(__name__)

SENSOR_REFRESH_SECONDS = 1.0  # raw sensor values on the dashboard: fresh enough, and cheap


class SessionError(ValueError):
    """A control action that cannot be done now; the message says why."""


@dataclass
class _Board:
    """What the session currently knows about the physical board (not the game)."""

    verdict: dict[str, Any] = field(default_factory=lambda: {"kind": "waiting", "message": "waiting for a still board"})
    differing: list[str] = field(default_factory=list)
    choices: list[VerdictView] = field(default_factory=list)
    choice_reading: Reading | None = None
    flash: list[str] = field(default_factory=list)
    flash_until: float = 0.0
    sources: dict[str, str] = field(default_factory=dict)
    camera_placement: list[dict[str, Any]] = field(default_factory=list)  # where the camera stands, judged
    reading: dict[str, int | None] = field(default_factory=dict)
    still_at: float | None = None  # when the camera's still board of that reading began (None: no camera)
    stable_at: float = 0.0  # wall-clock time the last stable Reading reached the session
    judge_ms: float = 0.0  # how long the referee took over it
    commit_ms: float = 0.0  # how long the recorder took to make the last accepted move durable


@dataclass(frozen=True)
class _BoardBeforeGame:
    """The board on the table when a new game began (the last game's, often), so that it is not
    taken for moves of the new one while nobody has touched it."""

    counts: dict[str, int | None]  # the last board judged before the game began (its most likely counts), if any
    still_at: float | None  # when the camera's still board of it began (None: no camera)

    def shows(self, reading: Reading, game: Game) -> bool:
        """Whether ``reading`` is that board, untouched: no move played yet, and the camera's still
        board the same one (it keeps its ``at`` while nothing moves), or without a camera the same
        counts."""
        if game.moves:
            return False
        still_at = reading.notes.get(STILL_BOARD, {}).get("at")
        if still_at is not None or self.still_at is not None:
            return still_at == self.still_at
        return bool(self.counts) and reading.most_likely_counts() == self.counts


class Session:
    """One board, one game at a time, recorded.

    ``judge(game, reading, laid_before=...)`` is the referee (``rules.referee.judge`` by
    default); ``leds(frame)`` sends an LED frame to the microcontroller;
    ``extra_state()`` adds fields to the dashboard state (the demo uses it).
    """

    def __init__(
        self,
        recorder: Recorder,
        hub: Hub | None = None,
        *,
        judge: Callable[..., Any] | None = None,
        leds: Callable[[LedFrame], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        flash_seconds: float = 1.5,
    ) -> None:
        self.recorder = recorder
        self.hub = hub or Hub()
        self._judge = judge
        self.leds = leds
        self._clock = clock
        self.flash_seconds = flash_seconds
        self._lock = threading.RLock()
        self._board = _Board()
        self.game: Game | None = None
        self.game_id: int | None = None
        self.names = ("South", "North")
        self._match: list[dict[str, int]] = []
        self.extra_state: Callable[[], dict[str, Any]] = dict
        self.game_listeners: list[Callable[[Game], None]] = []  # told of every new or resumed game
        self.fixed_board: tuple[str, ...] | None = None  # pits of the one physical board (pitwatch run)
        self._sensor_values: dict[str, Any] = {}  # the newest raw pit sensor values (see set_sensor_values)
        self._sensors_shown: dict[str, Any] = {}  # those the last published state showed
        self._shown_at = 0.0
        self._settled = SettledBoard()  # the camera's still board the position shows, if known
        self._before_game: _BoardBeforeGame | None = None  # the board on the table as a new game began

    # -- games -------------------------------------------------------------------
    def resume_or_start(self, variant: str, options: dict[str, Any], south: str, north: str) -> bool:
        """Resume the recorder's active game if there is one, else start a new game; True if resumed."""
        record = self.recorder.active_game()
        if record is not None:
            try:
                _, game = game_of(self.recorder, record.id)
            except (rules.RulesError, DamagedGame) as exc:  # recorded by other rules, or a row changed outside
                # Pitwatch: it stays on record (abandoned, every row as it was) and a new game starts
                log.warning("game %s cannot be resumed (%s); it stays on record, starting a new game", record.id, exc)
            else:
                with self._lock:
                    self._install(game, record.id, (record.south, record.north))
                return True
        self.new_game(variant, options, south, north)
        return False

    def new_game(self, variant: str, options: dict[str, Any], south: str, north: str,
                 start: rules.Position | None = None) -> int:
        """Start a new game (the active one, if any, is kept on record as abandoned)."""
        south, north = _player_name(south, "south"), _player_name(north, "north")
        v = rules.variant(variant, **options)  # raises a clear RulesError for bad names/options
        if self.fixed_board is not None and v.layout.labels != self.fixed_board:
            raise SessionError(f"{v.name} is played on a {v.layout.name} board, not on the board being watched "
                               f"(on which {', '.join(variants_on(self.fixed_board))} are played); to play it, set "
                               "up that board (`pitwatch calibrate` for the camera, a sensors.calibration file of "
                               "its own for the microcontroller) and restart pitwatch run")
        game = Game(v, start, {"South": south, "North": north})
        with self._lock:
            before = _BoardBeforeGame(dict(self._board.reading), self._board.still_at)
            game_id = self.recorder.start_game(v.name, dict(v.options), south, north,
                                               start=start.to_json() if start is not None else None)
            self._install(game, game_id, (south, north), before)
        return game_id

    def next_game(self) -> int:
        """The next game of a match (Pass It On): same players, the match score carried over."""
        with self._lock:
            game = self._require_game()
            if not hasattr(game.variant, "next_game"):
                raise SessionError(f"{game.variant.name} games are not played in matches")
            if not game.is_over:
                raise SessionError("the game is not over yet")
            try:
                start = game.variant.next_game(game.position)
            except rules.RulesError as exc:
                raise SessionError(str(exc)) from None
        return self.new_game(game.variant.name, dict(game.variant.options), *self.names, start=start)

    def _install(self, game: Game, game_id: int, names: tuple[str, str],
                 before: _BoardBeforeGame | None = None) -> None:
        """Make ``game`` the one played; ``before``: the board on the table as a new game began (None
        for a resumed game, whose board is judged as ever)."""
        self.game, self.game_id, self.names = game, game_id, names
        self._before_game = before
        self._settled.settle(None)
        self._match = match_history(self.recorder, game_id)
        self._board = _Board(sources=self._board.sources)
        for listener in self.game_listeners:
            listener(game)
        self._show()

    # -- readings ------------------------------------------------------------------
    def submit(self, reading: Reading, snapshot: bytes | None = None) -> dict[str, Any]:
        """Judge a stable Reading and act on the verdict; returns the verdict's JSON."""
        stable_at = time.time()
        with self._lock:
            game = self._require_game()
            self._board.stable_at = stable_at
            self._board.reading = reading.most_likely_counts()
            self._board.still_at = reading.notes.get(STILL_BOARD, {}).get("at")
            laid_before = self._before_game is not None and self._before_game.shows(reading, game)
            verdict = judge_reading(self._judge, game, self._settled.pinned(reading, game.position), laid_before)
            self._board.judge_ms = (time.time() - stable_at) * 1000
            view = view_of(verdict, game)
            if game.is_over and view.kind != "takeback":
                # The result stands while the players gather the seeds or lay out the next game; only the
                # last moves put back on the board (a takeback committed unasked) reopen the game. Until
                # 2026-12-07 a finished game's board was never judged: a takeback, even of a move wrongly
                # committed that ended the game, was not seen (a referee audit).
                return self._board.verdict
            if view.kind in ("move", "takeback"):
                self._commit(view, reading, snapshot)
            else:
                self._record_only(view, reading)
                self._settled.settle(reading if view.kind == "unchanged" else None)
            self._show()
            return view.json

    def set_source(self, name: str, status: str) -> None:
        """A source's health (``ok``, ``camera lost``, ``microcontroller lost``, ...)."""
        with self._lock:
            if self._board.sources.get(name) == status:
                return
            self._board.sources[name] = status
            self._show()

    def set_camera_placement(self, judged: Sequence[tuple[str, bool, str]]) -> None:
        """Where the camera stands over the board, as judged from its newest still board: each
        (what, as good as the benchmark's cameras, the sentence for the players)."""
        placement = [{"name": name, "ok": ok, "said": said} for name, ok, said in judged]
        with self._lock:
            if placement != self._board.camera_placement:
                self._board.camera_placement = placement
                self._show()

    def set_sensor_values(self, values: dict[str, Any]) -> None:
        """Raw pit sensor values, shown on the dashboard (published by :meth:`tick`, at most once a second).

        Handed over by one assignment, without the session's lock: the serial bridge's reader thread
        calls this, and waiting for the lock while a move is judged and written (a slow SD card) it
        stalled, missed its PING's answer and dropped a healthy board (a bridge audit, 2026-12-07)."""
        self._sensor_values = values

    def refresh(self) -> None:
        """Send the LEDs and publish the state again (a reconnected microcontroller, a new listener)."""
        with self._lock:
            if self.game is not None:
                self._show()

    def tick(self) -> None:
        """Call a few times a second: ends capture flashes, shows new sensor values."""
        with self._lock:
            now = self._clock()
            if self._board.flash and now >= self._board.flash_until:
                self._board.flash = []
                self._show()
            elif (self._sensor_values != self._sensors_shown and now - self._shown_at >= SENSOR_REFRESH_SECONDS
                  and self.game):
                self._show()

    # -- the players' controls ---------------------------------------------------------
    def press(self, button: str) -> None:
        """A push button on the board: ``undo`` takes the last move back; ``confirm`` accepts the
        referee's likeliest explanation of an ambiguous board. A press that means nothing now is
        shown on the dashboard and otherwise ignored (a button must never stop the game)."""
        with self._lock:
            try:
                if button == "undo":
                    self.takeback()
                elif button == "confirm" and self._board.choices:
                    self.choose(0)
                else:
                    raise SessionError(f"the {button} button does nothing now")
            except (SessionError, RecorderError) as exc:  # a full disk is shown as for the dashboard's controls
                # beside the verdict, not as its message: the banner shows no message under a move
                self._board.verdict = {**self._board.verdict, "button": str(exc)}
                self._show()


    def choose(self, index: int, moves: Sequence[str] | None = None) -> dict[str, Any]:
        """Pick explanation ``index`` of an ambiguous verdict; with ``moves`` (those the players saw on
        it), only if it still has them: a new verdict since, or a choice made in another tab, is not
        taken for the one they clicked."""
        with self._lock:
            choices = self._board.choices
            if not choices:
                raise SessionError("there is no ambiguous verdict to choose for (it was settled or replaced): "
                                   "look at the board again")
            if not 0 <= index < len(choices):
                raise SessionError(f"choice {index} does not exist; choose 0 to {len(choices) - 1}")
            chosen = choices[index]
            if moves is not None and list(moves) != chosen.json.get("moves", []):
                raise SessionError("the verdict changed since it was shown: choose again")
            chosen.json.update(by="players", message=f"chosen by the players: {chosen.json.get('description', '')}")
            self._commit(chosen, self._board.choice_reading, None)
            self._show()
            return chosen.json

    def play_by_hand(self, text: str) -> dict[str, Any]:
        """The players enter a move themselves (correcting the referee or a misread board)."""
        with self._lock:
            game = self._require_game()
            if game.is_over:  # drawn by agreement, the position itself still offers moves
                raise SessionError(f"the game is already over ({game.result.reason}): start a new game")
            try:
                move = game.variant.parse_move(game.position, text)
            except rules.RulesError as exc:
                raise SessionError(str(exc)) from None
            return self._by_players("move", f"{move.text} entered by hand", move, None)

    def correct(self, text: str, replaces: str | None = None) -> dict[str, Any]:
        """Replace the last move by ``text`` (the referee accepted the wrong one); with ``replaces``
        (the last move the players saw), only if that is still the last move."""
        with self._lock:
            game = self._require_game()
            if not game.moves:
                raise SessionError("there is no move to correct")
            last = game.moves[-1]
            if replaces is not None and replaces != last.text:
                raise SessionError(f"the last move is now {last.text}, not {replaces}: look at the board again")
            try:
                move = game.variant.parse_move(game.positions[-2], text)
            except rules.RulesError as exc:
                raise SessionError(str(exc)) from None
            return self._by_players("correction", f"{last.text} corrected to {move.text}", move,
                                    len(game.moves) - 1, replaces=last.text)

    def choose_hollows(self, hollows: Sequence[str]) -> dict[str, Any]:
        """The round's leader takes these of the opponent's hollows (Oware Nam Nam, at the start of a
        round after a decided one). Seed counts cannot show who owns a hollow, so the players say it;
        the choice becomes the position the round-ending move left, recorded as such, so a resumed or
        replayed game has it too."""
        with self._lock:
            game = self._require_game()
            choice = round_choice(game)
            if choice is None:
                raise SessionError("no one chooses hollows now: the leader of an Oware Nam Nam round chooses "
                                   "them at the start of the next round, before its first move")
            leader, loser = self.names[::1 if choice["leader"] == "south" else -1]
            try:
                chosen = game.variant.set_up_round(game.position, hollows)
            except rules.RulesError:  # a round's start with a leader: only the choice itself can be wrong
                raise SessionError(f"{leader} chooses {choice['count']} different hollows of {loser}'s "
                                   f"({', '.join(choice['hollows'])}), not {', '.join(hollows) or 'none'}") from None
            return self._by_players("round_set_up", f"{leader} takes hollows {', '.join(sorted(hollows))}",
                                    game.moves[-1], len(game.moves) - 1, observed=chosen)

    def takeback(self, moves_shown: int | None = None) -> dict[str, Any]:
        """Undo the last move (the players will put the seeds back); with ``moves_shown`` (how many
        moves the players saw), only if there are still that many: two tabs pressing Take back at
        once took back two moves (a dashboard audit, 2026-12-07)."""
        with self._lock:
            game = self._require_game()
            if not game.moves:
                raise SessionError("there is no move to take back")
            if moves_shown is not None and moves_shown != len(game.moves):
                raise SessionError(f"the game has {len(game.moves)} move{'' if len(game.moves) == 1 else 's'} now, not "
                                   f"the {moves_shown} shown (a move was played or taken back meanwhile): look at "
                                   "the board again")
            return self._by_players("takeback", f"{game.moves[-1].text} taken back", None, len(game.moves) - 1)

    def agree_draw(self) -> dict[str, Any]:
        """Both players agree a stalemate: a draw where the variant allows it."""
        with self._lock:
            game = self._require_game()
            if not getattr(game.variant, "draw_by_agreement", False):
                raise SessionError(f"{game.variant.name}: the rules do not allow a draw by agreement")
            if game.is_over:
                raise SessionError(f"the game is already over ({game.result.reason})")
            result = rules.Result(None, "agreement", score_of(game.position)).to_json()
            verdict = {"kind": "agreement", "by": "players", "message": "draw agreed by both players",
                       "result": result}
            self.recorder.record_verdict(self.game_id, verdict, ply=len(game.moves))
            self.recorder.finish_game(self.game_id, result)
            game.agree_draw()
            self._board.verdict = verdict
            self._show()
            return verdict

    def _by_players(self, kind: str, message: str, move: rules.Move | None, takeback_to: int | None,
                    observed: rules.Position | None = None, **extra: Any) -> dict[str, Any]:
        """A change the players made on the dashboard: ``move`` played (after taking back to ply
        ``takeback_to``), recorded as a verdict of theirs, then shown (``observed``: the position the
        move left, where it is not the engine's). The mover is named, as in the referee's verdicts:
        the dashboard said "Played C" of a move typed in, and "Passed" of a Pass It On pass."""
        data = {"kind": kind, "moves": [move.text] if move else [], "by": "players", "message": message, **extra}
        if move is not None:
            game = self._require_game()
            mover = PLAYER_NAMES[(game.position if takeback_to is None else game.positions[takeback_to]).to_move]
            data.update(player=mover, players=[mover])
        view = VerdictView("takeback" if kind == "takeback" else "move", data, [move] if move else [], takeback_to,
                           observed=observed)
        try:
            self._commit(view, None, None)
        except rules.RulesError as exc:  # rolled back already; the players are told why, not given a 500
            raise SessionError(str(exc)) from None
        self._show()
        return view.json

    # -- the core: change, record, show -----------------------------------------------
    def _commit(self, view: VerdictView, reading: Reading | None, snapshot: bytes | None) -> None:
        game = self._require_game()
        ply = len(game.moves)
        undone = []  # each move taken back, with the position the players left after it where the referee accepted one
        if view.takeback_to is not None:
            left = game.observed
            while len(game.moves) > view.takeback_to:
                undone.append((game.undo(), left.get(len(game.moves))))
        played = []
        try:
            for move in view.moves:
                last = len(played) == len(view.moves) - 1
                game.play(move, observed=view.observed if last else None)
                played.append(move)
        except rules.RulesError:
            self._rollback(game, played, undone)
            raise
        accepted = [
            AcceptedMove(move.text, PLAYER_NAMES[pos.to_move], after.to_json())
            for move, pos, after in zip(played, game.positions[-len(played) - 1:-1], game.positions[-len(played):])
        ] if played else []
        try:
            started = time.perf_counter()
            self.recorder.record_verdict(
                self.game_id, view.json, ply=ply, accepted=accepted, takeback_to=view.takeback_to,
                reading=reading.to_json() if reading is not None else None, snapshot=snapshot,
            )
            self._board.commit_ms = (time.perf_counter() - started) * 1000
            if game.is_over:
                self.recorder.finish_game(self.game_id, game.result.to_json())
            elif undone and self.recorder.game(self.game_id).status == "finished":
                self.recorder.reopen_game(self.game_id)
        except Exception:
            self._rollback(game, played, undone)
            raise
        self._settled.settle(reading)  # the board committed; None for the players' own change: no still board known
        self._board.verdict = view.json
        self._board.choices, self._board.choice_reading = [], None
        self._board.differing = []
        self._board.flash = captured_pits(game.events[-len(played):], game.variant.layout.labels) if played else []
        self._board.flash_until = self._clock() + self.flash_seconds

    @staticmethod
    def _rollback(game: Game, played: Sequence[rules.Move],
                  undone: Sequence[tuple[rules.Move, rules.Position | None]]) -> None:
        """The game as it was before a change that could not be made or recorded: the moves taken
        back are played again with the positions the players left (a Nam Nam four left standing),
        else the game would go on from the rules' position, no longer the one recorded."""
        for _ in played:
            game.undo()
        for move, observed in reversed(undone):
            game.play(move, observed=observed)

    def _record_only(self, view: VerdictView, reading: Reading) -> None:
        """Verdicts that change nothing in the game: still recorded before they are shown."""
        game = self._require_game()
        if view.kind == "unchanged" and self._board.verdict.get("kind") == "unchanged" and self.recorder.failure is None:
            return  # the same still board judged again: nothing new to record or show (unless a write
            # failed since: this one says whether the recorder works again, and the dashboard stops saying it does not)
        self.recorder.record_verdict(self.game_id, view.json, ply=len(game.moves))
        self._board.verdict = view.json
        if view.kind == "illegal":
            self._board.differing = view.differing
        elif view.kind != "in_progress":
            self._board.differing = []
        if view.kind == "ambiguous":
            self._board.choices, self._board.choice_reading = view.choices, reading
        elif view.kind != "in_progress":
            self._board.choices, self._board.choice_reading = [], None

    # -- what players see -------------------------------------------------------------
    def _require_game(self) -> Game:
        if self.game is None:
            raise SessionError("no game is being played; start a new game first")
        return self.game

    def state(self) -> dict[str, Any]:
        """The dashboard's state: everything the page draws, as JSON-ready data."""
        with self._lock:
            game = self._require_game()
            return {
                "game": game_state(game, self.game_id, self.names, self._match),
                "verdict": self._board.verdict,
                "differing": self._board.differing,
                "choices": [c.json for c in self._board.choices],
                "flash": self._board.flash,
                "sources": dict(self._board.sources),
                "camera_placement": self._board.camera_placement,
                "sensors": self._sensor_values,
                "reading": self._board.reading,
                "stable_at": self._board.stable_at,
                "judge_ms": round(self._board.judge_ms, 2),
                "commit_ms": round(self._board.commit_ms, 2),
                "recording": self.recorder.failure,  # why the game cannot be recorded now, or None
                "leds": led_frame(game, self._board.differing, self._board.flash),
                **self.extra_state(),
            }

    def _show(self) -> None:
        self._sensors_shown, self._shown_at = self._sensor_values, self._clock()
        state = {**self.state(), "published_at": time.time()}
        if self.leds is not None:
            try:
                self.leds(state["leds"])
            except Exception as exc:  # a lost microcontroller must not stop the game
                self._board.sources["sensors"] = f"LEDs not sent: {exc}"
        self.hub.publish(state)


def _player_name(name: str, seat: str) -> str:
    """:func:`~pitwatch.recorder.player_name`, refused as a :class:`SessionError` (the dashboard's 400)."""
    try:
        return player_name(name, seat)
    except ValueError as exc:
        raise SessionError(str(exc)) from None
