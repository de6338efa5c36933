"""Event constructors: the documented vocabulary of what happens during a move.

Every variant builds its events here and nowhere else, so this list is all the
dashboard, the app's records and the referee ever have to read. Every event is
a small JSON-ready dict with a ``type``; pits are named by label and players
as ``"south"``/``"north"``. The vocabulary:

``lift`` (pit, seeds) - seeds lifted to start a sowing;
``drop`` (pit, count, colour?) - one seed dropped, ``count`` is the pit's count
after it; Pass It On adds the chip's ``colour`` (``"w"`` or ``"y"``);
``skip`` (pit) - a pit passed over (start pit on a long sowing, a store off the track);
``lap`` (pit, seeds) - a relay: the last seed landed in an occupied pit, its seeds are lifted;
``capture`` (pit, seeds, by, to, sow_from?) - seeds taken by a player: ``pit``
is a label, or ``"hand"`` for seeds still in the sower's hand (Nam Nam's
eight-left rule); ``to`` is a store label, ``"captured"`` (kept aside) or
``"hand"`` (Bao la Kujifunza: sown on at once from the end pit ``sow_from``);
``extra_turn`` (player) - the mover moves again;
``pass`` (player) - the mover passes, having no other move;
``penalty`` (player, outbox, colour, points) - Pass It On: the passer takes a chip
from ``outbox`` (both ``None`` when no chip is left) and now has ``points``;
``sweep`` (pit, seeds, by) - end-of-game removal of seeds left on the board;
``round_end`` (round, captured) - Nam Nam: the round's captures per player;
``setup`` (round, starts, owners) - Nam Nam: the next round, its starter, each hollow's owner;
``game_end`` (winner, reason, score) - see ``Result.to_json``.
"""

from __future__ import annotations

from typing import Sequence

from .layout import PLAYER_NAMES
from .position import Result
from .variant import Event


def lift(label: str, seeds: int) -> Event:
    return {"type": "lift", "pit": label, "seeds": seeds}


def drop(label: str, count: int, colour: str | None = None) -> Event:
    """One seed dropped; ``colour`` only where chips have colours (Pass It On).

    Not keyword-only: every seed of every logged move comes here, and in CPython 3.11 a
    keyword-only default makes each call about a quarter slower than a positional one."""
    if colour is None:
        return {"type": "drop", "pit": label, "count": count}
    return {"type": "drop", "pit": label, "count": count, "colour": colour}


def skip(label: str) -> Event:
    return {"type": "skip", "pit": label}


def lap(label: str, seeds: int) -> Event:
    return {"type": "lap", "pit": label, "seeds": seeds}


def capture(label: str, seeds: int, by: int, to: str, sow_from: str | None = None) -> Event:
    """Seeds taken by player ``by``; ``sow_from`` only for captures into the hand (Bao la Kujifunza)."""
    if sow_from is None:
        return {"type": "capture", "pit": label, "seeds": seeds, "by": PLAYER_NAMES[by], "to": to}
    return {"type": "capture", "pit": label, "seeds": seeds, "by": PLAYER_NAMES[by], "to": to, "sow_from": sow_from}


def extra_turn(player: int) -> Event:
    return {"type": "extra_turn", "player": PLAYER_NAMES[player]}


def pass_turn(player: int) -> Event:
    return {"type": "pass", "player": PLAYER_NAMES[player]}


def penalty(player: int, outbox: str | None, colour: str | None, points: int) -> Event:
    return {"type": "penalty", "player": PLAYER_NAMES[player], "outbox": outbox, "colour": colour, "points": points}


def sweep(label: str, seeds: int, by: int) -> Event:
    return {"type": "sweep", "pit": label, "seeds": seeds, "by": PLAYER_NAMES[by]}


def round_end(round_number: int, captured: tuple[int, int]) -> Event:
    return {"type": "round_end", "round": round_number, "captured": dict(zip(PLAYER_NAMES, captured))}


def setup(round_number: int, starter: int, labels: Sequence[str], owners: Sequence[int]) -> Event:
    """The next round's start: ``owners[i]`` owns the hollow ``labels[i]``."""
    return {"type": "setup", "round": round_number, "starts": PLAYER_NAMES[starter],
            "owners": {label: PLAYER_NAMES[owner] for label, owner in zip(labels, owners)}}


def game_end(result: Result) -> Event:
    return {"type": "game_end", **result.to_json()}
