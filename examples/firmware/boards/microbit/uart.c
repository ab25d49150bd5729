/* uart.c (micro:bit) — polled nRF51822 UART (see uart.h). */
#include "uart.h"

#define UART_ENABLE 4u
#define BAUD_115200 0x01D7E000u
#define PIN_TX 24u /* the micro:bit's interface chip, USB serial */
#define PIN_RX 25u

/* TIMER1: start, shortcuts, mode, bit width, prescaler, compare 0. */
#define TIMER1_START (*(volatile uint32_t *)0x40009000u)
#define TIMER1_SHORTS (*(volatile uint32_t *)0x40009200u)
#define TIMER1_MODE (*(volatile uint32_t *)0x40009504u)
#define TIMER1_BITMODE (*(volatile uint32_t *)0x40009508u)
#define TIMER1_PRESCALER (*(volatile uint32_t *)0x40009510u)
#define TIMER1_CC0 (*(volatile uint32_t *)0x40009540u)

/* For QEMU only: TIMER1 going round every millisecond (1 MHz, cleared on reaching
 * CC[0]; no interrupt, nothing reads it). QEMU's nRF51 UART refuses input until
 * TASKS_STARTRX and does not tell the character backend when it starts taking it, so
 * bytes sent before that wait until QEMU's main loop next wakes — about 1 s later, in
 * a third of the sessions. A running timer wakes the loop every millisecond. (TIMER0 is
 * the tasks build's clock.) */
static void wake_qemu_every_ms(void)
{
    TIMER1_MODE = 0u;      /* timer */
    TIMER1_BITMODE = 0u;   /* 16 bits */
    TIMER1_PRESCALER = 4u; /* 16 MHz / 2^4 */
    TIMER1_CC0 = 1000u;
    TIMER1_SHORTS = 1u; /* COMPARE[0] -> CLEAR */
    TIMER1_START = 1u;
}

void uart_init(nrf_uart *uart)
{
    /* QEMU ignores the pins and the baud rate; a real nRF51 needs them. */
    uart->pseltxd = PIN_TX;
    uart->pselrxd = PIN_RX;
    uart->baudrate = BAUD_115200;
    uart->enable = UART_ENABLE;
    uart->events_rxdrdy = 0u;
    uart->tasks_startrx = 1u; /* once: the receiver stays on */
    uart->tasks_starttx = 1u;
    wake_qemu_every_ms();
}

void uart_write(nrf_uart *uart, const uint8_t *bytes, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        uart->txd = bytes[i];
        /* A byte written to TXD before the previous one went is lost. */
        while (uart->events_txdrdy == 0u) {
        }
        uart->events_txdrdy = 0u;
    }
}
