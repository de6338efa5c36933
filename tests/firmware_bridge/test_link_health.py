"""The link's health as the bridge counts it: what a diagnosis (``pitwatch doctor``) reads of a cable.

Each counter is driven by the device's own protocol logic (``DeviceCore``) on a real pty,
unclocked, so that a frame the cable would lose only by chance is lost every run; the
probe is watched over the noisy cable of the soak tests and over a clean emulated board.
"""

from __future__ import annotations

from firmware_bridge import Bridge, EmulatedBoard
from firmware_bridge import framing
from firmware_bridge import protocol as p
from firmware_bridge.bridge import probe
from noisy_cable import NoisyCable
from unclocked import UnclockedBoard
from waiting import wait_until


def connected_to(board: UnclockedBoard, readings: list) -> Bridge:
    bridge = Bridge(board.port, pit_count=14, on_reading=readings.append).start()
    assert wait_until(lambda: bridge.status.connected), bridge.status
    return bridge


def test_a_raw_value_no_adc_can_read_is_a_bad_frame_and_no_reading():
    """A 10-bit ADC reads 0 to 1023: a slice that passed its CRC corrupted into 40,000 would read as
    a full pit (the sensors take a value at the top for saturated); it is a bad frame instead."""
    board, readings = UnclockedBoard(), []
    bridge = connected_to(board, readings)
    try:
        with board.lock:
            board.core.send_report(tuple([512] * 13 + [40_000]))
            board.core.send_report(tuple([512] * 13 + [1023]))
        assert wait_until(lambda: len(readings) == 1 and bridge.status.bad_frames == 1), (readings, bridge.status)
        assert readings[0].raw[-1] == 1023
    finally:
        bridge.stop()
        board.close()


def test_the_boards_count_of_rejected_frames_adds_up_over_its_restarts():
    """The device's ERROR count is its own since boot; shown as it stood, a restart took the
    errors before back (9, then 2), and a diagnosis lost them."""
    board, readings = UnclockedBoard(), []
    bridge = connected_to(board, readings)
    try:
        for count in (3, 9):
            with board.lock:
                board.core.send(p.ErrorReport(p.ErrorCode.BAD_FRAME, count))
        assert wait_until(lambda: bridge.status.device_bad_frames == 9), bridge.status
        with board.lock:
            board.core.boot(p.ResetCause.WATCHDOG, 14)
            board.core.send_info(p.Info.BOOT)
            board.core.send(p.ErrorReport(p.ErrorCode.BAD_FRAME, 2))
        assert wait_until(lambda: bridge.status.device_bad_frames == 11), bridge.status
        with board.lock:  # a restart whose banner was lost: the count went back, so it started from 0
            board.core.send(p.ErrorReport(p.ErrorCode.TOO_LONG, 1))
        assert wait_until(lambda: bridge.status.device_bad_frames == 12), bridge.status
    finally:
        bridge.stop()
        board.close()


def test_a_report_that_lost_a_frame_is_counted_once_and_a_newer_firmwares_message_too():
    board, readings = UnclockedBoard(), []
    bridge = connected_to(board, readings)
    try:
        report = p.Report(1_000, 0, (0, 0), tuple(range(500, 514)))
        with board.lock:
            board.core.send_report()  # a whole one first: slices before any header may be of a report
            header, *slices = report.messages(7)  # sent before the port opened, lost on no cable
            for message in slices:  # its header lost on the cable
                board.core.send(message)
            for message in report.messages(8)[:-1]:  # its last slice lost
                board.core.send(message)
            board.core.send_bytes(framing.encode_frame(0x90, 0, b"new"))  # a type this bridge does not know
            board.core.send_report()
        assert wait_until(lambda: len(readings) == 2), bridge.status
        assert wait_until(lambda: (bridge.status.lost_reports, bridge.status.unknown_messages) == (2, 1)), bridge.status
        assert bridge.status.bad_frames == 0
    finally:
        bridge.stop()
        board.close()


def test_the_probe_watches_a_clean_link_and_names_a_noisy_one():
    """``pitwatch doctor`` watches a board's reports for a couple of seconds: none damaged on a sound
    link; on a cable that damages a tenth of the frames, the damage shows, though the link holds."""
    with EmulatedBoard(14) as board:
        clean = probe(board.port, 5, watch_seconds=1.0)
        assert clean.status.connected and clean.health is not None, clean
        assert clean.health.clean and clean.health.reports >= 10, clean.health

        cable = NoisyCable(board.port, seed=3, noise=0.1)
        try:
            noisy = probe(cable.port, 10, watch_seconds=1.5)
        finally:
            cable.close()
    assert noisy.status.connected and noisy.health is not None, noisy
    assert not noisy.health.clean and noisy.health.damaged_frames + noisy.health.lost_reports > 0, noisy.health
    assert noisy.health.reports > 0, noisy.health


def test_a_probe_that_finds_no_board_watches_nothing():
    board = UnclockedBoard()
    board.answering = False
    try:
        silent = probe(board.port, 0.5, watch_seconds=1.0)
    finally:
        board.close()
    assert not silent.status.connected and silent.health is None, silent
