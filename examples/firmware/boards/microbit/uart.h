/*
 * uart.h (micro:bit) — polled driver for the nRF51822's UART (no interrupts, no DMA):
 * UART0 (0x40002000) carries the MCP byte stream. The chip has no second UART: the
 * link-control line goes over semihosting instead (linkline_files.c).
 *
 * Received bytes wait in a small FIFO (6 bytes) behind RXD; EVENTS_RXDRDY says one is
 * in RXD. The event must be cleared *before* RXD is read: reading RXD moves the next
 * byte of the FIFO in and sets the event again (QEMU does the same; cleared after the
 * read, that new event would be lost and the bytes behind it stall).
 */
#ifndef UART_H
#define UART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    volatile uint32_t tasks_startrx;  /* +0x000 */
    volatile uint32_t tasks_stoprx;   /* +0x004 */
    volatile uint32_t tasks_starttx;  /* +0x008 */
    volatile uint32_t tasks_stoptx;   /* +0x00c */
    uint32_t reserved0[62];
    volatile uint32_t events_rxdrdy;  /* +0x108 a byte waits in RXD */
    uint32_t reserved1[4];
    volatile uint32_t events_txdrdy;  /* +0x11c the byte in TXD was sent */
    uint32_t reserved2[1];
    volatile uint32_t events_error;   /* +0x124 */
    uint32_t reserved3[246];
    volatile uint32_t enable;         /* +0x500 4: enabled */
    uint32_t reserved4[2];
    volatile uint32_t pseltxd;        /* +0x50c TX pin */
    uint32_t reserved5[1];
    volatile uint32_t pselrxd;        /* +0x514 RX pin */
    volatile uint32_t rxd;            /* +0x518 received byte */
    volatile uint32_t txd;            /* +0x51c byte to send */
    uint32_t reserved6[1];
    volatile uint32_t baudrate;       /* +0x524 */
} nrf_uart;

#define UART0 ((nrf_uart *)0x40002000u)

/* Enable the UART (115200 baud on the micro:bit's USB-serial pins) and start the
 * receiver and transmitter. */
void uart_init(nrf_uart *uart);

/* Whether a received byte waits. */
static inline bool uart_rx_ready(const nrf_uart *uart)
{
    return uart->events_rxdrdy != 0u;
}

/* The waiting byte (call after uart_rx_ready): the event cleared first, see above. */
static inline uint8_t uart_rx(nrf_uart *uart)
{
    uart->events_rxdrdy = 0u;
    return (uint8_t)uart->rxd;
}

/* Send bytes, each once the previous one has gone (EVENTS_TXDRDY). */
void uart_write(nrf_uart *uart, const uint8_t *bytes, size_t len);

#endif /* UART_H */
