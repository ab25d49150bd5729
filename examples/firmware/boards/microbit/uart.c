/* uart.c (micro:bit) — polled nRF51822 UART (see uart.h). */
#include "uart.h"

#define UART_ENABLE 4u
#define BAUD_115200 0x01D7E000u
#define PIN_TX 24u /* the micro:bit's interface chip, USB serial */
#define PIN_RX 25u

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
