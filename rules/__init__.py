"""Pitwatch's rules engine: every variant of the rule sheets, pure logic, no I/O.

>>> import rules
>>> v = rules.variant("kalah")
>>> pos = v.start()
>>> [str(m) for m in v.legal_moves(pos)]
['A', 'B', 'C', 'D', 'E', 'F']
"""

from .errors import BadOption, BadPosition, IllegalMove, RulesError, UnknownVariant
from .layout import NORTH, PLAYER_NAMES, SOUTH, Layout, Pit, four_rank_layout, two_row_layout
from .position import Move, Position, Result
from .reading import BadReading, PitReading, Reading, pit_reading
from .registry import VARIANTS, options_of, register, variant
from .variant import Event, Option, Variant
from .game import Game, score_of
from . import variants as _variants  # noqa: F401  (registers every variant)

__all__ = [
    "VARIANTS", "variant", "Game", "score_of", "options_of", "register",
    "Variant", "Option", "Event", "Position", "Move", "Result",
    "Layout", "Pit", "two_row_layout", "four_rank_layout", "SOUTH", "NORTH", "PLAYER_NAMES",
    "Reading", "PitReading", "pit_reading", "BadReading",
    "RulesError", "UnknownVariant", "BadOption", "IllegalMove", "BadPosition",
]
