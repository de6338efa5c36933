"""Stop-and-wait delivery of one host command at a time: the acknowledgement and the retries.

The lower of the host's two layers (``bridge`` owns the connection and uses a
:class:`Link` per open port). One command is in flight at a time, retried with
the same sequence number until acknowledged, then reported as failed. Never
more than one frame travels towards the device, so the host cannot stream into
it while it is busy writing the LEDs.

The exceptions say how a command ended when it did not succeed; the bridge
turns every one of them into a status, never into an error for its caller.
"""

from __future__ import annotations

import threading
from typing import Callable

import serial

from . import protocol as p


class LinkLost(Exception):
    """The port failed or the device stopped answering; the text says which and where."""


class CommandFailed(LinkLost):
    """A command was not acknowledged after every attempt."""


class LinkCancelled(LinkLost):
    """The link was cancelled (the bridge is stopping): nobody waits for the answer any more."""


class CommandRejected(Exception):
    """The device understood a command and refused it (the ACK's status says why)."""


class Link:
    """Stop-and-wait delivery of host commands over any byte writer.

    ``write`` sends bytes; the owner feeds every received frame to
    :meth:`frame_received`. ``command()`` blocks its (bridge) thread until
    the answer comes, so it is never called from the application's thread.
    """

    def __init__(self, write: Callable[[bytes], None], *, ack_timeout: float = 0.1, attempts: int = 4) -> None:
        self._write = write
        self.ack_timeout = ack_timeout
        self.attempts = attempts
        self._one_at_a_time = threading.Lock()
        self._answered = threading.Condition()
        self._waiting_for: tuple[int, int] | None = None  # (seq, type) of the command in flight
        self._answer: p.Message | None = None
        self._seq = 0
        self._cancelled = False
        self.sent = 0
        self.retries = 0
        self.failed = 0

    def cancel(self) -> None:
        """End the command in flight, and every later one, at once with :class:`LinkCancelled`:
        a bridge that is stopping must not wait seconds for a handshake nobody wants any more."""
        with self._answered:
            self._cancelled = True
            self._answered.notify_all()

    def command(self, message: p.Message) -> p.Message:
        """Send ``message`` until it is answered; the ACK (or INFO for HELLO) is returned.

        Raises :class:`CommandFailed` when every attempt timed out,
        :class:`CommandRejected` when the device answered with an error status and
        :class:`LinkCancelled` once :meth:`cancel` has been called.
        """
        with self._one_at_a_time:
            self._seq = (self._seq + 1) & 0xFF
            frame = message.frame(self._seq)
            for attempt in range(self.attempts):
                with self._answered:
                    if self._cancelled:
                        raise LinkCancelled(f"{message.TYPE.name} cancelled: the bridge is stopping")
                    self._waiting_for, self._answer = (self._seq, message.TYPE), None
                try:
                    self._write(frame)
                except (serial.SerialException, OSError) as error:
                    raise LinkLost(f"writing to the port failed: {error}") from None
                self.sent += 1
                with self._answered:
                    self._answered.wait_for(lambda: self._answer is not None or self._cancelled, self.ack_timeout)
                    answer, self._waiting_for = self._answer, None
                if answer is not None:
                    if isinstance(answer, p.Ack) and answer.status != p.Status.OK:
                        reason = getattr(answer.status, "name", f"status {answer.status}")
                        raise CommandRejected(f"device refused {message.TYPE.name}: {reason}")
                    return answer
                if attempt + 1 < self.attempts:
                    self.retries += 1
            self.failed += 1
            raise CommandFailed(f"{message.TYPE.name} not acknowledged after {self.attempts} attempts")

    def frame_received(self, message: p.Message) -> None:
        """Offer a received message: an ACK of the command in flight, or the INFO answering its
        HELLO, completes it. Sequence numbers start again with every session, so an answer must
        match the command's type as well as its seq: a stale ACK of the last session's LED frame
        is no answer to this session's HELLO."""
        if isinstance(message, p.Ack):
            answers = (message.seq, message.command)
        elif isinstance(message, p.Info):  # a boot banner's reply_to (BOOT) is no seq
            answers = (message.reply_to, p.MessageType.HELLO)
        else:
            return
        with self._answered:
            if answers == self._waiting_for:
                self._answer = message
                self._answered.notify_all()
