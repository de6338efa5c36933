/* pitwatch-harness: the Pitwatch firmware on simavr, wired like the real board.
 *
 *   pitwatch-harness <mcu> <firmware.elf>
 *
 * - The firmware's UART is on a pseudo-terminal that pyserial opens like a USB port; the host's
 *   bytes arrive at the wire's pace into a receive buffer of 2 bytes, as on a real AVR.
 * - Emulated time is paced to the wall clock, so baud rates and timeouts are real.
 * - The chip is held in reset until told to run, so a test sees the boot banner.
 * - Every reset, the harness's or the firmware's own watchdog's, leaves the outside world as
 *   it was: buttons released, the pins' external levels and the simavr workarounds restored.
 * - Pit sensor voltages are fed through the 74HC4067 select pins when the ADC samples, and each
 *   multiplexer's output takes time to follow a switch of those pins, as on a real board.
 * - The WS2812 data line is decoded into LED colours from the pin's cycle timestamps.
 *
 * Control: one command per line on stdin, events one per line on stdout.
 *   run | reset | mv <pit> <millivolts> | now | press <n> <ms> | button <n> 1|0 | peek <address>
 *   | uart | trace on|off | quit
 *   events: "pty <path>", "leds <n> <rrggbb>...", "pressed <n>", "peek <address> <value>",
 *   "now <us>", "uart <bytes received> <overruns> <most bytes unread>", "uart in|out <type> <us>",
 *   "error <text>"
 * "now" answers with the emulated time since the chip last started (the firmware's uptime, in
 * microseconds): sent after "mv" lines in the same write, it stamps when the sensors changed.
 * "press" holds a button for <ms> of emulated time, lets go, and after as long again
 * (so the firmware's debounce has seen the release) reports "pressed <n>": a press
 * that a busy test machine cannot shorten to nothing. "button" holds a button down (1) or lets
 * it go (0) until told otherwise.
 * "trace on" reports every frame that crosses the UART when its delimiter does, with its
 * message type and the emulated time in microseconds: how long the firmware takes to answer,
 * free of the host's scheduling (benchmarks/bridge_bench.py).
 * (firmware_bridge/harness/simboard.py is the Python side.)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pty.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <avr_adc.h>
#include <avr_extint.h>
#include <avr_ioport.h>
#include <avr_uart.h>
#include <sim_avr.h>
#include <sim_elf.h>
#include <sim_irq.h>

#define MAX_PITS 32
#define F_CPU 16000000UL
#define WS2812_ONE_CYCLES 9     /* a high pulse longer than 0.56 us is a 1 bit */
/* WS2812B datasheet: T0H 0.4 us and T1H 0.8 us, each +-150 ns: in cycles at 16 MHz */
#define WS2812_T0H_MIN 4
#define WS2812_T0H_MAX 8
#define WS2812_T1H_MIN 11
#define WS2812_T1H_MAX 15
#define WS2812_LATCH_CYCLES 800 /* 50 us low: the chain shows what it received */
#define QUEUE_SIZE 4096
#define SLICE_NS 250000L        /* pacing granularity: emulated time runs at most this far ahead */
/* How fast a multiplexer's output follows a switch of its select pins: an RC with a 10 kOhm
 * sensor (an FSR divider) and about 500 pF of multiplexer, wiring and input capacitance, on the
 * pessimistic side as a test model should be. A firmware that samples 12 us after the switch
 * reads about 7 % of the previous pit's voltage into this one; after one discarded conversion
 * (116 us) the error is far below one ADC step. */
#define SETTLE_TAU_CYCLES (5 * (F_CPU / 1000000))
#define ADC_SAMPLE_CYCLES (3 * 128 / 2) /* the ADC samples 1.5 ADC clocks into a conversion (clk/128) */

/* The board wiring, mirrored from firmware/board.h. */
struct wiring {
    const char *mcu;
    char mux_port;
    int mux_shift;
    char led_port;
    int led_bit;
    char button_port;
    int button_shift;
};

static const struct wiring boards[] = {
    {"atmega328p", 'D', 4, 'B', 0, 'B', 1},
    {"atmega2560", 'A', 0, 'A', 4, 'A', 5},
};

static avr_t *avr;
static const struct wiring *board;
static int pty_master = -1;
static int pit_mv[MAX_PITS];
static int running;
static avr_cycle_count_t boot_cycle;  /* when the chip last started: "now" counts from here */

/* Host -> device bytes on their way: the USB-serial chip's buffer, then the wire. */
static uint8_t queue[QUEUE_SIZE];
static size_t queue_head, queue_tail;

/* WS2812 decoder state */
static avr_cycle_count_t led_rise, led_fall;
static int led_level;
static uint8_t led_bits[MAX_PITS * 3 + 3];
static int led_bit_count;
static char last_frame[MAX_PITS * 7 + 32];

/* ------------------------------------------------------------------ UART <-> pty */

/* Where a direction of the UART is within its current COBS frame, for "trace on". */
struct frame_tracker {
    const char *direction;
    int position;
    uint8_t type;
};

static int tracing;
static struct frame_tracker frames_in = {"in", 0, 0}, frames_out = {"out", 0, 0};

/* Byte 0 of a frame is the COBS code, byte 1 the message type (never 0, so never stuffed). */
static void track_frame(struct frame_tracker *t, uint8_t byte)
{
    if (byte) {
        if (t->position++ == 1)
            t->type = byte;
        return;
    }
    if (tracing && t->position > 1) {
        printf("uart %s %02x %llu\n", t->direction, t->type, (unsigned long long)(avr->cycle / (F_CPU / 1000000)));
        fflush(stdout);
    }
    t->position = 0;
}

static void uart_output(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq; (void)param;
    uint8_t byte = (uint8_t)value;
    if (write(pty_master, &byte, 1) < 0 && errno != EAGAIN)
        perror("pty write");  /* nobody reading: a real USB bridge drops too */
    track_frame(&frames_out, byte);
}

/* The receiver as on a real AVR. simavr 1.6 takes the host's bytes into a 64-byte FIFO and
 * hands them to the firmware at its own byte ticks: a firmware that kept interrupts off too
 * long would only be slowed down, never lose a byte. A real USART holds 2 received bytes;
 * when a third completes while both are unread, it is lost (data overrun). So the harness
 * plays the wire itself: the host's bytes arrive one per 10 bit times at the baud rate the
 * firmware set, whatever the firmware is doing, and simavr's FIFO is made to pass each byte
 * on at once (its byte time is 0 while it takes or gives a byte), so the bytes in it are
 * exactly those received and not yet read. A byte that arrives while 2 are unread is
 * dropped and reported: "error uart overrun ...". (Conservative: a real chip can still hold
 * that byte in its shift register until the next start bit.) "uart" reports the counts. */
#define RX_BUFFER 2
DEFINE_FIFO(uint16_t, uart_fifo);  /* the accessors of the FIFO that avr_uart.h declares */
static avr_uart_t *uart;
static avr_io_read_t udr_read;      /* simavr's own reader of UDR0 */
static void *udr_read_param;
static int wire_busy;               /* a byte is on the wire: the arrival timer is armed */
static unsigned long rx_bytes, rx_overruns, rx_most_unread;

static avr_uart_t *find_uart(char name)
{
    for (avr_io_t *io = avr->io_port; io; io = io->next)
        if (strcmp(io->kind, "uart") == 0 && ((avr_uart_t *)io)->name == name)
            return (avr_uart_t *)io;
    return NULL;
}

/* simavr's reader, told that a byte takes no time: it then keeps RXC raised while a second
 * byte is unread (a real USART does; simavr would hold it back until its next byte tick). */
static uint8_t udr_read_now(struct avr_t *a, avr_io_addr_t addr, void *param)
{
    (void)param;
    avr_cycle_count_t cycles = uart->cycles_per_byte;
    uart->cycles_per_byte = 0;
    uint8_t v = udr_read(a, addr, udr_read_param);
    uart->cycles_per_byte = cycles; /* transmit timing stays simavr's */
    return v;
}

/* 10 bits (start, 8 data, stop) at the baud rate in UBRR0 and U2X0, in CPU cycles. */
static avr_cycle_count_t byte_cycles(void)
{
    unsigned ubrr = avr_regbit_get(avr, uart->ubrrl) | avr_regbit_get(avr, uart->ubrrh) << 8;
    return 10ULL * (ubrr + 1) * (avr_regbit_get(avr, uart->u2x) ? 8 : 16);
}

static avr_cycle_count_t byte_arrives(avr_t *a, avr_cycle_count_t when, void *param)
{
    (void)param;
    uint8_t byte = queue[queue_tail];
    queue_tail = (queue_tail + 1) % QUEUE_SIZE;
    unsigned long unread = uart_fifo_get_read_size(&uart->input);
    if (avr_regbit_get(a, uart->rxen)) {  /* a disabled receiver ignores the line, as simavr does */
        rx_bytes++;
        if (unread >= RX_BUFFER) {
            rx_overruns++;
            printf("error uart overrun: byte %lu arrived with %lu unread (interrupts off too long)\n",
                   rx_bytes, unread);
            fflush(stdout);
        } else {
            avr_cycle_count_t cycles = uart->cycles_per_byte;
            uart->cycles_per_byte = 0;  /* readable at once: it has just arrived */
            avr_raise_irq(avr_io_getirq(a, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT), byte);
            uart->cycles_per_byte = cycles;
            if (unread + 1 > rx_most_unread)
                rx_most_unread = unread + 1;
        }
    }
    track_frame(&frames_in, byte);
    if (queue_tail == queue_head) {
        wire_busy = 0;
        return 0;
    }
    return when + byte_cycles();
}

static void feed_uart(void)
{
    if (!wire_busy && queue_tail != queue_head) {
        wire_busy = 1;
        avr_cycle_timer_register(avr, byte_cycles(), byte_arrives, NULL);
    }
}

static void read_pty(void)
{
    uint8_t buf[512];
    ssize_t n = read(pty_master, buf, sizeof buf);
    for (ssize_t i = 0; i < n; i++) {
        size_t next = (queue_head + 1) % QUEUE_SIZE;
        if (next == queue_tail)
            break;  /* more than a USB-serial chip buffers: dropped, as it would drop them */
        queue[queue_head] = buf[i];
        queue_head = next;
    }
}

/* ------------------------------------------------------------------ sensors */

static uint8_t port_value(char name)
{
    avr_ioport_state_t state;
    if (avr_ioctl(avr, AVR_IOCTL_IOPORT_GETSTATE(name), &state) != 0)
        return 0;
    return state.port;
}

/* Each multiplexer's output (its SIG line, on ADC0 or ADC1) as an RC that follows the pit the
 * select pins point at: at a switch it starts from the voltage it had, then approaches the new
 * pit's with time constant SETTLE_TAU_CYCLES. */
struct sig_line {
    double start_mv;                  /* the line's voltage at the last switch */
    avr_cycle_count_t since;          /* when the select pins last changed */
};
static struct sig_line sig_lines[2];
static int mux_channel;               /* what the select pins point at */

static double line_mv(int line, avr_cycle_count_t at)
{
    double target = pit_mv[line * 16 + mux_channel];
    double settled = exp(-(double)(at - sig_lines[line].since) / SETTLE_TAU_CYCLES);
    return target + (sig_lines[line].start_mv - target) * settled;
}

/* A select pin moved: both lines start from where they are towards their new pits. */
static void mux_pin(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq; (void)value; (void)param;
    int channel = (port_value(board->mux_port) >> board->mux_shift) & 0x0F;
    if (channel == mux_channel)
        return;                       /* the other pins of the same write, or an unrelated one */
    for (int line = 0; line < 2; line++) {
        sig_lines[line].start_mv = line_mv(line, avr->cycle);
        sig_lines[line].since = avr->cycle;
    }
    mux_channel = channel;
}

/* Called when the firmware starts a conversion: feed the voltage that the multiplexer selected by
 * the ADC channel will have when the ADC samples it, 1.5 ADC clocks later. */
static void adc_trigger(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq; (void)param;
    union { avr_adc_mux_t mux; uint32_t v; } e = {.v = value};
    if (e.mux.kind != ADC_MUX_SINGLE || e.mux.src > 1)
        return;
    int mv = (int)lround(line_mv(e.mux.src, avr->cycle + ADC_SAMPLE_CYCLES));
    avr_raise_irq(avr_io_getirq(avr, AVR_IOCTL_ADC_GETIRQ, ADC_IRQ_ADC0 + e.mux.src), mv);
}

/* ------------------------------------------------------------------ LEDs */

static void led_latch(void)
{
    int leds = led_bit_count / 24;
    char text[sizeof last_frame];
    int len = snprintf(text, sizeof text, "leds %d", leds);
    for (int i = 0; i < leds; i++) {
        uint8_t *grb = led_bits + 3 * i;
        len += snprintf(text + len, sizeof text - len, " %02x%02x%02x", grb[1], grb[0], grb[2]);
    }
    led_bit_count = 0;
    memset(led_bits, 0, sizeof led_bits);
    if (strcmp(text, last_frame) != 0) {  /* report changes, not every animation refresh */
        strcpy(last_frame, text);
        printf("%s\n", text);
        fflush(stdout);
    }
}

static void led_pin(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq; (void)param;
    int level = value != 0;
    if (level == led_level)
        return;
    led_level = level;
    if (level) {
        if (led_bit_count && avr->cycle - led_fall > WS2812_LATCH_CYCLES)
            led_latch();
        led_rise = avr->cycle;
        return;
    }
    led_fall = avr->cycle;
    avr_cycle_count_t high = led_fall - led_rise;
    int one = high > WS2812_ONE_CYCLES;
    if (one ? high < WS2812_T1H_MIN || high > WS2812_T1H_MAX : high < WS2812_T0H_MIN || high > WS2812_T0H_MAX) {
        printf("error ws2812 %d bit held high for %llu cycles: outside the datasheet's window\n", one,
               (unsigned long long)high);
        fflush(stdout);
    }
    if (led_bit_count < (int)sizeof led_bits * 8) {
        if (one)
            led_bits[led_bit_count / 8] |= 0x80 >> (led_bit_count % 8);
        led_bit_count++;
    }
}

/* ------------------------------------------------------------------ control */

static int buttons_up = 0x03;  /* bit b set: button b released, its pull-up holds the pin high */

/* A switch drives its pin from outside. Raising the pin IRQ alone is not enough: simavr puts
 * the PORT (pull-up) bit back on an input pin at every write to its port, and the WS2812 line
 * shares that port, so any LED refresh would let go of a held button. Declaring the pins'
 * external level makes simavr keep it, as a real button keeps the pin low. */
static void set_button(int button, int pressed)
{
    buttons_up = pressed ? buttons_up & ~(1 << button) : buttons_up | (1 << button);
    avr_ioport_external_t external = {.name = board->button_port, .mask = 0x03 << board->button_shift,
                                      .value = buttons_up << board->button_shift};
    avr_ioctl(avr, AVR_IOCTL_IOPORT_SET_EXTERNAL(board->button_port), &external);
    avr_raise_irq(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(board->button_port), board->button_shift + button),
                  pressed ? 0 : 1);
}

static int press_ms[2];

static avr_cycle_count_t press_done(avr_t *a, avr_cycle_count_t when, void *param)
{
    (void)a; (void)when;
    printf("pressed %d\n", (int)(intptr_t)param);
    fflush(stdout);
    return 0;
}

static avr_cycle_count_t press_release(avr_t *a, avr_cycle_count_t when, void *param)
{
    (void)when;
    int button = (int)(intptr_t)param;
    set_button(button, 0);
    avr_cycle_timer_register_usec(a, press_ms[button] * 1000, press_done, param);
    return 0;
}

/* What a reset of the chip undoes in simavr but not on a real board; called after every reset. */
static void after_reset(void)
{
    /* simavr 1.6 crawls at real speed while INT0/INT1 pins are low unless this is off. */
    avr_extint_set_strict_lvl_trig(avr, 0, 0);
    avr_extint_set_strict_lvl_trig(avr, 1, 0);
    uint32_t flags = 0;  /* no console echo of the UART, no sleeping in UART polls */
    avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
    for (int b = 0; b < 2; b++) {  /* buttons released (the pull-ups hold them high) */
        set_button(b, 1);          /* first the other level: simavr ignores a pin IRQ raised to the */
        set_button(b, 0);          /* level it last had, and the reset cleared the PIN register behind it */
    }
    led_bit_count = 0;
    led_level = 0;  /* a reset drops the pin whatever it was doing */
    boot_cycle = avr->cycle;
    wire_busy = 0;  /* the reset cancelled the arrival timer; bytes still queued go on arriving */
    if (running)
        feed_uart();
}

/* simavr resets the chip itself when the watchdog fires: wrap the core's reset hook to notice.
 * The hook runs before simavr resets the peripherals, so the flag is acted on afterwards. */
static void (*core_reset)(avr_t *);
static int chip_was_reset;

static void on_chip_reset(avr_t *a)
{
    if (core_reset)
        core_reset(a);
    chip_was_reset = 1;
}

static void settle_after_reset(void)
{
    if (chip_was_reset) {
        chip_was_reset = 0;
        after_reset();
    }
}

static void no_sleep(avr_t *a, avr_cycle_count_t how_long)
{
    (void)a; (void)how_long;  /* the main loop paces emulated time against the wall clock */
}

/* simavr logs to stdout by default; stdout is our event channel, so its messages go to stderr. */
static void log_to_stderr(avr_t *a, const int level, const char *format, va_list ap)
{
    (void)a;
    if (level <= LOG_WARNING)
        vfprintf(stderr, format, ap);
}

static double wall(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int command(char *line, double *epoch, avr_cycle_count_t *cycle0)
{
    int a, b;
    int reset = strncmp(line, "reset", 5) == 0;
    if (reset || strncmp(line, "run", 3) == 0) {
        if (reset) {
            avr_reset(avr);
            settle_after_reset();
        }
        running = 1;
        *epoch = wall();
        *cycle0 = avr->cycle;
        boot_cycle = avr->cycle;
    } else if (sscanf(line, "mv %d %d", &a, &b) == 2 && a >= 0 && a < MAX_PITS) {
        pit_mv[a] = b;
    } else if (strcmp(line, "now") == 0) {
        printf("now %llu\n", (unsigned long long)((avr->cycle - boot_cycle) / (F_CPU / 1000000)));
        fflush(stdout);
    } else if (sscanf(line, "press %d %d", &a, &b) == 2 && a >= 0 && a < 2 && b > 0) {
        press_ms[a] = b;
        set_button(a, 1);
        avr_cycle_timer_register_usec(avr, b * 1000, press_release, (void *)(intptr_t)a);
    } else if (sscanf(line, "peek %i", &a) == 1 && a >= 0 && a <= avr->ramend) {
        printf("peek %d %d\n", a, avr->data[a]);  /* a register or RAM byte, for tests */
        fflush(stdout);
    } else if (sscanf(line, "button %d %d", &a, &b) == 2 && a >= 0 && a < 2) {
        set_button(a, b != 0);  /* held down (1) or let go (0) until told otherwise */
    } else if (strncmp(line, "uart", 4) == 0 && line[4] == 0) {
        printf("uart %lu %lu %lu\n", rx_bytes, rx_overruns, rx_most_unread);
        fflush(stdout);
    } else if (strncmp(line, "trace ", 6) == 0) {
        tracing = strcmp(line + 6, "on") == 0;
    } else if (strncmp(line, "quit", 4) == 0) {
        return 0;
    } else {
        printf("error unknown command: %s\n", line);
        fflush(stdout);
    }
    return 1;
}

static int read_commands(double *epoch, avr_cycle_count_t *cycle0)
{
    static char buf[1024];
    static size_t len;
    ssize_t n = read(STDIN_FILENO, buf + len, sizeof buf - 1 - len);
    if (n <= 0)
        return 0;  /* the controlling process went away: stop */
    len += n;
    buf[len] = 0;
    char *start = buf, *end;
    while ((end = strchr(start, '\n')) != NULL) {
        *end = 0;
        if (!command(start, epoch, cycle0))
            return 0;
        start = end + 1;
    }
    len -= start - buf;
    memmove(buf, start, len);
    return 1;
}

static int open_pty(void)
{
    int slave;
    char name[256];
    if (openpty(&pty_master, &slave, name, NULL, NULL) < 0) {
        perror("openpty");
        return -1;
    }
    struct termios raw;
    tcgetattr(slave, &raw);
    cfmakeraw(&raw);  /* a plain byte pipe: no echo, no line editing */
    tcsetattr(slave, TCSANOW, &raw);
    fcntl(pty_master, F_SETFL, fcntl(pty_master, F_GETFL) | O_NONBLOCK);
    printf("pty %s\n", name);
    fflush(stdout);
    return slave;  /* kept open so that reads of the master never fail with EIO */
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s <atmega328p|atmega2560> <firmware.elf>\n", argv[0]);
        return 2;
    }
    for (size_t i = 0; i < sizeof boards / sizeof boards[0]; i++)
        if (strcmp(argv[1], boards[i].mcu) == 0)
            board = &boards[i];
    if (!board) {
        fprintf(stderr, "unknown mcu %s: atmega328p or atmega2560\n", argv[1]);
        return 2;
    }
    avr_global_logger_set(log_to_stderr);
    elf_firmware_t firmware = {0};
    if (elf_read_firmware(argv[2], &firmware) != 0) {
        fprintf(stderr, "cannot read firmware %s\n", argv[2]);
        return 2;
    }
    avr = avr_make_mcu_by_name(argv[1]);
    if (!avr) {
        fprintf(stderr, "simavr has no core %s\n", argv[1]);
        return 2;
    }
    avr_init(avr);
    avr->frequency = F_CPU;
    avr->vcc = avr->avcc = avr->aref = 5000;
    avr->sleep = no_sleep;
    avr_load_firmware(avr, &firmware);
    avr->frequency = F_CPU;
    core_reset = avr->reset;
    avr->reset = on_chip_reset;

    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT), uart_output, NULL);
    uart = find_uart('0');
    avr_io_addr_t udr = AVR_DATA_TO_IO(uart->r_udr);
    udr_read = avr->io[udr].r.c;
    udr_read_param = avr->io[udr].r.param;
    avr->io[udr].r.c = udr_read_now;  /* simavr allows one reader per register: wrap its own */
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_ADC_GETIRQ, ADC_IRQ_OUT_TRIGGER), adc_trigger, NULL);
    for (int pin = board->mux_shift; pin < board->mux_shift + 4; pin++)  /* select pins S0-S3 */
        avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(board->mux_port), pin), mux_pin, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(board->led_port), board->led_bit), led_pin, NULL);
    after_reset();  /* the reset in avr_init came before the hook was in place */

    int slave = open_pty();
    if (slave < 0)
        return 1;

    double epoch = wall();
    avr_cycle_count_t cycle0 = avr->cycle;
    for (;;) {
        struct timespec timeout = {0, 50000000L};  /* held in reset: only commands to wait for */
        if (running) {
            /* run until emulated time has caught up with the wall clock plus one slice */
            avr_cycle_count_t target = cycle0 + (avr_cycle_count_t)((wall() - epoch + SLICE_NS * 1e-9) * F_CPU);
            while (running && avr->cycle < target) {
                int state = avr_run(avr);
                settle_after_reset();  /* the watchdog may have reset the chip */
                if (state == cpu_Done || state == cpu_Crashed) {
                    printf("error firmware stopped (state %d)\n", state);
                    fflush(stdout);
                    running = 0;
                }
            }
            if (led_bit_count && !led_level && avr->cycle - led_fall > WS2812_LATCH_CYCLES)
                led_latch();
            timeout.tv_nsec = SLICE_NS;
        }
        struct pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {pty_master, POLLIN, 0}};
        if (ppoll(fds, 2, &timeout, NULL) < 0 && errno != EINTR)
            break;
        if (fds[0].revents & (POLLIN | POLLHUP) && !read_commands(&epoch, &cycle0))
            break;
        if (fds[1].revents & POLLIN)
            read_pty();
        if (running)
            feed_uart();
    }
    close(slave);
    close(pty_master);
    return 0;
}
