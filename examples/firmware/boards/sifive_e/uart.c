/* uart.c (sifive_e) — polled SiFive UART (see uart.h). */
#include "uart.h"

#define UART_CTRL_ENABLE 0x1u /* TXEN / RXEN; the watermark fields 0 */
#define DIV_115200 138u       /* 16 MHz / 115200 - 1; QEMU ignores it */

void uart_init(sifive_uart *uart)
{
    uart->div = DIV_115200;
    uart->txctrl = UART_CTRL_ENABLE;
    uart->rxctrl = UART_CTRL_ENABLE;
}

void uart_write(sifive_uart *uart, const uint8_t *bytes, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        while ((uart->txdata & UART_TXDATA_FULL) != 0u) {
        }
        uart->txdata = bytes[i];
    }
}
