"""The referee: judges every observed board change against the rules.

>>> import rules
>>> from rules.referee import judge
>>> game = rules.Game("kalah")
>>> after, _ = game.variant.play(game.position, game.variant.parse_move(game.position, "C"))
>>> verdict = judge(game, rules.Reading.of_position(after))
>>> verdict.kind, [m.text for m in verdict.moves]
('move', ['C'])
"""

from .likelihood import Evidence, PitDifference
from .mistakes import CATALOGUE
from .noise import noisy_reading
from .referee import Referee, judge
from .verdict import KINDS, Explanation, Mistake, Verdict

__all__ = ["judge", "Referee", "Verdict", "Explanation", "Mistake", "PitDifference", "Evidence",
           "KINDS", "CATALOGUE", "noisy_reading"]
