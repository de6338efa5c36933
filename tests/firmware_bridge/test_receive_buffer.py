"""A real AVR's UART holds 2 received bytes; the firmware must never leave a third waiting.

simavr buffers 64 bytes and hands them over at the firmware's pace, so on its own it would hide
an overrun. The harness therefore plays the wire (``harness.c``, "The receiver as on a real
AVR"): the host's bytes arrive every 10 bit times whatever the firmware is doing, and a byte
that arrives while 2 are unread is lost and counted, as the chip's data overrun would lose it.
The first test shows that this model catches a firmware that keeps interrupts off for 1 ms (as
writing 32 LEDs in one block would); the others show that the real firmware never overruns it,
under the bridge's traffic and even when the host ignores stop-and-wait and streams.
"""

from __future__ import annotations

import random
import time

import pytest

from firmware_bridge import Bridge, Button, Led, LedMode
from firmware_bridge import framing
from firmware_bridge import protocol as p
from firmware_bridge.harness import SimavrBoard
from rawport import RawPort
from waiting import wait_until

MCUS = ["atmega328p", "atmega2560"]


@pytest.mark.parametrize("mcu", MCUS)
def test_the_model_catches_interrupts_kept_off_while_the_host_streams(built, mcu):
    """TEST_MASK_IRQ (test-hooks image only) keeps interrupts off for 1 ms: about 12 byte times."""
    with SimavrBoard(built.harness, built.test_hooks[mcu], mcu) as board, RawPort(board.port) as port:
        port.command(p.Ping(), 1)
        assert board.uart_stats().overruns == 0
        port.serial.write(framing.encode_frame(p.TEST_MASK_IRQ, 2) + b"".join(p.Ping().frame(3 + n) for n in range(5)))
        assert wait_until(lambda: board.uart_stats().overruns > 0, 3), board.uart_stats()
        assert any("uart overrun" in error for error in board.errors), board.errors
        assert wait_until(lambda: (port.read(), any(isinstance(m, p.ErrorReport) for m in port.messages))[1], 3), \
            "the firmware did not notice the bytes it lost"


def animated_frame(rng: random.Random, pits: int) -> list[Led]:
    return [Led(rng.randrange(256), rng.randrange(256), rng.randrange(256), rng.choice((LedMode.BLINK, LedMode.PULSE)))
            for _ in range(pits)]


@pytest.mark.parametrize("mcu", MCUS)
def test_the_bridge_never_overruns_the_receive_buffer(built, mcu):
    """32 pits (the longest LED write), every LED blinking or pulsing (a 50 Hz refresh), new
    frames and single pits as fast as the board takes them, and button presses: no byte lost."""
    rng = random.Random(5)
    presses = []
    with SimavrBoard(built.harness, built.firmware[mcu], mcu) as board:
        bridge = Bridge(board.port, pit_count=32, on_button=presses.append, ack_timeout=0.3).start()
        try:
            assert wait_until(lambda: bridge.status.connected), bridge.status
            frame = animated_frame(rng, 32)
            until = time.monotonic() + 3
            n = 0
            while time.monotonic() < until:
                if rng.random() < 0.5:
                    frame = animated_frame(rng, 32)
                else:
                    frame[rng.randrange(32)] = animated_frame(rng, 1)[0]
                bridge.set_leds(frame)
                assert wait_until(lambda: bridge.confirmed_leds == tuple(frame), 5), bridge.status
                if n % 10 == 0:
                    board.press(Button.CONFIRM)
                n += 1
            stats = board.uart_stats()
            assert stats.received > 5000 and stats.overruns == 0, stats
            assert bridge.status.device_bad_frames == 0 and bridge.status.failed_commands == 0, bridge.status
            assert board.errors == [] and presses
        finally:
            bridge.stop()


@pytest.mark.parametrize("mcu", MCUS)
def test_even_a_host_that_streams_commands_never_overruns_it(built, mcu):
    """Stop-and-wait is not what keeps the buffer safe: interrupts are off for one LED at a time
    (30 us, less than one byte's 87 us). Commands sent back to back, with no wait for their ACKs,
    while 32 LEDs pulse and each command makes the firmware write the chain again."""
    rng = random.Random(6)
    with SimavrBoard(built.harness, built.firmware[mcu], mcu) as board, RawPort(board.port) as port:
        port.command(p.SetPits(32), 1)
        port.command(p.SetLeds(tuple(animated_frame(rng, 32))), 2)
        before = board.uart_stats()
        burst = [p.SetLeds(tuple(animated_frame(rng, 32))) if n % 3 == 0 else p.SetLed(n % 32, Led(n, 0, 0))
                 if n % 3 == 1 else p.Ping() for n in range(60)]
        port.serial.write(b"".join(message.frame(10 + n) for n, message in enumerate(burst)))
        assert wait_until(lambda: (port.read(), all(10 + n in port.acks() for n in range(60)))[1], 10), \
            sorted(set(range(10, 70)) - set(port.acks()))
        assert {port.acks()[10 + n].status for n in range(60)} == {p.Status.OK}
        stats = board.uart_stats()
        assert stats.received - before.received >= sum(len(m.frame(0)) for m in burst)
        assert stats.overruns == 0 and stats.most_unread <= 2, stats
        assert board.errors == [] and not any(isinstance(m, p.ErrorReport) for m in port.messages)
