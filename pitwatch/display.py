"""What the players see of a game: the dashboard's game state (header, score, moves, the Nam Nam
round set-up, the Pass It On match) and the LED frame the microcontroller lights. Pure functions of
the game (and, for the match, of its recorded predecessors): the session calls them under its lock."""

from __future__ import annotations

from typing import Any, Sequence

import rules
from rules import PLAYER_NAMES, Game, notation
from rules.game import score_of

from .recorder import GameRecord, Recorder
from .records import last_move_path

PLAYER_COLOURS = ("#2f7df6", "#f28c28")  # South blue, North orange: LEDs and dashboard agree
ILLEGAL_COLOUR = "#ff1e1e"
CAPTURE_COLOUR = "#ffd23f"
WHITE_LAST_COLOUR = "#ffffff"

LedFrame = list[dict[str, str]]  # per canonical pit: {"colour": "#rrggbb", "mode": "off|on|blink|pulse"}


def describe(variant: rules.Variant) -> str:
    """The variant's one-line description, followed by the options it is played with where they differ
    from its defaults. The registry's description speaks of the defaults ("Kalah: 2 x 6 houses, 4 seeds,
    ..."), and a game of 8 houses of 12 seeds was headed so on the dashboard."""
    changed = [f"{option.name} = {notation.option_text(variant.options[option.name])}"
               for option in rules.options_of(variant.name) if variant.options[option.name] != option.default]
    return variant.description + (f"; played with {', '.join(changed)}" if changed else "")


def match_history(recorder: Recorder, game_id: int) -> list[dict[str, int]]:
    """The match score at the start of every game of this game's match, oldest first.

    A match is a chain of recorded games whose start positions number the
    games 1, 2, ... (Pass It On's ``next_game``); game 1 starts at 0-0.
    """
    def start_of(record: GameRecord) -> tuple[int, dict[str, int]]:
        start = record.start or {}
        return int(start.get("game", 1)), start.get("match", {"south": 0, "north": 0})

    record = recorder.game(game_id)
    wanted, match = start_of(record)
    history = [match]
    wanted -= 1
    for earlier in recorder.games(limit=500) if wanted > 0 else []:
        if earlier.id < game_id and earlier.variant == record.variant and start_of(earlier)[0] == wanted:
            history.insert(0, start_of(earlier)[1])
            wanted -= 1
            if wanted == 0:
                break
    return history


def captured_pits(event_lists: Sequence[Sequence[dict]], labels: Sequence[str]) -> list[str]:
    """Pits captured from (a capture may also take seeds still in the hand: Nam Nam's "eight left")."""
    return sorted({e["pit"] for events in event_lists for e in events
                   if e.get("type") == "capture" and e.get("pit") in labels})


def move_pit(move: rules.Move, layout: rules.Layout) -> int | None:
    """The pit the players touch to make ``move``: the one sown from, or for a Pass It On pass the
    outbox whose chip is taken (lit and clicked like a pit: before, a player who could only pass
    saw nothing lit, and the demo's clicks could not pass); None for a pass that touches nothing."""
    if move.pit >= 0:
        return move.pit
    return layout.index_of(move.penalty[0]) if move.penalty else None


def game_state(game: Game, game_id: int | None, names: tuple[str, str],
               match_starts: Sequence[dict[str, int]] = ()) -> dict[str, Any]:
    """The game part of the dashboard state; ``match_starts``: the match score before each game."""
    pos = game.position
    position = pos.to_json()
    variant = game.variant
    last_events = game.events[-1] if game.events else []
    return {
        "id": game_id,
        "variant": variant.name,
        "description": describe(variant),
        "options": dict(variant.options),
        "seeds": variant.total_seeds,  # the most a pit can hold: the sensors read counts up to it
        "names": {"south": names[0], "north": names[1]},
        "layout": variant.layout.to_json(),
        "position": position,
        "match_history": [*match_starts, position["match"]] if "match" in position else [],
        "next_game": (hasattr(variant, "next_game") and game.position.is_over
                      and variant.match_winner(pos) is None),
        "to_move": PLAYER_NAMES[pos.to_move],
        "legal": sorted({variant.layout.labels[pit] for m in game.legal_moves()
                         if (pit := move_pit(m, variant.layout)) is not None}),
        "legal_moves": [m.text for m in game.legal_moves()],
        "moves": [{"ply": i, "text": m.text, "player": PLAYER_NAMES[p.to_move]}
                  for i, (m, p) in enumerate(zip(game.moves, game.positions))],
        "last": last_move_path(last_events),
        "score": dict(zip(PLAYER_NAMES, scoreboard(game))),
        "score_label": score_label(game),
        "result": game.result.to_json() if game.result else None,
        "draw_by_agreement": bool(getattr(variant, "draw_by_agreement", False)),
        "colours": dict(zip(PLAYER_NAMES, PLAYER_COLOURS)),
        "round_choice": round_choice(game),
    }


def round_choice(game: Game) -> dict[str, Any] | None:
    """Who chooses which of the opponent's hollows now, how many, among which, and those he holds
    (Oware Nam Nam's round set-up, :meth:`rules.variants.nam_nam.NamNam.round_choice`); ``None`` when
    no one does. Only right after the round-ending move: the choice is recorded as its position."""
    choose = getattr(game.variant, "round_choice", None)
    choice = choose(game.position) if choose is not None and game.moves else None
    if choice is None:
        return None
    return {"leader": PLAYER_NAMES[choice.leader], "count": choice.count,
            "hollows": list(choice.hollows), "chosen": list(choice.chosen)}


def _own_pits(game: Game) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """Where the race is to keep (four ranks: kete in your rows) or to empty (Pass It On: your
    sections) rather than to capture; ``None`` for capturing games."""
    layout = game.variant.layout
    if layout.player_tracks:
        return layout.player_tracks
    if game.position.white is not None:
        return layout.houses(0), layout.houses(1)
    return None


def scoreboard(game: Game) -> tuple[int, int]:
    """The two numbers on the scoreboard: the result's score once the game is over; else the
    seeds won, or where the game is no capture race the seeds (chips, kete) in each side's pits."""
    if game.result is not None:
        return game.result.score
    own = _own_pits(game)
    if own is None:
        return score_of(game.position)
    pits = game.position.pits
    return (sum(pits[i] for i in own[0]), sum(pits[i] for i in own[1]))


def score_label(game: Game) -> str:
    """What the scoreboard's numbers count (:func:`scoreboard`): the final score, the seeds won in a
    capturing game, the kete in each player's rows (four ranks), the chips left to pass on (Pass It On)."""
    if game.result is not None:
        return "final score"
    if _own_pits(game) is None:
        return "seeds won"
    return "kete in his rows" if game.variant.layout.player_tracks else "chips left to pass on"


def led_frame(game: Game, differing: Sequence[str], flash: Sequence[str]) -> LedFrame:
    """Legal-move pits in the mover's colour; differing pits blink red; captures flash.

    Pass It On sections whose every permitted move must end with a white chip
    (and that still hold a yellow one, so the order matters) pulse white.
    """
    layout = game.variant.layout
    frame: LedFrame = [{"colour": "#000000", "mode": "off"} for _ in layout.pits]
    if differing:
        for label in differing:
            frame[layout.index_of(label)] = {"colour": ILLEGAL_COLOUR, "mode": "blink"}
        return frame
    mover_colour = PLAYER_COLOURS[game.position.to_move]
    by_pit: dict[int, list[rules.Move]] = {}
    for move in game.legal_moves():
        if (pit := move_pit(move, layout)) is not None:
            by_pit.setdefault(pit, []).append(move)
    white = game.position.white
    for pit, moves in by_pit.items():
        needs_white = (white is not None and all(m.colours.endswith("w") for m in moves)
                       and game.position.pits[pit] > white[pit])
        frame[pit] = ({"colour": WHITE_LAST_COLOUR, "mode": "pulse"} if needs_white
                      else {"colour": mover_colour, "mode": "on"})
    for label in flash:
        frame[layout.index_of(label)] = {"colour": CAPTURE_COLOUR, "mode": "blink"}
    return frame
