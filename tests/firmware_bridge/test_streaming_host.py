"""A host that never waits for answers, against the real firmware: what the chip does when it cannot keep up.

A reply is longer than its command (a PING is 6 bytes, its ACK 9), so a host that keeps writing
commands back to back outruns the device's answers. The firmware reads a command only when the reply
queue has room for its answer, so the commands wait unread in its 256-byte receive buffer; once
that is full, the host's bytes are lost (the serial line has no flow control) and the device says
so with an ERROR. Meanwhile the reports keep their schedule. These are the chip's own limits: the
emulator answers at once and keeps no queues, so the conformance suite's bursts
(``test_conformance.py``) are the part both share.
"""

from __future__ import annotations

import time

import pytest

from firmware_bridge import protocol as p
from firmware_bridge.harness import SimavrBoard
from firmware_bridge.harness.simboard import MCUS
from rawport import RawPort

STREAMED = range(3, 253)  # 250 PINGs, 1,500 bytes: far more than the device can hold while it answers


@pytest.mark.parametrize("mcu", MCUS)
def test_a_host_that_never_waits_loses_commands_only_with_an_error_and_never_stops_the_reports(built, mcu):
    """250 PINGs back to back with 32 pits (the longest reports): the ACKs come in order, every run of
    unanswered PINGs is reported by an ERROR, the reports that go out meanwhile are never more than
    45 ms of the chip's time apart (as without the host's stream), and the next PING is understood."""
    with SimavrBoard(built.harness, built.firmware[mcu], mcu) as board, RawPort(board.port) as port:
        port.command(p.SetPits(32), 1)
        before = len(port.messages)
        port.serial.write(b"".join(p.Ping().frame(seq) for seq in STREAMED))
        until = time.monotonic() + 1.5  # the stream takes 130 ms on the wire, its answers about 200 ms
        while time.monotonic() < until:
            port.read()
        port.command(p.Ping(), 254)

        streamed = port.messages[before:]
        acked = [m.seq for m in streamed if isinstance(m, p.Ack) and m.seq in STREAMED]
        assert acked == sorted(acked) and len(acked) >= 100, acked
        missing = sorted(set(STREAMED) - set(acked))
        runs = sum(1 for i, seq in enumerate(missing) if i == 0 or missing[i - 1] != seq - 1)
        assert missing, "the device kept up with the stream: nothing here tested what it does when it cannot"
        errors = [m for m in streamed if isinstance(m, p.ErrorReport)]
        assert len(errors) >= runs and {e.code for e in errors} == {p.ErrorCode.BAD_FRAME}, (missing, errors)
        assert board.uart_stats().overruns == 0, "bytes were lost in the UART, not where the firmware chose to"

        acks_at = [i for i, m in enumerate(streamed) if isinstance(m, p.Ack) and m.seq in STREAMED]
        reports = [m for m in streamed[acks_at[0]:acks_at[-1]] if isinstance(m, p.Report)]
        gaps = [b.uptime_ms - a.uptime_ms for a, b in zip(reports, reports[1:])]
        assert len(reports) >= 3 and max(gaps) <= 45, gaps
