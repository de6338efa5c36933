"""Calibration files, discovery, and the Mega 2560 build."""

from __future__ import annotations

import os
import time

import pytest
import serial

import rules
from calibration.calibfile import load_sensor_file, save_sensor_file
from firmware_bridge import Bridge, SensorCalibrationError, EmulatedBoard, Led, SensorCalibration, State
from firmware_bridge import framing
from firmware_bridge import protocol as p
from firmware_bridge.harness import SimavrBoard, build
from firmware_bridge.harness.simboard import MCUS
from pitcount import assert_pit_count_restored
from rawport import RawPort
from waiting import wait_until

LABELS = rules.variant("kalah").layout.labels
START = list(rules.variant("kalah").start().pits)


def calibration() -> SensorCalibration:
    empty = [[100 + i + (k % 2) for i in range(14)] for k in range(4)]
    start = [[100 + i + 40 * n + (k % 2) for i, n in enumerate(START)] for k in range(4)]
    return SensorCalibration.fit(LABELS, empty, start, START)


def test_calibration_round_trips_and_reads_counts(tmp_path):
    cal = calibration()
    save_sensor_file(tmp_path / "sensors.json", cal)
    loaded = load_sensor_file(tmp_path / "sensors.json")
    raw = [100 + i + 40 * n for i, n in enumerate([0, 5, 5, 5, 5, 4, 1, 4, 4, 4, 4, 4, 4, 0])]
    reading = loaded.to_reading(raw)
    assert [reading.pits[label].most_likely for label in LABELS] == [0, 5, 5, 5, 5, 4, 1, 4, 4, 4, 4, 4, 4, 0]
    assert reading.pits["S"].probability(1) > 0.9  # the store's gain was borrowed from the pits


def test_a_calibration_file_an_editor_saved_with_a_byte_order_mark_reads_as_it_was(tmp_path):
    """Opened and saved in Notepad, a calibration file begins with a byte-order mark: it was refused
    as "not JSON" in Python's words (a fuzzer's find, 2026-12-07)."""
    save_sensor_file(tmp_path / "sensors.json", calibration())
    (tmp_path / "saved.json").write_bytes("\ufeff".encode() + (tmp_path / "sensors.json").read_bytes())
    assert load_sensor_file(tmp_path / "saved.json") == load_sensor_file(tmp_path / "sensors.json")


def test_learning_a_confirmed_position_gives_the_store_its_own_gain(tmp_path):
    cal = calibration()  # the stores start empty: their gain is borrowed (40 per seed)
    counts = [0, 5, 5, 5, 5, 4, 1, 4, 4, 4, 4, 4, 4, 0]
    counts[6] = 15
    raw = [100 + i + 40 * n for i, n in enumerate(counts)]
    raw[6] = 100 + 6 + 46 * 15  # this store's sensor is steeper than the others
    assert cal.to_reading(raw).pits["S"].most_likely != 15
    learned = cal.learn([raw], counts)
    assert learned.to_reading(raw).pits["S"].most_likely == 15
    assert learned.pits[0] == cal.pits[0]  # an empty pit teaches nothing about its gain
    save_sensor_file(tmp_path / "sensors.json", learned)
    assert load_sensor_file(tmp_path / "sensors.json").pits[6].evidence == 225


def test_a_broken_sensor_reads_unseen_not_wrong():
    raw = [100 + i + 40 * n for i, n in enumerate(START)]
    raw[2] = 5  # far below the empty value: a disconnected sensor
    reading = calibration().to_reading(raw)
    assert reading.pits["C"] is None and "C" in reading.status


@pytest.mark.parametrize("gain, fault", [(10, True), (40, False)])
def test_a_sensor_at_the_converters_top_is_a_fault_only_where_no_count_reaches_it(gain, fault):
    """1023 from a pit whose most seeds read 580 is a sensor shorted to the supply, not 48 seeds with
    certainty (the game stuck on an illegal board, the sensors "ok"); where 23 seeds or more reach
    the top, it is a full pit."""
    empty = [[100 + i + (k % 2) for i in range(14)] for k in range(4)]
    start = [[100 + i + gain * n + (k % 2) for i, n in enumerate(START)] for k in range(4)]
    raw = [100 + i + gain * n for i, n in enumerate(START)]
    raw[2] = 1023
    reading = SensorCalibration.fit(LABELS, empty, start, START).to_reading(raw)
    if fault:
        assert reading.pits["C"] is None and reading.status == "sensor fault: C read beyond every count"
    else:
        assert reading.pits["C"].most_likely >= 23 and reading.status == "ok"


@pytest.mark.parametrize("content, message", [
    ("{not json", "not JSON (line 1, column 2"),
    ('{"format": "something else"}', "not a Pitwatch sensor calibration"),
    ('{"format": "pitwatch-sensor-calibration", "version": 1, "max_count": 48, "spread": 0.05, '
     '"pits": [{"label": "A", "offset": 100, "gain": "heavy", "noise": 1}]}', "pit A: 'gain' must be a number"),
    ('{"format": "pitwatch-sensor-calibration", "version": 1, "max_count": 48, "spread": 0.05, "pits": []}',
     "'pits' must be a non-empty list"),
])
def test_a_malformed_calibration_file_gets_a_clear_error(tmp_path, content, message):
    path = tmp_path / "sensors.json"
    path.write_text(content)
    with pytest.raises(SensorCalibrationError) as caught:
        load_sensor_file(path)
    assert message in str(caught.value) and str(path) in str(caught.value)


def test_a_sensor_file_that_is_not_text_is_named(tmp_path):
    path = tmp_path / "sensors.json"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff")  # an image saved under the sensor file's name
    with pytest.raises(SensorCalibrationError) as caught:
        load_sensor_file(path)
    assert str(caught.value) == f"{path}: not a sensor calibration file (not JSON text)"


def test_missing_calibration_file(tmp_path):
    with pytest.raises(SensorCalibrationError, match="cannot read"):
        load_sensor_file(tmp_path / "nope.json")


def test_fit_refuses_a_dead_sensor():
    empty = [[100] * 14]
    start = [[100 + 40 * n for n in START]]
    start[0][0] = 100
    with pytest.raises(SensorCalibrationError, match="pit A"):
        SensorCalibration.fit(LABELS, empty, start, START)


def test_discovery_finds_the_board_among_other_ports(tmp_path):
    """The port list is injected (ptys never appear in list_ports); the handshake does the finding."""
    with EmulatedBoard(14) as board:
        bridge = Bridge(None, pit_count=14, candidates=lambda: [str(tmp_path / "ttyGone"), board.port])
        bridge.start()
        assert wait_until(lambda: bridge.status.connected, 5) and bridge.status.port == board.port
        bridge.stop()


def test_a_replugged_board_is_looked_for_first_where_it_was_found(tmp_path):
    """A silent port listed before the board's (another USB serial device) held every replug up for a
    whole handshake's wait, 3 s; the port the board was found on is tried first again."""
    silent_master, silent_slave = os.openpty()  # opens, answers nothing
    statuses = []
    with EmulatedBoard(14, link=tmp_path / "ttyBoard") as board:
        bridge = Bridge(None, pit_count=14, on_status=statuses.append,
                        candidates=lambda: [os.ttyname(silent_slave), board.port])
        bridge.start()
        try:
            assert wait_until(lambda: bridge.status.connected, 10), bridge.status
            tried = list(dict.fromkeys(s.port for s in statuses if s.state == State.SEARCHING))
            assert tried == [os.ttyname(silent_slave), board.port]
            board.unplug()
            assert wait_until(lambda: bridge.status.state == State.DISCONNECTED, 5), bridge.status
            lost = len(statuses)
            board.replug()
            assert wait_until(lambda: bridge.status.connected, 10), bridge.status
            tried = [s.port for s in statuses[lost:] if s.state == State.SEARCHING]
            assert tried and set(tried) == {board.port}, tried
        finally:
            bridge.stop()
            os.close(silent_master)
            os.close(silent_slave)


def test_no_board_is_a_status_not_an_exception(tmp_path):
    statuses = []
    bridge = Bridge(str(tmp_path / "ttyNothing"), on_status=statuses.append).start()
    time.sleep(0.3)
    bridge.stop()
    assert any(s.state == State.DISCONNECTED and "cannot open" in s.message for s in statuses)


def test_mega_2560_firmware_handshakes_and_lights_leds(built, tmp_path):
    harness, firmware = built.harness, built.firmware
    with SimavrBoard(harness, firmware["atmega2560"], "atmega2560") as board:
        bridge = Bridge(board.port, pit_count=32, ack_timeout=0.3).start()
        bridge.set_leds([Led(1, 2, 3)] * 32)
        assert board.wait_for_leds(lambda s: list(s) == [(1, 2, 3)] * 32, 5) is not None
        assert wait_until(lambda: bridge.status.connected, 2)
        assert bridge.status.device.max_pits == 32
        bridge.stop()


def device_id_of(images, mcu: str) -> int:
    """The device_id the image for ``mcu`` tells in its INFO."""
    with SimavrBoard(images.harness, images.firmware[mcu], mcu) as board, RawPort(board.port) as port:
        info = port.hello(5)
    if info is not None:
        return info.device_id
    raise AssertionError(f"the {mcu} image never answered HELLO")


def test_make_device_id_gives_the_board_its_own_id(tmp_path):
    """``make DEVICE_ID=...`` reaches the compiler, and building again in the same folder with
    another id does not keep the images built with the old one."""
    out = tmp_path / "build"
    images = build(out)
    assert [device_id_of(images, mcu) for mcu in MCUS] == [0x50570001, 0x50570002]
    images = build(out, device_id=0x12345678)
    assert [device_id_of(images, mcu) for mcu in MCUS] == [0x12345678, 0x12345678]


def test_firmware_held_in_reset_boots_with_a_banner_when_released(built):
    """The harness holds the chip in reset (a pty has no DTR line to reset it) until told to run."""
    harness, firmware = built.harness, built.firmware
    board = SimavrBoard(harness, firmware["atmega328p"]).start(run=False)
    try:
        port = serial.Serial(board.port, 115200, timeout=0.3)
        assert port.read(64) == b"", "the chip spoke while held in reset"
        board.run()
        assert port.read(1) == b"\x00", "the banner starts with a delimiter (ends any frame cut off)"
        info = p.decode_message(framing.decode_frame(port.read_until(b"\x00")[:-1]))
        assert isinstance(info, p.Info) and info.is_boot and info.protocol == p.PROTOCOL_VERSION
        port.close()
    finally:
        board.stop()


@pytest.mark.parametrize("mcu", ["atmega328p", "atmega2560"])
def test_firmware_runs_with_its_watchdog_armed(built, mcu):
    """WDTCSR (data address 0x60 on both chips): WDE set, prescaler for 250 ms (WDP2)."""
    harness, firmware = built.harness, built.firmware
    with SimavrBoard(harness, firmware[mcu], mcu) as board:
        time.sleep(0.1)
        wdtcsr = board.peek(0x60)
        assert wdtcsr & 0x08, f"watchdog off: WDTCSR = {wdtcsr:#04x}"
        assert wdtcsr & 0x27 == 0x04, f"watchdog timeout is not 250 ms: WDTCSR = {wdtcsr:#04x}"
        time.sleep(0.6)  # host silent for longer than the watchdog period: no reboot
        port = serial.Serial(board.port, 115200, timeout=2)  # generous: a starved harness may pause between frames
        port.read_until(b"\x00")  # align on a frame boundary
        assembler, reports = p.ReportAssembler(), []
        for _ in range(3 * 9 + 8):  # three whole reports of 32 pits (a header and 8 slices each), wherever we start
            report = assembler.add(p.decode_message(framing.decode_frame(port.read_until(b"\x00")[:-1])))
            if report is not None:
                reports.append(report)
        port.close()
        assert len(reports) == 3 and all(r.uptime_ms > 600 and len(r.raw) == 32 for r in reports), reports


@pytest.mark.parametrize("mcu", ["atmega328p", "atmega2560"])
def test_an_ack_waits_for_at_most_one_report_frame(built, mcu):
    """With 32 pits streaming (a 143-byte report every 40 ms), each one-pit LED command is answered,
    from its last byte's arrival at the chip to its ACK's last byte leaving, within the ACK's own
    wire time (9 bytes at simavr's 94 us: 0.85 ms) plus at most one 16-byte report frame (1.5 ms),
    plus a little of the firmware's own work: 3 ms, where two report frames would take 3.8 ms.
    Timed in emulated time, from the harness's trace of the UART, so a busy test machine cannot
    change it. (Protocol v1 sent a report as one 78-byte frame here: an ACK behind it could wait
    7.3 ms for that frame alone.)"""
    with SimavrBoard(built.harness, built.firmware[mcu], mcu) as board, RawPort(board.port) as port:
        port.command(p.SetPits(32), 1)
        board.trace(True)
        for n in range(60):
            port.command(p.SetLed(n % 32, Led(n, 0, 0)), 2 + n)
            time.sleep(0.002 * (n % 7))  # land at every phase of the report cycle
        board.trace(False)
        answers = board.answers(p.MessageType.SET_LED)
    assert len(answers) == 60
    assert sum(answer.frames_before > 0 for answer in answers) >= 5, "no command met a report on its way"
    slowest = max(answer.seconds for answer in answers)
    assert slowest <= 0.003, f"an ACK took {slowest * 1000:.2f} ms of device time: {sorted(answers)[-5:]}"


@pytest.mark.parametrize("mcu", ["atmega328p", "atmega2560"])
def test_a_hung_main_loop_is_reset_by_the_watchdog_and_the_bridge_restores_the_board(built, mcu):
    """The test-hooks image (never flashed) knows TEST_STALL: it acknowledges, then its main loop
    hangs with interrupts still running, as a bug would. Nothing feeds the watchdog, so 250 ms later
    it resets the chip; the bridge hears the boot banner and puts the pit count and LEDs back."""
    statuses, buttons, frames = [], [], []
    with SimavrBoard(built.harness, built.test_hooks[mcu], mcu) as board:
        bridge = Bridge(board.port, pit_count=14, on_status=statuses.append, on_button=buttons.append,
                        on_reading=frames.append, ack_timeout=0.3).start()
        try:
            colours = [(9 * i, 100, 200 - i) for i in range(14)]
            bridge.set_leds([Led(*colour) for colour in colours])
            assert board.wait_for_leds(lambda s: list(s) == colours, 5) is not None, bridge.status
            stalled_at = time.monotonic()
            # A second writer on the port, write-only and as it is: pyserial's open would flush the
            # input that the bridge has not read yet.
            side = os.open(board.port, os.O_WRONLY | os.O_NOCTTY)
            os.write(side, framing.encode_frame(p.TEST_STALL, 0xEE))
            os.close(side)
            rebooted = board.wait_for_leds(lambda s: len(s) == p.MAX_PITS and not any(map(any, s)), 3, stalled_at)
            assert rebooted is not None, "the chip never rebooted: all 32 LEDs off is how it starts"
            assert board.wait_for_leds(lambda s: list(s) == colours, 3, stalled_at) is not None, bridge.status
            restored = time.time()
            assert bridge.status.device.is_boot and bridge.status.device.reset_cause == p.ResetCause.WATCHDOG
            assert any("restarted (watchdog)" in status.message for status in statuses), statuses
            time.sleep(0.3)
            assert bridge.status.connected
            assert_pit_count_restored([len(frame.raw) for frame in frames if frame.received > restored])
            assert buttons == [], "the reset made buttons look pressed"
        finally:
            bridge.stop()


def test_a_failing_callback_does_not_break_the_link():
    def broken(frame):
        raise RuntimeError("app bug")

    presses = []
    with EmulatedBoard(14) as board:
        bridge = Bridge(board.port, pit_count=14, on_reading=broken, on_button=presses.append).start()
        assert wait_until(lambda: bridge.status.connected, 5)
        time.sleep(0.2)  # several reports, each making the callback raise
        board.press(0)
        assert wait_until(lambda: presses, 5)
        assert presses == [0] and bridge.status.connected
        bridge.stop()
