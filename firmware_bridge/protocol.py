"""The Pitwatch serial protocol, version 2: the messages that travel inside frames.

One module shared by the host bridge, the Python device emulator and the
tests, so that both ends of the wire speak from the same definitions; the AVR
firmware mirrors them in ``firmware/protocol.h``. ``docs/protocol.md`` is the
prose version.

The upper of the protocol's two layers: ``framing`` cuts the byte stream into
checked frames (COBS, CRC-16, the delimiter); here each frame's type, sequence
number and payload become a :class:`Message` and back. Every payload has a
fixed or self-described length that is checked, as a second line of defence
behind the frame's CRC. ``MAX_PITS`` and ``ProtocolError`` are the framing's
(the longest frame and a damaged one need them) and this module's vocabulary
as well.

Multi-byte integers are little-endian (the AVR's own order).

Version 2 sends a sensor report as a short REPORT header followed by
REPORT_SLICE frames of at most ``SLICE_PITS`` pits (:class:`ReportAssembler`
puts them back together), so that an acknowledgement, which the device sends
ahead of any waiting report frame, never waits long behind one on the wire.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, fields
from enum import IntEnum
from typing import ClassVar

from .framing import MAX_PITS, Frame, ProtocolError, encode_frame

PROTOCOL_VERSION = 2
BUTTONS = 2  # confirm, undo
SLICE_PITS = 4  # pit values per REPORT_SLICE: 16 bytes on the wire, 1.4 ms at 115200 baud
# Test builds of the firmware only (make test-hooks): acknowledge, then hang without feeding
# the watchdog. Not a MessageType: the protocol does not have it, and production firmware
# and the emulator answer it with UNKNOWN_TYPE.
TEST_STALL = 0x7F
# Test builds only: acknowledge after keeping interrupts off for 1 ms (the harness's receive
# buffer model must then report an overrun if the host streams meanwhile).
TEST_MASK_IRQ = 0x7E
# Test builds only: stop discarding the ADC conversion after each multiplexer switch (the harness's
# settling model must then show crosstalk between neighbouring pits).
TEST_NO_SETTLE = 0x7D


class BadValue(ProtocolError):
    """A well-formed message carrying a value out of range (answered with Status.BAD_VALUE)."""


class MessageType(IntEnum):
    """Host commands are below 0x80, device messages from 0x80 up."""

    HELLO = 0x01
    SET_PITS = 0x02
    SET_LEDS = 0x03
    PING = 0x04
    SET_LED = 0x05
    ACK = 0x80
    INFO = 0x81
    REPORT = 0x82  # a report's header; its pit values follow in REPORT_SLICE frames
    BUTTON = 0x83
    ERROR = 0x84
    REPORT_SLICE = 0x85


# The device's stream: these keep their order among themselves, and every other device message
# (a reply: ACK, INFO, ERROR) goes ahead of them. Each group numbers its frames on its own.
STREAM_TYPES = frozenset({MessageType.REPORT, MessageType.REPORT_SLICE, MessageType.BUTTON})


class Status(IntEnum):
    """The verdict in an ACK: anything but OK means the command was not applied."""

    OK = 0
    BAD_LENGTH = 1
    BAD_VALUE = 2
    UNKNOWN_TYPE = 3


class ErrorCode(IntEnum):
    """Why the device threw away incoming bytes (sent in an ERROR message)."""

    BAD_FRAME = 1  # COBS or CRC check failed: corrupted or truncated frame
    TOO_LONG = 2  # no delimiter within MAX_ENCODED bytes: garbage or a lost zero


class LedMode(IntEnum):
    OFF = 0
    ON = 1
    BLINK = 2  # 1 Hz, on for the first half second
    PULSE = 3  # brightness ramps up and down over 2 s


class Capability(IntEnum):
    """Bits of ``Info.capabilities``."""

    SENSORS = 0x01
    LEDS = 0x02
    BUTTONS = 0x04


class Button(IntEnum):
    CONFIRM = 0
    UNDO = 1


class ResetCause(IntEnum):
    """Why the device last started (from the AVR's MCUSR)."""

    UNKNOWN = 0
    POWER_ON = 1
    EXTERNAL = 2
    BROWN_OUT = 3
    WATCHDOG = 4


@dataclass(frozen=True)
class Led:
    """One pit's light: a colour (0-255 per channel) and a mode."""

    red: int = 0
    green: int = 0
    blue: int = 0
    mode: LedMode = LedMode.ON

    def __post_init__(self) -> None:
        for name in ("red", "green", "blue"):
            value = getattr(self, name)
            if not isinstance(value, int) or not 0 <= value <= 255:
                raise ProtocolError(f"Led.{name} must be an integer 0-255, not {value!r}")
        object.__setattr__(self, "mode", LedMode(self.mode))

    @property
    def colour(self) -> tuple[int, int, int]:
        return (self.red, self.green, self.blue)

    def shown(self, uptime_ms: int) -> tuple[int, int, int]:
        """The colour this LED displays at device time ``uptime_ms`` (mirrors the firmware)."""
        return tuple(c * brightness(self.mode, uptime_ms) // 255 for c in self.colour)  # type: ignore[return-value]


OFF = Led(0, 0, 0, LedMode.OFF)


def brightness(mode: LedMode, uptime_ms: int) -> int:
    """Brightness 0-255 of a mode at device time ``uptime_ms``; same formula as the firmware."""
    if mode == LedMode.ON:
        return 255
    if mode == LedMode.BLINK:
        return 255 if uptime_ms % 1000 < 500 else 0
    if mode == LedMode.PULSE:
        phase = uptime_ms % 2000  # triangle 0 -> 255 -> 0, never fully dark
        level = phase if phase < 1000 else 2000 - phase
        return 16 + level * 239 // 1000
    return 0


class Message:
    """Base of all messages: ``TYPE`` plus ``pack()`` / ``unpack(payload)``."""

    TYPE: ClassVar[MessageType]
    _by_type: ClassVar[dict[int, type["Message"]]] = {}

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if "TYPE" in cls.__dict__:  # a concrete message, not a helper base
            Message._by_type[cls.TYPE] = cls

    def pack(self) -> bytes:
        raise NotImplementedError

    @classmethod
    def unpack(cls, payload: bytes) -> "Message":
        raise NotImplementedError

    def frame(self, seq: int) -> bytes:
        return encode_frame(self.TYPE, seq, self.pack())


def _check_field(message: str, name: str, value: object, low: int, high: int) -> None:
    """A field the wire or the device cannot take is a ProtocolError naming it and its range,
    at construction, not a ``struct.error`` (or a wrong frame) when the message is packed."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BadValue(f"{message}.{name} must be an integer from {low} to {high}, not {value!r}")


_FORMAT_RANGES = {"B": (0, 0xFF), "H": (0, 0xFFFF), "I": (0, 0xFFFFFFFF)}


def _unpack(fmt: str, payload: bytes, what: str) -> tuple:
    if len(payload) != struct.calcsize(fmt):
        raise ProtocolError(f"{what} payload is {len(payload)} bytes, expected {struct.calcsize(fmt)}")
    return struct.unpack(fmt, payload)


class _Fixed(Message):
    """A message whose payload is its fields packed with ``_FORMAT``, in field order.

    Every field is checked when the message is made: against the range its format
    character can carry, or the narrower one in ``_LIMITS`` (what the device accepts).
    """

    _FORMAT: ClassVar[str]
    _LIMITS: ClassVar[dict[str, tuple[int, int]]] = {}

    def __post_init__(self) -> None:
        for field, code in zip(fields(self), self._FORMAT.lstrip("<")):
            low, high = self._LIMITS.get(field.name, _FORMAT_RANGES[code])
            _check_field(type(self).__name__, field.name, getattr(self, field.name), low, high)

    def pack(self) -> bytes:
        return struct.pack(self._FORMAT, *(getattr(self, f.name) for f in fields(self)))

    @classmethod
    def unpack(cls, payload: bytes) -> "Message":
        return cls(*_unpack(cls._FORMAT, payload, cls.TYPE.name))


@dataclass(frozen=True)
class Hello(_Fixed):
    """Host -> device: start of the handshake; the device answers with :class:`Info`."""

    TYPE: ClassVar = MessageType.HELLO
    _FORMAT: ClassVar = "<B"
    version: int = PROTOCOL_VERSION


@dataclass(frozen=True)
class SetPits(_Fixed):
    """Host -> device: how many pits the board has (1..MAX_PITS); a runtime setting."""

    TYPE: ClassVar = MessageType.SET_PITS
    _FORMAT: ClassVar = "<B"
    _LIMITS: ClassVar = {"count": (1, MAX_PITS)}
    count: int


@dataclass(frozen=True)
class SetLeds(Message):
    """Host -> device: the whole board's lights in one frame, in canonical pit order."""

    TYPE: ClassVar = MessageType.SET_LEDS
    leds: tuple[Led, ...]

    def pack(self) -> bytes:
        out = bytearray((len(self.leds),))
        for led in self.leds:
            out += bytes((led.mode, led.red, led.green, led.blue))
        return bytes(out)

    @classmethod
    def unpack(cls, payload: bytes) -> "SetLeds":
        if not payload or len(payload) != 1 + 4 * payload[0]:
            raise ProtocolError(f"SET_LEDS payload of {len(payload)} bytes does not match its pit count")
        try:
            leds = tuple(Led(payload[i + 1], payload[i + 2], payload[i + 3], LedMode(payload[i]))
                         for i in range(1, len(payload), 4))
        except ValueError as error:
            raise BadValue(f"SET_LEDS: {error}") from None
        return cls(leds)


@dataclass(frozen=True)
class SetLed(Message):
    """Host -> device: one pit's light; the short form for when a single pit changes."""

    TYPE: ClassVar = MessageType.SET_LED
    pit: int
    led: Led

    def __post_init__(self) -> None:
        _check_field("SetLed", "pit", self.pit, 0, MAX_PITS - 1)
        if not isinstance(self.led, Led):
            raise ProtocolError(f"SetLed.led must be a Led, not {self.led!r}")

    def pack(self) -> bytes:
        return bytes((self.pit, self.led.mode, self.led.red, self.led.green, self.led.blue))

    @classmethod
    def unpack(cls, payload: bytes) -> "SetLed":
        pit, mode, red, green, blue = _unpack("<BBBBB", payload, "SET_LED")
        try:
            return cls(pit, Led(red, green, blue, LedMode(mode)))
        except ValueError as error:
            raise BadValue(f"SET_LED: {error}") from None


@dataclass(frozen=True)
class Ping(_Fixed):
    """Host -> device: are you there? Answered by an ACK."""

    TYPE: ClassVar = MessageType.PING
    _FORMAT: ClassVar = "<"


@dataclass(frozen=True)
class Ack(Message):
    """Device -> host: the verdict on the host command with sequence number ``seq``."""

    TYPE: ClassVar = MessageType.ACK
    seq: int
    command: int
    status: Status = Status.OK

    def pack(self) -> bytes:
        return struct.pack("<BBB", self.seq, self.command, self.status)

    @classmethod
    def unpack(cls, payload: bytes) -> "Ack":
        seq, command, status = _unpack("<BBB", payload, "ACK")
        return cls(seq, command, Status(status) if status in Status._value2member_map_ else status)


@dataclass(frozen=True)
class Info(Message):
    """Device -> host: who the device is; the reply to HELLO, and sent unasked at every boot."""

    TYPE: ClassVar = MessageType.INFO
    reply_to: int  # seq of the HELLO answered, or BOOT
    protocol: int
    firmware: tuple[int, int, int]
    device_id: int
    max_pits: int
    pit_count: int
    capabilities: int
    adc_bits: int
    report_hz: int
    reset_cause: ResetCause

    BOOT: ClassVar[int] = 0xFFFF
    _FMT: ClassVar[str] = "<HBBBBIBBBBBB"

    def pack(self) -> bytes:
        return struct.pack(self._FMT, self.reply_to, self.protocol, *self.firmware, self.device_id,
                           self.max_pits, self.pit_count, self.capabilities, self.adc_bits,
                           self.report_hz, self.reset_cause)

    @classmethod
    def unpack(cls, payload: bytes) -> "Info":
        f = _unpack(cls._FMT, payload, "INFO")
        cause = ResetCause(f[11]) if f[11] in ResetCause._value2member_map_ else ResetCause.UNKNOWN
        return cls(f[0], f[1], (f[2], f[3], f[4]), f[5], f[6], f[7], f[8], f[9], f[10], cause)

    @property
    def is_boot(self) -> bool:
        return self.reply_to == self.BOOT


@dataclass(frozen=True)
class ReportHeader(Message):
    """Device -> host: the start of one report (scan number ``scan``), sent on change and
    at least 20 times a second; its ``pit_count`` raw values follow in :class:`ReportSlice` frames.

    ``presses`` counts presses of each button since boot (wrapping at 256), so
    a host that lost a BUTTON message still sees the press in the next report.
    """

    TYPE: ClassVar = MessageType.REPORT
    scan: int
    uptime_ms: int
    buttons_down: int
    presses: tuple[int, ...]
    pit_count: int

    _FMT: ClassVar[str] = f"<BIB{BUTTONS}BB"

    def pack(self) -> bytes:
        return struct.pack(self._FMT, self.scan, self.uptime_ms, self.buttons_down, *self.presses, self.pit_count)

    @classmethod
    def unpack(cls, payload: bytes) -> "ReportHeader":
        f = _unpack(cls._FMT, payload, "REPORT")
        if not 1 <= f[-1] <= MAX_PITS:
            raise ProtocolError(f"REPORT announces {f[-1]} pits; a board has 1 to {MAX_PITS}")
        return cls(f[0], f[1], f[2], tuple(f[3 : 3 + BUTTONS]), f[-1])


@dataclass(frozen=True)
class ReportSlice(Message):
    """Device -> host: the raw values of pits ``first``, ``first + 1``, ... of report ``scan``."""

    TYPE: ClassVar = MessageType.REPORT_SLICE
    scan: int
    first: int
    raw: tuple[int, ...]

    def pack(self) -> bytes:
        return struct.pack(f"<BB{len(self.raw)}H", self.scan, self.first, *self.raw)

    @classmethod
    def unpack(cls, payload: bytes) -> "ReportSlice":
        n = (len(payload) - 2) // 2
        if len(payload) % 2 or not 1 <= n <= SLICE_PITS:
            raise ProtocolError(f"REPORT_SLICE payload is {len(payload)} bytes; "
                                f"expected 2 + 2 per pit for 1 to {SLICE_PITS} pits")
        f = struct.unpack(f"<BB{n}H", payload)
        if f[1] + n > MAX_PITS:
            raise ProtocolError(f"REPORT_SLICE reaches past pit {MAX_PITS - 1} (first {f[1]}, {n} pits)")
        return cls(f[0], f[1], tuple(f[2:]))


@dataclass(frozen=True)
class Report:
    """One report put back together: the raw value of every pit, the buttons, the device's clock.

    Not a message itself: on the wire it is a :class:`ReportHeader` and its
    slices (:meth:`messages`), reassembled by :class:`ReportAssembler`.
    """

    uptime_ms: int
    buttons_down: int
    presses: tuple[int, ...]
    raw: tuple[int, ...]

    def messages(self, scan: int) -> list[Message]:
        """The frames' messages that carry this report as scan number ``scan``, in sending order."""
        scan &= 0xFF
        header = ReportHeader(scan, self.uptime_ms, self.buttons_down, self.presses, len(self.raw))
        return [header] + [ReportSlice(scan, first, self.raw[first : first + SLICE_PITS])
                           for first in range(0, len(self.raw), SLICE_PITS)]


class ReportAssembler:
    """Turns REPORT headers and REPORT_SLICE frames back into whole :class:`Report` s.

    A report is complete when every pit its header announced has arrived in a
    slice of the same scan. A report missing a slice (a frame lost to noise) is
    dropped when the next header starts: the device sends a fresh one within
    50 ms, and a report that mixed two scans would not be one moment's reading.
    ``dropped`` counts the reports lost so, and those whose header was lost.
    """

    def __init__(self) -> None:
        self._header: ReportHeader | None = None
        self._raw: list[int | None] = []
        self._headers_seen = False
        self._headless_scan: int | None = None  # the scan of the last slice whose header never came
        self.dropped = 0  # reports lost: abandoned incomplete, or whose header never came

    def add(self, message: Message) -> Report | None:
        """Offer one received message; returns the report it completes, if any."""
        if isinstance(message, ReportHeader):
            if self._header is not None:
                self.dropped += 1
            self._header, self._raw = message, [None] * message.pit_count
            self._headers_seen, self._headless_scan = True, None
        elif isinstance(message, ReportSlice):
            if self._header is None or message.scan != self._header.scan:
                self._headless(message.scan)
                return None
            if message.first + len(message.raw) <= len(self._raw):
                self._raw[message.first : message.first + len(message.raw)] = message.raw
        else:
            return None
        if None in self._raw:
            return None
        header, self._header = self._header, None
        return Report(header.uptime_ms, header.buttons_down, header.presses, tuple(self._raw))  # type: ignore

    def _headless(self, scan: int) -> None:
        """A slice of a report whose header was lost: that report is lost, counted once for all its
        slices. Slices before the first header are the end of a report sent before the port opened."""
        if self._headers_seen and scan != self._headless_scan:
            self.dropped += 1
        self._headless_scan = scan


@dataclass(frozen=True)
class ButtonEvent(Message):
    """Device -> host: a button went down (``pressed``) or up, sent at once."""

    TYPE: ClassVar = MessageType.BUTTON
    button: int
    pressed: bool
    presses: int
    uptime_ms: int

    def pack(self) -> bytes:
        return struct.pack("<BBBI", self.button, self.pressed, self.presses, self.uptime_ms)

    @classmethod
    def unpack(cls, payload: bytes) -> "ButtonEvent":
        button, pressed, presses, uptime = _unpack("<BBBI", payload, "BUTTON")
        if button >= BUTTONS:
            raise ProtocolError(f"BUTTON names button {button}; the device has {BUTTONS}")
        return cls(button, bool(pressed), presses, uptime)


@dataclass(frozen=True)
class ErrorReport(_Fixed):
    """Device -> host: incoming bytes were thrown away; ``count`` is the running total."""

    TYPE: ClassVar = MessageType.ERROR
    _FORMAT: ClassVar = "<BH"
    code: int
    count: int


def decode_message(frame: Frame) -> Message:
    """The message in a checked frame; ``ProtocolError`` for an unknown type or a bad payload."""
    cls = Message._by_type.get(frame.type)
    if cls is None:
        raise ProtocolError(f"unknown message type {frame.type:#04x}")
    return cls.unpack(frame.payload)

