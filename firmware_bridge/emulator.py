"""A pit-sensor board emulated in Python, on a pseudo-terminal.

For the demo, for users without the AVR toolchain, and as the second
implementation the conformance tests hold the firmware to. It speaks
protocol version 2 exactly as ``firmware/pitwatch.c`` does: the same
handshake, acknowledgements, reports, button events and error reports.

The board appears as a pty path (``.port``) that the bridge opens like
``/dev/ttyUSB0``. With ``link=`` the path is a symlink that survives
:meth:`EmulatedBoard.unplug` / :meth:`EmulatedBoard.replug`, as a udev name
does for a real board.
"""

from __future__ import annotations

import errno
import os
import pty
import random
import select
import threading
import time
import tty
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from . import protocol as p
from .framing import DELIMITER, Frame, FrameReader, FrameTooLong

FIRMWARE_VERSION = (2, 2, 1)
ADC_BITS = 10
REPORT_HZ = 20  # the promise in INFO; reports go out more often to keep it with jitter
REPORT_EVERY_MS = 30  # at the latest, as the firmware (REPORT_EVERY_MS in pitwatch.c)
REPORT_EVERY = REPORT_EVERY_MS / 1000  # seconds
CHANGE_THRESHOLD = 3  # ADC steps by which a pit must move to be reported at once (as the firmware)
VREF_MV = 5000


@dataclass(frozen=True)
class SensorModel:
    """How many millivolts a pit's sensor gives for a number of seeds.

    Every pit gets its own offset and gain (as real load cells and FSRs do),
    so that a calibration has something to learn. Shared by the Python
    emulator and the simavr board so both see the same voltages.
    """

    empty_mv: float = 400.0
    mv_per_seed: float = 55.0
    spread: float = 0.08  # per-pit variation of offset and gain
    noise_mv: float = 0.0  # electrical noise on every sample (the Python emulator only)

    def millivolts(self, pit: int, count: int) -> int:
        wobble = ((pit * 37) % 11 - 5) / 5 * self.spread  # deterministic, -spread..+spread
        return round(self.empty_mv * (1 + wobble) + self.mv_per_seed * (1 - wobble) * count)


def adc_value(millivolts: float) -> int:
    """The 10-bit reading an AVR gives for ``millivolts`` against a 5 V reference."""
    return max(0, min(1023, int(millivolts * 1024 // VREF_MV)))


class DeviceCore:
    """The device's protocol logic without any I/O: bytes in, frames out through ``send``.

    :class:`EmulatedBoard` runs it behind a pty with its report clock; the
    tests also drive it unclocked (``tests/firmware_bridge/unclocked.py``), to
    make frame orders happen every run that a clock makes happen by chance.
    Not thread-safe by itself: its owner serialises calls.
    """

    def __init__(self, send: Callable[[bytes], None], pit_count: int = p.MAX_PITS, *,
                 sensor: SensorModel = SensorModel(), device_id: int = 0x50570001) -> None:
        if not 1 <= pit_count <= p.MAX_PITS:
            raise ValueError(f"pit_count must be 1..{p.MAX_PITS}, not {pit_count}")
        self.send_bytes = send
        self.sensor = sensor
        self.device_id = device_id
        self.counts = [0] * p.MAX_PITS
        self.noise = random.Random(device_id)  # seeded: a demo or test run repeats exactly
        self.boot(p.ResetCause.POWER_ON, pit_count)

    def boot(self, cause: p.ResetCause, pit_count: int = p.MAX_PITS) -> None:
        """Start afresh (power-on, reset button, replug): settings and LEDs are lost."""
        self.booted_at = time.monotonic()
        self.pit_count = pit_count
        self.leds = [p.OFF] * p.MAX_PITS
        self.presses = [0] * p.BUTTONS
        self.buttons_down = 0  # bit b: button b is held, as the firmware's debounced state
        self.bad_frames = 0
        self.reset_cause = cause
        self.seqs = {"stream": 0, "replies": 0}  # each numbers its frames, as the firmware's send queues do
        self.scan = 0
        self.changed = True  # a report is due at once (new pit count, a button): the board's thread sends it
        self.reported: tuple[int, ...] = ()  # the raw values of the last report
        self.reader = FrameReader(self._on_frame, self._on_bad_frame)

    def uptime(self) -> int:
        return int((time.monotonic() - self.booted_at) * 1000) & 0xFFFFFFFF

    def receive(self, data: bytes) -> None:
        self.reader.data_received(data)

    def send(self, message: p.Message) -> None:
        queue = "stream" if message.TYPE in p.STREAM_TYPES else "replies"
        frame = message.frame(self.seqs[queue])
        self.seqs[queue] = (self.seqs[queue] + 1) & 0xFF
        self.send_bytes(frame)

    def send_info(self, reply_to: int) -> None:
        if reply_to == p.Info.BOOT:
            self.send_bytes(DELIMITER)  # as the firmware: end whatever the reset cut off
        self.send(p.Info(reply_to, p.PROTOCOL_VERSION, FIRMWARE_VERSION, self.device_id, p.MAX_PITS,
                         self.pit_count, p.Capability.SENSORS | p.Capability.LEDS | p.Capability.BUTTONS,
                         ADC_BITS, REPORT_HZ, self.reset_cause))

    def read_sensors(self) -> tuple[int, ...]:
        """Every configured pit's raw value now (with the sensor model's noise)."""
        return tuple(adc_value(self.sensor.millivolts(i, self.counts[i]) + self.noise.gauss(0, self.sensor.noise_mv))
                     for i in range(self.pit_count))

    def sense(self) -> None:
        """Look at the sensors, as the firmware does after every set of scans: if a pit moved by
        CHANGE_THRESHOLD steps or more since the last report, report at once, not at the next beat."""
        raw = self.read_sensors()
        if len(raw) != len(self.reported) or any(abs(a - b) >= CHANGE_THRESHOLD for a, b in zip(raw, self.reported)):
            self.send_report(raw)

    def send_report(self, raw: tuple[int, ...] | None = None) -> None:
        """Send one report of ``raw`` (by default, the sensors read now)."""
        self.changed = False
        raw = self.read_sensors() if raw is None else raw
        self.reported = raw
        self.scan = (self.scan + 1) & 0xFF
        for message in p.Report(self.uptime(), self.buttons_down, tuple(self.presses), raw).messages(self.scan):
            self.send(message)

    def press(self, button: int) -> None:
        """Press and let go at once."""
        self.hold(button)
        self.release(button)

    def hold(self, button: int) -> None:
        """The button goes down (and stays down): counted, announced, and shown in every report."""
        if self.buttons_down & 1 << button:
            return
        self.buttons_down |= 1 << button
        self.presses[button] = (self.presses[button] + 1) & 0xFF
        self.send(p.ButtonEvent(button, True, self.presses[button], self.uptime()))
        self.changed = True

    def release(self, button: int) -> None:
        if not self.buttons_down & 1 << button:
            return
        self.buttons_down &= ~(1 << button)
        self.send(p.ButtonEvent(button, False, self.presses[button], self.uptime()))
        self.changed = True

    def _on_bad_frame(self, error: p.ProtocolError) -> None:
        self.bad_frames += 1
        code = p.ErrorCode.TOO_LONG if isinstance(error, FrameTooLong) else p.ErrorCode.BAD_FRAME
        self.send(p.ErrorReport(code, self.bad_frames & 0xFFFF))

    def _on_frame(self, frame: Frame) -> None:
        if frame.type == p.MessageType.HELLO and len(frame.payload) == 1:
            self.send_info(frame.seq)
            return
        self.send(p.Ack(frame.seq, frame.type, self._apply(frame)))

    def _apply(self, frame: Frame) -> p.Status:
        """Carry out one host command; the status goes back in its ACK."""
        if frame.type >= 0x80 or frame.type not in p.Message._by_type:
            # Not a command: a device message (0x80 up) is one the board never receives, so it is
            # unknown whatever its length, as the firmware answers it.
            return p.Status.UNKNOWN_TYPE
        try:
            message = p.decode_message(frame)
        except p.BadValue:
            return p.Status.BAD_VALUE
        except p.ProtocolError:
            return p.Status.BAD_LENGTH
        if isinstance(message, p.SetPits):  # its count is 1..MAX_PITS: SetPits checks that (BadValue above)
            self.pit_count = message.count
            self.changed = True
        elif isinstance(message, p.SetLeds):
            if len(message.leds) != self.pit_count:
                return p.Status.BAD_VALUE
            self.leds[: self.pit_count] = message.leds
        elif isinstance(message, p.SetLed):
            if message.pit >= self.pit_count:
                return p.Status.BAD_VALUE
            self.leds[message.pit] = message.led
        return p.Status.OK  # PING: nothing to carry out


class EmulatedBoard:
    """A device emulator speaking the Pitwatch protocol on a pty.

    Thread-safe: the test or demo calls ``set_counts``, ``press``, ``reset``,
    ``unplug`` and ``replug`` from any thread while the board runs its own.
    """

    def __init__(self, pit_count: int = p.MAX_PITS, *, link: str | os.PathLike | None = None,
                 sensor: SensorModel = SensorModel(), device_id: int = 0x50570001) -> None:
        self.link = None if link is None else Path(link)
        self._core = DeviceCore(self._write, pit_count, sensor=sensor, device_id=device_id)
        self._lock = threading.RLock()
        self._wake_r, self._wake_w = os.pipe()
        self._thread: threading.Thread | None = None
        self._running = False
        self._master: int | None = None
        self._slave: int | None = None
        self._slave_path = ""

    # ------------------------------------------------------------ control

    def start(self) -> "EmulatedBoard":
        self._running = True
        with self._lock:
            self._plug()
        self._thread = threading.Thread(target=self._run, name="EmulatedBoard", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._wake_w < 0:
            return  # already stopped
        self._running = False
        self._wake()
        if self._thread is not None:
            self._thread.join(timeout=2)
        with self._lock:
            self._unplug_pty()
        for fd in (self._wake_r, self._wake_w):
            os.close(fd)
        self._wake_r = self._wake_w = -1

    def __enter__(self) -> "EmulatedBoard":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def port(self) -> str:
        """The path to open: the stable symlink if one was asked for, else the pty itself."""
        return str(self.link) if self.link is not None else self._slave_path

    def set_counts(self, counts: Sequence[int]) -> int:
        """Put ``counts[i]`` seeds on pit ``i``'s sensor (pits beyond ``counts`` read empty).

        A change the board reports (see :meth:`DeviceCore.sense`) goes out at once. Returns the
        board's uptime in ms when the seeds changed (its own clock, the one its reports carry).
        """
        if len(counts) > p.MAX_PITS or any(c < 0 for c in counts):
            raise ValueError(f"counts must be at most {p.MAX_PITS} non-negative numbers, got {list(counts)}")
        with self._lock:
            self._core.counts = list(counts) + [0] * (p.MAX_PITS - len(counts))
            changed_at = self._core.uptime()
            if self._master is not None:
                self._core.sense()
        return changed_at

    def press(self, button: int) -> None:
        """Press and release ``button`` (0 = confirm, 1 = undo)."""
        self._button(button, self._core.press)

    def hold(self, button: int) -> None:
        """Hold ``button`` down until :meth:`release`."""
        self._button(button, self._core.hold)

    def release(self, button: int) -> None:
        self._button(button, self._core.release)

    def _button(self, button: int, action: Callable[[int], None]) -> None:
        if button not in range(p.BUTTONS):
            raise ValueError(f"button must be 0..{p.BUTTONS - 1}, not {button}")
        with self._lock:
            action(button)
        self._wake()

    def reset(self) -> None:
        """Reboot, as the reset button does: LEDs off, settings lost, a boot INFO sent."""
        with self._lock:
            self._core.boot(p.ResetCause.EXTERNAL)
            self._core.send_info(p.Info.BOOT)

    def unplug(self) -> None:
        """Pull the USB cable: the port disappears and the host's reads fail."""
        with self._lock:
            self._unplug_pty()
        self._wake()  # the board's thread stops waiting on the port it had

    def replug(self) -> None:
        """Plug back in: a new pty (same ``.port`` when a link is used) and a fresh boot."""
        with self._lock:
            self._core.boot(p.ResetCause.POWER_ON)
            self._plug()
        self._wake()

    @property
    def leds(self) -> tuple[p.Led, ...]:
        """The light commanded for every configured pit."""
        with self._lock:
            return tuple(self._core.leds[: self._core.pit_count])

    def shown(self) -> tuple[tuple[int, int, int], ...]:
        """The colours the LEDs display right now (blink and pulse applied)."""
        with self._lock:
            now = self._core.uptime()
            return tuple(led.shown(now) for led in self._core.leds[: self._core.pit_count])

    @property
    def pit_count(self) -> int:
        return self._core.pit_count

    @property
    def bad_frames(self) -> int:
        """Frames this board rejected (corrupted, truncated, too long) since boot."""
        return self._core.bad_frames

    # ------------------------------------------------------------ the pty

    def _plug(self) -> None:
        self._master, self._slave = pty.openpty()
        tty.setraw(self._slave)  # no echo, no line editing: a plain byte pipe like a USB serial port
        os.set_blocking(self._master, False)
        self._slave_path = os.ttyname(self._slave)
        if self.link is not None:
            tmp = self.link.with_name(self.link.name + ".new")
            tmp.unlink(missing_ok=True)
            tmp.symlink_to(self._slave_path)
            tmp.replace(self.link)
        self._core.send_info(p.Info.BOOT)

    def _unplug_pty(self) -> None:
        for fd in (self._master, self._slave):
            if fd is not None:
                os.close(fd)
        self._master = self._slave = None
        if self.link is not None:
            self.link.unlink(missing_ok=True)

    def _write(self, frame: bytes) -> None:
        if self._master is None:
            return
        try:
            os.write(self._master, frame)
        except OSError:  # nobody reading and the pty is full: a real USB bridge drops too
            pass

    def _wake(self) -> None:
        if self._wake_w >= 0:
            os.write(self._wake_w, b"!")

    def _run(self) -> None:
        next_report = time.monotonic()
        while self._running:
            fds = [self._wake_r] + ([self._master] if self._master is not None else [])
            timeout = max(0.0, next_report - time.monotonic()) if self._master is not None else None
            try:
                readable, _, _ = select.select(fds, [], [], timeout)
            except OSError as error:  # unplugged (its port closed) between looking and waiting: look again
                if error.errno != errno.EBADF:
                    raise
                continue
            if self._wake_r in readable:
                os.read(self._wake_r, 4096)
            with self._lock:
                if self._master is not None and self._master in readable:
                    self._receive()
                now = time.monotonic()
                if self._master is not None and (self._core.changed or now >= next_report):
                    self._core.send_report()
                if now >= next_report:
                    # A fixed beat, so that a thread woken late (a busy machine) does not stretch
                    # every later interval too; a beat missed entirely is not made up.
                    next_report = next_report + REPORT_EVERY if now - next_report < REPORT_EVERY \
                        else now + REPORT_EVERY

    def _receive(self) -> None:
        try:
            data = os.read(self._master, 4096)
        except OSError as error:  # EIO: nobody has the port open; EAGAIN: nothing after all
            if error.errno not in (errno.EIO, errno.EAGAIN):
                raise
            return
        self._core.receive(data)
