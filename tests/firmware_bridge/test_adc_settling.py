"""No crosstalk between pits: the firmware lets each multiplexer settle before it samples.

A 74HC4067's output does not jump to the newly selected pit: the sensor (10 kOhm for an FSR
divider) has to charge the multiplexer's, the wiring's and the ADC's capacitance. The harness
models that (``harness.c``, "Each multiplexer's output as an RC"), pessimistically: a firmware
that samples 12 us after switching the select pins reads about 7 % of the previous pit into the
next (60 ADC steps for the 4.2 V steps below).
The firmware throws away the conversion started at the switch (``pitwatch.c``, ``next_channel``).
The first test shows that the model catches a firmware that does not (a test-hooks command turns
the discarding off); the second that the real firmware reads every pit as if it were alone.
"""

from __future__ import annotations

import pytest

from firmware_bridge import framing
from firmware_bridge import protocol as p
from firmware_bridge.harness import SimavrBoard
from rawport import RawPort

MCUS = ["atmega328p", "atmega2560"]
HIGH_MV, LOW_MV = 4500, 300


def alternating() -> list[int]:
    """Every switch of the select pins is a 4.2 V step on both multiplexers (the worst case)."""
    return [HIGH_MV if pit % 2 == 0 else LOW_MV for pit in range(p.MAX_PITS)]


def adc(millivolts: int) -> int:
    """What simavr's ADC converts ``millivolts`` to against its 5 V reference."""
    return millivolts * 1023 // 5000


def worst_error(board: SimavrBoard, raw: RawPort, seq: int) -> int:
    """With 32 pits at alternating voltages, the largest difference (ADC steps) between a pit's
    reported value and its own voltage, over a report of scans made after this call."""
    voltages = alternating()
    for pit, millivolts in enumerate(voltages):
        board.set_millivolts(pit, millivolts)
    raw.send(p.Ping().frame(seq))  # the harness takes the voltages before the PING's bytes
    assert raw.ack(seq) is not None
    answered = len(raw.messages)
    reports: list[p.Report] = []
    for _ in range(3):  # the first report after the ACK may average scans made before the PING, the second
        # a set of scans the PING fell in (OVERSAMPLE in pitwatch.c): the third is of scans made after it
        report = raw.wait_for(lambda m: isinstance(m, p.Report) and (not reports or m.uptime_ms > reports[-1].uptime_ms),
                              after=answered)
        assert report is not None, f"only {len(reports)} reports"
        reports.append(report)
    assert len(reports[-1].raw) == 32, reports[-1]
    return max(abs(value - adc(mv)) for value, mv in zip(reports[-1].raw, voltages))


def start(board: SimavrBoard) -> RawPort:
    raw = RawPort(board.port)
    assert raw.hello() is not None, "the board never answered HELLO"
    raw.send(p.SetPits(32).frame(1))
    assert raw.ack(1).status == p.Status.OK
    return raw


@pytest.mark.parametrize("mcu", MCUS)
def test_the_settling_model_catches_a_firmware_that_samples_at_the_switch(built, mcu):
    """TEST_NO_SETTLE (test-hooks image only) samples each pit straight after the switch, as
    firmware 2.0 did: the low pits read far above their voltage, pulled up by their neighbours."""
    with SimavrBoard(built.harness, built.test_hooks[mcu], mcu) as board:
        raw = start(board)
        raw.send(framing.encode_frame(p.TEST_NO_SETTLE, 2))
        assert raw.ack(2).status == p.Status.OK
        assert worst_error(board, raw, 3) > 30  # the model: about 60
        raw.close()


@pytest.mark.parametrize("mcu", MCUS)
def test_every_pit_reads_its_own_sensor_not_its_neighbour(built, mcu):
    with SimavrBoard(built.harness, built.firmware[mcu], mcu) as board:
        raw = start(board)
        assert worst_error(board, raw, 2) <= 1
        raw.close()
