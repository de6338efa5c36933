"""Soak: 10,000+ frames through a channel that corrupts, truncates and drops bytes.

In-process on purpose (the point is the protocol, not the pty): the host's
real ``Link`` and ``FrameReader`` talk to the emulator's real ``DeviceCore``
through :class:`NoisyWire`, which damages a seeded-random share of the
frames in both directions and remembers which frames it delivered intact.
"""

from __future__ import annotations

import random

from firmware_bridge import protocol as p
from firmware_bridge.bridge import CommandFailed, Link
from firmware_bridge.emulator import DeviceCore


class NoisyWire:
    """One direction of the cable: passes each frame on intact, damaged or not at all."""

    def __init__(self, rng: random.Random, deliver) -> None:
        self.rng, self.deliver = rng, deliver
        self.intact: list[bytes] = []
        self.damaged = 0

    def send(self, frame: bytes) -> None:
        roll = self.rng.random()
        data = bytearray(frame)
        if roll < 0.06:  # one byte changed (possibly into a delimiter)
            i = self.rng.randrange(len(data))
            data[i] ^= self.rng.randrange(1, 256)
        elif roll < 0.10:  # one byte lost (possibly the delimiter: two frames merge)
            del data[self.rng.randrange(len(data))]
        elif roll < 0.12:  # truncated: the rest of the frame never arrives
            data = data[: self.rng.randrange(1, len(data))] + b"\x00"
        elif roll < 0.14:  # the whole frame lost
            data = bytearray()
        if data == frame:  # untouched (a "truncation" may have cut nothing but the delimiter)
            self.intact.append(frame[:-1])
        else:
            self.damaged += 1
        self.deliver(bytes(data))


def test_soak_corruption_is_always_detected_and_nothing_is_lost_silently():
    rng = random.Random(20261122)
    host_accepted: list[p.Frame] = []
    host_rejected: list[p.ProtocolError] = []

    def host_frame(frame: p.Frame) -> None:
        host_accepted.append(frame)
        link.frame_received(p.decode_message(frame))

    host_reader = p.FrameReader(host_frame, host_rejected.append)
    to_host = NoisyWire(rng, host_reader.data_received)
    device = DeviceCore(to_host.send, 14)
    device_accepted: list[p.Frame] = []
    device_reader_frame = device.reader.on_frame

    def device_frame(frame: p.Frame) -> None:
        device_accepted.append(frame)
        device_reader_frame(frame)

    device.reader.on_frame = device_frame
    to_device = NoisyWire(rng, device.receive)
    link = Link(to_device.send, ack_timeout=0.0005, attempts=6)

    commands, delivered, failed = 6000, 0, 0
    frame = (p.OFF,) * 14
    for n in range(commands):
        frame = tuple(p.Led(rng.randrange(256), rng.randrange(256), rng.randrange(256),
                            p.LedMode(rng.randrange(4))) for _ in range(14))
        try:
            link.command(p.SetLeds(frame))
        except CommandFailed:
            failed += 1
        else:
            delivered += 1
            assert tuple(device.leds[:14]) == frame, f"command {n} acknowledged but not applied"
        if n % 3 == 0:
            device.send_report()

    total = len(to_device.intact) + len(to_host.intact) + to_device.damaged + to_host.damaged
    assert total >= 10_000, total
    assert to_device.damaged > 500 and to_host.damaged > 500
    # Every accepted frame is one that crossed the wire intact: no corruption slipped through.
    intact_at_device = set(to_device.intact)
    intact_at_host = set(to_host.intact)
    for frame_ in device_accepted:
        assert p.encode_frame(frame_.type, frame_.seq, frame_.payload)[:-1] in intact_at_device
    for frame_ in host_accepted:
        assert p.encode_frame(frame_.type, frame_.seq, frame_.payload)[:-1] in intact_at_host
    assert device.bad_frames > 0 and host_rejected
    # Every command was either acknowledged (and applied) or reported as failed.
    assert delivered + failed == commands and link.failed == failed
    # The LED state converges: once the line is clean the last frame gets through.
    to_device.rng = to_host.rng = random.Random(0)
    to_device.send = lambda data: (to_device.intact.append(data[:-1]), device.receive(data))
    link._write = to_device.send
    to_host.send = lambda data: host_reader.data_received(data)
    device.send_bytes = to_host.send
    link.command(p.SetLeds(frame))
    assert tuple(device.leds[:14]) == frame
