/*
 * main.c — the C sensor board as an MCP server on stdin/stdout (newline-delimited
 * JSON-RPC), the loop of the Rust board's `emcp::serve::serve`:
 *
 *   - read stdin in chunks, feed every byte to the server, then poll pending jobs once;
 *   - while jobs are pending and no input waits, poll them (one step each per poll);
 *   - output is buffered and written out whenever no more input is immediately
 *     available (answers to pipelined requests share one write; a lone request is
 *     answered at once);
 *   - at end of input: a last line without a newline is still handled, pending jobs
 *     run to completion, and the process exits 0.
 *
 * Nothing but protocol goes to stdout; diagnostics go to stderr. Exits 1 when stdout
 * fails (e.g. the client went away).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "board.h"
#include "emcp.h"

static emcp_server_storage storage;
static uint8_t line[4096]; /* the longest message accepted, as the Rust board */

/* Output waiting to be written to fd 1. */
static uint8_t out_buf[64 * 1024];
static size_t out_len;

/* Write all of `bytes` to fd 1. Returns false on failure. */
static bool write_all(const uint8_t *bytes, size_t len)
{
    while (len > 0) {
        ssize_t n = write(1, bytes, len);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            fprintf(stderr, "c-sensor-board: write to stdout: %s\n", strerror(errno));
            return false;
        }
        bytes += n;
        len -= (size_t)n;
    }
    return true;
}

static bool flush(void)
{
    bool ok = write_all(out_buf, out_len);
    out_len = 0;
    return ok;
}

/* The board's output callback (see board.h): buffer; write when the buffer is full. */
emcp_status board_write(void *userdata, const uint8_t *bytes, size_t len)
{
    (void)userdata;
    if (len > sizeof out_buf - out_len && !flush()) {
        return EMCP_WRITE_FAILED;
    }
    if (len > sizeof out_buf) {
        return write_all(bytes, len) ? EMCP_OK : EMCP_WRITE_FAILED;
    }
    memcpy(out_buf + out_len, bytes, len);
    out_len += len;
    return EMCP_OK;
}

/* Whether stdin has bytes (or end of input, or an error) to read without blocking. */
static bool input_ready(void)
{
    struct pollfd p;
    int r;
    p.fd = 0;
    p.events = POLLIN;
    p.revents = 0;
    do {
        r = poll(&p, 1, 0);
    } while (r < 0 && errno == EINTR);
    return r != 0; /* r < 0: let read() report the error */
}

/* Report a failed library call; true when it failed. */
static bool failed(emcp_status st, const char *what)
{
    if (st == EMCP_OK) {
        return false;
    }
    fprintf(stderr, "c-sensor-board: %s failed with status %u\n", what, (unsigned)st);
    return true;
}

int main(void)
{
    static uint8_t buf[4096];
    emcp_status st;
    bool busy = false;

    /* A client that goes away makes write() fail with EPIPE instead of killing us. */
    signal(SIGPIPE, SIG_IGN);

    st = emcp_server_init(&storage, sizeof storage, &board_config, line, sizeof line, NULL, 0,
                          &board.server);
    if (failed(st, "emcp_server_init")) {
        return 1;
    }
    fprintf(stderr, "c-sensor-board: serving MCP on stdin/stdout (emcp %s)\n", emcp_version());

    for (;;) {
        size_t consumed;
        ssize_t n;
        bool ready = input_ready();

        /* Keep pending jobs moving while no input waits. */
        while (busy && !ready) {
            if (failed(emcp_server_poll(board.server, &busy), "emcp_server_poll") || !flush()) {
                return 1;
            }
            ready = input_ready();
        }
        if (!ready && !flush()) {
            return 1;
        }

        n = read(0, buf, sizeof buf);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            fprintf(stderr, "c-sensor-board: read from stdin: %s\n", strerror(errno));
        }
        if (n <= 0) {
            /* End of input: the last line, then every pending job to its end. */
            if (failed(emcp_server_finish(board.server), "emcp_server_finish")) {
                return 1;
            }
            do {
                if (failed(emcp_server_poll(board.server, &busy), "emcp_server_poll")) {
                    return 1;
                }
            } while (busy);
            return flush() ? 0 : 1;
        }

        if (failed(emcp_server_feed(board.server, buf, (size_t)n, &consumed), "emcp_server_feed")
            || failed(emcp_server_poll(board.server, &busy), "emcp_server_poll")) {
            return 1;
        }
    }
}
