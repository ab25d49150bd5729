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
 * Built with -DBOARD_TASKS (docs/board.md's tasks build; with -DEMCP_TASKS, against
 * an emcp-ffi built with `tasks`), it also provides the board's clock (CLOCK_REALTIME
 * in milliseconds since the Unix epoch) and gives the server a key of 32 random bytes
 * from the operating system (/dev/urandom), drawn at each start.
 *
 * Nothing but protocol goes to stdout; diagnostics go to stderr. Exits 0 at end of
 * input, 1 when stdin or stdout fails (e.g. the client went away).
 */
#define _POSIX_C_SOURCE 200809L

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#ifdef BOARD_TASKS
#include <time.h>
#endif

#include "board.h"
#include "emcp.h"

static emcp_server_storage storage;
static uint8_t line[4096]; /* the longest message accepted, as the Rust board */

/* The board's output callback (see board.h): stdout, flushed at each line's end. */
emcp_status board_write(void *userdata, const uint8_t *bytes, size_t len)
{
    return emcp_stdout_write(userdata, bytes, len);
}

#ifdef BOARD_TASKS
uint64_t board_now_ms(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0) {
        return 0;
    }
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* The server's key: EMCP_KEY_LEN bytes from the operating system's random source. */
static int set_random_key(emcp_server *server)
{
    uint8_t key[EMCP_KEY_LEN];
    size_t n = 0;
    emcp_status st;
    FILE *f = fopen("/dev/urandom", "rb");
    if (f != NULL) {
        n = fread(key, 1, sizeof key, f);
        fclose(f);
    }
    if (n != sizeof key) {
        fprintf(stderr, "c-sensor-board: cannot read a key from /dev/urandom\n");
        return 0;
    }
    st = emcp_server_set_key(server, key, sizeof key);
    if (st != EMCP_OK) {
        fprintf(stderr, "c-sensor-board: emcp_server_set_key: %s\n", emcp_status_str(st));
        return 0;
    }
    return 1;
}
#endif

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
#ifdef BOARD_TASKS
    if (!set_random_key(board.server)) {
        return 1;
    }
#endif
    fprintf(stderr, "c-sensor-board: serving MCP on stdin/stdout (emcp %s)\n", emcp_version());
    st = emcp_serve_stdio(board.server);
    if (st != EMCP_OK) {
        fprintf(stderr, "c-sensor-board: %s\n", emcp_status_str(st));
        return 1;
    }
    return 0;
}
