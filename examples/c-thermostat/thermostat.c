/*
 * thermostat.c — the thermostat of docs/first-device.md: a device of your own in C,
 * served as an MCP server on stdin/stdout by the C ABI (include/emcp.h).
 *
 * Two tools (one with structured results), a resource, and a change notification
 * when the target changes. Build and run (from the repository's root):
 *
 *   cargo build --release -p emcp-ffi
 *   cc -std=c99 -Iinclude examples/c-thermostat/thermostat.c -Ltarget/release -lemcp_ffi -lpthread -ldl -lm -o thermostat
 *   ./thermostat          # connect any MCP client to this command
 */
#define _POSIX_C_SOURCE 200809L

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "emcp.h"

/* The device's state, in tenths of a degree; on hardware, its sensor and heater. */
static int64_t celsius = 215;
static int64_t target = 200;
static emcp_server *server;

/* Tenths of a degree as a decimal number: 215 as "21.5". */
static const char *tenths(int64_t v, char buf[24])
{
    snprintf(buf, 24, "%s%lld.%lld", v < 0 ? "-" : "", (long long)(v < 0 ? -v : v) / 10,
             (long long)(v < 0 ? -v : v) % 10);
    return buf;
}

static emcp_status read_temperature(void *userdata, emcp_tool_call *call)
{
    char text[64], json[64], a[24], b[24];
    int n;
    (void)userdata;
    /* A text block for clients that read no structured content, then the structured
     * result the output schema describes. */
    n = snprintf(text, sizeof text, "%s C, target %s C", tenths(celsius, a), tenths(target, b));
    emcp_call_text(call, text, (size_t)n);
    n = snprintf(json, sizeof json, "{\"celsius\":%s,\"target\":%s}", a, b);
    return emcp_call_structured(call, json, (size_t)n);
}

static emcp_status set_target(void *userdata, emcp_tool_call *call)
{
    char text[48], a[24];
    int64_t t;
    int n;
    (void)userdata;
    /* The arguments were checked against the schema before this runs. */
    if (emcp_args_get_scaled(call, EMCP_TEXT("celsius"), 1, &t) != EMCP_OK) {
        return emcp_call_error(call, EMCP_TEXT("celsius must be a number"));
    }
    target = t;
    /* Subscribers of thermostat://state are told. */
    emcp_server_resource_changed(server, EMCP_TEXT("thermostat://state"));
    n = snprintf(text, sizeof text, "target set to %s C", tenths(t, a));
    return emcp_call_text(call, text, (size_t)n);
}

static emcp_status read_state(void *userdata, emcp_resource_read *read)
{
    char json[64], a[24], b[24];
    int n;
    (void)userdata;
    n = snprintf(json, sizeof json, "{\"celsius\":%s,\"target\":%s}", tenths(celsius, a),
                 tenths(target, b));
    return emcp_read_text(read, EMCP_TEXT("application/json"), json, (size_t)n);
}

static const emcp_tool TOOLS[] = {
    {
        .name = EMCP_STR("read_temperature"),
        .description = EMCP_STR("The room temperature and the target, in degrees Celsius."),
        .input_schema = EMCP_STR("{\"type\":\"object\",\"additionalProperties\":false}"),
        .output_schema = EMCP_STR("{\"type\":\"object\",\"properties\":{\"celsius\":{\"type\":"
                                  "\"number\"},\"target\":{\"type\":\"number\"}},\"required\":"
                                  "[\"celsius\",\"target\"]}"),
        .annotations = {.read_only = EMCP_HINT_TRUE},
        .call = read_temperature,
    },
    {
        .name = EMCP_STR("set_target"),
        .description = EMCP_STR("Set the target temperature (5 to 30 degrees Celsius)."),
        .input_schema = EMCP_STR("{\"type\":\"object\",\"properties\":{\"celsius\":{\"type\":"
                                 "\"number\",\"minimum\":5,\"maximum\":30}},\"required\":"
                                 "[\"celsius\"],\"additionalProperties\":false}"),
        .call = set_target,
    },
};

static const emcp_resource RESOURCES[] = {{
    .uri = EMCP_STR("thermostat://state"),
    .name = EMCP_STR("state"),
    .description = EMCP_STR("The temperature and the target, as JSON"),
    .mime_type = EMCP_STR("application/json"),
    .read = read_state,
}};

static const emcp_config CONFIG = {
    .name = EMCP_STR("thermostat"),
    .version = EMCP_STR("0.1.0"),
    .instructions = EMCP_STR("A thermostat: read_temperature, set_target, thermostat://state."),
    .tools = TOOLS,
    .tools_len = sizeof TOOLS / sizeof TOOLS[0],
    .resources = RESOURCES,
    .resources_len = sizeof RESOURCES / sizeof RESOURCES[0],
    .write = emcp_stdout_write, /* stdout, flushed line by line; every other field: 0 */
};

static emcp_server_storage storage;
static uint8_t line[4096]; /* the longest message accepted */

int main(void)
{
    emcp_status st;
    size_t index;
    signal(SIGPIPE, SIG_IGN); /* a client that goes away: EMCP_WRITE_FAILED */
    st = emcp_server_init(&storage, sizeof storage, &CONFIG, line, sizeof line, NULL, 0, &server);
    if (st != EMCP_OK) {
        emcp_config_check(&CONFIG, &index);
        fprintf(stderr, "thermostat: %s (descriptor %zu)\n", emcp_status_str(st), index);
        return 1;
    }
    st = emcp_serve_stdio(server); /* until end of input */
    if (st != EMCP_OK) {
        fprintf(stderr, "thermostat: %s\n", emcp_status_str(st));
        return 1;
    }
    return 0;
}
