/* Pitwatch pit-sensor board firmware (plain avr-libc, ATmega328P / ATmega2560).
 *
 * Reads one analog sensor per pit through 74HC4067 multiplexers, drives one
 * WS2812 LED per pit, debounces two buttons, and speaks protocol v2
 * (docs/protocol.md) at 115200 baud.
 *
 * Shape: interrupts do the timing-critical minimum (1 kHz tick, ADC scan,
 * UART bytes into bounded ring buffers); the main loop does everything else
 * and never waits: when there is nothing to do it sleeps until the next
 * interrupt. A watchdog resets the chip if the loop ever stalls.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <avr/wdt.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <util/atomic.h>
#include <util/crc16.h>
#ifdef PITWATCH_TEST_HOOKS
#include <util/delay.h>
#endif

#include "board.h"
#include "protocol.h"

#define FIRMWARE_MAJOR 2
#define FIRMWARE_MINOR 2
#define FIRMWARE_PATCH 1
#define BAUD 115200UL
#define BAUD_TOL 3            /* 16 MHz gives 115200 only to 2.1 %: within every USB bridge's tolerance */
#include <util/setbaud.h>
#define REPORT_HZ 20
#define REPORT_EVERY_MS 30   /* checked as each set of scans completes (<= 21 ms apart): <= 45 ms between reports */
#define OVERSAMPLE 4          /* scans averaged per published value (a "set" of scans) */
#define CHANGE_THRESHOLD 3    /* ADC steps that count as a change worth reporting at once */
#define DEBOUNCE_MS 10
#define ANIMATION_MS 20       /* blink/pulse refresh: 50 Hz */
#define RX_SIZE 256           /* power of two, at most 256; commands that wait for room for their replies (see receive) */
#define REPLY_SIZE 64         /* power of two; an INFO (22 bytes) and a few ACKs and ERRORs */
#define REPLY_ROOM 22         /* bytes on the wire of the longest reply, INFO: type, seq, 16 bytes, CRC, COBS, delimiter */
_Static_assert(REPLY_ROOM < REPLY_SIZE, "the reply queue must hold the longest reply, or receive waits for ever");
#define STREAM_SIZE 256       /* power of two; one whole 32-pit report (143 bytes) and button events */
#ifndef DEVICE_ID
#define DEVICE_ID (0x50570000UL | BOARD_CODE)
#endif
_Static_assert(DEVICE_ID <= 0xFFFFFFFFUL, "DEVICE_ID must fit in 32 bits (make DEVICE_ID=0x12345678)");

/* ------------------------------------------------------------------ time */

static volatile uint32_t ticks_ms;

ISR(TIMER0_COMPA_vect) { ticks_ms++; }

static uint32_t now_ms(void)
{
    uint32_t t;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { t = ticks_ms; }
    return t;
}

static void timer_init(void)
{
    TCCR0A = _BV(WGM01);              /* CTC */
    TCCR0B = _BV(CS01) | _BV(CS00);   /* clk/64: 250 kHz */
    OCR0A = F_CPU / 64 / 1000 - 1;    /* 1 kHz */
    TIMSK0 = _BV(OCIE0A);
}

/* ------------------------------------------------------------------ UART */

static volatile uint8_t rx_buf[RX_SIZE], rx_head, rx_tail;
static volatile bool rx_overrun;      /* bytes were lost after the last one in rx_buf */

/* Two send queues of whole COBS frames. Replies (ACK, INFO, ERROR) go ahead of the
 * stream (REPORT, REPORT_SLICE, BUTTON): the transmit interrupt takes a waiting reply
 * at every frame boundary, so an acknowledgement waits at most for the one stream
 * frame already on the wire (16 bytes, 1.4 ms), never for a whole report. Except
 * straight after a reply: then a waiting stream frame goes first. A host that sends
 * commands back to back keeps replies waiting all the time (see receive), and would
 * otherwise stop the reports for as long as it kept on; a lone ACK never meets this.
 * The stream keeps its own order: a BUTTON event and a REPORT both carry the press
 * counters, and the host must never see a counter go backwards.
 * Each queue numbers its frames (the frame's seq), so gaps show lost frames. */
struct tx_queue {
    volatile uint8_t *buf;
    uint8_t mask;                     /* size - 1 */
    volatile uint8_t head, tail;
    uint8_t seq;
};
static volatile uint8_t reply_buf[REPLY_SIZE], stream_buf[STREAM_SIZE];
static struct tx_queue replies = {.buf = reply_buf, .mask = REPLY_SIZE - 1};
static struct tx_queue stream = {.buf = stream_buf, .mask = STREAM_SIZE - 1};

static uint8_t tx_free(const struct tx_queue *q)
{
    return (uint8_t)(q->tail - q->head - 1) & q->mask;
}

static bool tx_idle(const struct tx_queue *q)
{
    return q->head == q->tail;
}

ISR(UART_RX_VECT)
{
    uint8_t byte = UDR0;
    uint8_t next = (rx_head + 1) & (RX_SIZE - 1);
    /* Full: the byte is lost, and so is every later one until the main loop has taken in
     * everything before it. So there is only ever one gap, at the end of rx_buf, and the main
     * loop knows exactly which frame it broke (see receive). */
    if (rx_overrun || next == rx_tail) {
        rx_overrun = true;
        return;
    }
    rx_buf[rx_head] = byte;
    rx_head = next;
}

ISR(UART_UDRE_VECT)
{
    static struct tx_queue *on_wire;  /* the queue whose frame is being sent; NULL between frames */
    static struct tx_queue *last;     /* the queue whose frame was sent last */
    struct tx_queue *q = on_wire;
    if (!q)
        q = !tx_idle(&replies) && (last != &replies || tx_idle(&stream)) ? &replies : &stream;
    if (q->head == q->tail) {         /* between frames and both queues empty */
        UCSR0B &= ~_BV(UDRIE0);
        return;
    }
    uint8_t byte = q->buf[q->tail];
    q->tail = (q->tail + 1) & q->mask;
    UDR0 = byte;
    on_wire = byte ? q : NULL;        /* the delimiter ends the frame */
    last = q;
}

static void uart_init(void)
{
#if USE_2X
    UCSR0A = _BV(U2X0);               /* before UBRR: simavr takes the speed when UBRR0L is written */
#else
    UCSR0A = 0;
#endif
    UBRR0H = UBRRH_VALUE;
    UBRR0L = UBRRL_VALUE;
    UCSR0C = _BV(UCSZ01) | _BV(UCSZ00);
    UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);
}

/* The oldest received byte, left in rx_buf until rx_skip: receive may not be ready for it. */
static bool rx_peek(uint8_t *byte)
{
    if (rx_head == rx_tail)
        return false;
    *byte = rx_buf[rx_tail];
    return true;
}

static void rx_skip(void)
{
    rx_tail = (rx_tail + 1) & (RX_SIZE - 1);
}

/* Whether the reply queue can take any reply: the longest, INFO, fits. */
static bool reply_room(void)
{
    return tx_free(&replies) >= REPLY_ROOM;
}

/* ------------------------------------------------------------------ framing */

static uint8_t body[MAX_BODY];        /* the frame being built for sending */
static uint8_t body_len;

static void body_start(uint8_t type)
{
    body[0] = type;
    body_len = 2;                     /* body[1], the seq, is the queue's: set by body_send */
}

static void put8(uint8_t v) { body[body_len++] = v; }
static void put16(uint16_t v) { put8(v & 0xFF); put8(v >> 8); }
static void put32(uint32_t v) { put16(v & 0xFFFF); put16(v >> 16); }

/* COBS-encode body + CRC into queue q, all or nothing: a frame that does not
 * fit is dropped whole, never cut short. Only a BUTTON event can be dropped (every
 * report repeats its counters; a report goes only into an empty stream queue). A reply
 * always fits: receive takes in a delimiter, the one thing that makes a reply, only when
 * the reply queue has room for the longest (reply_room). */
static void body_send(struct tx_queue *q)
{
    body[1] = q->seq;
    uint16_t crc = 0xFFFF;
    for (uint8_t i = 0; i < body_len; i++)
        crc = _crc_xmodem_update(crc, body[i]);
    put16(crc);
    if (tx_free(q) < body_len + body_len / 254 + 2)
        return;
    uint8_t head = q->head, code_at = head, code = 1;
    head = (head + 1) & q->mask;
    for (uint8_t i = 0; i < body_len; i++) {
        if (body[i]) {
            q->buf[head] = body[i];
            head = (head + 1) & q->mask;
            code++;
        }
        if (!body[i] || code == 0xFF) {
            q->buf[code_at] = code;
            code_at = head;
            code = 1;
            head = (head + 1) & q->mask;
        }
    }
    q->buf[code_at] = code;
    q->buf[head] = 0;
    head = (head + 1) & q->mask;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
        q->head = head;
        UCSR0B |= _BV(UDRIE0);
    }
    q->seq++;
}

/* ------------------------------------------------------------------ state */

static uint8_t pit_count = MAX_PITS;
static uint8_t leds[MAX_PITS][4];     /* mode, red, green, blue */
static bool leds_dirty = true;
static uint8_t reset_cause;
static uint16_t bad_frames;

/* Two sets of sums: the ADC interrupt fills one while the main loop reads the other. */
static volatile uint16_t adc_sum[2][MAX_PITS];
static volatile uint8_t scan_pit, scans, filling, ready;
static volatile uint8_t discard;      /* conversions still to throw away after the select pins moved */
static volatile bool scan_ready;
#ifdef PITWATCH_TEST_HOOKS
static volatile uint8_t settle_conversions = 1; /* TEST_NO_SETTLE makes it 0: samples straight after a switch */
#else
#define settle_conversions 1
#endif
static uint16_t raw[MAX_PITS], reported[MAX_PITS];

static uint8_t button_state, button_candidate, button_stable_ms;
static uint8_t presses[BUTTONS];

/* ------------------------------------------------------------------ sensors */

/* Point both multiplexers at channel pit mod 16 and the ADC at the one pit is on. */
static void mux_select(uint8_t pit)
{
    MUX_PORT = (MUX_PORT & ~MUX_SELECT_MASK) | ((pit & 0x0F) << MUX_SHIFT);
    ADMUX = _BV(REFS0) | (pit >> 4);  /* AVcc reference; ADC0 = first mux, ADC1 = second */
}

/* A scan is done: after OVERSAMPLE of them, hand the sums to the main loop. */
static inline void scan_done(void)
{
    if (++scans >= OVERSAMPLE) {
        scans = 0;
        if (!scan_ready) {            /* else the main loop is late: refill the same set */
            ready = filling;
            filling ^= 1;
            scan_ready = true;
        }
    }
}

/* Scan order, and why it throws conversions away. The select pins are shared by both
 * multiplexers, so one switch to channel c readies pit c (multiplexer 1, ADC0) and pit
 * 16 + c (multiplexer 2, ADC1). A multiplexer's output needs time to follow a switch:
 * the sensor (10 kOhm for an FSR divider) charges the multiplexer's and the cable's
 * capacitance, and the ADC samples 12 us into a conversion. So the conversion started at
 * the switch is discarded, and pit c's and then pit 16 + c's are read 104 and 208 us after
 * it, when both outputs have settled. Moving the ADC's own channel from ADC0 to ADC1
 * needs no such wait (its sample-and-hold is specified for sources up to 10 kOhm).
 * One scan: 2 conversions per channel up to 16 pits, 3 per channel beyond, about 110 us each
 * with this interrupt (32 pits: 48 conversions, 5.3 ms; 14 pits: 28, 3.1 ms); four scans make
 * a set (21 ms, 12.2 ms). */
static inline void next_channel(void)
{
    uint8_t channel = (scan_pit & 0x0F) + 1;
    if (channel >= pit_count || channel >= 16) {
        channel = 0;
        scan_done();
    }
    scan_pit = channel;
    mux_select(channel);
    discard = settle_conversions;
}

/* One conversion per interrupt: keep (or discard) the value, pick the next input, start again.
 * Constant time and short, because it may run between two LEDs of a WS2812 write, where
 * 50 us of silence would latch. */
ISR(ADC_vect)
{
    uint16_t value = ADC;             /* read before ADMUX changes */
    if (discard) {
        discard--;
    } else {
        volatile uint16_t *sum = adc_sum[filling];
        sum[scan_pit] = scans ? sum[scan_pit] + value : value; /* the first scan of a set overwrites */
        if (scan_pit < 16 && scan_pit + 16 < pit_count) {
            scan_pit += 16;           /* the same channel on the second multiplexer: already settled */
            ADMUX = _BV(REFS0) | 1;
        } else {
            next_channel();
        }
    }
    ADCSRA |= _BV(ADSC);
}

/* Average the finished set into raw[]; the interrupt is filling the other one. */
static void take_scan(void)
{
    for (uint8_t i = 0; i < pit_count; i++)
        raw[i] = adc_sum[ready][i] / OVERSAMPLE;
}

static void adc_init(void)
{
    MUX_DDR |= MUX_SELECT_MASK;
    mux_select(0);
    discard = 1;                      /* the first conversion after choosing the reference, too */
    ADCSRA = _BV(ADEN) | _BV(ADIE) | _BV(ADPS2) | _BV(ADPS1) | _BV(ADPS0); /* clk/128 = 125 kHz */
    ADCSRA |= _BV(ADSC);
}

/* One report: a REPORT header, then the pit values in REPORT_SLICE frames of
 * SLICE_PITS pits, all tagged with the same scan number. Small frames, so that a
 * reply never waits long behind one (see struct tx_queue). Sent only into an empty
 * stream queue, so the whole report always fits (15 + 8 x 16 bytes for 32 pits) and
 * the host never gets readings that waited behind an older report. */
static void send_report(uint32_t now)
{
    static uint8_t scan;
    scan++;
    body_start(MSG_REPORT);
    put8(scan);
    put32(now);
    put8(button_state);
    for (uint8_t b = 0; b < BUTTONS; b++)
        put8(presses[b]);
    put8(pit_count);
    body_send(&stream);
    for (uint8_t first = 0; first < pit_count; first += SLICE_PITS) {
        body_start(MSG_REPORT_SLICE);
        put8(scan);
        put8(first);
        for (uint8_t i = first; i < pit_count && i < first + SLICE_PITS; i++)
            put16(raw[i]);
        body_send(&stream);
    }
    memcpy(reported, raw, sizeof raw);
}

static bool changed_since_report(void)
{
    for (uint8_t i = 0; i < pit_count; i++) {
        int16_t d = (int16_t)raw[i] - (int16_t)reported[i];
        if (d >= CHANGE_THRESHOLD || d <= -CHANGE_THRESHOLD)
            return true;
    }
    return false;
}

/* ------------------------------------------------------------------ buttons */

static void buttons_init(void)
{
    BUTTON_PORT |= (uint8_t)(0x03 << BUTTON_SHIFT); /* pull-ups: a pressed button reads 0 */
}

/* Called once per millisecond; returns true when the debounced state changed. */
static bool buttons_poll(uint32_t now)
{
    uint8_t level = (uint8_t)(~BUTTON_PIN >> BUTTON_SHIFT) & 0x03;
    if (level != button_candidate) {
        button_candidate = level;
        button_stable_ms = 0;
        return false;
    }
    if (level == button_state || ++button_stable_ms < DEBOUNCE_MS)
        return false;
    for (uint8_t b = 0; b < BUTTONS; b++) {
        uint8_t bit = _BV(b);
        if ((level ^ button_state) & bit) {
            bool pressed = level & bit;
            if (pressed)
                presses[b]++;
            body_start(MSG_BUTTON);
            put8(b);
            put8(pressed);
            put8(presses[b]);
            put32(now);
            body_send(&stream);
        }
    }
    button_state = level;
    return true;
}

/* ------------------------------------------------------------------ LEDs */

/* Same formula as firmware_bridge.protocol.brightness. */
static uint8_t brightness(uint8_t mode, uint32_t now)
{
    switch (mode) {
    case LED_ON:
        return 255;
    case LED_BLINK:
        return now % 1000 < 500 ? 255 : 0;
    case LED_PULSE: {
        uint16_t phase = now % 2000;
        uint16_t level = phase < 1000 ? phase : 2000 - phase;
        return 16 + (uint32_t)level * 239 / 1000;
    }
    default:
        return 0;
    }
}

static bool animated(void)
{
    for (uint8_t i = 0; i < pit_count; i++)
        if (leds[i][0] == LED_BLINK || leds[i][0] == LED_PULSE)
            return true;
    return false;
}

/* 8 bits to the WS2812 at 16 MHz: high 6 cycles (375 ns) for a 0, 13 cycles
 * (812 ns) for a 1, about 20 cycles (1.25 us) per bit. */
static inline void ws2812_byte(uint8_t byte)
{
    uint8_t bits = 8;
    __asm__ volatile(
        "1:  sbi  %[port], %[bit]  \n\t"
        "    nop                   \n\t"
        "    nop                   \n\t"
        "    nop                   \n\t"
        "    sbrs %[byte], 7       \n\t"
        "    cbi  %[port], %[bit]  \n\t"
        "    lsl  %[byte]          \n\t"
        "    nop                   \n\t"
        "    nop                   \n\t"
        "    nop                   \n\t"
        "    nop                   \n\t"
        "    nop                   \n\t"
        "    cbi  %[port], %[bit]  \n\t"
        "    nop                   \n\t"
        "    nop                   \n\t"
        "    dec  %[bits]          \n\t"
        "    brne 1b               \n\t"
        : [byte] "+r"(byte), [bits] "+r"(bits)
        : [port] "I"(_SFR_IO_ADDR(LED_PORT)), [bit] "I"(LED_BIT));
}

/* channel * level / 255, rounded down as protocol.py's Led.shown does, without a division:
 * exact for every channel and level (checked over all 65536 pairs), and a tenth of the time of
 * avr-gcc's 16-bit division, which for 32 LEDs took over a millisecond of the main loop. */
static inline uint8_t scale(uint8_t channel, uint8_t level)
{
    uint16_t x = (uint16_t)channel * level;
    return (x + (x >> 8) + 1) >> 8;
}

/* Colours are worked out first, then streamed: between two LEDs there is only
 * the loop (a few cycles), never arithmetic that could stretch the low time
 * towards the 50 us that latches the chain early.
 * Interrupts are off for one LED at a time only (24 bits, 30 us): shorter than
 * one byte at 115200 baud (87 us), so the 2-byte UART buffer never overruns. */
static void leds_write(uint32_t now)
{
    static uint8_t grb[MAX_PITS][3];
    uint8_t level[LED_PULSE + 1];
    for (uint8_t mode = 0; mode <= LED_PULSE; mode++)
        level[mode] = brightness(mode, now);
    for (uint8_t i = 0; i < pit_count; i++) {
        uint8_t l = level[leds[i][0]];
        grb[i][0] = scale(leds[i][2], l);
        grb[i][1] = scale(leds[i][1], l);
        grb[i][2] = scale(leds[i][3], l);
    }
    for (uint8_t i = 0; i < pit_count; i++) {
        ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
            ws2812_byte(grb[i][0]);
            ws2812_byte(grb[i][1]);
            ws2812_byte(grb[i][2]);
        }
    }
    leds_dirty = false;
}

/* ------------------------------------------------------------------ commands */

static void send_info(uint16_t reply_to)
{
    body_start(MSG_INFO);
    put16(reply_to);
    put8(PROTOCOL_VERSION);
    put8(FIRMWARE_MAJOR);
    put8(FIRMWARE_MINOR);
    put8(FIRMWARE_PATCH);
    put32(DEVICE_ID);
    put8(MAX_PITS);
    put8(pit_count);
    put8(CAP_SENSORS | CAP_LEDS | CAP_BUTTONS);
    put8(10);
    put8(REPORT_HZ);
    put8(reset_cause);
    body_send(&replies);
}

static void send_ack(uint8_t seq, uint8_t type, uint8_t status)
{
    body_start(MSG_ACK);
    put8(seq);
    put8(type);
    put8(status);
    body_send(&replies);
}

static void send_error(uint8_t code)
{
    bad_frames++;
    body_start(MSG_ERROR);
    put8(code);
    put16(bad_frames);
    body_send(&replies);
}

static uint8_t set_leds(const uint8_t *p, uint8_t len)
{
    if (len < 1 || len != 1 + 4 * p[0])
        return ST_BAD_LENGTH;
    if (p[0] != pit_count)
        return ST_BAD_VALUE;
    for (uint8_t i = 0; i < p[0]; i++)
        if (p[1 + 4 * i] > LED_PULSE)
            return ST_BAD_VALUE;
    memcpy(leds, p + 1, 4 * p[0]);
    leds_dirty = true;
    return ST_OK;
}

static uint8_t set_led(const uint8_t *p, uint8_t len)
{
    if (len != 5)
        return ST_BAD_LENGTH;
    if (p[0] >= pit_count || p[1] > LED_PULSE)
        return ST_BAD_VALUE;
    memcpy(leds[p[0]], p + 1, 4);
    leds_dirty = true;
    return ST_OK;
}

static uint8_t set_pits(const uint8_t *p, uint8_t len)
{
    if (len != 1)
        return ST_BAD_LENGTH;
    if (p[0] < 1 || p[0] > MAX_PITS)
        return ST_BAD_VALUE;
    if (p[0] == pit_count)            /* told again (the host does after every handshake): the scans go on, */
        return ST_OK;                 /* or a SET_PITS late in the 30 ms held the next report back past 45 ms */
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {  /* start a fresh set of scans over the new pit count */
        pit_count = p[0];
        scan_pit = 0;
        scans = 0;
        scan_ready = false;
        mux_select(0);
        discard = 2;                  /* the conversion under way, and one more while channel 0 settles */
    }
    leds_dirty = true;
    return ST_OK;
}

/* A checked frame: carry it out and acknowledge at once. The main loop writes
 * changed LEDs straight after, while the ACK is still on the wire: the host
 * cannot send again before the whole ACK has arrived (9 bytes, 0.78 ms), by
 * which time up to 24 LEDs are written; longer chains are covered by the
 * interrupt windows between LEDs (see leds_write). */
static void handle_frame(uint8_t type, uint8_t seq, const uint8_t *p, uint8_t len)
{
    uint8_t status;
    switch (type) {
    case MSG_HELLO:
        if (len != 1) {
            send_ack(seq, type, ST_BAD_LENGTH);
            return;
        }
        send_info(seq);
        return;
    case MSG_SET_PITS: status = set_pits(p, len); break;
    case MSG_SET_LEDS: status = set_leds(p, len); break;
    case MSG_SET_LED: status = set_led(p, len); break;
    case MSG_PING: status = len == 0 ? ST_OK : ST_BAD_LENGTH; break;
#ifdef PITWATCH_TEST_HOOKS
    case MSG_TEST_STALL:
        if (len != 0) {
            status = ST_BAD_LENGTH;
            break;
        }
        send_ack(seq, type, ST_OK);
        for (;;) {}                   /* hang as a bug would: interrupts still run, nothing feeds the watchdog */
    case MSG_TEST_MASK_IRQ:
        if (len != 0) {
            status = ST_BAD_LENGTH;
            break;
        }
        ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
            _delay_us(1000);          /* as long as writing 32 LEDs in one block would keep them off */
        }
        status = ST_OK;
        break;
    case MSG_TEST_NO_SETTLE:
        status = len == 0 ? ST_OK : ST_BAD_LENGTH;
        if (len == 0)
            settle_conversions = 0;   /* sample each pit straight after the switch, as firmware 2.0 did */
        break;
#endif
    default: status = ST_UNKNOWN_TYPE; break;
    }
    send_ack(seq, type, status);
}

/* ------------------------------------------------------------------ receiving */

static uint8_t frame[MAX_ENCODED];
static uint8_t frame_len;
static bool frame_overlong;

/* Undo COBS in place; returns the decoded length or -1 if the stuffing is broken. */
static int16_t cobs_decode(uint8_t *buf, uint8_t len)
{
    uint8_t in = 0, out = 0;
    while (in < len) {
        uint8_t code = buf[in];
        if (code == 0 || in + code > len)
            return -1;
        for (uint8_t k = 1; k < code; k++)
            buf[out++] = buf[in + k];
        in += code;
        if (code != 0xFF && in < len)
            buf[out++] = 0;
    }
    return out;
}

static void frame_complete(void)
{
    if (frame_overlong) {
        frame_overlong = false;
        send_error(ERR_TOO_LONG);
        return;
    }
    if (frame_len == 0)
        return;                       /* idle delimiters */
    int16_t n = cobs_decode(frame, frame_len);
    uint16_t crc = 0xFFFF;
    if (n >= 4) {
        for (int16_t i = 0; i < n - 2; i++)
            crc = _crc_xmodem_update(crc, frame[i]);
    }
    if (n < 4 || crc != (frame[n - 2] | (uint16_t)frame[n - 1] << 8)) {
        send_error(ERR_BAD_FRAME);
        return;
    }
    handle_frame(frame[0], frame[1], frame + 2, (uint8_t)(n - 4));
}

/* Every delimiter gets exactly one reply (INFO, ACK or ERROR; none for an idle one), and a
 * reply is never dropped: a delimiter waits in rx_buf until the reply queue has room, which
 * the transmit interrupt makes as it sends. The host's bytes behind it wait there too, so the
 * backpressure lands on the input, where a command waits in fewer bytes than its reply (a
 * PING is 6 bytes, its ACK 9). Meanwhile the main loop goes on: reports, buttons, LEDs and
 * the watchdog do not wait for the host. A host that keeps streaming fills rx_buf, and its
 * bytes are lost from then on (the UART, like USB serial bridges, has no flow control):
 * reported by one ERROR once everything before the gap is read. */
static void receive(void)
{
    uint8_t byte;
    while (rx_peek(&byte)) {
        if (byte == 0 && !reply_room())
            return;
        rx_skip();
        if (byte == 0) {
            frame_complete();
            frame_len = 0;
        } else if (frame_len < sizeof frame) {
            frame[frame_len++] = byte;
        } else {
            frame_overlong = true;    /* bounded: drop until the next delimiter */
        }
    }
    if (rx_overrun && reply_room()) { /* rx_buf is empty: the gap is here, after the frame in progress */
        frame_len = 0;
        frame_overlong = false;
        send_error(ERR_BAD_FRAME);
        rx_overrun = false;           /* only now: the interrupt stores bytes again, all after the gap */
    }
}

/* ------------------------------------------------------------------ main */

static uint8_t read_reset_cause(void)
{
    uint8_t flags = MCUSR;
    MCUSR = 0;
    wdt_disable();                    /* a watchdog reset leaves it running: stop it first */
    if (flags & _BV(WDRF)) return RC_WATCHDOG;
    if (flags & _BV(BORF)) return RC_BROWN_OUT;
    if (flags & _BV(EXTRF)) return RC_EXTERNAL;
    if (flags & _BV(PORF)) return RC_POWER_ON;
    return RC_UNKNOWN;
}

int main(void)
{
    reset_cause = read_reset_cause();
    LED_DDR |= _BV(LED_BIT);
    timer_init();
    uart_init();
    adc_init();
    buttons_init();
    wdt_enable(WDTO_250MS);
    set_sleep_mode(SLEEP_MODE_IDLE);
    sei();
    replies.buf[replies.head++] = 0;  /* ends any frame the reset cut off, so the banner arrives whole */
    send_info(INFO_BOOT);

    uint32_t last_tick = 0, last_report = 0, last_render = 0;
    bool report_due = false;
    for (;;) {
        wdt_reset();
        receive();
        uint32_t now = now_ms();
        if (now != last_tick) {
            last_tick = now;
            report_due |= buttons_poll(now);
        }
        if (scan_ready) {
            take_scan();
            report_due |= changed_since_report() || now - last_report >= REPORT_EVERY_MS;
            scan_ready = false;
        }
        if (report_due && tx_idle(&stream)) {  /* else: the next scan goes out once the last report has */
            send_report(now);
            last_report = now;
            report_due = false;
        }
        if (leds_dirty || (animated() && now - last_render >= ANIMATION_MS)) {
            leds_write(now);
            last_render = now;
        }
        cli();
        if ((rx_head == rx_tail || !reply_room()) && !scan_ready) {
            sleep_enable();
            sei();
            sleep_cpu();              /* woken by the 1 kHz tick, the ADC or the UART (each reply byte sent makes room) */
            sleep_disable();
        }
        sei();
    }
}
