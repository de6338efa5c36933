/* Pitwatch serial protocol, version 2: the device's copy of the constants.
 * The reference is firmware_bridge/framing.py and protocol.py, and docs/protocol.md; the
 * conformance tests hold this firmware and the Python emulator to the same
 * behaviour. Frames: COBS(type, seq, payload, crc16 LE) followed by 0x00. */
#ifndef PITWATCH_PROTOCOL_H
#define PITWATCH_PROTOCOL_H

#define PROTOCOL_VERSION 2
#define MAX_PITS 32
#define BUTTONS 2
#define MAX_BODY (2 + 1 + 4 * MAX_PITS + 2) /* a whole-board LED frame with its CRC */
#define MAX_ENCODED (MAX_BODY + MAX_BODY / 254 + 1)
#define SLICE_PITS 4 /* pit values per REPORT_SLICE: 16 bytes on the wire, 1.4 ms at 115200 baud */

enum message_type {
    MSG_HELLO = 0x01, MSG_SET_PITS = 0x02, MSG_SET_LEDS = 0x03, MSG_PING = 0x04, MSG_SET_LED = 0x05,
    MSG_ACK = 0x80, MSG_INFO = 0x81, MSG_REPORT = 0x82, MSG_BUTTON = 0x83, MSG_ERROR = 0x84,
    MSG_REPORT_SLICE = 0x85,
};

/* Test builds only (make test-hooks, -DPITWATCH_TEST_HOOKS): acknowledge, then stop feeding
 * the watchdog, so a test can watch it reset the chip. The production image does not know it. */
#define MSG_TEST_STALL 0x7F
/* Test builds only: keep interrupts off for 1 ms, as a firmware writing 32 LEDs in one block
 * would, so a test can show that the harness's 2-byte receive buffer model catches the overrun. */
#define MSG_TEST_MASK_IRQ 0x7E
/* Test builds only: stop discarding the conversion after each multiplexer switch, so a test can
 * show that the harness's settling model catches the crosstalk that this would let through. */
#define MSG_TEST_NO_SETTLE 0x7D

enum status { ST_OK = 0, ST_BAD_LENGTH = 1, ST_BAD_VALUE = 2, ST_UNKNOWN_TYPE = 3 };
enum error_code { ERR_BAD_FRAME = 1, ERR_TOO_LONG = 2 };
enum led_mode { LED_OFF = 0, LED_ON = 1, LED_BLINK = 2, LED_PULSE = 3 };
enum capability { CAP_SENSORS = 1, CAP_LEDS = 2, CAP_BUTTONS = 4 };
enum reset_cause { RC_UNKNOWN = 0, RC_POWER_ON = 1, RC_EXTERNAL = 2, RC_BROWN_OUT = 3, RC_WATCHDOG = 4 };

#define INFO_BOOT 0xFFFF /* reply_to of the INFO sent unasked at boot */

#endif
