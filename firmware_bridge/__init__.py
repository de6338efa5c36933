"""firmware_bridge: the pit-sensor and LED board, its firmware, protocol and serial bridge.

Public API (stable; everything else is internal)::

    from firmware_bridge import Bridge, Led, LedMode, Button, SensorCalibration, EmulatedBoard

    board = EmulatedBoard(14).start()            # or a real board: Bridge(None) finds it
    bridge = Bridge(board.port, pit_count=14,
                    on_reading=lambda frame: ...,   # SensorFrame: .raw (canonical order), .device_ms, .received, .buttons_down
                    on_button=lambda button: ...,   # Button.CONFIRM / Button.UNDO, once per press
                    on_status=lambda status: ...)   # BridgeStatus: .state, .message, .connected, counters
    bridge.start()                               # returns at once; connects and reconnects in the background
    bridge.set_leds([Led(0, 255, 0, LedMode.BLINK)] + [Led(0, 0, 0, LedMode.OFF)] * 13)  # never blocks
    bridge.status                                # the current BridgeStatus
    bridge.confirmed_leds                        # the last frame the board acknowledged
    bridge.wait_for_leds(frame, timeout=1.0)     # True once the board has acknowledged that frame
    bridge.stop()                                # abandons a handshake in flight; True if the thread ended in time

    calibration = SensorCalibration.fit(layout.labels, empty_frames, start_frames, start_counts)
    reading = calibration.to_reading(frame.raw, time=frame.received)   # -> rules.Reading (source "sensors")
    calibration = calibration.learn(raw_frames, confirmed_counts)      # sharper gains (stores!) from a known position
    calibration.to_json(); SensorCalibration.from_json(data)          # SensorCalibrationError names the bad field; the files
                                                                     # are calibration.calibfile's: save_sensor_file, load_sensor_file

    board.set_counts([4] * 6 + [0] + [4] * 6 + [0])   # the emulator's sensors, in canonical order;
                                                     # returns the board's uptime (ms) at the change
    board.press(Button.CONFIRM); board.hold(Button.UNDO); board.release(Button.UNDO)
    board.leds; board.shown(); board.reset(); board.unplug(); board.replug()
    board.stop()

Threads: callbacks run on the bridge's threads; keep them short. Nothing
raised inside the bridge reaches the caller: a corrupt byte, an unplugged
board, a reboot or a silent device shows up in ``status`` (and
``on_status``); the bridge reconnects with back-off and restores the pit
count and LED frame by itself. Only misuse raises at once: ``set_leds`` with
the wrong number of ``Led`` (ValueError) or something else (TypeError).
A message built with a field out of range (``SetPits(300)``) raises
``ProtocolError`` naming the field and its range. ``Bridge(port=None)`` tries every port ``serial.tools.list_ports`` lists with
the handshake. LED frames are one :class:`Led` per pit in the layout's
canonical order (``rules.Layout.labels``); the newest frame wins.

For tests and the benchmark, ``firmware_bridge.harness.SimavrBoard`` runs the
real firmware on simavr with the same surface as ``EmulatedBoard``
(``build(dir)`` makes the firmware and harness first).

Modules, each with one job: ``framing`` (COBS, CRC-16 and the delimiter: bytes
into checked frames) and ``protocol`` (the messages inside them; together
docs/protocol.md), ``link`` (one command at a time, acknowledged or retried),
``bridge`` (the connection: discovery, reconnects, status), ``sensors``,
``emulator``, ``harness`` (the firmware on simavr), and the AVR firmware in
``firmware/`` (docs/hardware.md).
"""

from .bridge import Bridge, BridgeStatus, SensorFrame, State
from .emulator import EmulatedBoard, SensorModel
from .protocol import MAX_PITS, OFF, PROTOCOL_VERSION, Button, Led, LedMode, ProtocolError
from .sensors import SensorCalibrationError, SensorCalibration

__all__ = [
    "Bridge", "BridgeStatus", "SensorFrame", "State",
    "EmulatedBoard", "SensorModel",
    "Led", "LedMode", "OFF", "Button", "MAX_PITS", "PROTOCOL_VERSION", "ProtocolError",
    "SensorCalibration", "SensorCalibrationError",
]
