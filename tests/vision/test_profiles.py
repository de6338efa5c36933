"""Board profiles: every layout of the rules engine becomes a physical board that makes sense."""

import itertools
import math

import pytest

from calibration.profiles import PROFILE_LAYOUTS, UnknownBoard, board_profile, start_counts


@pytest.mark.parametrize("name", list(PROFILE_LAYOUTS))
def test_every_pit_has_a_hollow_inside_the_board_clear_of_others_and_of_markers(name):
    profile = board_profile(name)
    assert [h.label for h in profile.hollows] == list(profile.layout.labels)
    width, height = profile.size
    for hollow in profile.hollows:
        (x, y), (a, b) = hollow.centre, hollow.axes
        assert a < x < width - a and b < y < height - b
        for marker_id in range(4):
            mx, my = profile.marker_centre(marker_id)
            assert abs(mx - x) > a + 14 or abs(my - y) > b + 14, (hollow.label, marker_id)
    for h1, h2 in itertools.combinations(profile.hollows, 2):
        gap = math.hypot(h1.centre[0] - h2.centre[0], h1.centre[1] - h2.centre[1])
        assert gap > max(h1.axes[0], h1.axes[1]) + max(h2.axes[0], h2.axes[1]) - 30 and gap > 40


def test_rows_and_sides_follow_the_rules_grid():
    profile = board_profile("2x6+stores")
    assert profile.hollow("a").centre[1] < profile.hollow("A").centre[1]  # North's row is far (top)
    assert profile.hollow("A").centre[0] < profile.hollow("F").centre[0]  # A is at South's left
    assert profile.hollow("N").centre[0] < profile.hollow("A").centre[0] < profile.hollow("S").centre[0]
    assert profile.marker_centre(0)[1] > profile.marker_centre(3)[1]  # marker 0 near, 3 far


def test_variant_names_resolve_through_the_rules_registry():
    assert board_profile("kalah").name == "2x6+stores"
    counts, white = start_counts("kalah")
    assert counts["A"] == 4 and counts["S"] == 0 and white is None


def test_chip_board_start_has_one_white_next_to_each_outbox():
    counts, white = start_counts("2x5+outboxes")
    assert counts["A"] == 3 and white["A"] == 1 and white["a"] == 1 and sum(white.values()) == 2


def test_unknown_board_is_named():
    with pytest.raises(UnknownBoard, match="'3x7'"):
        board_profile("3x7")
