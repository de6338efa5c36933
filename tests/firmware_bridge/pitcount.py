"""Checking that a board reports the pit count the bridge set again after a reset or a replug."""

from __future__ import annotations

from typing import Sequence

from firmware_bridge import protocol as p


def assert_pit_count_restored(pit_counts: Sequence[int], pit_count: int = 14) -> None:
    """``pit_counts``: the sizes of the reports received since the bridge's LED frame was
    confirmed (SET_PITS was acknowledged before it). The first may still have the boot's
    ``MAX_PITS``: its header left before SET_PITS came, and acknowledgements overtake a report
    on the wire (docs/protocol.md). The device starts a report only into an empty stream
    queue, so there is no second one, and every later report has ``pit_count`` values."""
    assert pit_counts, "no report came after the board was configured again"
    assert pit_counts[0] in (pit_count, p.MAX_PITS) and set(pit_counts[1:]) <= {pit_count}, (
        f"the pit count was not restored: reports of {list(pit_counts)} pits")
