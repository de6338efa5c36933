"""Framing and messages: every frame survives the round trip, every damaged one is named."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, strategies as st

from firmware_bridge import framing
from firmware_bridge import protocol as p


@given(st.binary(max_size=600))
def test_cobs_round_trip_has_no_zero_bytes(data):
    encoded = framing.cobs_encode(data)
    assert 0 not in encoded
    assert framing.cobs_decode(encoded) == data


@given(st.lists(st.tuples(st.integers(0, 255), st.integers(0, 255), st.integers(0, 255),
                          st.sampled_from(list(p.LedMode))), min_size=1, max_size=p.MAX_PITS),
       st.integers(0, 255))
def test_led_frames_round_trip(leds, seq):
    message = p.SetLeds(tuple(p.Led(*led) for led in leds))
    frame = framing.decode_frame(message.frame(seq)[:-1])
    assert frame.seq == seq and p.decode_message(frame) == message


@pytest.mark.parametrize("message", [
    p.Hello(), p.SetPits(14), p.Ping(), p.SetLed(3, p.Led(1, 2, 3, p.LedMode.PULSE)),
    p.Ack(9, p.MessageType.SET_LEDS, p.Status.BAD_VALUE),
    p.Info(p.Info.BOOT, 1, (1, 0, 0), 0x50570001, 32, 14, 7, 10, 20, p.ResetCause.WATCHDOG),
    p.ReportHeader(17, 123456, 1, (2, 250), 14),
    p.ReportSlice(17, 12, (1023, 0)), p.ReportSlice(200, 28, (1, 2, 3, 1000)),
    p.ButtonEvent(1, True, 5, 99), p.ErrorReport(p.ErrorCode.TOO_LONG, 300),
])
def test_every_message_round_trips(message):
    assert p.decode_message(framing.decode_frame(message.frame(200)[:-1])) == message


def test_every_single_byte_error_is_detected():
    frame = p.SetLeds(tuple(p.Led(i, 255 - i, 7 * i % 256) for i in range(14))).frame(42)[:-1]
    for i in range(len(frame)):
        for flip in (0x01, 0x80, 0xFF, 0x5A):
            damaged = bytearray(frame)
            damaged[i] ^= flip
            if 0 in damaged:
                continue  # a new delimiter splits the frame: each half fails on its own
            with pytest.raises(p.ProtocolError):
                framing.decode_frame(bytes(damaged))


def test_a_lost_zero_the_crc_misses_is_caught_by_the_length_check():
    """The soak test's one false accept: this ACK's CRC register is zero after its type, seq and
    first two payload bytes, so the CRC cannot see a zero lost after them (2**-16 of frames);
    the ACK's fixed length can."""
    ack = p.Ack(0x3C, p.MessageType.SET_LED, p.Status.OK).frame(0xDF)[:-1]
    assert ack == bytes((5, 0x80, 0xDF, 0x3C, 5, 1, 1, 1))  # type seq payload (3C 05 00) CRC (00 00)
    damaged = ack[:-1]  # one zero (a COBS block of 1) lost on the wire
    frame = framing.decode_frame(damaged)
    assert frame.payload == bytes((0x3C, 5))
    with pytest.raises(p.ProtocolError, match="ACK"):
        p.decode_message(frame)


@pytest.mark.parametrize("payload, message", [
    (bytes((2, 1, 0, 0)), "does not match its pit count"),
    (bytes((1, 9, 0, 0, 0)), "9 is not a valid LedMode"),
])
def test_bad_payloads_are_named(payload, message):
    with pytest.raises(p.ProtocolError, match=message):
        p.decode_message(framing.Frame(p.MessageType.SET_LEDS, 0, payload))


def test_unknown_type_is_named():
    with pytest.raises(p.ProtocolError, match="unknown message type 0x42"):
        p.decode_message(framing.Frame(0x42, 0, b""))


def received(messages: list[p.Message]) -> list[p.Message]:
    """The messages as the host decodes them from the wire."""
    return [p.decode_message(framing.decode_frame(m.frame(n)[:-1])) for n, m in enumerate(messages)]


@pytest.mark.parametrize("pits", [1, 4, 14, 32])
def test_a_report_travels_in_short_frames_and_is_put_back_together(pits):
    report = p.Report(987654, 2, (7, 255), tuple(range(1023, 1023 - 31 * pits, -31)))
    messages = report.messages(300)
    longest = max(len(m.frame(255)) for m in messages)
    assert longest <= 16, f"a report frame of {longest} bytes would hold an ACK back longer than 1.4 ms"
    assembler = p.ReportAssembler()
    results = [assembler.add(m) for m in received(messages)]
    assert results[:-1] == [None] * (len(messages) - 1) and results[-1] == report
    assert assembler.add(received(messages)[-1]) is None, "a duplicate slice completed the report twice"


def test_a_report_missing_a_slice_is_dropped_never_mixed_with_the_next():
    first = p.Report(1000, 0, (0, 0), tuple(range(100, 114)))
    second = p.Report(1035, 0, (0, 0), tuple(range(500, 514)))
    assembler = p.ReportAssembler()
    lost_one = received(first.messages(8))
    del lost_one[2]
    assert [assembler.add(m) for m in lost_one] == [None] * len(lost_one)
    # The slices of the next scan, whose header was lost, fill nothing either: a report lost, counted once
    assert [assembler.add(m) for m in received(second.messages(9))[1:]] == [None] * 4
    assert [assembler.add(m) for m in received(second.messages(10))][-1] == second
    assert assembler.dropped == 2


def test_the_end_of_a_report_sent_before_the_port_opened_is_not_a_lost_report():
    """The host throws away what waited on the port as it opens it, so the first frames it reads may be the
    last slices of a report whose header it threw away: no frame was lost on the cable."""
    report = p.Report(1000, 0, (0, 0), tuple(range(100, 114)))
    assembler = p.ReportAssembler()
    assert [assembler.add(m) for m in received(report.messages(3))[2:]] == [None] * 3
    assert [assembler.add(m) for m in received(report.messages(4))][-1] == report
    assert assembler.dropped == 0


@pytest.mark.parametrize("message_type, payload, message", [
    (p.MessageType.REPORT_SLICE, bytes((1, 0)), "expected 2 + 2 per pit for 1 to 4 pits"),
    (p.MessageType.REPORT_SLICE, bytes((1, 0)) + bytes(10), "expected 2 + 2 per pit for 1 to 4 pits"),
    (p.MessageType.REPORT_SLICE, bytes((1, 30, 1, 0, 2, 0, 3, 0)), "reaches past pit 31"),
    (p.MessageType.REPORT, bytes((1, 0, 0, 0, 0, 0, 0, 0, 33)), "announces 33 pits"),
    (p.MessageType.REPORT, bytes(4), "REPORT payload is 4 bytes, expected 9"),
])
def test_bad_report_frames_are_named(message_type, payload, message):
    with pytest.raises(p.ProtocolError, match=re.escape(message)):
        p.decode_message(framing.Frame(message_type, 0, payload))


@pytest.mark.parametrize("make, message", [
    (lambda: p.SetPits(300), "SetPits.count must be an integer from 1 to 32, not 300"),
    (lambda: p.SetPits(0), "SetPits.count must be an integer from 1 to 32, not 0"),
    (lambda: p.Hello(999), "Hello.version must be an integer from 0 to 255, not 999"),
    (lambda: p.Hello(-1), "Hello.version must be an integer from 0 to 255, not -1"),
    (lambda: p.Hello("2"), "Hello.version must be an integer from 0 to 255, not '2'"),
    (lambda: p.SetLed(32, p.Led()), "SetLed.pit must be an integer from 0 to 31, not 32"),
    (lambda: p.SetLed(0, (1, 2, 3)), "SetLed.led must be a Led, not (1, 2, 3)"),
    (lambda: p.ErrorReport(p.ErrorCode.BAD_FRAME, 70000), "ErrorReport.count must be an integer from 0 to 65535"),
])
def test_a_field_out_of_range_is_a_protocol_error_naming_it(make, message):
    """Not a struct.error when the frame is packed: the field and its range, when the message is made."""
    with pytest.raises(p.ProtocolError, match=re.escape(message)):
        make()


def test_a_set_pits_out_of_range_from_the_wire_is_a_bad_value():
    """What the device answers with BAD_VALUE (the emulator decodes it to find out)."""
    with pytest.raises(p.BadValue, match="SetPits.count"):
        p.decode_message(framing.Frame(p.MessageType.SET_PITS, 0, bytes((33,))))
    with pytest.raises(p.BadValue, match="SetLed.pit"):
        p.decode_message(framing.Frame(p.MessageType.SET_LED, 0, bytes((40, 1, 0, 0, 0))))
