"""Errors raised by the rules engine.

All of them are ``ValueError`` subclasses so that callers which only want to
report bad input can catch one type; each message names what is wrong and where.
"""


class RulesError(ValueError):
    """Base class of every error the rules engine raises on bad input."""


class UnknownVariant(RulesError):
    """A variant name that the registry does not know."""


class BadOption(RulesError):
    """An unknown option name or a value outside the option's range."""


class IllegalMove(RulesError):
    """A move that is not legal in the position it was played in (or cannot be parsed)."""


class BadPosition(RulesError):
    """A position that breaks seed conservation or one of the variant's invariants."""
