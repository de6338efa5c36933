"""The device's port opened directly, without the bridge: frames out, decoded messages in."""

from __future__ import annotations

import time

import serial

from firmware_bridge import framing
from firmware_bridge import protocol as p


class RawPort:
    """The device's port opened directly: frames out, decoded messages in."""

    def __init__(self, port: str) -> None:
        self.serial = serial.Serial(port, 115200, timeout=0.05)
        self.messages: list[p.Message | p.Report] = []  # as received, with each report put together after its frames
        self.bad: list[p.ProtocolError] = []
        self.frames: list[framing.Frame] = []
        self.reader = framing.FrameReader(self._received, self.bad.append)
        self.reports = p.ReportAssembler()

    def _received(self, frame: framing.Frame) -> None:
        self.frames.append(frame)
        message = p.decode_message(frame)
        self.messages.append(message)
        report = self.reports.add(message)
        if report is not None:
            self.messages.append(report)

    def send(self, data: bytes) -> None:
        self.serial.write(data)

    def read(self) -> None:
        """Take in what the device has sent (waiting up to the port's 50 ms timeout for a first byte)."""
        self.reader.data_received(self.serial.read(self.serial.in_waiting or 1))

    def wait_for(self, predicate, timeout: float = 2.0, after: int = 0) -> p.Message | None:
        """The first message (from index ``after`` of :attr:`messages` on) that satisfies
        ``predicate``, reading the port for at most ``timeout`` seconds; None if none came."""
        deadline = time.monotonic() + timeout
        seen = after
        while time.monotonic() < deadline:
            self.read()
            for message in self.messages[seen:]:
                if predicate(message):
                    return message
            seen = len(self.messages)
        return None

    def ack(self, seq: int, timeout: float = 2.0) -> p.Ack | None:
        return self.wait_for(lambda m: isinstance(m, p.Ack) and m.seq == seq, timeout)

    def acks(self) -> dict[int, p.Ack]:
        """Every ACK received so far, by sequence number."""
        return {m.seq: m for m in self.messages if isinstance(m, p.Ack)}

    def command(self, message: p.Message, seq: int) -> p.Ack:
        """Send until acknowledged (bytes sent while the chip boots are lost, as on a real board)."""
        for _ in range(8):
            self.send(message.frame(seq))
            ack = self.ack(seq, 0.25)
            if ack is not None:
                return ack
        raise AssertionError(f"no ACK for {message}")

    def hello(self, seq: int = 0x77) -> p.Info | None:
        """The handshake as the bridge does it: HELLO again until answered (bytes sent while
        the chip boots are lost, as on a real board)."""
        for _ in range(8):
            self.send(p.Hello().frame(seq))
            info = self.wait_for(lambda m: isinstance(m, p.Info) and m.reply_to == seq, 0.25)
            if info is not None:
                return info
        return None

    def close(self) -> None:
        self.serial.close()

    def __enter__(self) -> "RawPort":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
