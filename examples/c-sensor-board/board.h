/*
 * board.h — the simulated sensor board of docs/board.md, in C99 against emcp.h.
 *
 * board.c is the device: static const descriptors, the tool, resource, prompt and
 * completion callbacks, and the board's state. The transport (main.c here; a UART
 * driver on a microcontroller) provides `board_write` and calls `emcp_server_init`
 * with `&board_config`, storing the server in `board.server`:
 *
 *     static emcp_server_storage storage;
 *     static uint8_t line[4096];
 *     emcp_server_init(&storage, sizeof storage, &board_config, line, sizeof line,
 *                      NULL, 0, &board.server);
 */
#ifndef BOARD_H
#define BOARD_H

#include <stddef.h>
#include <stdint.h>

#include "emcp.h"

/* The board's state: what set_led, move_servo and the cancel callback change. */
struct board {
    /* The server, for emcp_server_resource_changed (set by emcp_server_init). */
    emcp_server *server;
    /* LED colour: 0 off, 1 red, 2 green, 3 blue. */
    uint8_t led;
    /* LED brightness in percent (0-100). */
    uint8_t brightness;
    /* Servo angle in tenths of a degree. */
    int32_t servo;
    /* Servo moves the client cancelled. */
    uint32_t cancelled;
    /* The arm switch (a physical input) is open: move_servo is refused before it runs
     * (the `authorize` callback of `board_config`). 0 at power-on: closed, armed. */
    uint8_t disarmed;
};

/* The board at power-on; `board_config.userdata` points here. */
extern struct board board;

/* The server configuration: every descriptor, callback and text of the board. */
extern const emcp_config board_config;

/*
 * Output callback of `board_config`, provided by the transport: take all `len` bytes
 * (or buffer them) and return EMCP_OK, or EMCP_WRITE_FAILED.
 */
emcp_status board_write(void *userdata, const uint8_t *bytes, size_t len);

#ifdef BOARD_TASKS
/*
 * The tasks build (-DBOARD_TASKS): the board's clock, provided by the transport, in
 * milliseconds — since the Unix epoch on a host, since boot on a microcontroller. The
 * transport also gives the server its secret key (emcp_server_set_key) after
 * emcp_server_init: without one the server offers no tasks.
 */
uint64_t board_now_ms(void);
#endif

#endif /* BOARD_H */
