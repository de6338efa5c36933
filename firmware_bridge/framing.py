"""The framing of the Pitwatch serial protocol: how bytes on the wire become checked frames.

The lower of the protocol's two layers (``protocol`` holds the messages that
travel inside frames). It knows nothing of what a frame means, only how to
cut the byte stream into frames and tell a good one from a damaged one; the
AVR firmware mirrors it in ``firmware/protocol.h`` and ``docs/protocol.md``
is the prose version.

Framing, chosen so that a receiver can always resynchronise::

    frame   = COBS(body + crc16_le(body)) + b"\\x00"
    body    = type:u8  seq:u8  payload...

COBS removes every zero byte from the frame, so ``0x00`` only ever marks the
end of a frame: after garbage, a dropped byte or a truncated frame the
receiver throws away at most the frame in progress and is in step again at
the next zero. The checksum is CRC-16/CCITT-FALSE (polynomial 0x1021, initial
value 0xFFFF) because both ends have it ready-made: ``binascii.crc_hqx`` here,
avr-libc's ``_crc_xmodem_update`` on the device. (The messages check their
payloads' lengths as well, a second line of defence behind the CRC.)
"""

from __future__ import annotations

import binascii
import struct
from dataclasses import dataclass
from typing import Callable

from serial.threaded import Packetizer

# Defined here rather than with the messages because it sizes the longest frame; ``protocol``
# uses it for its field limits too.
MAX_PITS = 32  # build-time maximum of the firmware: Bao la Kujifunza has 32 pits
DELIMITER = b"\x00"
MAX_BODY = 2 + 1 + 4 * MAX_PITS + 2  # largest body with CRC: a whole-board LED frame
MAX_ENCODED = MAX_BODY + MAX_BODY // 254 + 1  # COBS adds one byte per 254


class ProtocolError(ValueError):
    """A frame or message that does not follow the protocol; the text says what is wrong.

    The base of every protocol error, framing's and the messages' alike: defined in this,
    the lower layer, so that ``protocol`` can derive from it and a caller can catch either."""


class FrameTooLong(ProtocolError):
    """More bytes than the longest frame without a delimiter: garbage or a lost zero."""


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE of ``data``."""
    return binascii.crc_hqx(data, 0xFFFF)


def cobs_encode(data: bytes) -> bytes:
    """Consistent Overhead Byte Stuffing: ``data`` rewritten without any zero byte.

    Each block starts with a code byte: the distance to the next (removed)
    zero, or 0xFF for a run of 254 non-zero bytes with no zero after it.
    """
    out = bytearray(1)
    code_at, code = 0, 1
    for byte in data:
        if byte:
            out.append(byte)
            code += 1
        if not byte or code == 0xFF:
            out[code_at] = code
            code_at, code = len(out), 1
            out.append(0)
    out[code_at] = code
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    """Undo :func:`cobs_encode`; ``ProtocolError`` if the stuffing is inconsistent."""
    out = bytearray()
    i = 0
    while i < len(data):
        code = data[i]
        if code == 0 or i + code > len(data):
            raise ProtocolError(f"COBS block at byte {i} runs past the end of the frame")
        out += data[i + 1 : i + code]
        i += code
        if code != 0xFF and i < len(data):
            out.append(0)
    return bytes(out)


@dataclass(frozen=True)
class Frame:
    """A checked frame: its message type (an int: unknown types are legal frames), seq and payload."""

    type: int
    seq: int
    payload: bytes


def encode_frame(type_: int, seq: int, payload: bytes = b"") -> bytes:
    """The bytes on the wire for one frame, delimiter included."""
    body = bytes((type_, seq & 0xFF)) + payload
    if len(body) + 2 > MAX_BODY:
        raise ProtocolError(f"frame body of {len(body) + 2} bytes exceeds the {MAX_BODY}-byte maximum")
    return cobs_encode(body + struct.pack("<H", crc16(body))) + DELIMITER


def decode_frame(packet: bytes) -> Frame:
    """Check one packet (the bytes between two delimiters) and split it into a Frame."""
    if len(packet) > MAX_ENCODED:
        raise FrameTooLong(f"frame of {len(packet)} bytes is longer than the {MAX_ENCODED}-byte maximum")
    raw = cobs_decode(packet)
    if len(raw) < 4:
        raise ProtocolError(f"frame of {len(raw)} bytes is too short (type, seq and CRC take 4)")
    body, (crc,) = raw[:-2], struct.unpack("<H", raw[-2:])
    if crc16(body) != crc:
        raise ProtocolError(f"checksum mismatch: frame says {crc:#06x}, content gives {crc16(body):#06x}")
    return Frame(body[0], body[1], bytes(body[2:]))


class FrameReader(Packetizer):
    """A ``serial.threaded`` protocol that turns the byte stream into checked frames.

    Calls ``on_frame(frame)`` for every good frame and ``on_bad_frame(error)``
    for every rejected one. The buffer is bounded: a run of more than
    ``MAX_ENCODED`` bytes without a delimiter is dropped as one bad frame.
    """

    def __init__(self, on_frame: Callable[[Frame], None], on_bad_frame: Callable[[ProtocolError], None],
                 on_lost: Callable[[Exception | None], None] = lambda exc: None) -> None:
        super().__init__()
        self.on_frame, self.on_bad_frame, self.on_lost = on_frame, on_bad_frame, on_lost
        self.overlong = False

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if len(self.buffer) > MAX_ENCODED:
            self.buffer.clear()
            if not self.overlong:  # one error per run of garbage, not per chunk of it
                self.on_bad_frame(FrameTooLong(f"more than {MAX_ENCODED} bytes without a frame delimiter"))
            self.overlong = True

    def handle_packet(self, packet: bytes) -> None:
        if self.overlong:  # the tail of an over-long run: already reported
            self.overlong = False
            return
        if not packet:
            return  # two delimiters in a row: an idle line, not an error
        try:
            frame = decode_frame(bytes(packet))
        except ProtocolError as error:
            self.on_bad_frame(error)
            return
        self.on_frame(frame)

    def connection_lost(self, exc: Exception | None) -> None:
        # Not Packetizer's version: it re-raises ``exc`` in the reader thread.
        self.transport = None
        self.on_lost(exc)
