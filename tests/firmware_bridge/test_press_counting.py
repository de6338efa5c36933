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

from firmware_bridge import Bridge, Button
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
