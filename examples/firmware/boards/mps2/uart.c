/* uart.c — polled CMSDK APB UART (see uart.h). */
#include "uart.h"

#define UART_CTRL_TX_RX_ENABLE 0x3u

void uart_init(cmsdk_uart *uart)
{
    uart->bauddiv = 16u;
    uart->ctrl = UART_CTRL_TX_RX_ENABLE;
    /* Read DATA once (harmless when empty). In QEMU this tells the character backend
     * that the UART takes input now: without it, bytes sent before the receiver was
     * enabled wait until QEMU's main loop wakes for another reason (up to ~1 s). */
    (void)uart->data;
}

void uart_write(cmsdk_uart *uart, const uint8_t *bytes, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        while ((uart->state & UART_STATE_TX_FULL) != 0u) {
        }
        uart->data = bytes[i];
    }
}
