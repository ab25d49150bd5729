/*
 * main.c — the sensor board as an MCP server on a microcontroller: UART0 is the MCP
 * byte stream (and carries nothing else), logs go over semihosting to QEMU's stderr.
 * The same file on every board; what differs (start-up, UART, memory map, clock, the
 * link-control line's form) is in arch/ and boards/, chosen by the Makefile.
 *
 * The board itself (descriptors, callbacks, state) is examples/c-sensor-board/board.c,
 * compiled unchanged; this file is its transport: the server's storage, a 1024-byte
 * line buffer, `board_write` to UART0, and a polled main loop.
 *
 * Link control (linkline.h: UART1, or two host files on a board with one UART; driven
 * by run.sh's relay): a UART has no "end of stream", so the relay sends `E<n>\n` when
 * the host closed its side after n bytes. Once all n bytes have arrived the firmware
 * calls `emcp_server_finish` (a last message without a newline is handled), polls
 * until no tool is pending, and answers `I\n` (idle).
 *
 * Built with -DBOARD_TASKS (Makefile VARIANT=tasks: docs/board.md's tasks build), it
 * also provides the board's clock (clock.h: milliseconds since boot, from a counter
 * the board polls, no interrupt) and gives the server a key: 32 bytes of the host's
 * /dev/urandom over semihosting, QEMU standing in for the hardware random number
 * generator a real board would read.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "board.h"
#include "clock.h"
#include "emcp.h"
#include "linkline.h"
#include "semihost.h"
#include "startup.h"
#include "uart.h"

#ifndef FW_CPU
#define FW_CPU "cortex-m"
#endif

static emcp_server_storage storage;
static uint8_t line_buffer[1024];

emcp_status board_write(void *userdata, const uint8_t *bytes, size_t len)
{
    (void)userdata;
    uart_write(UART0, bytes, len);
    return EMCP_OK;
}

/* The deepest stack word found written so far (the stack grows down from _stack_top). */
static const uint32_t *stack_mark = _stack_top;

/* Log the stack high-water mark whenever it grew. */
static void stack_check(void)
{
    const uint32_t *p = _stack_bottom;
    while (p < stack_mark && *p == STACK_PAINT) {
        p++;
    }
    if (p < stack_mark) {
        stack_mark = p;
        semihost_log_u32("emcp: stack high-water ",
                         (uint32_t)((uintptr_t)_stack_top - (uintptr_t)p), " bytes\n");
    }
}

/* The link-control line (see the top of this file). */
static struct {
    uint32_t received; /* MCP bytes received on UART0 */
    uint32_t number;   /* the number being parsed */
    uint32_t eof_at;   /* the host's byte count at end of stream */
    bool eof;          /* the host closed its stream */
    bool finished;     /* emcp_server_finish was called */
    bool idle_sent;    /* `I` went back */
    uint8_t quiet;     /* polls without pending tools since finish */
} link;

static void link_poll(void)
{
    while (linkline_rx_ready()) {
        uint8_t c = linkline_rx();
        if (c == 'E') {
            link.number = 0;
        } else if (c >= '0' && c <= '9') {
            link.number = link.number * 10u + (uint32_t)(c - '0');
        } else if (c == '\n') {
            link.eof_at = link.number;
            link.eof = true;
        }
    }
}

static void check(const char *what, emcp_status status)
{
    if (status != EMCP_OK) {
        semihost_write0("emcp: ");
        semihost_log_u32(what, status, "\n");
    }
}

int main(void)
{
    uart_init(UART0);
    linkline_start();
    semihost_write0("emcp: " FW_CPU " firmware, emcp ");
    semihost_write0(emcp_version());
    semihost_write0(": MCP on UART0\n");

    emcp_status status = emcp_server_init(&storage, sizeof storage, &board_config, line_buffer,
                                          sizeof line_buffer, NULL, 0, &board.server);
    if (status != EMCP_OK) {
        semihost_log_u32("emcp: init failed: status ", status, "\n");
        return 1;
    }
#ifdef BOARD_TASKS
    {
        uint8_t key[EMCP_KEY_LEN];
        if (!semihost_read_bytes("/dev/urandom", key, sizeof key)) {
            semihost_write0("emcp: no key (semihosting /dev/urandom): no tasks\n");
        } else {
            check("set_key: status ", emcp_server_set_key(board.server, key, sizeof key));
        }
    }
    clock_start();
#endif

    for (;;) {
        uint8_t rx[32];
        size_t n = 0;
        while (n < sizeof rx && uart_rx_ready(UART0)) {
            rx[n++] = uart_rx(UART0);
        }
        if (n > 0) {
            size_t consumed = 0;
            check("feed: status ", emcp_server_feed(board.server, rx, n, &consumed));
            link.received += (uint32_t)n;
        } else {
            /* Idle: move pending tools on, send resource-changed notifications. */
            bool busy = false;
            check("poll: status ", emcp_server_poll(board.server, &busy));
            link_poll();
            if (link.finished) {
                link.quiet = busy ? 0u : (uint8_t)(link.quiet < 2u ? link.quiet + 1u : 2u);
                if (link.quiet >= 2u && !link.idle_sent) {
                    linkline_say_idle();
                    link.idle_sent = true;
                }
            } else if (link.eof && link.received >= link.eof_at) {
                check("finish: status ", emcp_server_finish(board.server));
                link.finished = true;
            }
        }
        stack_check();
#ifdef BOARD_TASKS
        clock_update();
#endif
    }
}
