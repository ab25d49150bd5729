/*
 * main.c — the C sensor board as an MCP server on stdin/stdout (newline-delimited
 * JSON-RPC). emcp_serve_stdio (host builds of the library) is the whole loop: it
 * reads stdin, feeds the server, keeps pending jobs moving while no input waits, and
 * at end of input handles a last line without a newline and runs pending jobs to
 * completion; the board's output callback writes to stdout, flushed line by line
 * (emcp_stdout_write).
 *
 * Built with -DBOARD_OUTPUT_BUFFER, the server instead collects its output in a buffer
 * (the configuration's `write` NULL), which emcp_serve_stdio drains to stdout: the C
 * ABI's other output mode, as a host without a write callback would use it.
 *
 * Nothing but protocol goes to stdout; diagnostics go to stderr. Exits 0 at end of
 * input, 1 when stdin or stdout fails (e.g. the client went away).
 */
#define _POSIX_C_SOURCE 200809L

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "board.h"
#include "emcp.h"

static emcp_server_storage storage;
static uint8_t line[4096]; /* the longest message accepted, as the Rust board */

/* The board's output callback (see board.h): stdout, flushed at each line's end. */
emcp_status board_write(void *userdata, const uint8_t *bytes, size_t len)
{
    return emcp_stdout_write(userdata, bytes, len);
}

int main(void)
{
    emcp_status st;
#ifdef BOARD_OUTPUT_BUFFER
    static uint8_t out[64 * 1024]; /* room for the longest response */
    static emcp_config config; /* must outlive the server */
    config = board_config;
    config.write = NULL;
#define BOARD_CONFIG (&config), line, sizeof line, out, sizeof out
#else
#define BOARD_CONFIG (&board_config), line, sizeof line, NULL, 0
#endif

    /* A client that goes away makes writing fail (EMCP_WRITE_FAILED) instead of
     * killing the process. */
    signal(SIGPIPE, SIG_IGN);

    st = emcp_server_init(&storage, sizeof storage, BOARD_CONFIG, &board.server);
    if (st != EMCP_OK) {
        fprintf(stderr, "c-sensor-board: emcp_server_init: %s\n", emcp_status_str(st));
        return 1;
    }
    fprintf(stderr, "c-sensor-board: serving MCP on stdin/stdout (emcp %s)\n", emcp_version());
    st = emcp_serve_stdio(board.server);
    if (st != EMCP_OK) {
        fprintf(stderr, "c-sensor-board: %s\n", emcp_status_str(st));
        return 1;
    }
    return 0;
}
