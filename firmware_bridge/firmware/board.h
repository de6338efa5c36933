/* Where things are wired, per board (docs/hardware.md has the diagram).
 * The simavr harness (../harness/harness.c) mirrors this table. */
#ifndef PITWATCH_BOARD_H
#define PITWATCH_BOARD_H
#include <avr/io.h>

#if defined(__AVR_ATmega328P__)          /* Arduino Uno / Nano */
#define MUX_PORT PORTD                   /* 74HC4067 S0..S3 on D4..D7 */
#define MUX_DDR DDRD
#define MUX_SHIFT 4
#define LED_PORT PORTB                   /* WS2812 DIN on D8 (PB0) */
#define LED_DDR DDRB
#define LED_BIT 0
#define BUTTON_PIN PINB                  /* confirm on D9 (PB1), undo on D10 (PB2), to GND */
#define BUTTON_PORT PORTB
#define BUTTON_SHIFT 1
#define UART_RX_VECT USART_RX_vect
#define UART_UDRE_VECT USART_UDRE_vect
#define BOARD_CODE 0x01
#elif defined(__AVR_ATmega2560__)        /* Arduino Mega 2560 */
#define MUX_PORT PORTA                   /* S0..S3 on D22..D25 (PA0..PA3) */
#define MUX_DDR DDRA
#define MUX_SHIFT 0
#define LED_PORT PORTA                   /* WS2812 DIN on D26 (PA4) */
#define LED_DDR DDRA
#define LED_BIT 4
#define BUTTON_PIN PINA                  /* confirm on D27 (PA5), undo on D28 (PA6), to GND */
#define BUTTON_PORT PORTA
#define BUTTON_SHIFT 5
#define UART_RX_VECT USART0_RX_vect
#define UART_UDRE_VECT USART0_UDRE_vect
#define BOARD_CODE 0x02
#else
#error "Pitwatch firmware supports atmega328p and atmega2560"
#endif

/* Pits 0-15 are on the multiplexer wired to A0, pits 16-31 on the one wired to A1. */
#define MUX_SELECT_MASK (0x0F << MUX_SHIFT)

#endif
