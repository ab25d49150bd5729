/* linkline_uart.c — the link-control line on UART1 (see linkline.h). */
#include "linkline.h"
#include "uart.h"

void linkline_start(void)
{
    uart_init(UART1);
}

bool linkline_rx_ready(void)
{
    return uart_rx_ready(UART1);
}

uint8_t linkline_rx(void)
{
    return uart_rx(UART1);
}

void linkline_say_idle(void)
{
    uart_write(UART1, (const uint8_t *)"I\n", 2);
}
