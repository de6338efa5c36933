"""Event constructors: the documented vocabulary of what happens during a move.

Every event is a small JSON-ready dict with a ``type``; pits are named by
label and players as ``"south"``/``"north"``. The vocabulary:

``lift`` (pit, seeds) - seeds lifted to start a sowing or a lap;
``drop`` (pit, count) - one seed dropped, ``count`` is the pit's count after it;
``skip`` (pit) - a pit passed over (start pit on a long sowing, a store off the track);
``lap`` (pit, seeds) - a relay: the last seed landed in an occupied pit, its seeds are lifted;
``capture`` (pit, seeds, by, to) - seeds taken from ``pit`` by a player into a store or ``"captured"``;
``extra_turn`` (player); ``pass`` (player); ``penalty`` (player, outbox, colour);
``sweep`` (pit, seeds, by) - end-of-game removal of seeds left on the board;
``round_end`` / ``setup`` (Nam Nam); ``game_end`` (winner, reason, score).
"""

from __future__ import annotations

from .layout import PLAYER_NAMES
from .position import Result
from .variant import Event


def lift(label: str, seeds: int) -> Event:
    return {"type": "lift", "pit": label, "seeds": seeds}


def drop(label: str, count: int) -> Event:
    return {"type": "drop", "pit": label, "count": count}


def skip(label: str) -> Event:
    return {"type": "skip", "pit": label}


def lap(label: str, seeds: int) -> Event:
    return {"type": "lap", "pit": label, "seeds": seeds}


def capture(label: str, seeds: int, by: int, to: str) -> Event:
    return {"type": "capture", "pit": label, "seeds": seeds, "by": PLAYER_NAMES[by], "to": to}


def extra_turn(player: int) -> Event:
    return {"type": "extra_turn", "player": PLAYER_NAMES[player]}


def sweep(label: str, seeds: int, by: int) -> Event:
    return {"type": "sweep", "pit": label, "seeds": seeds, "by": PLAYER_NAMES[by]}


def game_end(result: Result) -> Event:
    return {"type": "game_end", **result.to_json()}


def pass_turn(player: int) -> Event:
    return {"type": "pass", "player": PLAYER_NAMES[player]}
