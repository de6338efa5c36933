"""The bridge's life: stop() in the middle of a handshake, start() again after a stop that timed out,
a port that fails right after opening or vanishes under the reader, half a frame left on the port,
waiting for the board to confirm an LED frame, and a port another bridge holds."""

from __future__ import annotations

import errno
import threading
import time

import serial
import serial.urlhandler.protocol_loop

from firmware_bridge import Bridge, EmulatedBoard, Led, State
from firmware_bridge.bridge import probe
from firmware_bridge import protocol as p
from noisy_cable import NoisyCable
from unclocked import UnclockedBoard
from waiting import wait_until

SLACK = 0.5  # what a loaded test machine may add to a timer; never taken off one


def hello_sent(board: UnclockedBoard) -> bool:
    return any(kind == p.MessageType.HELLO for _, kind in board.commands)


def test_stop_mid_handshake_ends_it_and_the_bridge_stays_stopped():
    """A board that has not answered yet (an Uno still in its bootloader). stop() does not wait out
    the 3 s handshake, and nothing the stopping thread does afterwards can make the status say
    CONNECTED: the board answers just after the stop, and the bridge must not take it up."""
    board = UnclockedBoard()
    board.answering = False
    statuses = []
    bridge = Bridge(board.port, pit_count=14, on_status=statuses.append).start()
    try:
        assert wait_until(lambda: hello_sent(board)), bridge.status
        began = time.monotonic()
        bridge.stop(timeout=0)  # the caller does not wait: the thread may still be in its handshake
        board.answering = True  # ... and the board now answers its next HELLO
        assert wait_until(lambda: not bridge.running, 5), "the bridge's thread never finished"
        assert time.monotonic() - began <= SLACK, "the handshake was waited out, not abandoned"
        stopped = next(n for n, status in enumerate(statuses) if status.state == State.STOPPED)
        assert {status.state for status in statuses[stopped:]} == {State.STOPPED}, statuses[stopped:]
        assert bridge.status.state == State.STOPPED
        configured = [kind for _, kind in board.commands if kind == p.MessageType.SET_PITS]
        assert not configured, "a stopped bridge configured the board"
    finally:
        bridge.stop()
        board.close()


def test_start_after_a_stop_that_timed_out_runs_the_bridge_again():
    """stop(timeout=0) returns while the thread is still finishing; start() right after must still
    give a working bridge (it used to see the old thread alive, do nothing, and leave a dead one)."""
    board = UnclockedBoard()
    board.answering = False
    bridge = Bridge(board.port, pit_count=14).start()
    try:
        assert wait_until(lambda: hello_sent(board)), bridge.status
        bridge.stop(timeout=0)
        board.answering = True
        bridge.start()
        assert wait_until(lambda: bridge.status.connected, 5), bridge.status
        frame = [Led(7, 8, 9)] * 14
        bridge.set_leds(frame)
        assert bridge.wait_for_leds(frame, 5), "connected, but nothing serves the board"
        assert bridge.running
        assert board.core.leds[:14] == frame
    finally:
        bridge.stop()
        board.close()


class StaleInputFails(serial.urlhandler.protocol_loop.Serial):
    """A port that opens, then fails when its stale input is discarded (a USB adapter pulled out
    at that moment). Remembers every instance, to check that each was closed again."""

    opened: list["StaleInputFails"] = []

    def __init__(self, *args, **kwargs) -> None:
        self.is_open_fully = False  # opening the loop port discards its input too: that works
        super().__init__(*args, **kwargs)
        self.is_open_fully = True
        StaleInputFails.opened.append(self)

    def reset_input_buffer(self) -> None:
        if self.is_open_fully:
            raise serial.SerialException("[Errno 5] Input/output error")
        super().reset_input_buffer()


def test_a_port_that_fails_after_opening_is_closed_and_named(monkeypatch):
    """Not an "internal error" with the port left open: a named error, the port closed, and the
    bridge backs off and tries again as for any lost port."""
    StaleInputFails.opened = []
    monkeypatch.setattr(serial, "serial_for_url", lambda url, **kwargs: StaleInputFails("loop://", **kwargs))
    statuses = []
    bridge = Bridge("/dev/ttyACM-flaky", pit_count=14, on_status=statuses.append).start()
    try:
        assert wait_until(lambda: bridge.status.reconnects >= 2, 5), bridge.status
    finally:
        bridge.stop()
    messages = [status.message for status in statuses]
    assert not [m for m in messages if "internal error" in m], messages
    assert any(m.startswith("/dev/ttyACM-flaky: opened, but cannot discard its stale input (closed it again): "
                            "[Errno 5] Input/output error; retrying in") for m in messages), messages
    assert len(StaleInputFails.opened) >= 2 and not any(port.is_open for port in StaleInputFails.opened)


def test_half_a_frame_waiting_on_the_port_is_thrown_away_when_the_bridge_connects():
    """What a bridge finds on the port it opens is the tail of an earlier session: half a frame,
    here. Thrown away (pyserial's open and the bridge both discard it), so the board's next frame
    arrives whole, not merged into one bad frame with it, and the handshake needs no second
    attempt. The soak test's check of every frame the bridge accepts relies on this."""
    half_a_frame = p.ReportSlice(3, 0, (512, 1, 1023, 7)).frame(9)[:8]
    with EmulatedBoard(14) as board:
        cable = NoisyCable(board.port, 1, noise=0.0)
        cable.inject_to_host(half_a_frame)
        bridge = Bridge(cable.port, pit_count=14).start()
        try:
            assert wait_until(lambda: bridge.status.connected, 5), bridge.status
        finally:
            bridge.stop()
            cable.close()
    assert (bridge.status.bad_frames, bridge.status.retries) == (0, 0), bridge.status


def test_wait_for_leds_returns_when_the_board_acknowledges_the_frame():
    with EmulatedBoard(14) as board:
        bridge = Bridge(board.port, pit_count=14).start()
        try:
            frame = [Led(1, 2, 3)] * 14
            bridge.set_leds(frame)
            assert bridge.wait_for_leds(frame, 5) and bridge.confirmed_leds == tuple(frame)
            assert board.leds == tuple(frame)
            began = time.monotonic()
            assert not bridge.wait_for_leds([Led(4, 5, 6)] * 14, 0.2), "a frame never sent was confirmed"
            assert time.monotonic() - began >= 0.2
        finally:
            bridge.stop()


class VanishingPort(serial.Serial):
    """A real port (the emulator's pty) whose ``in_waiting`` fails with EIO once ``vanished``, as a
    pulled USB adapter's does: pyserial's reader asks it outside its ``SerialException`` guard."""

    vanished = False

    @property
    def in_waiting(self) -> int:
        if VanishingPort.vanished:
            raise OSError(errno.EIO, "Input/output error")
        return super().in_waiting


def test_a_port_that_vanishes_under_the_reader_is_a_lost_link_at_once(monkeypatch):
    """Not a reader thread dying with a traceback, noticed only after the silence and the PINGs."""
    VanishingPort.vanished = False
    monkeypatch.setattr(serial, "serial_for_url", lambda url, **kwargs: VanishingPort(url, **kwargs))
    died = []
    monkeypatch.setattr(threading, "excepthook", died.append)
    with EmulatedBoard(14) as board:
        bridge = Bridge(board.port, pit_count=14).start()
        try:
            assert wait_until(lambda: bridge.status.connected, 5), bridge.status
            VanishingPort.vanished = True  # the board reports every 30 ms: the reader looks again at once
            assert wait_until(lambda: bridge.status.state == State.DISCONNECTED, 5), bridge.status
            assert bridge.status.message.startswith(f"lost {board.port}: [Errno 5] Input/output error"), \
                bridge.status.message
        finally:
            bridge.stop()
    assert died == [], [hook.exc_value for hook in died]


def test_a_port_another_bridge_holds_is_busy_and_that_bridge_keeps_its_board():
    """``pitwatch doctor`` beside ``pitwatch run``: the second is refused the port and says why,
    instead of opening it too, flushing the first one's input and taking half its bytes."""
    with EmulatedBoard(14) as board:
        running = Bridge(board.port, pit_count=14).start()
        try:
            assert wait_until(lambda: running.status.connected, 5), running.status
            checked = probe(board.port, 0.5).status
            assert not checked.connected
            assert checked.message.startswith(f"{board.port}: busy: another program holds the port"), checked.message
            assert running.status.connected and running.status.reconnects == 0, running.status
        finally:
            running.stop()


def test_a_port_this_user_may_not_open_is_named_with_the_fix(monkeypatch):
    """A serial port of the ``dialout`` group, for a user not in it. Tests run as root here, whom no
    port refuses, so pyserial's refusal is given as it raises it (``SerialException`` with EACCES)."""
    def refused(url, **_):
        raise serial.SerialException(errno.EACCES, f"could not open port {url}: [Errno 13] Permission denied: '{url}'")

    monkeypatch.setattr(serial, "serial_for_url", refused)
    checked = probe("/dev/ttyACM0", 0.5).status
    assert not checked.connected
    assert checked.message.startswith("/dev/ttyACM0: permission denied: this user may not open the port; add it to "
                                      "the port's group (on Debian `sudo usermod -aG dialout $USER`), then log in "
                                      "again"), checked.message  # and, if it is still trying, when it tries again
