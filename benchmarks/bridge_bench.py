"""LED command round trip and sensor-reading age, against the real firmware on simavr.

    .venv/bin/python benchmarks/bridge_bench.py [samples, default 200] [mcu, default atmega328p]

Builds the firmware and the harness (make, into a temporary directory), runs
the ATmega328P image at 16 MHz with its UART on a pty at 115200 baud, emulated
time paced to the wall clock, and measures from the host side:

* LED round trip: ``Link.command`` (the bridge's stop-and-wait delivery)
  from writing a command to receiving its ACK, for the one-pit SET_LED the
  bridge sends when a single pit changes (11 bytes out, 9 back: 1.9 ms of
  wire time) and for a whole 14-pit SET_LEDS frame (63 bytes out, 9 back: 6.9 ms).
  The firmware acknowledges, then writes the LEDs while the ACK is on the wire.
  The one-pit figures are also split by whether a sensor report frame arrived
  while the command was in flight: those ACKs shared the wire with a report
  (protocol v2 sends the ACK ahead of any waiting report frame, so at most
  one 16-byte report frame, 1.4 ms, can hold it back). "In the device" is
  the same one-pit round trip timed by the emulated chip's clock, from the
  harness's UART trace (``SimavrBoard.answers``): what the firmware adds,
  whatever the load on the machine.
* The same one-pit change through the application's path: ``Bridge.set_leds``
  with one pit changed, until ``Bridge.wait_for_leds`` sees it confirmed. It
  adds the bridge's own thread (woken by ``set_leds``), the reader thread
  and the hand-over between them to the ``Link`` figure.
* Reading age: from the moment a pit's sensor voltage changes (the harness
  is told) to the moment the bridge's ``on_reading`` callback receives a
  report showing it.

Nothing is left out of the statistics: a command that fails (every attempt
unanswered, or refused) counts at the time it took to give up, and a sensor
change no report showed within 1 s counts as 1000 ms (a lower bound); each
figure says how many of its samples failed so.

Targets: round trip <= 5 ms, reading age <= 60 ms (115200 baud). Wire time
alone is 87 us per byte (the harness delivers the host's bytes at the chip's
real 117,647 baud, 85 us each, into a 2-byte receive buffer as a real AVR's;
simavr sends at 11 bits per byte: 94 us), so a whole-board frame cannot meet
5 ms at this speed; the one-pit command is the
one the target is about. Emulated time is paced to the wall clock, so a busy
machine shows in the p99s: the load average is printed with the figures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import serial
import serial.threaded

from firmware_bridge import Bridge, Led, SensorModel
from firmware_bridge import framing
from firmware_bridge import protocol as p
from firmware_bridge.bridge import SensorFrame
from firmware_bridge.harness import SimavrBoard, build
from firmware_bridge.link import CommandRejected, Link, LinkLost

PITS = 14
AGE_TIMEOUT = 1.0  # seconds a sensor change may take to show before it counts as missed
SET_LEDS_TIMEOUT = 1.0  # seconds Bridge.set_leds may take to be confirmed before it counts as failed


@dataclass
class Samples:
    """One figure's samples in seconds, failed ones included; why each failed one failed."""

    seconds: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def time(self, action: Callable[[], bool], why: str) -> bool:
        """Time ``action``; False from it, or a failed command, is a failed sample, kept at the
        time it took (so a stall shows in the p99 instead of vanishing from it)."""
        began = time.perf_counter()
        try:
            ok = action()
            reason = why
        except (LinkLost, CommandRejected) as error:
            ok, reason = False, str(error)
        self.seconds.append(time.perf_counter() - began)
        if not ok:
            self.failures.append(reason)
        return ok


def summary(name: str, samples: Samples | list[float], target_ms: float | None) -> str:
    """One line: median and p99 over every sample; a second line if some failed."""
    samples = samples if isinstance(samples, Samples) else Samples(list(samples))
    if not samples.seconds:
        return f"{name:<42} no samples"
    ms = sorted(s * 1000 for s in samples.seconds)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    verdict = "" if target_ms is None else ("  OK" if p99 <= target_ms else f"  over the {target_ms:g} ms target")
    line = f"{name:<42} median {statistics.median(ms):6.2f} ms   p99 {p99:6.2f} ms   (n={len(ms)}){verdict}"
    if samples.failures:
        reasons = sorted(set(samples.failures))
        line += (f"\n{'':<42} {len(samples.failures)} of {len(ms)} failed, counted above at the time waited "
                 f"before giving up: {'; '.join(reasons[:3])}")
    return line


@dataclass
class RoundTrips:
    single: Samples  # one-pit SET_LED, as the host sees it
    whole: Samples  # whole-board SET_LEDS
    crossed: list[bool]  # per SET_LED: a sensor report frame arrived while it was in flight
    in_device: list[float]  # per SET_LED: from its delimiter arriving at the chip to its ACK's leaving, emulated time


def round_trips(board: SimavrBoard, samples: int) -> RoundTrips:
    """Round trips of one-pit and whole-board LED commands through the bridge's ``Link``."""
    ser = serial.Serial(board.port, 115200, timeout=1)
    link_holder: dict[str, Link] = {}
    reports_arrived = [0]

    def on_frame(frame: framing.Frame) -> None:
        if frame.type not in (p.MessageType.ACK, p.MessageType.INFO):
            reports_arrived[0] += 1
        link_holder["link"].frame_received(p.decode_message(frame))

    ser.reset_input_buffer()  # reports sent before we opened the port
    reader = serial.threaded.ReaderThread(ser, lambda: framing.FrameReader(on_frame, lambda error: None))
    # The link exists before the reader starts: a frame arriving first would find no link, and the
    # KeyError would end the reader thread (pyserial stops reading when data_received raises).
    link = link_holder["link"] = Link(reader.write, ack_timeout=0.5, attempts=3)
    reader.start()
    link.command(p.Hello())
    link.command(p.SetPits(PITS))
    trips = RoundTrips(Samples(), Samples(), [], [])
    board.trace(True)
    for n in range(samples):
        led = Led(n % 256, 0, 255 - n % 256)
        before = reports_arrived[0]
        trips.single.time(lambda: bool(link.command(p.SetLed(n % PITS, led))), "")
        trips.crossed.append(reports_arrived[0] != before)
        trips.whole.time(lambda: bool(link.command(p.SetLeds((led,) * PITS))), "")
    board.trace(False)
    reader.close()
    trips.in_device = [answer.seconds for answer in board.answers(p.MessageType.SET_LED)]
    return trips


def connected_bridge(board: SimavrBoard, **callbacks) -> Bridge:
    """A Bridge on the board, once it has shaken hands."""
    connected = threading.Event()
    bridge = Bridge(board.port, pit_count=PITS, on_status=lambda status: status.connected and connected.set(),
                    **callbacks).start()
    if not connected.wait(5):
        raise SystemExit(f"the bridge did not connect: {bridge.status.message}")
    return bridge


def bridge_round_trips(board: SimavrBoard, samples: int) -> Samples:
    """One pit changed through ``Bridge.set_leds``, until the bridge has the board's ACK."""
    bridge = connected_bridge(board)
    frame = [Led(0, 0, 0)] * PITS
    bridge.set_leds(frame)
    bridge.wait_for_leds(frame, 5)
    result = Samples()
    for n in range(samples):
        frame[n % PITS] = Led(n % 256, 255 - n % 256, 0)  # one pit differs from the confirmed frame
        wanted = list(frame)
        result.time(lambda: (bridge.set_leds(wanted), bridge.wait_for_leds(wanted, SET_LEDS_TIMEOUT))[1],
                    f"not confirmed within {SET_LEDS_TIMEOUT:g} s")
    bridge.stop()
    return result


def reading_ages(board: SimavrBoard, samples: int) -> Samples:
    """From a pit's voltage changing to the bridge's callback getting a report that shows it."""
    model = SensorModel()
    expected: list[int] = [0]
    arrived = threading.Event()

    def on_reading(frame: SensorFrame) -> None:
        if not arrived.is_set() and len(frame.raw) > 2 and abs(frame.raw[2] - expected[0]) <= 1:
            arrived.set()

    bridge = connected_bridge(board, on_reading=on_reading)
    ages = Samples()
    for n in range(samples):
        count = 1 + n % 2 * 5  # alternate 1 and 6 seeds in pit C
        millivolts = model.millivolts(2, count)
        expected[0] = millivolts * 1024 // 5000
        arrived.clear()
        time.sleep(0.013 * (n % 7))  # change at every phase of the firmware's scan and report cycle
        ages.time(lambda: (board.set_millivolts(2, millivolts), arrived.wait(AGE_TIMEOUT))[1],
                  f"no report showed the change within {AGE_TIMEOUT:g} s")
        if not arrived.is_set():
            ages.seconds[-1] = AGE_TIMEOUT  # a lower bound: the report may never have come
    bridge.stop()
    return ages


def load() -> str:
    return "/".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("samples", type=int, nargs="?", default=200, help="round trips and readings timed")
    parser.add_argument("mcu", nargs="?", default="atmega328p", help="the emulated chip (a firmware image of the build)")
    args = parser.parse_args()
    samples, mcu = args.samples, args.mcu
    load_before, began = load(), time.strftime("%H:%M:%S")
    with tempfile.TemporaryDirectory() as tmp:
        built = build(Path(tmp))
        with SimavrBoard(built.harness, built.firmware[mcu], mcu) as board:
            time.sleep(0.2)
            trips = round_trips(board, samples)
            through_bridge = bridge_round_trips(board, samples)
            ages = reading_ages(board, samples)
    print(f"firmware {mcu} on simavr, 115200 baud, {PITS} pits; {began}-{time.strftime('%H:%M:%S')}, "
          f"load average (1/5/15 min) {load_before} -> {load()}")
    print(summary("LED round trip, one pit (Link.command)", trips.single, 5))
    for label, flag in (("  a report arrived meanwhile", True), ("  no report meanwhile", False)):
        part = [s for s, c in zip(trips.single.seconds, trips.crossed) if c == flag]
        if part:
            print(summary(f"{label} ({100 * len(part) / len(trips.crossed):.0f} %)", part, None))
    print(summary("  in the device (emulated time)", trips.in_device, None))
    print(summary("LED round trip, one pit (Bridge.set_leds)", through_bridge, 5))
    print(summary(f"LED round trip, {PITS}-pit frame", trips.whole, None))
    print(summary("sensor reading age", ages, 60))


if __name__ == "__main__":
    main()
