/*
 * uart.h — polled driver for the ARM CMSDK APB UART of the MPS2 boards (no interrupts,
 * no FIFO: one byte each way). UART0 (0x40004000) carries the MCP byte stream;
 * UART1 (0x40005000) is the link-control line of run.sh's relay (see main.c).
 */
#ifndef UART_H
#define UART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    volatile uint32_t data;      /* +0x00 received / to transmit byte */
    volatile uint32_t state;     /* +0x04 bit0 TX buffer full, bit1 RX buffer full */
    volatile uint32_t ctrl;      /* +0x08 bit0 TX enable, bit1 RX enable */
    volatile uint32_t intstatus; /* +0x0c */
    volatile uint32_t bauddiv;   /* +0x10 at least 16 */
} cmsdk_uart;

#define UART0 ((cmsdk_uart *)0x40004000u)
#define UART1 ((cmsdk_uart *)0x40005000u)

#define UART_STATE_TX_FULL 0x1u
#define UART_STATE_RX_FULL 0x2u

/* Enable transmitter and receiver. */
void uart_init(cmsdk_uart *uart);

/* Whether a received byte waits. */
static inline bool uart_rx_ready(const cmsdk_uart *uart)
{
    return (uart->state & UART_STATE_RX_FULL) != 0u;
}

/* The waiting byte (call after uart_rx_ready). */
static inline uint8_t uart_rx(cmsdk_uart *uart)
{
    return (uint8_t)uart->data;
}

/* Send bytes, waiting while the transmit buffer is full. */
void uart_write(cmsdk_uart *uart, const uint8_t *bytes, size_t len);

#endif /* UART_H */
