"""The real Pitwatch firmware running on simavr, driven from Python.

:class:`SimavrBoard` offers the same control surface as
:class:`firmware_bridge.emulator.EmulatedBoard` (``port``, ``set_counts``,
``press``, ``hold``, ``release``, ``reset``, ``unplug``, ``replug``, ``shown``) so one conformance
suite runs against both. Behind it is ``pitwatch-harness`` (``harness.c``):
the firmware's UART on a pty, time paced to the wall clock, sensor voltages
fed through the multiplexer select pins and the WS2812 line decoded at the pin.
"""

from __future__ import annotations

import queue
import subprocess
import threading
import time
from pathlib import Path
from typing import Callable, NamedTuple, Sequence

from ..emulator import SensorModel
from ..protocol import BUTTONS, MAX_PITS, MessageType

HERE = Path(__file__).resolve().parent
FIRMWARE_DIR = HERE.parent / "firmware"
MCUS = ("atmega328p", "atmega2560")
PRESS_MS = 30  # held this long, then released as long: the firmware debounces for 10 ms
# How long to wait for the harness to answer a request. It answers between emulated steps, at
# once on an idle machine; one busy with other tests and emulators can hold it back for seconds.
ANSWER_TIMEOUT_S = 10.0


class HarnessError(RuntimeError):
    """The harness or the firmware could not be built or started; the text says why."""


class Build(NamedTuple):
    """What :func:`build` made: the harness binary and, per MCU, the firmware images."""

    harness: Path
    firmware: dict[str, Path]  # the production image, as flashed on a real board
    test_hooks: dict[str, Path]  # the same firmware with -DPITWATCH_TEST_HOOKS (TEST_STALL), for tests only


def build(out_dir: Path, device_id: int | None = None) -> Build:
    """Build the harness and both firmware images for every MCU into ``out_dir`` with make;
    ``device_id`` as ``make DEVICE_ID=...`` gives the board's id (else the firmware's default)."""
    out_dir = Path(out_dir)
    firmware_goals = ["all", "test-hooks"] + ([] if device_id is None else [f"DEVICE_ID={device_id:#010x}"])
    for source, target, goals in ((HERE, out_dir / "harness", ["all"]),
                                  (FIRMWARE_DIR, out_dir / "firmware", firmware_goals)):
        result = subprocess.run(["make", "-C", str(source), f"BUILD={target}", *goals], capture_output=True, text=True)
        if result.returncode != 0:
            raise HarnessError(f"make in {source} failed:\n{result.stdout}{result.stderr}")
    images = out_dir / "firmware"
    return Build(out_dir / "harness" / "pitwatch-harness",
                 {mcu: images / mcu / "pitwatch.elf" for mcu in MCUS},
                 {mcu: images / mcu / "pitwatch-test-hooks.elf" for mcu in MCUS})


class Answer(NamedTuple):
    """How long the chip took to acknowledge one command, in emulated time (see SimavrBoard.answers)."""

    seconds: float  # from the command's delimiter arriving at the chip (at the wire's pace) to its ACK's leaving it
    frames_before: int  # other frames (reports, button events) that left the chip meanwhile


class UartStats(NamedTuple):
    """The harness's model of the chip's 2-byte receive buffer (harness.c, "uart")."""

    received: int  # host bytes that reached the enabled receiver, at the wire's pace
    overruns: int  # bytes that arrived while 2 were unread: a real AVR would have lost them
    most_unread: int  # the fullest the 2-byte buffer ever was


class SimavrBoard:
    """One emulated board. ``link``: a symlink path that stays valid across unplug/replug."""

    def __init__(self, harness: Path, firmware: Path, mcu: str = "atmega328p", *,
                 link: str | Path | None = None, sensor: SensorModel = SensorModel()) -> None:
        if mcu not in MCUS:
            raise ValueError(f"mcu must be one of {MCUS}, not {mcu!r}")
        self.harness, self.firmware, self.mcu = Path(harness), Path(firmware), mcu
        self.link = None if link is None else Path(link)
        self.sensor = sensor
        self._millivolts = [sensor.millivolts(i, 0) for i in range(MAX_PITS)]
        self._process: subprocess.Popen | None = None
        self._pty = ""
        self._frames: list[tuple[float, tuple[tuple[int, int, int], ...]]] = []
        self._changed = threading.Condition()
        self._peeks: queue.Queue[int] = queue.Queue()
        self._nows: queue.Queue[int] = queue.Queue()
        self._uart: queue.Queue[UartStats] = queue.Queue()
        self._presses: queue.Queue[int] = queue.Queue()
        self.errors: list[str] = []
        # While tracing: (direction "in" or "out", message type, emulated time in us) per UART frame.
        self.uart_frames: list[tuple[str, int, int]] = []

    # ------------------------------------------------------------ power and cable

    def start(self, run: bool = True) -> "SimavrBoard":
        """Start the emulator; the chip stays in reset until :meth:`run` unless ``run``."""
        self._process = subprocess.Popen([str(self.harness), self.mcu, str(self.firmware)], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
        first = self._process.stdout.readline().split()
        if first[:1] != ["pty"]:
            self.stop()
            raise HarnessError(f"harness did not start: first line was {' '.join(first)!r}")
        self._pty = first[1]
        if self.link is not None:
            tmp = self.link.with_name(self.link.name + ".new")
            tmp.unlink(missing_ok=True)
            tmp.symlink_to(self._pty)
            tmp.replace(self.link)
        threading.Thread(target=self._read_events, args=(self._process,), daemon=True).start()
        self._send_millivolts()
        if run:
            self.run()
        return self

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        try:
            process.stdin.write("quit\n")
            process.stdin.flush()
            process.wait(timeout=2)
        except (OSError, subprocess.TimeoutExpired):
            process.kill()
            process.wait()
        try:
            process.stdin.close()
        except OSError:  # the harness went first: the last bytes could not be flushed
            pass
        if self.link is not None:
            self.link.unlink(missing_ok=True)

    def __enter__(self) -> "SimavrBoard":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def run(self) -> None:
        """Release the reset line: the firmware boots."""
        self._send("run")

    def reset(self) -> None:
        """Press the reset button: the firmware reboots at once."""
        self._send("reset")

    def unplug(self) -> None:
        """Pull the USB cable: board unpowered, port gone."""
        self.stop()

    def replug(self) -> None:
        """Plug it back in: a fresh boot on a new pty (same ``port`` when a link is used)."""
        self._frames.clear()
        self.start()

    @property
    def port(self) -> str:
        return str(self.link) if self.link is not None else self._pty

    # ------------------------------------------------------------ the world around the chip

    def set_counts(self, counts: Sequence[int]) -> int | None:
        """Put ``counts[i]`` seeds on pit ``i``'s sensor (the rest read empty), all at once.

        Returns the chip's uptime in ms when the change happened (its own clock, the one its
        reports carry), or None while the board is unplugged.
        """
        self._millivolts = [self.sensor.millivolts(pit, counts[pit] if pit < len(counts) else 0)
                            for pit in range(MAX_PITS)]
        return self._send_millivolts(stamp=True)

    def set_millivolts(self, pit: int, millivolts: int) -> None:
        self._millivolts[pit] = millivolts
        self._send(f"mv {pit} {millivolts}")

    def _send_millivolts(self, stamp: bool = False) -> int | None:
        """Send every pit's voltage in one write (well under PIPE_BUF), so the harness sees the whole
        board change in one step; with ``stamp``, a "now" in the same write says when that was."""
        lines = [f"mv {pit} {mv}" for pit, mv in enumerate(self._millivolts)] + (["now"] if stamp else [])
        if self._process is None:
            return None  # unplugged: the world changes, the board does not see it
        self._send("\n".join(lines))
        if not stamp:
            return None
        try:
            return self._nows.get(timeout=ANSWER_TIMEOUT_S) // 1000
        except queue.Empty:
            raise HarnessError("the harness did not answer now") from None

    def press(self, button: int) -> None:
        """Press and release ``button`` (0 = confirm, 1 = undo), long enough to pass the debounce."""
        if button not in range(BUTTONS):
            raise ValueError(f"button must be 0..{BUTTONS - 1}, not {button}")
        self._send(f"press {button} {PRESS_MS}")
        try:
            self._presses.get(timeout=ANSWER_TIMEOUT_S)  # held and released in emulated time, however busy we are
        except queue.Empty:
            raise HarnessError(f"the harness did not finish pressing button {button}") from None

    def hold(self, button: int) -> None:
        """Hold ``button`` down until :meth:`release` (a press the firmware sees after its debounce)."""
        self._button(button, True)

    def release(self, button: int) -> None:
        self._button(button, False)

    def _button(self, button: int, down: bool) -> None:
        if button not in range(BUTTONS):
            raise ValueError(f"button must be 0..{BUTTONS - 1}, not {button}")
        self._send(f"button {button} {int(down)}")

    # ------------------------------------------------------------ what the LEDs show

    def shown(self) -> tuple[tuple[int, int, int], ...]:
        """The colours on the LED chain after its last latch (as decoded at the pin)."""
        with self._changed:
            return self._frames[-1][1] if self._frames else ()

    def wait_for_leds(self, predicate: Callable[[tuple[tuple[int, int, int], ...]], bool],
                      timeout: float = 2.0, since: float = 0.0) -> tuple[tuple[int, int, int], ...] | None:
        """Wait until a frame latched at the pin (after ``time.monotonic()`` = ``since``)
        satisfies ``predicate``; that frame, or None."""
        deadline = time.monotonic() + timeout
        seen = 0
        with self._changed:
            while True:
                for latched, frame in self._frames[seen:]:
                    if latched >= since and predicate(frame):
                        return frame
                seen = len(self._frames)
                left = deadline - time.monotonic()
                if left <= 0 or not self._changed.wait(left):
                    return None

    def trace(self, on: bool) -> None:
        """Start (or stop) collecting every frame that crosses the UART in :attr:`uart_frames`,
        stamped with emulated time: the firmware's own answer times, whatever the host's load."""
        self._send(f"trace {'on' if on else 'off'}")

    def answers(self, command: int) -> list[Answer]:
        """For every traced ``command`` frame fed to the chip, how long until the next ACK left it.

        Emulated time, so load on the host machine does not change it: what the firmware
        itself adds to a round trip (the wire time of the command and the ACK included).
        """
        answers, fed_at, between = [], None, 0
        for direction, message_type, microseconds in list(self.uart_frames):
            if direction == "in":
                fed_at, between = (microseconds if message_type == command else None), 0
            elif fed_at is None:
                continue
            elif message_type == MessageType.ACK:
                answers.append(Answer((microseconds - fed_at) / 1e6, between))
                fed_at = None
            else:
                between += 1
        return answers

    def uart_stats(self, timeout: float = ANSWER_TIMEOUT_S) -> UartStats:
        """What the harness's 2-byte receive buffer model has seen since the harness started."""
        self._send("uart")
        try:
            return self._uart.get(timeout=timeout)
        except queue.Empty:
            raise HarnessError("the harness did not answer uart") from None

    def peek(self, address: int, timeout: float = ANSWER_TIMEOUT_S) -> int:
        """The byte at data-space ``address`` (an I/O register or RAM) of the running chip."""
        self._send(f"peek {address}")
        try:
            return self._peeks.get(timeout=timeout)
        except queue.Empty:
            raise HarnessError(f"the harness did not answer peek {address}") from None

    # ------------------------------------------------------------ plumbing

    def _send(self, line: str) -> None:
        if self._process is None:
            return  # unplugged: the world may change, the board does not see it
        try:
            self._process.stdin.write(line + "\n")
            self._process.stdin.flush()
        except OSError as error:
            raise HarnessError(f"the harness has gone: {error}") from None

    def _read_events(self, process: subprocess.Popen) -> None:
        with process.stdout:  # closed when the harness has gone (end of file)
            for line in process.stdout:
                words = line.split()
                if words[:1] == ["leds"]:
                    colours = tuple((int(w[0:2], 16), int(w[2:4], 16), int(w[4:6], 16)) for w in words[2:])
                    with self._changed:
                        self._frames.append((time.monotonic(), colours))
                        del self._frames[:-1000]
                        self._changed.notify_all()
                elif words[:1] == ["pressed"]:
                    self._presses.put(int(words[1]))
                elif words[:1] == ["peek"]:
                    self._peeks.put(int(words[2]))
                elif words[:1] == ["now"]:
                    self._nows.put(int(words[1]))
                elif words[:1] == ["uart"] and len(words) == 4 and words[1].isdigit():
                    self._uart.put(UartStats(*map(int, words[1:])))
                elif words[:1] == ["uart"]:
                    self.uart_frames.append((words[1], int(words[2], 16), int(words[3])))
                elif words[:1] == ["error"]:
                    self.errors.append(line.strip())
