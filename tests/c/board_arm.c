/*
 * board_arm.c — the C board's authorization callback (examples/c-sensor-board/board.c)
 * against the real board configuration: with the arm switch open, move_servo is refused
 * before it runs (an isError result; the servo does not move); closed again, it moves.
 * Prints "N passed, M failed"; exits 1 on any failure.
 */
#include <stdio.h>
#include <string.h>

#include "board.h"
#include "emcp.h"

static char g_out[8192];
static size_t g_out_len;
static unsigned g_passed, g_failed;

emcp_status board_write(void *userdata, const uint8_t *bytes, size_t len)
{
    (void)userdata;
    if (len > sizeof g_out - g_out_len) {
        return EMCP_WRITE_FAILED;
    }
    memcpy(g_out + g_out_len, bytes, len);
    g_out_len += len;
    return EMCP_OK;
}

static void expect(const char *what, const char *want)
{
    size_t want_len = strlen(want);
    if (g_out_len == want_len && memcmp(g_out, want, want_len) == 0) {
        g_passed++;
        return;
    }
    g_failed++;
    printf("FAIL [%s]\n      got:  %.*s\n      want: %s\n", what, (int)g_out_len, g_out, want);
}

static void feed(emcp_server *srv, const char *line)
{
    size_t used = 0;
    bool busy = true;
    g_out_len = 0;
    if (emcp_server_feed(srv, (const uint8_t *)line, strlen(line), &used) != EMCP_OK ||
        used != strlen(line)) {
        g_failed++;
        printf("FAIL feed\n");
    }
    while (busy && emcp_server_poll(srv, &busy) == EMCP_OK) {
    }
}

#define MOVE "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":" \
             "\"move_servo\",\"arguments\":{\"angle\":45},\"_meta\":{"                        \
             "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","                    \
             "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"c\",\"version\":\"1\"},"        \
             "\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n"

#define SERVER_META                                                                        \
    ",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"emcp-sensor-board\","     \
    "\"title\":\"emcp simulated sensor board\",\"version\":\"0.1.0\"}}"

int main(void)
{
    static emcp_server_storage storage;
    static uint8_t line[4096];
    if (emcp_server_init(&storage, sizeof storage, &board_config, line, sizeof line, NULL, 0,
                         &board.server) != EMCP_OK) {
        printf("FAIL init\n");
        return 1;
    }

    board.disarmed = 1;
    feed(board.server, MOVE);
    expect("disarmed",
           "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"content\":"
           "[{\"type\":\"text\",\"text\":\"move_servo refused: the arm switch is off\"}],"
           "\"isError\":true" SERVER_META "}}\n");
    if (board.servo != 0) {
        g_failed++;
        printf("FAIL the servo moved while disarmed\n");
    }

    board.disarmed = 0;
    feed(board.server, MOVE);
    expect("armed", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\","
                    "\"content\":[{\"type\":\"text\",\"text\":\"servo: 45.0 deg\"}]" SERVER_META
                    "}}\n");
    if (board.servo != 450) {
        g_failed++;
        printf("FAIL the servo is at %d tenths, not 450\n", (int)board.servo);
    }

    printf("%u passed, %u failed\n", g_passed, g_failed);
    return g_failed == 0 ? 0 : 1;
}
