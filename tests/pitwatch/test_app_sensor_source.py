"""The microcontroller as a source of Readings: what the players are told when it is not there."""

from __future__ import annotations

import time
from typing import Callable

from apphelpers import sensor_calibration_for
from firmware_bridge.emulator import EmulatedBoard
from pitwatch.fusion import Fusion
from pitwatch.sources import SensorSource
from rules import Game
from waiting import wait_until

LABELS = Game("kalah").variant.layout.labels


def sensors_status(fusion: Fusion, until: Callable[[str], bool]) -> str:
    """The sensors' status in the fusion once ``until(status)`` holds, or after 10 s."""
    def status() -> str:
        return fusion.statuses(time.monotonic())["sensors"]

    wait_until(lambda: until(status()), 10)
    return status()


def test_a_microcontroller_that_never_answered_is_not_found_and_one_unplugged_is_lost(tmp_path):
    fusion = Fusion(LABELS, {"sensors": 1.0})
    source = SensorSource(str(tmp_path / "no-such-port"), LABELS, fusion).start()
    try:
        status = sensors_status(fusion, lambda s: "retrying" in s)
    finally:
        source.stop()
    assert status.startswith(f"microcontroller not found: {tmp_path / 'no-such-port'}: cannot open"), status

    start = Game("kalah").position.pits
    with EmulatedBoard() as board:
        board.set_counts(start)
        fusion = Fusion(LABELS, {"sensors": 1.0})
        calibration = sensor_calibration_for(len(LABELS), LABELS, start)
        source = SensorSource(board.port, LABELS, fusion, calibration)
        shown: list[dict] = []  # the raw values the dashboard is given, as they come
        source.on_values = shown.append
        source.start()
        try:
            assert sensors_status(fusion, lambda s: s == "ok") == "ok"
            assert shown and set(shown[-1]) == set(LABELS)
            board.unplug()
            status = sensors_status(fusion, lambda s: s.startswith("microcontroller"))
        finally:
            source.stop()
    assert status.startswith("microcontroller lost: "), status
    assert shown[-1] == {}, "the last raw values stay on the dashboard as if the board still sent them"
