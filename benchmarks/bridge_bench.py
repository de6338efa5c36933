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
* Reading age: from the moment a pit's sensor voltage changes (the harness
  is told) to the moment the bridge's ``on_reading`` callback receives a
  report showing it.

Targets: round trip <= 5 ms, reading age <= 60 ms (115200 baud). Wire time
alone is 87 us per byte (the harness delivers the host's bytes at the chip's
real 117,647 baud, 85 us each, into a 2-byte receive buffer as a real AVR's;
simavr sends at 11 bits per byte: 94 us), so a whole-board frame cannot meet
5 ms at this speed; the one-pit command is the
one the target is about. Emulated time is paced to the wall clock, so a busy
machine shows in the p99s: quote the load average with the figures.
"""

from __future__ import annotations

import statistics
import sys
from dataclasses import dataclass
import tempfile
import threading
import time
from pathlib import Path

import serial
import serial.threaded

from firmware_bridge import Bridge, Led, SensorModel
from firmware_bridge import protocol as p
from firmware_bridge.bridge import Link
from firmware_bridge.harness import SimavrBoard, build

PITS = 14


def summary(name: str, seconds: list[float], target_ms: float | None) -> str:
    ms = sorted(s * 1000 for s in seconds)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    verdict = "" if target_ms is None else ("  OK" if p99 <= target_ms else f"  over the {target_ms:g} ms target")
    return f"{name:<34} median {statistics.median(ms):6.2f} ms   p99 {p99:6.2f} ms   (n={len(ms)}){verdict}"


@dataclass
class RoundTrips:
    single: list[float]  # one-pit SET_LED, seconds, as the host sees it
    whole: list[float]  # whole-board SET_LEDS
    crossed: list[bool]  # per SET_LED: a sensor report frame arrived while it was in flight
    in_device: list[float]  # per SET_LED: from its delimiter arriving at the chip to its ACK's leaving, emulated time


def round_trips(board: SimavrBoard, samples: int) -> RoundTrips:
    """Round trips of one-pit and whole-board LED commands through the bridge's ``Link``."""
    ser = serial.Serial(board.port, 115200, timeout=1)
    link_holder: dict[str, Link] = {}
    reports_arrived = [0]

    def on_frame(frame: p.Frame) -> None:
        if frame.type not in (p.MessageType.ACK, p.MessageType.INFO):
            reports_arrived[0] += 1
        link_holder["link"].frame_received(p.decode_message(frame))

    reader = serial.threaded.ReaderThread(ser, lambda: p.FrameReader(on_frame, lambda error: None))
    reader.start()
    link = link_holder["link"] = Link(reader.write, ack_timeout=0.5, attempts=3)
    link.command(p.Hello())
    link.command(p.SetPits(PITS))
    single, whole, crossed = [], [], []
    board.trace(True)
    for n in range(samples):
        led = Led(n % 256, 0, 255 - n % 256)
        before = reports_arrived[0]
        began = time.perf_counter()
        link.command(p.SetLed(n % PITS, led))
        single.append(time.perf_counter() - began)
        crossed.append(reports_arrived[0] != before)
        began = time.perf_counter()
        link.command(p.SetLeds((led,) * PITS))
        whole.append(time.perf_counter() - began)
    board.trace(False)
    reader.close()
    return RoundTrips(single, whole, crossed, [answer.seconds for answer in board.answers(p.MessageType.SET_LED)])


def reading_ages(board: SimavrBoard, samples: int) -> list[float]:
    model = SensorModel()
    changed_at: list[float] = [0.0]
    expected: list[int] = [0]
    arrived = threading.Event()
    ages: list[float] = []

    def on_reading(frame) -> None:
        if not arrived.is_set() and len(frame.raw) > 2 and abs(frame.raw[2] - expected[0]) <= 1:
            ages.append(time.perf_counter() - changed_at[0])
            arrived.set()

    bridge = Bridge(board.port, pit_count=PITS, on_reading=on_reading).start()
    deadline = time.monotonic() + 5
    while not bridge.status.connected and time.monotonic() < deadline:
        time.sleep(0.01)
    for n in range(samples):
        count = 1 + n % 2 * 5  # alternate 1 and 6 seeds in pit C
        millivolts = model.millivolts(2, count)
        expected[0] = millivolts * 1024 // 5000
        arrived.clear()
        time.sleep(0.013 * (n % 7))  # change at every phase of the firmware's scan and report cycle
        changed_at[0] = time.perf_counter()
        board.set_millivolts(2, millivolts)
        if not arrived.wait(1.0):
            print(f"sample {n}: no report showed the change within 1 s")
    bridge.stop()
    return ages


def main() -> None:
    samples = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    mcu = sys.argv[2] if len(sys.argv) > 2 else "atmega328p"
    with tempfile.TemporaryDirectory() as tmp:
        built = build(Path(tmp))
        with SimavrBoard(built.harness, built.firmware[mcu], mcu) as board:
            time.sleep(0.2)
            trips = round_trips(board, samples)
            ages = reading_ages(board, samples)
    print(f"firmware {mcu} on simavr, 115200 baud, {PITS} pits")
    print(summary("LED round trip, one pit (SET_LED)", trips.single, 5))
    for label, flag in (("  a report arrived meanwhile", True), ("  no report meanwhile", False)):
        part = [s for s, c in zip(trips.single, trips.crossed) if c == flag]
        if part:
            print(summary(label, part, None))
    print(summary("  in the device (emulated time)", trips.in_device, None))
    print(summary(f"LED round trip, {PITS}-pit frame", trips.whole, None))
    print(summary("sensor reading age", ages, 60))


if __name__ == "__main__":
    main()
