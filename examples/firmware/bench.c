/*
 * bench.c — main() of the benchmark image (`make VARIANT=bench`): the full board of
 * main.c without the UART, to count what one message costs on the target. Run by
 * benches/firmware/instr.sh in QEMU with an instruction trace.
 *
 * Arguments (QEMU: `-semihosting-config enable=on,target=native,arg=bench,arg=COUNT,
 * arg=FILE`): FILE holds request lines, each ending in a newline. Every line but the
 * last is set-up, fed once (`initialize` and `notifications/initialized` in the
 * initialize era); the last is fed COUNT times through emcp_server_feed, as received
 * bytes are on the device, and its responses go to a write callback that counts them
 * and keeps the first. Two runs that differ only in COUNT (written with as many digits)
 * differ by exactly the extra messages: feed, framing, handling, the callback.
 *
 * Exit code 0 when the first response is a JSON-RPC result with id 1 and every other one
 * has its length (it and its length are logged over semihosting); 1 when not, 2 for bad
 * arguments or a failed feed.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "board.h"
#include "emcp.h"
#include "semihost.h"

static emcp_server_storage storage;
static uint8_t line_buffer[1024];
static uint8_t input[2048];

/* The first measured response (as much as fits, NUL-terminated) and its length. */
static char first[2048];
static uint32_t kept;
static bool keep;
/* Bytes written since the measured messages began. */
static uint32_t written;

emcp_status board_write(void *userdata, const uint8_t *bytes, size_t len)
{
    (void)userdata;
    if (keep) {
        for (size_t i = 0; i < len && kept < sizeof first - 1u; i++) {
            first[kept++] = (char)bytes[i];
        }
    }
    written += (uint32_t)len;
    return EMCP_OK;
}

static __attribute__((noreturn)) void fail(uint32_t code, const char *why)
{
    semihost_write0("bench: ");
    semihost_write0(why);
    semihost_write0("\n");
    semihost_exit(code);
}

static void feed(const uint8_t *bytes, size_t len)
{
    size_t consumed = 0;
    if (emcp_server_feed(board.server, bytes, len, &consumed) != EMCP_OK || consumed != len) {
        fail(2, "emcp_server_feed failed");
    }
}

int main(void)
{
    /* "bench COUNT FILE" */
    static char cmdline[256];
    if (!semihost_cmdline(cmdline, sizeof cmdline)) {
        fail(2, "no arguments");
    }
    char *p = cmdline;
    while (*p != ' ' && *p != '\0') {
        p++;
    }
    uint32_t count = 0;
    for (p += *p == ' '; *p >= '0' && *p <= '9'; p++) {
        count = count * 10u + (uint32_t)(*p - '0');
    }
    if (*p != ' ' || count == 0u) {
        fail(2, "usage: bench COUNT FILE");
    }
    int32_t n = semihost_read_file(p + 1, input, sizeof input);
    if (n <= 0 || input[n - 1] != '\n') {
        fail(2, "FILE: missing, too long, or not ending in a newline");
    }
    size_t end = (size_t)n;
    size_t start = end - 1u;
    while (start > 0u && input[start - 1u] != '\n') {
        start--;
    }

    emcp_status status = emcp_server_init(&storage, sizeof storage, &board_config, line_buffer,
                                          sizeof line_buffer, NULL, 0, &board.server);
    if (status != EMCP_OK) {
        fail(2, "emcp_server_init failed");
    }
    if (start > 0u) {
        feed(input, start);
    }
    written = 0;
    keep = true;
    feed(input + start, end - start);
    keep = false;
    uint32_t one = written;
    for (uint32_t i = 1; i < count; i++) {
        feed(input + start, end - start);
    }

    first[kept] = '\0';
    semihost_log_u32("bench: response bytes ", one, "\n");
    semihost_write0("bench: first response: ");
    semihost_write0(first);
    if (kept < one) {
        semihost_write0("...\n"); /* the rest did not fit */
    }
    static const char result[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":";
    if (kept < sizeof result - 1u || memcmp(first, result, sizeof result - 1u) != 0) {
        fail(1, "the first response is not a result");
    }
    if (written != one * count) {
        fail(1, "the responses changed length");
    }
    semihost_exit(0);
}
