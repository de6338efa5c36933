"""The bridge turns press counters into exactly one ``on_button`` per press, whatever the frame order.

Regression: after a replug whose boot banner was lost, a press made right
after the handshake, before the session's first REPORT, was taken as the
"presses before we connected" baseline and silently swallowed (and the
other button's history could come back as phantom presses).

The device here is the emulator's own protocol logic (``DeviceCore``) behind
a real pty, but unclocked (``unclocked.UnclockedBoard``): it sends a REPORT
only when the test says so. The real firmware and ``EmulatedBoard`` report
every 30 to 40 ms, so with them this frame order happens only by timing; here it
happens every run.
"""

from __future__ import annotations

import time

from firmware_bridge import Bridge, Button
from firmware_bridge import protocol as p
from unclocked import UnclockedBoard
from waiting import wait_until


def test_a_press_before_the_first_report_counts_once_and_history_stays_history():
    board = UnclockedBoard()
    buttons, readings = [], []
    bridge = Bridge(board.port, pit_count=14, on_button=buttons.append, on_reading=readings.append)
    try:
        with board.lock:
            board.core.presses = [5, 3]  # pressed before the host connected; its boot banner is long gone
        bridge.start()
        assert wait_until(lambda: bridge.status.connected), bridge.status
        assert readings == [], "the device sent a REPORT: the frame order under test did not happen"

        with board.lock:
            board.core.press(Button.UNDO)  # BUTTON down (counter 4) and up, before any REPORT
            board.core.send_report()  # presses (5, 4): confirm's 5 are history, undo's 4 is known
        assert wait_until(lambda: len(readings) == 1)
        assert buttons == [Button.UNDO]

        with board.lock:
            board.core.press(Button.CONFIRM)
            board.core.send_report()
        assert wait_until(lambda: len(readings) == 2)
        assert buttons == [Button.UNDO, Button.CONFIRM]
    finally:
        bridge.stop()
        board.close()


def test_a_clock_that_restarts_is_a_reboot_and_one_that_wraps_after_49_days_is_not():
    """A REPORT whose uptime went back is a reboot whose boot banner was lost: the device's press
    counters started again from 0, so the bridge takes its baselines again. But the uptime is a
    32-bit count of milliseconds, and on a board left on for 49.7 days it wraps to 0: taken for a
    reboot, that zeroed the baselines and counted every press since boot once more."""
    board = UnclockedBoard()
    buttons, readings, statuses = [], [], []
    bridge = Bridge(board.port, pit_count=14, on_button=buttons.append, on_reading=readings.append,
                    on_status=statuses.append)

    def report_at(uptime_ms: int) -> None:
        """The device sends a REPORT when its clock shows ``uptime_ms`` (taken modulo 2**32), give
        or take: the clock is read again as the report is made, a moment later on a busy machine,
        and a float of 4.3 million seconds may round a millisecond down (1 run in 20 under load
        missed an exact match)."""
        with board.lock:
            board.core.booted_at = time.monotonic() - uptime_ms / 1000
            board.core.send_report()
        assert wait_until(lambda: readings and (readings[-1].device_ms - uptime_ms + 1) % 2**32 <= 1_000)

    def restarts() -> list[str]:
        return [status.message for status in statuses if "its clock restarted" in status.message]

    try:
        bridge.start()
        assert wait_until(lambda: bridge.status.connected), bridge.status
        report_at(600_000)
        with board.lock:
            board.core.press(Button.CONFIRM)
            board.core.presses = [0, 0]  # then it rebooted, and its banner was lost
        report_at(300)
        assert buttons == [Button.CONFIRM] and len(restarts()) == 1, (buttons, restarts())

        report_at(2**32 - 2_000)  # seven weeks on, two seconds before the clock wraps
        with board.lock:
            board.core.press(Button.UNDO)
        report_at(2**32 + 500)  # wrapped: the clock shows 500 ms
        assert buttons == [Button.CONFIRM, Button.UNDO] and len(restarts()) == 1, (buttons, restarts())
        with board.lock:
            board.core.press(Button.UNDO)
        report_at(2**32 + 1_000)
        assert buttons == [Button.CONFIRM, Button.UNDO, Button.UNDO], buttons
    finally:
        bridge.stop()
        board.close()


def test_a_corrupt_frame_that_passed_its_crc_makes_no_presses():
    """A CRC-16 lets one corrupt frame in 65,536 through. A press counter that jumps by 196 is such a
    frame, not 196 presses (each UNDO a takeback), and so is one that goes back by 3: its pit values
    are not handed on, and the true count after it is no jump (the corrupt count was taken as the
    baseline, and the true one after it made 3 takebacks). A clock far ahead, then back, is a bad
    frame too, and the reboot it suggests must not replay the counters as presses since zero."""
    board = UnclockedBoard()
    buttons, readings, statuses = [], [], []
    bridge = Bridge(board.port, pit_count=14, on_button=buttons.append, on_reading=readings.append,
                    on_status=statuses.append)

    def report(corrupt: bool = False) -> None:
        count, bad = len(readings), bridge.status.bad_frames  # before it is sent: the bridge may take it at once
        with board.lock:
            board.core.send_report()
        if corrupt:
            assert wait_until(lambda: bridge.status.bad_frames > bad), bridge.status
            time.sleep(0.05)
            assert len(readings) == count, "a corrupt frame's pit values were handed on"
        else:
            assert wait_until(lambda: len(readings) > count)

    try:
        with board.lock:
            board.core.presses = [0, 4]
        bridge.start()
        assert wait_until(lambda: bridge.status.connected), bridge.status
        report()
        for corrupt in (200, 1):  # as corrupt REPORTs say: far ahead, or a little back
            with board.lock:
                board.core.presses = [0, corrupt]
            report(corrupt=True)
            with board.lock:
                board.core.presses = [0, 4]  # the true count again
            report()
        assert buttons == [] and bridge.status.bad_frames == 2, (buttons, bridge.status)
        with board.lock:
            board.core.press(Button.UNDO)  # a real press still counts once
        report()
        assert buttons == [Button.UNDO], buttons
        with board.lock:
            board.core.presses = [0, 100]  # a counter that did start elsewhere: twice in a row, it is taken, as history
        report(corrupt=True)
        report()
        with board.lock:
            board.core.press(Button.UNDO)
        report()
        assert buttons == [Button.UNDO, Button.UNDO], buttons

        with board.lock:  # the counters stand at (0, 101)
            booted_at = board.core.booted_at
            board.core.booted_at -= 3_600  # a REPORT an hour ahead...
        report()
        with board.lock:
            board.core.booted_at = booted_at  # ...then the true clock: it seems to have restarted
        report()
        assert any("its clock restarted" in status.message for status in statuses)
        assert buttons == [Button.UNDO] * 2, "the counters of the reboot it seemed were replayed as presses"
        with board.lock:
            board.core.press(Button.CONFIRM)
        report()
        assert buttons == [Button.UNDO] * 2 + [Button.CONFIRM], buttons
    finally:
        bridge.stop()
        board.close()


def test_a_boot_banner_of_another_protocol_drops_the_link_and_the_handshake_asks_again():
    """A board flashed with another firmware while connected speaks another protocol: the link is
    dropped, naming it, and the handshake asks again (a corrupt banner of ours then passes)."""
    board = UnclockedBoard()
    statuses = []
    bridge = Bridge(board.port, pit_count=14, on_status=statuses.append)
    try:
        bridge.start()
        assert wait_until(lambda: bridge.status.connected), bridge.status
        with board.lock:
            board.core.send(p.Info(p.Info.BOOT, 1, (1, 0, 0), board.core.device_id, p.MAX_PITS, 14, 0, 10, 25,
                                   p.ResetCause.POWER_ON))
        assert wait_until(lambda: any("the board speaks protocol v1" in s.message for s in statuses)), statuses
        assert wait_until(lambda: bridge.status.connected and bridge.status.device.protocol == p.PROTOCOL_VERSION)
    finally:
        bridge.stop()
        board.close()
