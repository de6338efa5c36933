"""Board layouts: the single source of truth for where every pit is.

Every other room draws from a :class:`Layout`: the engine sows along its
tracks, vision finds pits at its grid cells, the LED chain follows its
canonical order, the dashboard draws it as SVG.

Conventions (binding, from ``shared/RULES.md``):

* Players: South = 0 (camera side, near row), North = 1.
* Canonical order: pits numbered in counterclockwise (CCW) sowing order,
  starting with South's leftmost playing pit; a store on the track takes its
  place in that order. Four-rank boards: ``A1..A8, B1..B8, a1..a8, b1..b8``.
* Labels: South's playing pits ``A B C ...`` from South's left, North's
  ``a b c ...`` from North's left, stores ``S`` (South's) and ``N`` (North's).
* Physical grid, as seen from South's seat: ``row`` 0 is the far row (top of
  the camera picture and of the dashboard), growing towards South; ``column``
  0 is South's leftmost playing column. A store spans every row
  (``row is None``) and sits in column ``-1`` (left end) or ``columns``
  (right end).
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Literal

SOUTH = 0
NORTH = 1
PLAYER_NAMES = ("south", "north")

PitKind = Literal["pit", "store"]


@dataclass(frozen=True)
class Pit:
    """One hole of the board.

    ``index`` is the canonical index; ``owner`` the player (0/1) whose pit or
    store it is; ``row``/``column`` its cell on the physical grid (see the
    module docstring).
    """

    index: int
    label: str
    owner: int
    kind: PitKind
    row: int | None
    column: int

    @property
    def is_store(self) -> bool:
        return self.kind == "store"

    def to_json(self) -> dict:
        return {
            "index": self.index,
            "label": self.label,
            "owner": PLAYER_NAMES[self.owner],
            "kind": self.kind,
            "row": self.row,
            "column": self.column,
        }


@dataclass(frozen=True)
class Layout:
    """The pits of a board, their tracks and their physical arrangement.

    ``track`` is the CCW sowing cycle of canonical indices for two-row boards
    (every pit on the track, stores included where they are on it). Four-rank
    boards have no common track: ``player_tracks[p]`` is player ``p``'s own
    clockwise cycle of 16 pits (front row left to right, back row right to
    left). ``opposite[i]`` is the pit facing pit ``i`` across the board (for
    four-rank boards: front row to front row), or ``None``.
    """

    name: str
    rows: int
    columns: int
    pits: tuple[Pit, ...]
    track: tuple[int, ...]
    opposite: tuple[int | None, ...]
    player_tracks: tuple[tuple[int, ...], tuple[int, ...]] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_label", {p.label: p.index for p in self.pits})
        object.__setattr__(self, "_labels", tuple(p.label for p in self.pits))

    def __len__(self) -> int:
        return len(self.pits)

    @property
    def labels(self) -> tuple[str, ...]:
        """Every pit's label in canonical order (computed once: sowing code asks for it on every move)."""
        return self._labels  # type: ignore[attr-defined]

    def index_of(self, label: str) -> int:
        """Canonical index of the pit ``label``; a clear error for an unknown label."""
        try:
            return self._by_label[label]  # type: ignore[attr-defined]
        except KeyError:
            raise KeyError(
                f"no pit labelled {label!r} on a {self.name} board; pits are {', '.join(self.labels)}"
            ) from None

    def houses(self, player: int) -> tuple[int, ...]:
        """Canonical indices of ``player``'s playing pits, in canonical order."""
        return tuple(p.index for p in self.pits if p.owner == player and p.kind == "pit")

    def store(self, player: int) -> int | None:
        """Canonical index of ``player``'s store, or ``None`` if the board has none."""
        for p in self.pits:
            if p.owner == player and p.kind == "store":
                return p.index
        return None

    @property
    def has_left_store(self) -> bool:
        return any(p.is_store and p.column < 0 for p in self.pits)

    @property
    def has_right_store(self) -> bool:
        return any(p.is_store and p.column >= self.columns for p in self.pits)

    def to_json(self) -> dict:
        """The layout as plain data, for the dashboard, LEDs and calibration files."""
        return {
            "name": self.name,
            "rows": self.rows,
            "columns": self.columns,
            "pits": [p.to_json() for p in self.pits],
            "track": list(self.track),
            "opposite": list(self.opposite),
            "player_tracks": [list(t) for t in self.player_tracks] if self.player_tracks else None,
        }


StoreStyle = Literal["none", "right", "left"]


def two_row_layout(houses: int, stores: StoreStyle = "none") -> Layout:
    """A board of two rows of ``houses`` playing pits.

    ``stores``: ``"none"`` (Oware, Nam Nam, Bao with laps: no store on the
    track), ``"right"`` (Kalah, Bao: each player's store on his right, after
    his row on the CCW track) or ``"left"`` (Pass It On: each player's outbox
    at his left end, before his row on the CCW track).
    """
    if not 1 <= houses <= 26:
        raise ValueError(f"a row holds 1 to 26 pits, not {houses}")
    south_labels = string.ascii_uppercase[:houses]
    north_labels = string.ascii_lowercase[:houses]
    pits: list[Pit] = []

    def add(label: str, owner: int, kind: PitKind, row: int | None, column: int) -> int:
        pits.append(Pit(len(pits), label, owner, kind, row, column))
        return len(pits) - 1

    south_row, north_row = 1, 0
    for col, label in enumerate(south_labels):
        add(label, 0, "pit", south_row, col)
    if stores == "right":  # South's store on South's right
        add("S", 0, "store", None, houses)
    elif stores == "left":  # North's outbox at North's left = South's right
        add("N", 1, "store", None, houses)
    for k, label in enumerate(north_labels):  # North's left is South's right
        add(label, 1, "pit", north_row, houses - 1 - k)
    if stores == "right":  # North's store on North's right = South's left
        add("N", 1, "store", None, -1)
    elif stores == "left":  # South's outbox at South's left
        add("S", 0, "store", None, -1)

    opposite: list[int | None] = [None] * len(pits)
    by_cell = {(p.row, p.column): p.index for p in pits if not p.is_store}
    for p in pits:
        if not p.is_store:
            opposite[p.index] = by_cell[(1 - p.row, p.column)]
    name = f"2x{houses}" + {"none": "", "right": "+stores", "left": "+outboxes"}[stores]
    return Layout(name, 2, houses, tuple(pits), tuple(range(len(pits))), tuple(opposite))


def four_rank_layout(columns: int = 8) -> Layout:
    """A four-rank board (Bao la Kujifunza): front and back row for each player.

    Canonical order ``A1..An`` (South front), ``B1..Bn`` (South back),
    ``a1..an`` (North front), ``b1..bn`` (North back), each numbered from its
    owner's left. Rows from the far side: North back, North front, South
    front, South back.
    """
    pits: list[Pit] = []
    for prefix, owner, row in (("A", 0, 2), ("B", 0, 3), ("a", 1, 1), ("b", 1, 0)):
        for k in range(1, columns + 1):
            column = k - 1 if owner == 0 else columns - k
            pits.append(Pit(len(pits), f"{prefix}{k}", owner, "pit", row, column))
    n = columns
    opposite: list[int | None] = [None] * len(pits)
    for k in range(n):  # A(k+1) at column k faces a(n-k) at column k
        opposite[k] = 2 * n + (n - 1 - k)
        opposite[2 * n + (n - 1 - k)] = k
    tracks = []
    for base in (0, 2 * n):  # front row left to right, back row right to left
        front = tuple(range(base, base + n))
        back = tuple(range(base + 2 * n - 1, base + n - 1, -1))
        tracks.append(front + back)
    return Layout(
        f"4x{columns}", 4, columns, tuple(pits), (), tuple(opposite), (tracks[0], tracks[1])
    )
