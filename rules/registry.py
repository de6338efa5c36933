"""The registry of variants: names, one-line descriptions, options and presets.

``egyptian`` and ``kalah-3`` are presets: the same rules class as ``kalah``
registered under their own names with different defaults.
"""

from __future__ import annotations

import reprlib
from dataclasses import dataclass, field
from typing import Any

from .errors import UnknownVariant
from .variant import Option, Variant


@dataclass(frozen=True)
class Entry:
    """One registered variant name: the rules class that plays it and its one-line description.

    ``presets`` are option values that this name sets in place of the class's
    defaults (``kalah-3`` is ``Kalah`` with ``seeds=3``); options given to
    :func:`variant` override them in turn.
    """

    name: str
    cls: type[Variant]
    description: str
    presets: dict[str, Any] = field(default_factory=dict)

    def options(self) -> tuple[Option, ...]:
        """The options with this entry's preset defaults."""
        return tuple(
            Option(o.name, self.presets.get(o.name, o.default), o.description, o.choices, o.bounds)
            for o in self.cls.OPTIONS
        )


_ENTRIES: dict[str, Entry] = {}
VARIANTS: dict[str, str] = {}


def register(name: str, cls: type[Variant], description: str, **presets: Any) -> None:
    """Add a variant under ``name``; ``presets`` override the class's option defaults."""
    _ENTRIES[name] = Entry(name, cls, description, presets)
    VARIANTS[name] = description


def variant(name: str, /, **options: Any) -> Variant:
    """The variant ``name`` with ``options`` set; an error lists valid names or options."""
    if name not in _ENTRIES:
        raise _unknown(name)
    entry = _ENTRIES[name]
    return entry.cls(name, entry.description, **{**entry.presets, **options})


def options_of(name: str) -> tuple[Option, ...]:
    """The documented options of variant ``name`` with their defaults."""
    if name not in _ENTRIES:
        raise _unknown(name)
    return _ENTRIES[name].options()


def _unknown(name: Any) -> UnknownVariant:
    return UnknownVariant(f"unknown variant {reprlib.repr(name)}; variants are {', '.join(_ENTRIES)}")
