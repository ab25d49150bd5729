/*
 * uart.h (sifive_e) — polled driver for the SiFive UART of the FE310 (no interrupts):
 * UART0 (0x10013000) carries the MCP byte stream; UART1 (0x10023000) is the
 * link-control line of run.sh's relay (linkline_uart.c).
 *
 * Received bytes wait in an 8-byte FIFO; each read of RXDATA takes one out, so
 * "is a byte there?" is asked of the receive watermark (IP.RXWM: more than RXCNT
 * bytes wait, RXCNT being 0), never of RXDATA.
 */
#ifndef UART_H
#define UART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    volatile uint32_t txdata; /* +0x00 byte to send; bit 31: FIFO full */
    volatile uint32_t rxdata; /* +0x04 received byte; bit 31: FIFO was empty */
    volatile uint32_t txctrl; /* +0x08 bit 0 TX enable */
    volatile uint32_t rxctrl; /* +0x0c bit 0 RX enable; bits 18:16 watermark RXCNT */
    volatile uint32_t ie;     /* +0x10 interrupt enables */
    volatile uint32_t ip;     /* +0x14 bit 1 RXWM: more than RXCNT bytes wait */
    volatile uint32_t div;    /* +0x18 baud divisor */
} sifive_uart;

#define UART0 ((sifive_uart *)0x10013000u)
#define UART1 ((sifive_uart *)0x10023000u)

#define UART_TXDATA_FULL 0x80000000u
#define UART_IP_RXWM 0x2u

/* Enable transmitter and receiver (receive watermark 0). */
void uart_init(sifive_uart *uart);

/* Whether a received byte waits. */
static inline bool uart_rx_ready(const sifive_uart *uart)
{
    return (uart->ip & UART_IP_RXWM) != 0u;
}

/* The waiting byte (call after uart_rx_ready). */
static inline uint8_t uart_rx(sifive_uart *uart)
{
    return (uint8_t)uart->rxdata;
}

/* Send bytes, waiting while the transmit FIFO is full. */
void uart_write(sifive_uart *uart, const uint8_t *bytes, size_t len);

#endif /* UART_H */
