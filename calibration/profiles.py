"""Board profiles: where every hollow and marker sits on a physical board, in mm.

A profile turns a rules :class:`~rules.layout.Layout` (rows, columns, stores)
into millimetres so that the renderer can draw the board, the marker sheet
can say where to stick the markers, and calibration knows roughly where to
look for each hollow before it refines the positions from a photo.

Board coordinates: origin at the far-left corner of the board as seen from
South's seat, ``x`` to South's right, ``y`` towards South (down the camera
picture). Row 0 (far row) therefore has the smallest ``y``.

Markers: ArUco ``DICT_4X4_50`` ids 0 near-left, 1 near-right, 2 far-right,
3 far-left, each printed upright as read from South's seat, centred in the
end bands of the board (outside the pits) so that a hand reaching for a pit
rarely covers more than one.
"""

from __future__ import annotations

import reprlib
from dataclasses import dataclass

import rules
from rules.layout import Layout, four_rank_layout, two_row_layout


PITCH_MM = 56.0  # centre-to-centre distance of neighbouring hollows
HOLLOW_AXES_MM = (23.0, 20.0)  # semi-axes of a playing hollow (across, along the board's depth)
STORE_HALF_WIDTH_MM = 22.0
END_BAND_MM = 46.0  # board beyond the outermost hollows, where the markers sit
SIDE_MARGIN_MM = 10.0  # board beyond the far and near rows
MARKER_MM = 28.0  # black square of a printed marker
MARKER_QUIET_MM = 5.0  # white border printed round every marker (ArUco needs it)

# The board types Pitwatch knows, by the rules engine's layout names.
PROFILE_LAYOUTS: dict[str, Layout] = {
    layout.name: layout
    for layout in (
        two_row_layout(6, "right"),
        two_row_layout(6, "none"),
        two_row_layout(5, "left"),
        two_row_layout(8, "right"),
        two_row_layout(8, "none"),
        four_rank_layout(8),
    )
}

# Boards whose pieces are yellow and white chips whose colours the referee judges.
CHIP_PROFILES = frozenset({"2x5+outboxes"})


class UnknownBoard(ValueError):
    """A variant or board name that maps to no known board profile."""


@dataclass(frozen=True)
class HollowShape:
    """One hollow of a profile: its pit label, centre and semi-axes in mm."""

    label: str
    centre: tuple[float, float]
    axes: tuple[float, float]
    is_store: bool


@dataclass(frozen=True)
class BoardProfile:
    """The physical arrangement of one board type (all lengths in mm)."""

    name: str
    layout: Layout
    size: tuple[float, float]
    hollows: tuple[HollowShape, ...]
    chips: bool

    def hollow(self, label: str) -> HollowShape:
        for hollow in self.hollows:
            if hollow.label == label:
                return hollow
        raise KeyError(f"no pit {label!r} on a {self.name} board")

    def marker_centre(self, marker_id: int) -> tuple[float, float]:
        """Centre of marker ``marker_id`` (0 near-left, 1 near-right, 2 far-right, 3 far-left)."""
        width, height = self.size
        inset_y = SIDE_MARGIN_MM / 2 + MARKER_MM / 2 + MARKER_QUIET_MM
        x = END_BAND_MM / 2 if marker_id in (0, 3) else width - END_BAND_MM / 2
        y = height - inset_y if marker_id in (0, 1) else inset_y
        return (x, y)

    def marker_corners(self, marker_id: int) -> list[tuple[float, float]]:
        """The four corners of a marker in ArUco's order (top-left, top-right, bottom-right,
        bottom-left of the upright marker), in board mm."""
        cx, cy = self.marker_centre(marker_id)
        h = MARKER_MM / 2
        return [(cx - h, cy - h), (cx + h, cy - h), (cx + h, cy + h), (cx - h, cy + h)]

    def board_corners(self) -> list[tuple[float, float]]:
        """Board outline corners in the marker order: near-left, near-right, far-right, far-left."""
        width, height = self.size
        return [(0.0, height), (width, height), (width, 0.0), (0.0, 0.0)]


def _profile_of(layout: Layout) -> BoardProfile:
    left = 1 if layout.has_left_store else 0
    columns = layout.columns + left + (1 if layout.has_right_store else 0)
    width = 2 * END_BAND_MM + columns * PITCH_MM
    height = 2 * SIDE_MARGIN_MM + layout.rows * PITCH_MM
    hollows = []
    for pit in layout.pits:
        x = END_BAND_MM + (pit.column + left + 0.5) * PITCH_MM
        if pit.is_store:
            axes = (STORE_HALF_WIDTH_MM, layout.rows * PITCH_MM / 2 - 7.0)
            y = height / 2
        else:
            axes = HOLLOW_AXES_MM
            y = SIDE_MARGIN_MM + (pit.row + 0.5) * PITCH_MM
        hollows.append(HollowShape(pit.label, (x, y), axes, pit.is_store))
    return BoardProfile(layout.name, layout, (width, height), tuple(hollows), layout.name in CHIP_PROFILES)


def board_profile(name: str) -> BoardProfile:
    """The profile of a board by its layout name (``2x6+stores``) or a variant name (``kalah``).

    Variant names are resolved through the rules registry, so a new variant
    on a known board type needs no change here.
    """
    if name in PROFILE_LAYOUTS:
        return _profile_of(PROFILE_LAYOUTS[name])
    try:
        layout = rules.variant(name).layout
    except rules.RulesError:
        known = ", ".join([*PROFILE_LAYOUTS, *rules.VARIANTS])
        raise UnknownBoard(f"unknown variant or board {reprlib.repr(name)}; known: {known}") from None
    if layout.name not in PROFILE_LAYOUTS:
        raise UnknownBoard(f"variant {reprlib.repr(name)} plays on a {layout.name} board, which has no profile")
    return _profile_of(PROFILE_LAYOUTS[layout.name])


def start_counts(name: str) -> tuple[dict[str, int], dict[str, int] | None]:
    """The counts (and white chips) of the start position calibration learns the seeds from.

    A variant name gives that variant's start position; a bare board name
    gives 4 seeds in every playing pit (3 chips, one white next to each
    outbox, on the Pass It On board), stores empty.
    """
    profile = board_profile(name)
    labels = profile.layout.labels
    if name not in PROFILE_LAYOUTS:
        start = rules.variant(name).start()
        white = None if start.white is None else dict(zip(labels, start.white))
        return dict(zip(labels, start.pits)), white
    counts = {h.label: (0 if h.is_store else (3 if profile.chips else 4)) for h in profile.hollows}
    if not profile.chips:
        return counts, None
    white = {label: 0 for label in counts}
    white["A"] = white["a"] = 1
    return counts, white
