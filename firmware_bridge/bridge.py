"""The host side of the serial link: finds the board, keeps it connected, never blocks its caller.

Two layers, each with one job:

* :class:`~firmware_bridge.link.Link` (in ``link``) - stop-and-wait delivery
  of host commands: one command in flight, retried until acknowledged, then
  reported as failed.
* :class:`Bridge` (here) - the connection's life: discovery (``list_ports`` plus
  the handshake) or a given port, ``serial.threaded.ReaderThread`` for
  input, reconnection with back-off after an unplug, re-sending the pit
  count and the LED frame to a rebooted device, and status callbacks.

Callbacks run on the bridge's threads; keep them short (hand the data to a
queue). An exception in a callback is logged, never allowed to kill the link.
"""

from __future__ import annotations

import errno
import logging
import threading
import time
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Callable, Sequence

import serial
import serial.threaded
from serial.tools import list_ports

from . import protocol as p
from .framing import Frame, FrameReader
from .link import CommandFailed, CommandRejected, Link, LinkLost

log = logging.getLogger(__name__)

BAUDRATE = 115200
HANDSHAKE_SECONDS = 3.0  # an Uno resets when the port opens; its bootloader takes up to 2 s
SILENCE_SECONDS = 0.5  # the device reports 20 times a second: this much quiet means trouble
BACKOFF_MIN, BACKOFF_MAX = 0.1, 2.0
CLOCK_WRAP_MS = 1 << 32  # the device's uptime is a 32-bit count of milliseconds: it wraps after 49.7 days
WRAP_WINDOW_MS = 10_000  # a clock that went back but moved less than this forward modulo the wrap has wrapped
# More presses of one button than this between two of its counts (REPORTs come 50 times a second; a
# second of them lost to a noisy cable holds a few presses) is a frame that passed its CRC corrupted:
# counted as a bad frame, never as presses (a jump of 200 would be 200 takebacks)
MOST_PRESSES_AT_ONCE = 8


class State(str, Enum):
    STOPPED = "stopped"
    SEARCHING = "searching"  # looking for the board or opening its port
    CONNECTED = "connected"
    DISCONNECTED = "disconnected"  # lost it; retrying after a back-off


@dataclass(frozen=True)
class BridgeStatus:
    """The link's state, which the app shows (``message`` is for people), and its health counters,
    which a diagnosis reads (the soak, link and receive-buffer tests do): a cable that
    damages frames shows in them long before it loses the link."""

    state: State = State.STOPPED
    message: str = "not started"
    port: str | None = None
    device: p.Info | None = None  # the board of the newest handshake, kept while reconnecting; None until one answers
    bad_frames: int = 0  # frames from the device rejected: by framing or checksum, or carrying what cannot be
    device_bad_frames: int = 0  # frames the device rejected (from its ERROR reports), in every session
    lost_reports: int = 0  # reports that lost a frame on the way (a header or a slice), so never arrived whole
    unknown_messages: int = 0  # well-formed frames of a type this bridge does not know (a newer firmware's)
    retries: int = 0  # commands sent again, unanswered: in every session, the handshakes' too
    failed_commands: int = 0  # commands given up after every attempt: in every session, the handshakes' too
    reconnects: int = 0  # back-offs: each lost link and each failed attempt to (re)open the port

    @property
    def connected(self) -> bool:
        return self.state == State.CONNECTED


@dataclass(frozen=True)
class SensorFrame:
    """One sensor report: the raw ADC value of every pit, canonical order.

    ``received`` is the host's ``time.time()`` when the frame arrived;
    ``device_ms`` the device's uptime when it was sent.
    """

    raw: tuple[int, ...]
    device_ms: int
    received: float
    buttons_down: int = 0


@dataclass
class _Session:
    """One open port: the serial object, its reader thread and its link."""

    port: str
    reader: serial.threaded.ReaderThread
    link: Link
    stopping: threading.Event  # set when the run this session belongs to is told to stop
    lost: threading.Event = field(default_factory=threading.Event)
    lost_reason: str = ""
    rebooted: threading.Event = field(default_factory=threading.Event)
    last_frame: float = field(default_factory=time.monotonic)
    # The device's press counter per button as last seen; None until this session first sees it.
    presses: list[int | None] = field(default_factory=lambda: [None] * p.BUTTONS)
    # Per button, a count that jumped too far to be presses, held until the next count says whether the frame was
    # corrupt (the next is near the baseline) or the counter started anew (it is near this one).
    jumped: list[int | None] = field(default_factory=lambda: [None] * p.BUTTONS)
    uptime_ms: int = 0
    adc_limit: int = 1 << 16  # raw values must be below this: 2 ** the ADC's bits, once the device has said them
    reports: p.ReportAssembler = field(default_factory=p.ReportAssembler)

    def close(self) -> None:
        try:
            self.reader.close()
        except Exception as error:  # closing a vanished port may fail: it is gone either way
            log.debug("closing %s: %s", self.port, error)


class _ReaderThread(serial.threaded.ReaderThread):
    """pyserial's reader thread, except that a port vanishing under it ends the session.

    pyserial catches ``SerialException`` around its reads, but asks ``in_waiting`` first, which
    raises a plain ``OSError`` (EIO) when a USB adapter is pulled out or a pty's other side
    closes: the thread then died with a traceback, and the bridge only found out half a second
    of silence and four unanswered PINGs later. Here that error is a lost connection, at once.
    """

    def run(self) -> None:
        try:
            super().run()
        except OSError as error:
            self.alive = False
            if self.protocol is not None:
                self.protocol.connection_lost(error)
                self.protocol = None


def serial_ports() -> list[str]:
    """Candidate ports for discovery: every serial port the OS lists, USB ones first."""
    ports = list_ports.comports()
    return [info.device for info in sorted(ports, key=lambda info: info.vid is None)]


class Bridge:
    """The board as the application sees it: readings and button presses in, LED frames out.

    ``port``: a device path or pyserial URL; ``None`` = find the board by
    trying every serial port (``candidates()``) with the handshake.
    ``pit_count``: sent to the device after every handshake; ``set_leds``
    frames must have that many entries.
    """

    def __init__(self, port: str | None = None, *,
                 on_reading: Callable[[SensorFrame], None] | None = None,
                 on_button: Callable[[p.Button], None] | None = None,
                 on_status: Callable[[BridgeStatus], None] | None = None,
                 pit_count: int | None = None, baudrate: int = BAUDRATE,
                 ack_timeout: float = 0.1, attempts: int = 4,
                 candidates: Callable[[], Sequence[str]] = serial_ports) -> None:
        if pit_count is not None and not 1 <= pit_count <= p.MAX_PITS:
            raise ValueError(f"pit_count must be 1..{p.MAX_PITS}, not {pit_count}")
        self.port = port
        self.pit_count = pit_count
        self.baudrate = baudrate
        self.ack_timeout, self.attempts = ack_timeout, attempts
        self.candidates = candidates
        self._found_on: str | None = None  # the port discovery last found the board on: tried first again
        self._on_reading, self._on_button, self._on_status = on_reading, on_button, on_status
        self._status = BridgeStatus()
        self._status_lock = threading.Lock()
        # Each start() begins a run with its own stop event, so that a run told to stop stays
        # stopped (and silent) even while a later start() has begun the next one.
        self._stopping = threading.Event()
        self._lifecycle = threading.Lock()  # start() and stop() one at a time
        self._link: Link | None = None  # the link of the latest port opened: stop() cancels it
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._earlier_retries = self._earlier_failures = 0  # from sessions already closed
        self._device_errors = 0  # the device's own count of frames it rejected, as last reported since its boot
        self._failed_callbacks: set[Callable] = set()
        self._wanted_leds: tuple[p.Led, ...] | None = None
        self._confirmed_leds: tuple[p.Led, ...] | None = None
        self._leds_confirmed = threading.Condition()

    # ------------------------------------------------------------ the application's side

    def start(self) -> "Bridge":
        """Start connecting in the background; returns at once.

        After a :meth:`stop` whose thread had not finished in time, the new run
        starts anyway: it waits (on its own thread) for the old one to close its
        port, so the bridge is never left without a thread.
        """
        with self._lifecycle:
            if self.running and not self._stopping.is_set():
                return self  # already running
            previous, self._stopping = self._thread, threading.Event()
            self._thread = threading.Thread(target=self._run, args=(self._stopping, previous), name="Bridge",
                                            daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout: float = 2.0) -> bool:
        """Close the port and stop the threads; waits at most ``timeout`` seconds for them.

        A handshake or command in flight is abandoned at once. From here on the
        status stays STOPPED whatever the stopping thread still does. Returns
        whether the thread had finished within ``timeout``.
        """
        with self._lifecycle:
            self._stopping.set()  # first: a link made from here on cancels itself (_start_session)
            self._wake.set()
            thread, link = self._thread, self._link
            if link is not None:
                link.cancel()
        if thread is not None:
            thread.join(timeout)
        self._update(State.STOPPED, "stopped")
        return not self.running

    @property
    def running(self) -> bool:
        """Whether the bridge's thread is still alive (it may be finishing after :meth:`stop`)."""
        thread = self._thread
        return thread is not None and thread.is_alive()

    def __enter__(self) -> "Bridge":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def set_leds(self, frame: Sequence[p.Led]) -> None:
        """Show ``frame`` (one :class:`Led` per pit, canonical order); returns at once.

        The newest frame wins: if frames come faster than the device
        acknowledges them, the ones in between are skipped, never queued. A
        frame that cannot be delivered is re-sent after reconnecting.
        """
        frame = tuple(frame)
        if not all(isinstance(led, p.Led) for led in frame):
            raise TypeError("set_leds takes a sequence of firmware_bridge.Led, one per pit")
        expected = self.pit_count or p.MAX_PITS
        if not 1 <= len(frame) <= p.MAX_PITS or (self.pit_count and len(frame) != expected):
            raise ValueError(f"an LED frame has one Led per pit: expected {expected}, got {len(frame)}")
        self._wanted_leds = frame
        self._wake.set()

    @property
    def status(self) -> BridgeStatus:
        with self._status_lock:
            return self._status

    @property
    def confirmed_leds(self) -> tuple[p.Led, ...] | None:
        """The last LED frame the device acknowledged."""
        return self._confirmed_leds

    def wait_for_leds(self, frame: Sequence[p.Led], timeout: float) -> bool:
        """Wait until the device has acknowledged ``frame`` (it is :attr:`confirmed_leds`), at most
        ``timeout`` seconds; whether it was. Woken by the acknowledgement itself, not by polling."""
        frame = tuple(frame)
        with self._leds_confirmed:
            return self._leds_confirmed.wait_for(lambda: self._confirmed_leds == frame, timeout)

    def _confirm_leds(self, frame: tuple[p.Led, ...] | None) -> None:
        with self._leds_confirmed:
            self._confirmed_leds = frame
            self._leds_confirmed.notify_all()

    # ------------------------------------------------------------ the bridge's thread

    def _run(self, stopping: threading.Event, previous: threading.Thread | None) -> None:
        """The bridge's thread for one run (start to stop): connect, serve, back off, again."""
        if previous is not None:
            previous.join()  # the run stopped before this one closes its port first
        backoff = BACKOFF_MIN
        while not stopping.is_set():
            try:
                session = self._connect(stopping)
                backoff = BACKOFF_MIN  # a board that answered: a later unplug is retried quickly again
                self._serve(session)
            except LinkLost as error:
                self._update(State.DISCONNECTED, f"{error}; retrying in {backoff:.1f} s", run=stopping,
                             reconnects=self.status.reconnects + 1)
                stopping.wait(backoff)
                backoff = min(backoff * 2, BACKOFF_MAX)
            except Exception as error:  # a bug must not leave the app without a status
                log.exception("bridge thread")
                self._update(State.DISCONNECTED, f"internal error: {error!r}; retrying", run=stopping)
                stopping.wait(BACKOFF_MAX)

    def _connect(self, stopping: threading.Event) -> _Session:
        """Open the given port or find the board; returns a session that has shaken hands."""
        ports = [self.port] if self.port else self._search_order()
        if not ports:
            raise LinkLost("no serial ports found: is the board plugged in?")
        problems = []
        for port in ports:
            self._update(State.SEARCHING, f"trying {port}", run=stopping, port=port)
            try:
                session = self._handshake(port, stopping)
                self._found_on = port
                return session
            except LinkLost as error:
                problems.append(f"{port}: {error}")
            if stopping.is_set():
                break
        raise LinkLost("; ".join(problems))

    def _search_order(self) -> list[str]:
        """The candidate ports, the one the board was last found on first: a board unplugged and
        plugged in again comes back on it, and a silent port listed before it (another USB serial
        device) would cost a whole handshake's wait, 3 s, at every replug."""
        return sorted(self.candidates(), key=lambda port: port != self._found_on)

    def _open(self, port: str) -> serial.SerialBase:
        """Open ``port`` and throw away whatever it received before; a port that fails is closed
        again and named in a :class:`LinkLost`, never left open behind an "internal error"."""
        try:
            # exclusive: a second Pitwatch (``doctor`` beside ``run``, or discovery in another one)
            # is refused the port instead of stealing half its bytes and flushing its input
            ser = serial.serial_for_url(port, baudrate=self.baudrate, timeout=1, write_timeout=1, exclusive=True)
        except (serial.SerialException, OSError, ValueError) as error:
            if getattr(error, "errno", None) in (errno.EAGAIN, errno.EWOULDBLOCK):
                raise LinkLost("busy: another program holds the port (a `pitwatch run`?)") from None
            if getattr(error, "errno", None) == errno.EACCES:
                raise LinkLost("permission denied: this user may not open the port; add it to the port's group "
                               "(on Debian `sudo usermod -aG dialout $USER`), then log in again") from None
            raise LinkLost(f"cannot open: {error}") from None
        try:
            ser.reset_input_buffer()
        except (serial.SerialException, OSError) as error:
            ser.close()
            raise LinkLost(f"opened, but cannot discard its stale input (closed it again): {error}") from None
        return ser

    def _start_session(self, port: str, ser: serial.SerialBase, stopping: threading.Event) -> _Session:
        """The reader thread and the link on an open port; the link is cancelled with the run."""
        holder: dict[str, _Session] = {}
        reader = _ReaderThread(ser, lambda: FrameReader(
            lambda frame: self._on_frame(holder["session"], frame),
            lambda error: self._on_bad_frame(holder["session"], error),
            lambda exc: self._on_lost(holder["session"], exc)))
        link = Link(reader.write, ack_timeout=0.25, attempts=max(1, int(HANDSHAKE_SECONDS / 0.25)))
        session = holder["session"] = _Session(port, reader, link, stopping)
        self._link = link
        if stopping.is_set():  # stop() came before the link was there to cancel
            link.cancel()
        reader.start()
        return session

    def _handshake(self, port: str, stopping: threading.Event) -> _Session:
        """Open ``port``, shake hands and configure the board; the port is closed again on any failure."""
        ser = self._open(port)
        try:
            session = self._start_session(port, ser, stopping)
        except BaseException:
            ser.close()
            raise
        try:
            info = self._hello(session)
            self._configure(session)
        except (LinkLost, CommandRejected) as error:
            self._end(session)
            raise LinkLost(str(error)) from None
        except BaseException:
            self._end(session)
            raise
        self._update(State.CONNECTED, f"connected to {port}: firmware {'.'.join(map(str, info.firmware))}, "
                     f"{self.pit_count or info.pit_count} pits", run=stopping, port=port, device=info)
        return session

    def _hello(self, session: _Session) -> p.Info:
        """HELLO until answered (for up to HANDSHAKE_SECONDS: an Uno boots when its port opens);
        the board's INFO, if it speaks our protocol version."""
        info = session.link.command(p.Hello())
        if not isinstance(info, p.Info):
            raise LinkLost(f"answered HELLO with {type(info).__name__}, not INFO: not a Pitwatch board")
        if (mismatch := _other_protocol(info)) is not None:
            raise LinkLost(mismatch)
        session.link.ack_timeout, session.link.attempts = self.ack_timeout, self.attempts
        session.adc_limit = _adc_limit(info)
        return info

    def _configure(self, session: _Session) -> None:
        """Tell a (possibly freshly booted) device the pit count and the LED frame."""
        session.rebooted.clear()
        if self.pit_count is not None:
            session.link.command(p.SetPits(self.pit_count))
        self._confirm_leds(None)
        self._send_leds(session)

    def _send_leds(self, session: _Session) -> None:
        wanted, confirmed = self._wanted_leds, self._confirmed_leds
        if wanted is None or wanted == confirmed:
            return
        changed = [i for i in range(len(wanted)) if confirmed is None or len(confirmed) != len(wanted)
                   or wanted[i] != confirmed[i]]
        try:
            if len(changed) == 1:  # 9 bytes on the wire instead of up to 137: a quicker answer
                session.link.command(p.SetLed(changed[0], wanted[changed[0]]))
            else:
                session.link.command(p.SetLeds(wanted))
        except CommandRejected:
            if session.rebooted.is_set():
                return  # refused by a board that rebooted meanwhile: _configure sends it again
            if self._wanted_leds is wanted:  # not retried forever; a newer frame still goes out
                self._wanted_leds = confirmed
            raise
        self._confirm_leds(wanted)

    def _serve(self, session: _Session) -> None:
        """Keep one session going until the port is lost or the bridge stops."""
        try:
            while not session.stopping.is_set():
                self._wake.wait(SILENCE_SECONDS / 2)
                self._wake.clear()
                if session.lost.is_set():
                    raise LinkLost(session.lost_reason)
                try:
                    if session.rebooted.is_set():
                        self._configure(session)
                    self._send_leds(session)
                    if time.monotonic() - session.last_frame > SILENCE_SECONDS:
                        session.link.command(p.Ping())
                except CommandRejected as error:
                    self._update(State.CONNECTED, str(error), run=session.stopping)
                finally:
                    self._count_retries(session)
        except CommandFailed as error:
            raise LinkLost(f"{session.port}: {error}") from None
        finally:
            self._end(session)

    def _end(self, session: _Session) -> None:
        """Close ``session``, its retries and failed commands kept in the bridge's totals: a
        command given up while configuring the board counts as much as one given up later."""
        self._count_retries(session)
        self._earlier_retries += session.link.retries
        self._earlier_failures += session.link.failed
        session.close()

    def _count_retries(self, session: _Session) -> None:
        self._update(retries=self._earlier_retries + session.link.retries,
                     failed_commands=self._earlier_failures + session.link.failed)

    # ------------------------------------------------------------ the reader thread

    def _on_frame(self, session: _Session, frame: Frame) -> None:
        session.last_frame = time.monotonic()
        if frame.type not in p.Message._by_type:
            log.debug("%s: ignoring message type %#04x from a newer firmware", session.port, frame.type)
            self._update(unknown_messages=self.status.unknown_messages + 1)
            return
        try:
            message = p.decode_message(frame)
        except p.ProtocolError as error:
            self._on_bad_frame(session, error)
            return
        session.link.frame_received(message)
        if isinstance(message, (p.ReportHeader, p.ReportSlice)):
            dropped_before = session.reports.dropped
            report = session.reports.add(message)
            if session.reports.dropped > dropped_before:
                self._update(lost_reports=self.status.lost_reports + session.reports.dropped - dropped_before)
            if report is not None:
                self._on_report(session, report)
        elif isinstance(message, p.ButtonEvent):
            if message.pressed:
                if session.presses[message.button] is None:  # sent at once: this press is news
                    session.presses[message.button] = (message.presses - 1) & 0xFF
                self._count_presses(session, message.button, message.presses)
        elif isinstance(message, p.Info) and message.is_boot:
            if (mismatch := _other_protocol(message)) is not None:  # another firmware, flashed while we were connected
                self._lose(session, mismatch)  # the handshake asks again: a real one is refused, a corrupt banner passes
                return
            session.uptime_ms, session.adc_limit = 0, _adc_limit(message)
            self._device_errors = 0  # its ERROR count starts again too
            self._rebooted(session, message.reset_cause.name.lower().replace("_", " "), message)
        elif isinstance(message, p.ErrorReport):
            self._count_device_errors(message.count)

    def _count_device_errors(self, count: int) -> None:
        """Add what the device's count of rejected frames grew by. That count is the device's own since
        its boot: shown as it stands, it fell back to a handful at every restart, and a diagnosis
        lost the errors before. A count that went back started again from zero (a reboot whose
        banner was lost, or 65,535 passed)."""
        grew = count - self._device_errors if count >= self._device_errors else count
        self._device_errors = count
        self._update(device_bad_frames=self.status.device_bad_frames + grew)

    def _on_report(self, session: _Session, report: p.Report) -> None:
        beyond = [(pit, raw) for pit, raw in enumerate(report.raw) if raw >= session.adc_limit]
        if beyond:  # a slice that passed its CRC corrupted: no sensor reads this, and no count fits it
            pit, raw = beyond[0]
            self._on_bad_frame(session, p.ProtocolError(f"REPORT gives pit {pit} the raw value {raw}; "
                                                        f"the board's ADC reads 0 to {session.adc_limit - 1}"))
            return
        if _clock_restarted(session.uptime_ms, report.uptime_ms):  # a reboot whose banner was lost
            self._rebooted(session, "its clock restarted", history=True)
        session.uptime_ms = report.uptime_ms
        believed = [self._count_presses(session, button, count) for button, count in enumerate(report.presses)]
        if not all(believed):  # a frame that passed its CRC corrupted: its pit values are no more to be trusted
            return
        self._call(self._on_reading, SensorFrame(report.raw, report.uptime_ms, time.time(), report.buttons_down))

    def _rebooted(self, session: _Session, why: str, info: p.Info | None = None, history: bool = False) -> None:
        """The device started afresh: its press counters are zero and it needs its settings again.
        ``history``: told by its clock alone, which one corrupt REPORT can fake: the counts of its
        next REPORT are taken as they stand, as a session's first are, not as presses since zero."""
        session.presses = [None if history else 0] * p.BUTTONS
        session.rebooted.set()
        self._update(message=f"the board on {session.port} restarted ({why}); restoring its settings",
                     run=session.stopping, **({"device": info} if info else {}))
        self._wake.set()

    def _count_presses(self, session: _Session, button: int, count: int) -> bool:
        """Turn one button's press counter into one callback per press, each exactly once; False
        for a count not believed (the frame is a bad one).

        Each button has its own baseline: the first REPORT of a session shows
        presses made before we connected (history, not counted), while a
        BUTTON event is sent the moment its button goes down, so one that
        comes before any REPORT is a press to count, and says nothing about
        the other button's history. A count that jumps too far is not made
        the baseline: it was, and the next true count, back from the corrupt
        one, became up to 255 presses (a bridge audit, 2026-12-07: 3 takebacks
        from one frame). Only if the next count follows it (the counter started
        anew, a reset whose banner was lost) is it taken, as history.
        """
        last = session.presses[button]
        presses = 0 if last is None else (count - last) & 0xFF
        if presses > MOST_PRESSES_AT_ONCE:
            jumped, session.jumped[button] = session.jumped[button], count
            if jumped is None or (count - jumped) & 0xFF > MOST_PRESSES_AT_ONCE:
                self._on_bad_frame(session, p.ProtocolError(f"button {button}'s press count jumped from {last} to {count}"))
                return False
            presses = 0  # it follows the count that jumped: the counter started anew
        session.presses[button], session.jumped[button] = count, None
        for _ in range(presses):
            self._call(self._on_button, p.Button(button))
        return True

    def _on_bad_frame(self, session: _Session, error: p.ProtocolError) -> None:
        log.debug("%s: rejected frame: %s", session.port, error)
        self._update(bad_frames=self.status.bad_frames + 1)  # only this (reader) thread counts them

    def _on_lost(self, session: _Session, exc: Exception | None) -> None:
        self._lose(session, f"lost {session.port}: {exc}" if exc is not None else f"closed {session.port}")

    def _lose(self, session: _Session, reason: str) -> None:
        """End ``session`` for ``reason``: the bridge's thread closes it and connects again."""
        session.lost_reason = reason
        session.lost.set()
        self._wake.set()

    def _call(self, callback: Callable | None, argument: object) -> None:
        if callback is None:
            return
        try:
            callback(argument)
        except Exception:
            if callback not in self._failed_callbacks:  # the traceback once, not 20 times a second
                self._failed_callbacks.add(callback)
                log.exception("bridge callback %r failed (later failures of it are not logged)", callback)

    def _update(self, state: State | None = None, message: str | None = None, *,
                run: threading.Event | None = None, **changes) -> None:
        """Change the status; ``state`` and ``message`` stay as they are unless given. The old
        values are read under the lock: the reader and bridge threads both update the status,
        and a counter update must never put back a message the other thread just replaced.

        ``run``: the stop event of the run making a change of state. Once it is set, that run
        changes nothing: checked under the lock, so a handshake finishing as stop() is called
        can never make a stopped bridge say CONNECTED."""
        with self._status_lock:
            if run is not None and run.is_set():
                return
            old = self._status
            self._status = replace(old, state=state or old.state,
                                   message=old.message if message is None else message, **changes)
            new = self._status
        if new != old:
            self._call(self._on_status, new)


def _other_protocol(info: p.Info) -> str | None:
    """Why a board whose INFO is ``info`` cannot be spoken to (another protocol version), or None."""
    if info.protocol == p.PROTOCOL_VERSION:
        return None
    return f"the board speaks protocol v{info.protocol}; this Pitwatch speaks v{p.PROTOCOL_VERSION}: update the firmware"


def _adc_limit(info: p.Info) -> int:
    """The first raw value the board in ``info`` cannot send: 2 ** its ADC's bits (a value carries
    16 bits at most, so a board that claims more, or none, is held to those 16)."""
    return 1 << info.adc_bits if 1 <= info.adc_bits <= 16 else 1 << 16


def _clock_restarted(before_ms: int, now_ms: int) -> bool:
    """Whether the device's clock going from ``before_ms`` to ``now_ms`` means it rebooted.

    A clock that went back restarted, unless it only wrapped: a board left on for 49.7 days
    passes 2**32 ms and starts again from 0 a report later, and taking that for a reboot would
    zero the press baselines and count every press since boot again."""
    return now_ms < before_ms and (now_ms - before_ms) % CLOCK_WRAP_MS >= WRAP_WINDOW_MS


@dataclass(frozen=True)
class LinkHealth:
    """What a connected board's link carried while it was watched: the reports that arrived whole,
    and the frames damaged or reports lost on the way (a cable that damages frames shows here long
    before it loses the link)."""

    seconds: float
    reports: int
    damaged_frames: int  # frames from the board rejected
    lost_reports: int
    unknown_messages: int

    @property
    def clean(self) -> bool:
        return self.reports > 0 and self.damaged_frames == 0 and self.lost_reports == 0


@dataclass(frozen=True)
class Probe:
    """What :func:`probe` found: the link's status, and its health once a board answered."""

    status: BridgeStatus
    health: LinkHealth | None = None


def probe(port: str | None, seconds: float, watch_seconds: float = 0.0) -> Probe:
    """The link's status once a Pitwatch board has shaken hands on ``port`` (None: on any serial
    port), or after ``seconds`` without one: the status then says why. With ``watch_seconds``, the
    reports of a board that answered are watched that long, for its :class:`LinkHealth`. The port
    is closed again."""
    reports = 0

    def count(_frame: SensorFrame) -> None:
        nonlocal reports
        reports += 1

    bridge = Bridge(port, on_reading=count).start()
    try:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not bridge.status.connected:
            time.sleep(0.05)
        before = bridge.status
        if not before.connected or watch_seconds <= 0:
            return Probe(before)
        reports = 0
        time.sleep(watch_seconds)
        after = bridge.status
        return Probe(after, LinkHealth(watch_seconds, reports, after.bad_frames - before.bad_frames,
                                       after.lost_reports - before.lost_reports,
                                       after.unknown_messages - before.unknown_messages))
    finally:
        bridge.stop()
