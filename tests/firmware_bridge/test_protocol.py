"""Framing and messages: every frame survives the round trip, every damaged one is named."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from firmware_bridge import protocol as p


@given(st.binary(max_size=600))
def test_cobs_round_trip_has_no_zero_bytes(data):
    encoded = p.cobs_encode(data)
    assert 0 not in encoded
    assert p.cobs_decode(encoded) == data


@given(st.lists(st.tuples(st.integers(0, 255), st.integers(0, 255), st.integers(0, 255),
                          st.sampled_from(list(p.LedMode))), min_size=1, max_size=p.MAX_PITS),
       st.integers(0, 255))
def test_led_frames_round_trip(leds, seq):
    message = p.SetLeds(tuple(p.Led(*led) for led in leds))
    frame = p.decode_frame(message.frame(seq)[:-1])
    assert frame.seq == seq and p.decode_message(frame) == message


@pytest.mark.parametrize("message", [
    p.Hello(), p.SetPits(14), p.Ping(), p.SetLed(3, p.Led(1, 2, 3, p.LedMode.PULSE)),
    p.Ack(9, p.MessageType.SET_LEDS, p.Status.BAD_VALUE),
    p.Info(p.Info.BOOT, 1, (1, 0, 0), 0x50570001, 32, 14, 7, 10, 20, p.ResetCause.WATCHDOG),
    p.Report(123456, 1, (2, 250), tuple(range(0, 1024, 73))),
    p.ButtonEvent(1, True, 5, 99), p.ErrorReport(p.ErrorCode.TOO_LONG, 300),
])
def test_every_message_round_trips(message):
    assert p.decode_message(p.decode_frame(message.frame(200)[:-1])) == message


def test_every_single_byte_error_is_detected():
    frame = p.SetLeds(tuple(p.Led(i, 255 - i, 7 * i % 256) for i in range(14))).frame(42)[:-1]
    for i in range(len(frame)):
        for flip in (0x01, 0x80, 0xFF, 0x5A):
            damaged = bytearray(frame)
            damaged[i] ^= flip
            if 0 in damaged:
                continue  # a new delimiter splits the frame: each half fails on its own
            with pytest.raises(p.ProtocolError):
                p.decode_frame(bytes(damaged))


@pytest.mark.parametrize("payload, message", [
    (bytes((2, 1, 0, 0)), "does not match its pit count"),
    (bytes((1, 9, 0, 0, 0)), "9 is not a valid LedMode"),
])
def test_bad_payloads_are_named(payload, message):
    with pytest.raises(p.ProtocolError, match=message):
        p.decode_message(p.Frame(p.MessageType.SET_LEDS, 0, payload))


def test_unknown_type_is_named():
    with pytest.raises(p.ProtocolError, match="unknown message type 0x42"):
        p.decode_message(p.Frame(0x42, 0, b""))
