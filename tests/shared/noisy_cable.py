"""A serial cable that damages frames, between the real Bridge and a real board (emulator or firmware).

The bridge opens ``cable.port`` (a pty) exactly as it opens a USB port; the
cable has the board's own port open on the other side and passes every frame
across, intact, damaged (a byte changed, a byte lost, cut short) or not at all,
seeded-randomly, in both directions. It keeps a log of what it carried in
order, so a test can say for every command whether its answer ever reached
the host, and it classifies what it delivered exactly as a receiver that never
throws input away (the board) splits it (at each ``0x00``): a delivered packet
that is not one of the frames the sender sent is a damaged one, which the
receiver must reject. The host does throw input away when it reconnects, so
what the host accepted is checked against what the board sent.
"""

from __future__ import annotations

import os
import pty
import random
import select
import threading
import tty
from dataclasses import dataclass, field

import serial

from firmware_bridge import framing
from firmware_bridge import protocol as p


@dataclass
class Direction:
    """One way along the cable: what was sent, what arrived, what arrived damaged."""

    name: str
    pending: bytearray = field(default_factory=bytearray)  # the frame being received from the sender
    delivered: bytearray = field(default_factory=bytearray)  # bytes delivered after the last 0x00
    sent: set[bytes] = field(default_factory=set)  # every frame the sender sent (without delimiter)
    frames: int = 0  # frames the sender sent
    damaged: int = 0  # frames the cable changed or lost
    bad_packets: int = 0  # non-empty delivered packets that are no frame the sender sent

    def deliver(self, data: bytes) -> None:
        """Account for ``data`` as the receiver will split it."""
        self.delivered += data
        *packets, rest = bytes(self.delivered).split(framing.DELIMITER)
        self.delivered = bytearray(rest)
        self.bad_packets += sum(1 for packet in packets if packet and packet not in self.sent)


class NoisyCable:
    """``port`` for the host; ``device_port`` the board's. ``noise`` is the share of frames damaged
    in each direction; ``clean()`` stops the damage (what the cable carries next arrives intact)."""

    def __init__(self, device_port: str, seed: int, noise: float = 0.14) -> None:
        self.rng = random.Random(seed)
        self.noise = noise
        self._master, self._slave = pty.openpty()  # the slave stays open here too: no EIO while the host reconnects
        tty.setraw(self._slave)
        self.port = os.ttyname(self._slave)
        self.device = serial.Serial(device_port, 115200, timeout=0)
        self.to_device, self.to_host = Direction("to device"), Direction("to host")
        # In carrying order: ("to device", type, seq) for each frame the host sent, ("to host",
        # message, delivered intact) for each frame the board sent.
        self.log: list[tuple[str, object, object]] = []
        self.lock = threading.Lock()
        self._running = True
        self._thread = threading.Thread(target=self._carry, name="NoisyCable", daemon=True)
        self._thread.start()

    def clean(self) -> None:
        with self.lock:
            self.noise = 0.0

    def inject_to_device(self, data: bytes) -> None:
        """Bytes that were never a frame of the host's, straight to the board (counted as delivered)."""
        with self.lock:
            self.to_device.deliver(data)
            self.device.write(data)

    def inject_to_host(self, data: bytes) -> None:
        """Bytes straight to the host's port, waiting there for whoever opens it next."""
        with self.lock:
            self._write_host(data)

    def close(self) -> None:
        self._running = False
        self._thread.join()
        self.device.close()
        os.close(self._master)
        os.close(self._slave)

    # ------------------------------------------------------------ the cable's thread

    def _carry(self) -> None:
        device_fd = self.device.fileno()
        while self._running:
            readable, _, _ = select.select([self._master, device_fd], [], [], 0.05)
            with self.lock:
                if self._master in readable:
                    try:
                        data = os.read(self._master, 4096)
                    except OSError:  # the host closed its side to reconnect
                        data = b""
                    self._pass(data, self.to_device, self.device.write)
                if device_fd in readable:
                    self._pass(self.device.read(4096), self.to_host, self._write_host)

    def _write_host(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self._master, view):]

    def _pass(self, data: bytes, way: Direction, write) -> None:
        way.pending += data
        while framing.DELIMITER in way.pending:
            end = way.pending.index(framing.DELIMITER) + 1
            frame, way.pending = bytes(way.pending[:end]), way.pending[end:]
            if frame == framing.DELIMITER:  # an idle delimiter (the board's boot banner starts with one)
                way.deliver(frame)
                write(frame)
                continue
            out = self._damage(frame)
            way.frames += 1
            way.sent.add(frame[:-1])
            if out != frame:
                way.damaged += 1
            self._note(way, frame, out == frame)
            way.deliver(out)
            if out:
                write(out)

    def _damage(self, frame: bytes) -> bytes:
        roll = self.rng.random() / self.noise if self.noise else 1.0
        data = bytearray(frame)
        if roll < 0.43:  # one byte changed (possibly into a delimiter)
            data[self.rng.randrange(len(data))] ^= self.rng.randrange(1, 256)
        elif roll < 0.71:  # one byte lost (possibly the delimiter: two frames merge)
            del data[self.rng.randrange(len(data))]
        elif roll < 0.86:  # cut short: the rest of the frame never arrives
            data = data[: self.rng.randrange(1, len(data))] + framing.DELIMITER
        elif roll < 1.0:  # the whole frame lost
            data = bytearray()
        return bytes(data)

    def _note(self, way: Direction, frame: bytes, intact: bool) -> None:
        decoded = framing.decode_frame(frame[:-1])  # the sender's frame, before the cable touched it
        if way is self.to_device:
            self.log.append(("to device", decoded.type, decoded.seq))
        elif decoded.type in p.Message._by_type:
            self.log.append(("to host", p.decode_message(decoded), intact))
