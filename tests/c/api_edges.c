/*
 * api_edges.c - edge tests of the emcp C ABI (include/emcp.h), plain C99.
 *
 * Built and run twice by tests/c/run.sh: with -std=c99 -Wall -Wextra -pedantic -Werror,
 * and again under AddressSanitizer + UndefinedBehaviorSanitizer. Every assertion is
 * counted; failures are printed as they happen and the last line on stdout is exactly
 * "N passed, M failed". The exit status is non-zero when anything failed.
 *
 * Each check names what the header documents: NULL pointers, storage and buffer sizes,
 * invalid configurations, content in the wrong state (EMCP_WRONG_STATE), output-buffer
 * back-pressure, argument accessors, and the exact JSON-RPC lines that result.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "emcp.h"
#include "edge_plans.h"

/* ------------------------------------------------------------------------------------ */
/* A tiny assertion harness.                                                             */

static unsigned g_passed;
static unsigned g_failed;
static const char *g_test = "";

static void print_escaped(const char *s, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\n') {
            fputs("\\n", stdout);
        } else if (c < 0x20 || c >= 0x7f) {
            printf("\\x%02x", c);
        } else {
            putchar(c);
        }
    }
}

static void check_(int ok, const char *bug, const char *what, int line, const char *detail) {
    if (ok) {
        g_passed++;
        return;
    }
    g_failed++;
    printf("FAIL [%s] api_edges.c:%d: %s", g_test, line, what);
    if (detail != NULL) {
        printf(" (%s)", detail);
    }
    if (bug != NULL) {
        printf("  <-- known ABI defect %s", bug);
    }
    putchar('\n');
}

static void check_st_(emcp_status got, emcp_status want, const char *bug, const char *what,
                      int line) {
    char detail[64];
    snprintf(detail, sizeof detail, "got %u, want %u", (unsigned)got, (unsigned)want);
    check_(got == want, bug, what, line, got == want ? NULL : detail);
}

static void check_text_(const char *got, size_t got_len, const char *want, const char *bug,
                        int line) {
    size_t want_len = strlen(want);
    if (got_len == want_len && memcmp(got, want, want_len) == 0) {
        g_passed++;
        return;
    }
    g_failed++;
    printf("FAIL [%s] api_edges.c:%d: output differs", g_test, line);
    if (bug != NULL) {
        printf("  <-- known ABI defect %s", bug);
    }
    fputs("\n      got:  ", stdout);
    print_escaped(got, got_len);
    fputs("\n      want: ", stdout);
    print_escaped(want, want_len);
    putchar('\n');
}

#define CHECK(c) check_(!!(c), NULL, #c, __LINE__, NULL)
#define CHECK_ST(e, want) check_st_((e), (want), NULL, #e " == " #want, __LINE__)
#define CHECK_TEXT(got, len, want) check_text_((got), (len), (want), NULL, __LINE__)

/* Sentinels pre-filled into out-parameters that must stay untouched. */
#define S_SIZE ((size_t)0x5EE5u)
#define S_U32 ((uint32_t)0x5EE5u)
#define S_I64 ((int64_t)-0x5EE5)
#define S_F64 (-12345.25)
static const char s_ptr_target = 'S';
#define S_PTR (&s_ptr_target)
/* bool sentinel: a byte pattern, compared bytewise (never loaded as a bool). */
static void bool_fill(bool *b) { memset(b, 0xA5, sizeof *b); }
static int bool_untouched(const bool *b) { return *(const unsigned char *)b == 0xA5; }

/* ------------------------------------------------------------------------------------ */
/* The test device: small tools with {"type":"object"} schemas, one resource, one       */
/* template, one prompt, completions.                                                   */

enum {
    T_ARGS,            /* exercises the emcp_args_* accessors */
    T_NULLS,           /* NULL parameters of every emcp_call_* function */
    T_FAIL,            /* returns EMCP_TOOL_FAILED, nothing written */
    T_FAIL_AFTER_TEXT, /* writes text, then returns 42 */
    T_ERROR,           /* emcp_call_error, returns OK */
    T_BIG,             /* a 2000-byte text */
    T_STRUCTURED,      /* emcp_call_structured edges */
    T_STREAMS,         /* streamed text / image blocks, parts without a stream */
    T_COUNT
};

static emcp_status tool_cb(void *userdata, emcp_tool_call *call);
static emcp_status read_cb(void *userdata, emcp_resource_read *read);
static emcp_status prompt_cb(void *userdata, emcp_prompt_get *get);
static void complete_cb(void *userdata, emcp_completion *c);

#define OBJECT_SCHEMA EMCP_STR("{\"type\":\"object\"}")
#define TOOL(name)                                                                          \
    {                                                                                       \
        EMCP_STR(name), EMCP_NO_STR, EMCP_NO_STR, OBJECT_SCHEMA, EMCP_NO_STR, {0, 0, 0, 0}, \
            tool_cb, NULL, NULL, EMCP_TASK_FORBIDDEN, NULL, NULL, 0                         \
    }

static const emcp_tool tools[T_COUNT] = {
    TOOL("args"),  TOOL("nulls"),      TOOL("fail"),    TOOL("fail_after_text"),
    TOOL("error"), TOOL("big"),        TOOL("structured"), TOOL("streams"),
};

static const emcp_resource resources[1] = {
    {EMCP_STR("test://r"), EMCP_STR("r"), EMCP_NO_STR, EMCP_NO_STR, EMCP_NO_STR, 0, false,
     read_cb},
};

static const emcp_resource_template templates[1] = {
    {EMCP_STR("test://{name}/t"), EMCP_STR("t"), EMCP_NO_STR, EMCP_NO_STR, EMCP_NO_STR,
     read_cb},
};

static const emcp_prompt_argument prompt_args[1] = {
    {EMCP_STR("who"), EMCP_NO_STR, EMCP_NO_STR, false},
};

static const emcp_prompt prompts[1] = {
    {EMCP_STR("p"), EMCP_NO_STR, EMCP_NO_STR, prompt_args, 1, prompt_cb},
};

/* Output-buffer mode. */
static const emcp_config cfg_buf = {
    EMCP_STR("edge"), EMCP_STR("1.0"), EMCP_NO_STR, EMCP_NO_STR,
    tools, T_COUNT, resources, 1, templates, 1, prompts, 1,
    complete_cb, NULL, NULL, 0, 0, 0, NULL, NULL,
};

/* Write-callback mode: everything written is appended to `g_cap`, unless `g_write_fail`. */
static char g_cap[65536];
static size_t g_cap_len;
static int g_write_fail;
static unsigned g_write_calls;

static emcp_status write_cb(void *userdata, const uint8_t *bytes, size_t len) {
    (void)userdata;
    g_write_calls++;
    if (g_write_fail) {
        return EMCP_WRITE_FAILED;
    }
    if (len > sizeof g_cap - g_cap_len) {
        len = sizeof g_cap - g_cap_len;
    }
    memcpy(g_cap + g_cap_len, bytes, len);
    g_cap_len += len;
    return EMCP_OK;
}

static const emcp_config cfg_cb = {
    EMCP_STR("edge"), EMCP_STR("1.0"), EMCP_NO_STR, EMCP_NO_STR,
    tools, T_COUNT, resources, 1, templates, 1, prompts, 1,
    complete_cb, write_cb, NULL, 0, 0, 0, NULL, NULL,
};

/* ------------------------------------------------------------------------------------ */
/* A server in caller-provided memory, and helpers to feed it and collect its output.    */

#define LINE_CAP 4096
#define OUT_CAP 8192

typedef struct {
    emcp_server_storage storage;
    uint8_t line[LINE_CAP];
    uint8_t out[OUT_CAP];
    emcp_server *srv;
} box;

static box g_box;

static char g_got[65536];
static size_t g_got_len;

static emcp_status box_init(box *b, const emcp_config *cfg, size_t line_len, size_t out_len) {
    b->srv = NULL;
    return emcp_server_init(&b->storage, sizeof b->storage, cfg, b->line, line_len,
                            cfg->write != NULL ? NULL : b->out, out_len, &b->srv);
}

/* Take all waiting output (output-buffer mode) into g_got. */
static void drain(box *b) {
    for (;;) {
        size_t n = S_SIZE;
        emcp_status st = emcp_server_take_output(b->srv, (uint8_t *)g_got + g_got_len,
                                                 sizeof g_got - g_got_len, &n);
        if (st != EMCP_OK || n == 0 || n == S_SIZE) {
            CHECK_ST(st, EMCP_OK);
            return;
        }
        g_got_len += n;
    }
}

/* Feed `len` bytes in chunks of `chunk` (0: all at once), draining whenever the server
 * stops consuming. Returns the number of feed calls that consumed less than offered. */
static unsigned feed(box *b, const char *data, size_t len, size_t chunk) {
    unsigned stalls = 0;
    size_t off = 0;
    while (off < len) {
        size_t n = chunk == 0 || chunk > len - off ? len - off : chunk;
        size_t used = S_SIZE;
        emcp_status st = emcp_server_feed(b->srv, (const uint8_t *)data + off, n, &used);
        if (st != EMCP_OK || used > n) {
            CHECK_ST(st, EMCP_OK);
            CHECK(used <= n);
            return stalls;
        }
        off += used;
        if (used < n) {
            stalls++;
            drain(b);
        }
    }
    return stalls;
}

/* Feed `input` (whole when chunk is 0, else in chunks), take every output byte: g_got. */
static void roundtrip(box *b, const char *input, size_t chunk) {
    g_got_len = 0;
    feed(b, input, strlen(input), chunk);
    drain(b);
}

/* Append the exact response line of a ping with numeric id `id` to `dst`. */
static size_t pong(char *dst, int id) {
    return (size_t)sprintf(dst, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{}}\n", id);
}

/* A ping request line of exactly `total` bytes before its newline (padding in params;
 * `total` must exceed the 60-odd bytes of the unpadded request). */
static size_t make_ping(char *dst, int id, size_t total) {
    int head = sprintf(dst, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"ping\",\"params\":{\"p\":\"", id);
    size_t pad = total - (size_t)head - 3;
    memset(dst + head, 'x', pad);
    memcpy(dst + head + pad, "\"}}\n", 5);
    return total + 1;
}

/* ------------------------------------------------------------------------------------ */
/* Tool callbacks.                                                                       */

#define ARGS_JSON                                                                          \
    "{\"s\":\"a\\\"b\\\\c\\u00e9\\n\",\"n\":5,\"f\":5.0,\"e\":1e2,\"neg\":-3,\"frac\":1.5," \
    "\"b\":true,\"o\":{\"k\":[1,2]},\"big\":1e17,\"zero\":0,\"z\":null}"
#define ARG_S_RAW "\"a\\\"b\\\\c\\u00e9\\n\""
#define ARG_S_DECODED "a\"b\\c\xc3\xa9\n" /* 8 bytes */

static void tool_args(emcp_tool_call *call) {
    char buf[64];
    size_t len, idx;
    int64_t i;
    double f;
    bool b;
    const char *p;
    uint32_t state;
    static int big_done;

    /* Strings: escapes decoded, a NUL after the text when there is room. */
    len = S_SIZE;
    memset(buf, 'Z', sizeof buf);
    CHECK_ST(emcp_args_get_str(call, "s", 1, buf, sizeof buf, &len), EMCP_OK);
    CHECK(len == sizeof ARG_S_DECODED - 1);
    CHECK(memcmp(buf, ARG_S_DECODED, sizeof ARG_S_DECODED) == 0);
    /* Exactly the text's length: OK, no NUL, nothing written at buf[buf_len]. */
    len = S_SIZE;
    memset(buf, 'Z', sizeof buf);
    CHECK_ST(emcp_args_get_str(call, "s", 1, buf, 8, &len), EMCP_OK);
    CHECK(len == 8);
    CHECK(memcmp(buf, ARG_S_DECODED, 8) == 0);
    CHECK(buf[8] == 'Z');
    /* One byte short, and no room at all. */
    len = S_SIZE;
    CHECK_ST(emcp_args_get_str(call, "s", 1, buf, 7, &len), EMCP_BUFFER_TOO_SMALL);
    CHECK(len == S_SIZE);
    CHECK_ST(emcp_args_get_str(call, "s", 1, buf, 0, &len), EMCP_BUFFER_TOO_SMALL);
    CHECK(len == S_SIZE);
    CHECK_ST(emcp_args_get_str(call, "missing", 7, buf, sizeof buf, &len), EMCP_NOT_FOUND);
    CHECK_ST(emcp_args_get_str(call, "n", 1, buf, sizeof buf, &len), EMCP_WRONG_TYPE);
    CHECK_ST(emcp_args_get_str(call, "z", 1, buf, sizeof buf, &len), EMCP_WRONG_TYPE);
    CHECK_ST(emcp_args_get_str(call, "\xff", 1, buf, sizeof buf, &len), EMCP_INVALID_PARAMETER);
    CHECK(len == S_SIZE);

    /* Integers: any integral number. */
    i = S_I64;
    CHECK_ST(emcp_args_get_i64(call, "n", 1, &i), EMCP_OK);
    CHECK(i == 5);
    i = S_I64;
    CHECK_ST(emcp_args_get_i64(call, "f", 1, &i), EMCP_OK); /* 5.0 */
    CHECK(i == 5);
    i = S_I64;
    CHECK_ST(emcp_args_get_i64(call, "e", 1, &i), EMCP_OK); /* 1e2 */
    CHECK(i == 100);
    i = S_I64;
    CHECK_ST(emcp_args_get_i64(call, "neg", 3, &i), EMCP_OK);
    CHECK(i == -3);
    i = S_I64;
    CHECK_ST(emcp_args_get_i64(call, "frac", 4, &i), EMCP_WRONG_TYPE); /* 1.5 */
    CHECK(i == S_I64);
    CHECK_ST(emcp_args_get_i64(call, "s", 1, &i), EMCP_WRONG_TYPE);
    CHECK_ST(emcp_args_get_i64(call, "b", 1, &i), EMCP_WRONG_TYPE);
    CHECK_ST(emcp_args_get_i64(call, "missing", 7, &i), EMCP_NOT_FOUND);
    CHECK(i == S_I64);
    /* 1e17 is integral, exactly representable and within i64 (checked on the first
     * run only, so that the defect counts once). */
    if (!big_done++) {
        CHECK_ST(emcp_args_get_i64(call, "big", 3, &i), EMCP_OK);
        CHECK(i == INT64_C(100000000000000000));
    }

    /* Fixed point: value times 10^scale, truncated toward zero. */
    i = S_I64;
    CHECK_ST(emcp_args_get_scaled(call, "frac", 4, 1, &i), EMCP_OK); /* 1.5 */
    CHECK(i == 15);
    CHECK_ST(emcp_args_get_scaled(call, "frac", 4, 0, &i), EMCP_OK);
    CHECK(i == 1);
    CHECK_ST(emcp_args_get_scaled(call, "neg", 3, 2, &i), EMCP_OK);
    CHECK(i == -300);
    CHECK_ST(emcp_args_get_scaled(call, "e", 1, 16, &i), EMCP_OK); /* 1e2 */
    CHECK(i == INT64_C(1000000000000000000));
    i = S_I64;
    CHECK_ST(emcp_args_get_scaled(call, "e", 1, 17, &i), EMCP_WRONG_TYPE); /* 1e19 */
    CHECK_ST(emcp_args_get_scaled(call, "s", 1, 0, &i), EMCP_WRONG_TYPE);
    CHECK_ST(emcp_args_get_scaled(call, "b", 1, 0, &i), EMCP_WRONG_TYPE);
    CHECK_ST(emcp_args_get_scaled(call, "missing", 7, 0, &i), EMCP_NOT_FOUND);
    CHECK(i == S_I64);
    /* EMCP_MAX_SCALE is taken, one more is refused. */
    CHECK_ST(emcp_args_get_scaled(call, "zero", 4, EMCP_MAX_SCALE, &i), EMCP_OK);
    CHECK(i == 0);
    i = S_I64;
    CHECK_ST(emcp_args_get_scaled(call, "zero", 4, EMCP_MAX_SCALE + 1, &i), EMCP_WRONG_TYPE);
    CHECK(i == S_I64);

    /* Numbers. */
    f = S_F64;
    CHECK_ST(emcp_args_get_f64(call, "frac", 4, &f), EMCP_OK);
    CHECK(f == 1.5);
    CHECK_ST(emcp_args_get_f64(call, "e", 1, &f), EMCP_OK);
    CHECK(f == 100.0);
    CHECK_ST(emcp_args_get_f64(call, "neg", 3, &f), EMCP_OK);
    CHECK(f == -3.0);
    f = S_F64;
    CHECK_ST(emcp_args_get_f64(call, "s", 1, &f), EMCP_WRONG_TYPE);
    CHECK_ST(emcp_args_get_f64(call, "b", 1, &f), EMCP_WRONG_TYPE);
    CHECK_ST(emcp_args_get_f64(call, "z", 1, &f), EMCP_WRONG_TYPE);
    CHECK_ST(emcp_args_get_f64(call, "missing", 7, &f), EMCP_NOT_FOUND);
    CHECK(f == S_F64);

    /* Booleans. */
    bool_fill(&b);
    CHECK_ST(emcp_args_get_bool(call, "n", 1, &b), EMCP_WRONG_TYPE);
    CHECK_ST(emcp_args_get_bool(call, "s", 1, &b), EMCP_WRONG_TYPE);
    CHECK_ST(emcp_args_get_bool(call, "missing", 7, &b), EMCP_NOT_FOUND);
    CHECK(bool_untouched(&b));
    CHECK_ST(emcp_args_get_bool(call, "b", 1, &b), EMCP_OK);
    CHECK(b == true);

    /* Raw JSON: NULL key = the whole arguments object, exactly as received. */
    p = S_PTR;
    len = S_SIZE;
    CHECK_ST(emcp_args_get_raw(call, NULL, 0, &p, &len), EMCP_OK);
    CHECK(len == strlen(ARGS_JSON) && memcmp(p, ARGS_JSON, len) == 0);
    CHECK_ST(emcp_args_get_raw(call, "o", 1, &p, &len), EMCP_OK);
    CHECK(len == 11 && memcmp(p, "{\"k\":[1,2]}", 11) == 0);
    CHECK_ST(emcp_args_get_raw(call, "s", 1, &p, &len), EMCP_OK);
    CHECK(len == strlen(ARG_S_RAW) && memcmp(p, ARG_S_RAW, len) == 0);
    CHECK_ST(emcp_args_get_raw(call, "z", 1, &p, &len), EMCP_OK);
    CHECK(len == 4 && memcmp(p, "null", 4) == 0);
    p = S_PTR;
    len = S_SIZE;
    CHECK_ST(emcp_args_get_raw(call, "missing", 7, &p, &len), EMCP_NOT_FOUND);
    CHECK(p == S_PTR && len == S_SIZE);

    /* The call itself. */
    idx = S_SIZE;
    CHECK_ST(emcp_call_tool_index(call, &idx), EMCP_OK);
    CHECK(idx == T_ARGS);
    bool_fill(&b);
    CHECK_ST(emcp_call_can_defer(call, &b), EMCP_OK);
    CHECK(b == false); /* the tool has no poll callback */
    state = S_U32;
    CHECK_ST(emcp_call_state(call, &state), EMCP_OK);
    CHECK(state == 0);
    CHECK_ST(emcp_call_set_state(call, 7), EMCP_OK);
    CHECK_ST(emcp_call_state(call, &state), EMCP_OK);
    CHECK(state == 7);
    bool_fill(&b);
    CHECK_ST(emcp_call_progress(call, 1.0, -1.0, NULL, 0, &b), EMCP_OK);
    CHECK(b == false); /* no progressToken */
    bool_fill(&b);
    CHECK_ST(emcp_call_progress_u64(call, 1, 0, NULL, 0, &b), EMCP_OK);
    CHECK(b == false);
    bool_fill(&b);
    CHECK_ST(emcp_call_log(call, EMCP_LOG_ERROR, "t", 1, "d", 1, &b), EMCP_OK);
    CHECK(b == false); /* logging not enabled */
    bool_fill(&b);
    CHECK_ST(emcp_call_log(call, 8, "t", 1, "d", 1, &b), EMCP_INVALID_PARAMETER);
    CHECK(bool_untouched(&b));

    CHECK_ST(emcp_call_text(call, "ok", 2), EMCP_OK);
}

/* Every pointer parameter of the emcp_args_* / emcp_call_* functions NULL, with a real
 * call handle. Nothing may be written by these; the result then holds "" and "ok". */
static void tool_nulls(emcp_tool_call *call) {
    static const uint8_t data[3] = {0, 1, 2};
    char buf[16];
    size_t len = S_SIZE;
    int64_t i = S_I64;
    double f = S_F64;
    bool b;
    const char *p = S_PTR;
    uint32_t state = S_U32;

    bool_fill(&b);
    CHECK_ST(emcp_args_get_str(call, NULL, 1, buf, sizeof buf, &len), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_args_get_str(call, "k", 1, NULL, 8, &len), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_args_get_str(call, "k", 1, buf, sizeof buf, NULL), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_args_get_i64(call, NULL, 1, &i), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_args_get_i64(call, "k", 1, NULL), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_args_get_scaled(call, NULL, 1, 0, &i), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_args_get_scaled(call, "k", 1, 0, NULL), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_args_get_f64(call, NULL, 1, &f), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_args_get_f64(call, "k", 1, NULL), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_args_get_bool(call, NULL, 1, &b), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_args_get_bool(call, "k", 1, NULL), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_args_get_raw(call, "k", 1, NULL, &len), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_args_get_raw(call, "k", 1, &p, NULL), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_call_tool_index(call, NULL), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_call_can_defer(call, NULL), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_call_state(call, NULL), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_call_progress(call, 1.0, 2.0, "m", 1, NULL), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_call_progress_u64(call, 1, 2, "m", 1, NULL), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_call_log(call, EMCP_LOG_INFO, NULL, 1, "d", 1, &b), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_call_log(call, EMCP_LOG_INFO, "l", 1, NULL, 1, &b), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_call_log(call, EMCP_LOG_INFO, "l", 1, "d", 1, NULL), EMCP_NULL_PARAMETER);
    CHECK(len == S_SIZE && i == S_I64 && f == S_F64 && p == S_PTR && state == S_U32);
    CHECK(bool_untouched(&b));

    CHECK_ST(emcp_call_text(call, NULL, 3), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_call_text_part(call, NULL, 3), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_call_image_begin(call, NULL, 9), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_call_audio_begin(call, NULL, 9), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_call_data(call, NULL, 3), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_call_resource_link(call, NULL, 1, "n", 1, NULL, 0), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_call_resource_link(call, "u", 1, NULL, 1, NULL, 0), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_call_embedded_text(call, NULL, 1, NULL, 0, "t", 1), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_call_embedded_text(call, "u", 1, NULL, 0, NULL, 3),
                 EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_call_embedded_blob(call, NULL, 1, NULL, 0, data, 3), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_call_embedded_blob(call, "u", 1, NULL, 0, NULL, 3),
                 EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_call_structured(call, NULL, 2), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_call_error(call, NULL, 3), EMCP_NULL_PARAMETER);

    /* Invalid UTF-8 text is refused. */
    CHECK_ST(emcp_call_text(call, "\xff", 1), EMCP_INVALID_PARAMETER);
    CHECK_ST(emcp_call_image_begin(call, "\xc0\xaf", 2), EMCP_INVALID_PARAMETER);
    CHECK_ST(emcp_call_resource_link(call, "u", 1, "n", 1, "\xff", 1), EMCP_INVALID_PARAMETER);
    CHECK_ST(emcp_call_error(call, "\xff", 1), EMCP_INVALID_PARAMETER);
    CHECK_ST(emcp_call_progress(call, 1.0, 2.0, "\xff", 1, &b), EMCP_INVALID_PARAMETER);
    CHECK_ST(emcp_call_progress_u64(call, 1, 2, "\xff", 1, &b), EMCP_INVALID_PARAMETER);
    CHECK(bool_untouched(&b));

    /* Documented as allowed: text NULL with length 0 (an empty block). */
    CHECK_ST(emcp_call_text(call, NULL, 0), EMCP_OK);
    CHECK_ST(emcp_call_text(call, "ok", 2), EMCP_OK);
}

static void tool_structured(emcp_tool_call *call) {
    static const char good[] = "{\"a\":[1,\"x\"]}";
    CHECK_ST(emcp_call_structured(call, "{bad", 4), EMCP_INVALID_PARAMETER);
    CHECK_ST(emcp_call_structured(call, "{\"a\":1} x", 9), EMCP_INVALID_PARAMETER);
    CHECK_ST(emcp_call_structured(call, "", 0), EMCP_INVALID_PARAMETER);
    CHECK_ST(emcp_call_structured(call, "{\"a\":\"\xff\"}", 8), EMCP_INVALID_PARAMETER);
    CHECK_ST(emcp_call_text(call, "t", 1), EMCP_OK);
    CHECK_ST(emcp_call_structured(call, good, sizeof good - 1), EMCP_OK);
    /* "Content blocks must come before it": later content is refused. */
    CHECK_ST(emcp_call_text(call, "late", 4), EMCP_WRONG_STATE);
    CHECK_ST(emcp_call_structured(call, "{}", 2), EMCP_WRONG_STATE);
    CHECK_ST(emcp_call_error(call, "late", 4), EMCP_WRONG_STATE);
}

static void tool_streams(emcp_tool_call *call) {
    static const uint8_t png[3] = {0, 1, 2};
    /* No stream open. */
    CHECK_ST(emcp_call_text_part(call, "x", 1), EMCP_WRONG_STATE);
    CHECK_ST(emcp_call_data(call, png, 3), EMCP_WRONG_STATE);
    /* A text stream: bytes for an image block do not belong in it. */
    CHECK_ST(emcp_call_text_begin(call), EMCP_OK);
    CHECK_ST(emcp_call_text_part(call, "a\"", 2), EMCP_OK);
    CHECK_ST(emcp_call_data(call, png, 3), EMCP_WRONG_STATE);
    CHECK_ST(emcp_call_text_part(call, "b", 1), EMCP_OK);
    /* An image stream: text does not belong in its base64 data. */
    CHECK_ST(emcp_call_image_begin(call, "image/png", 9), EMCP_OK);
    CHECK_ST(emcp_call_data(call, png, 2), EMCP_OK);
    CHECK_ST(emcp_call_text_part(call, "zz", 2), EMCP_WRONG_STATE);
    CHECK_ST(emcp_call_data(call, png + 2, 1), EMCP_OK);
}

/* Tool callbacks run so far (the authorization test checks a refused tool never runs). */
static unsigned g_tool_runs;

static emcp_status tool_cb(void *userdata, emcp_tool_call *call) {
    size_t idx = S_SIZE;
    const char *p = S_PTR;
    size_t len = S_SIZE;
    int k;
    (void)userdata;
    g_tool_runs++;
    CHECK(call != NULL);
    CHECK_ST(emcp_call_tool_index(call, &idx), EMCP_OK);
    switch (idx) {
    case T_ARGS:
        tool_args(call);
        return EMCP_OK;
    case T_NULLS:
        tool_nulls(call);
        return EMCP_OK;
    case T_FAIL:
        return EMCP_TOOL_FAILED;
    case T_FAIL_AFTER_TEXT:
        CHECK_ST(emcp_call_text(call, "partial", 7), EMCP_OK);
        return 42;
    case T_ERROR:
        /* Called without arguments: there is no arguments object. */
        CHECK_ST(emcp_args_get_raw(call, NULL, 0, &p, &len), EMCP_NOT_FOUND);
        CHECK(p == S_PTR && len == S_SIZE);
        CHECK_ST(emcp_call_error(call, "boom", 4), EMCP_OK);
        return EMCP_OK;
    case T_BIG:
        CHECK_ST(emcp_call_text_begin(call), EMCP_OK);
        for (k = 0; k < 20; k++) {
            CHECK_ST(emcp_call_text_part(call,
                                         "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                                         "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
                                         100),
                     EMCP_OK);
        }
        return EMCP_OK;
    case T_STRUCTURED:
        tool_structured(call);
        return EMCP_OK;
    case T_STREAMS:
        tool_streams(call);
        return EMCP_OK;
    default:
        CHECK(!"unexpected tool index");
        return EMCP_TOOL_FAILED;
    }
}

/* ------------------------------------------------------------------------------------ */
/* Resource, prompt and completion callbacks.                                            */

static emcp_status read_cb(void *userdata, emcp_resource_read *read) {
    static const uint8_t bin[3] = {0, 1, 2};
    const char *p = S_PTR;
    size_t len = S_SIZE, idx = S_SIZE;
    uint32_t kind = S_U32;
    static int nulls_done;
    (void)userdata;

    if (!nulls_done++) {
        CHECK_ST(emcp_read_uri(read, NULL, &len), EMCP_NULL_PARAMETER);
        CHECK_ST(emcp_read_uri(read, &p, NULL), EMCP_NULL_PARAMETER);
        CHECK_ST(emcp_read_target(read, NULL, &idx), EMCP_NULL_PARAMETER);
        CHECK_ST(emcp_read_target(read, &kind, NULL), EMCP_NULL_PARAMETER);
        CHECK_ST(emcp_read_var(read, NULL, 4, &p, &len), EMCP_NULL_PARAMETER);
        CHECK_ST(emcp_read_var(read, "name", 4, NULL, &len), EMCP_NULL_PARAMETER);
        CHECK_ST(emcp_read_var(read, "name", 4, &p, NULL), EMCP_NULL_PARAMETER);
        CHECK(p == S_PTR && len == S_SIZE && idx == S_SIZE && kind == S_U32);
        CHECK_ST(emcp_read_text(read, NULL, 0, NULL, 5), EMCP_NULL_PARAMETER);
        CHECK_ST(emcp_read_text_part(read, NULL, 3), EMCP_NULL_PARAMETER);
        CHECK_ST(emcp_read_data(read, NULL, 3), EMCP_NULL_PARAMETER);
        CHECK_ST(emcp_read_text(read, NULL, 0, "\xff", 1), EMCP_INVALID_PARAMETER);
        CHECK_ST(emcp_read_text(read, "\xff", 1, "t", 1), EMCP_INVALID_PARAMETER);
        CHECK_ST(emcp_read_text_begin(read, "\xff", 1), EMCP_INVALID_PARAMETER);
        CHECK_ST(emcp_read_blob_begin(read, "\xff", 1), EMCP_INVALID_PARAMETER);
        CHECK_ST(emcp_read_var(read, "\xff", 1, &p, &len), EMCP_INVALID_PARAMETER);
    }

    CHECK_ST(emcp_read_uri(read, &p, &len), EMCP_OK);
    CHECK_ST(emcp_read_target(read, &kind, &idx), EMCP_OK);
    if (kind == EMCP_TARGET_RESOURCE) {
        CHECK(idx == 0);
        CHECK(len == 8 && memcmp(p, "test://r", 8) == 0);
        p = S_PTR;
        len = S_SIZE;
        CHECK_ST(emcp_read_var(read, "name", 4, &p, &len), EMCP_NOT_FOUND);
        CHECK(p == S_PTR && len == S_SIZE);
        CHECK_ST(emcp_read_text(read, "text/plain", 10, "hello", 5), EMCP_OK);
        return EMCP_OK;
    }
    CHECK(kind == EMCP_TARGET_TEMPLATE);
    CHECK(idx == 0);
    p = S_PTR;
    len = S_SIZE;
    CHECK_ST(emcp_read_var(read, "nope", 4, &p, &len), EMCP_NOT_FOUND);
    CHECK(p == S_PTR && len == S_SIZE);
    CHECK_ST(emcp_read_var(read, "name", 4, &p, &len), EMCP_OK);
    if (len == 7 && memcmp(p, "missing", 7) == 0) {
        return EMCP_NOT_FOUND;
    }
    if (len == 6 && memcmp(p, "broken", 6) == 0) {
        return 77;
    }
    if (len == 9 && memcmp(p, "late_fail", 9) == 0) {
        /* A failure status after some contents: still a failure (-32603). */
        CHECK_ST(emcp_read_text(read, NULL, 0, "half", 4), EMCP_OK);
        return 77;
    }
    if (len == 5 && memcmp(p, "mixed", 5) == 0) {
        /* Bytes do not belong in a text stream, text not in a blob's base64. */
        CHECK_ST(emcp_read_text_begin(read, NULL, 0), EMCP_OK);
        CHECK_ST(emcp_read_text_part(read, "a", 1), EMCP_OK);
        CHECK_ST(emcp_read_data(read, bin, 3), EMCP_WRONG_STATE);
        CHECK_ST(emcp_read_blob_begin(read, NULL, 0), EMCP_OK);
        CHECK_ST(emcp_read_data(read, bin, 3), EMCP_OK);
        CHECK_ST(emcp_read_text_part(read, "zz", 2), EMCP_WRONG_STATE);
        return EMCP_OK;
    }
    CHECK(len == 5 && memcmp(p, "a%20b", 5) == 0); /* still percent-encoded */
    CHECK_ST(emcp_read_blob_begin(read, NULL, 0), EMCP_OK);
    CHECK_ST(emcp_read_data(read, bin, 1), EMCP_OK);
    CHECK_ST(emcp_read_data(read, bin + 1, 2), EMCP_OK);
    return EMCP_OK;
}

static emcp_status prompt_cb(void *userdata, emcp_prompt_get *get) {
    static const uint8_t png[3] = {0, 1, 2};
    char buf[16];
    size_t len = S_SIZE, idx = S_SIZE;
    static int nulls_done;
    (void)userdata;

    if (!nulls_done++) {
        CHECK_ST(emcp_prompt_index(get, NULL), EMCP_NULL_PARAMETER);
        CHECK_ST(emcp_prompt_arg(get, NULL, 3, buf, sizeof buf, &len), EMCP_NULL_PARAMETER);
        CHECK_ST(emcp_prompt_arg(get, "who", 3, NULL, sizeof buf, &len), EMCP_NULL_PARAMETER);
        CHECK_ST(emcp_prompt_arg(get, "who", 3, buf, sizeof buf, NULL), EMCP_NULL_PARAMETER);
        CHECK(len == S_SIZE);
        CHECK_ST(emcp_prompt_description(get, NULL, 3), EMCP_NULL_PARAMETER);
        CHECK_ST(emcp_prompt_text_part(get, NULL, 3), EMCP_NULL_PARAMETER);
        CHECK_ST(emcp_prompt_text_arg(get, NULL, 3), EMCP_NULL_PARAMETER);
        CHECK_ST(emcp_prompt_text(get, EMCP_ROLE_USER, NULL, 3), EMCP_NULL_PARAMETER);
        CHECK_ST(emcp_prompt_image(get, EMCP_ROLE_USER, NULL, 9, png, 3), EMCP_NULL_PARAMETER);
        CHECK_ST(emcp_prompt_image(get, EMCP_ROLE_USER, "image/png", 9, NULL, 3),
                     EMCP_NULL_PARAMETER);
        CHECK_ST(emcp_prompt_text_begin(get, 7), EMCP_INVALID_PARAMETER);
        CHECK_ST(emcp_prompt_text(get, 9, "x", 1), EMCP_INVALID_PARAMETER);
        CHECK_ST(emcp_prompt_description(get, "\xff", 1), EMCP_INVALID_PARAMETER);
    }

    CHECK_ST(emcp_prompt_index(get, &idx), EMCP_OK);
    CHECK(idx == 0);
    CHECK_ST(emcp_prompt_arg(get, "who", 3, buf, 2, &len), EMCP_BUFFER_TOO_SMALL);
    CHECK(len == S_SIZE);
    CHECK_ST(emcp_prompt_arg(get, "nobody", 6, buf, sizeof buf, &len), EMCP_NOT_FOUND);
    CHECK(len == S_SIZE);
    CHECK_ST(emcp_prompt_arg(get, "who", 3, buf, sizeof buf, &len), EMCP_OK);
    CHECK(len == 3 && memcmp(buf, "Bob", 4) == 0);

    CHECK_ST(emcp_prompt_description(get, "d", 1), EMCP_OK);
    CHECK_ST(emcp_prompt_text_begin(get, EMCP_ROLE_USER), EMCP_OK);
    CHECK_ST(emcp_prompt_text_part(get, "hi ", 3), EMCP_OK);
    CHECK_ST(emcp_prompt_text_arg(get, "who", 3), EMCP_OK);
    CHECK_ST(emcp_prompt_text_arg(get, "nobody", 6), EMCP_NOT_FOUND);
    return EMCP_OK;
}

static int g_long_value; /* the next completion request carries a 300-byte value */

static void complete_cb(void *userdata, emcp_completion *c) {
    static char buf[1024];
    uint32_t kind = S_U32;
    size_t idx = S_SIZE, len = S_SIZE;
    static int nulls_done;
    (void)userdata;

    if (!nulls_done++) {
        CHECK_ST(emcp_completion_ref(c, NULL, &idx), EMCP_NULL_PARAMETER);
        CHECK_ST(emcp_completion_ref(c, &kind, NULL), EMCP_NULL_PARAMETER);
        CHECK_ST(emcp_completion_text(c, EMCP_COMPLETION_VALUE, NULL, 8, &len), EMCP_NULL_PARAMETER);
        CHECK_ST(emcp_completion_text(c, EMCP_COMPLETION_VALUE, buf, 8, NULL), EMCP_NULL_PARAMETER);
        CHECK_ST(emcp_completion_offer(c, NULL, 3), EMCP_NULL_PARAMETER);
        CHECK_ST(emcp_completion_text(c, 99, buf, sizeof buf, &len), EMCP_NOT_FOUND);
        CHECK_ST(emcp_completion_text(c, EMCP_COMPLETION_URI, buf, sizeof buf, &len), EMCP_NOT_FOUND);
        CHECK_ST(emcp_completion_text(c, EMCP_COMPLETION_VALUE, buf, 0, &len), EMCP_BUFFER_TOO_SMALL);
        CHECK_ST(emcp_completion_offer(c, "\xff", 1), EMCP_INVALID_PARAMETER);
        CHECK(kind == S_U32 && idx == S_SIZE && len == S_SIZE);
    }

    CHECK_ST(emcp_completion_ref(c, &kind, &idx), EMCP_OK);
    CHECK(kind == EMCP_REF_PROMPT && idx == 0);
    CHECK_ST(emcp_completion_text(c, EMCP_COMPLETION_ARGUMENT, buf, sizeof buf, &len), EMCP_OK);
    CHECK(len == 3 && memcmp(buf, "who", 4) == 0);
    if (g_long_value) {
        len = S_SIZE;
        CHECK_ST(emcp_completion_text(c, EMCP_COMPLETION_VALUE, buf, sizeof buf, &len),
                     EMCP_OK);
        CHECK(len == 300);
    } else {
        CHECK_ST(emcp_completion_text(c, EMCP_COMPLETION_VALUE, buf, sizeof buf, &len), EMCP_OK);
        CHECK(len == 1 && memcmp(buf, "w", 2) == 0);
    }
    CHECK_ST(emcp_completion_offer(c, "v1", 2), EMCP_OK);
}

/* ------------------------------------------------------------------------------------ */
/* Tests.                                                                                */

static void test_version_and_layout(void) {
    char want[48];
    struct probe {
        char c;
        emcp_server_storage s;
    };
    g_test = "version/layout";
    snprintf(want, sizeof want, "%d.%d.%d", EMCP_VERSION_MAJOR, EMCP_VERSION_MINOR,
             EMCP_VERSION_PATCH);
    CHECK(emcp_version() != NULL);
    CHECK(strcmp(emcp_version(), want) == 0);
    CHECK(sizeof(emcp_server_storage) == EMCP_SERVER_STORAGE_SIZE);
    CHECK(offsetof(struct probe, s) == EMCP_SERVER_STORAGE_ALIGN);
}

/* emcp_status_str: a distinct static text for every status, one fixed text otherwise. */
static void test_status_str(void) {
    static const emcp_status all[] = {
        EMCP_OK, EMCP_PENDING,
        EMCP_NULL_PARAMETER, EMCP_INVALID_PARAMETER, EMCP_NOT_FOUND, EMCP_WRONG_TYPE,
        EMCP_BUFFER_TOO_SMALL, EMCP_WRONG_STATE,
        EMCP_STORAGE_TOO_SMALL, EMCP_STORAGE_MISALIGNED,
        EMCP_INVALID_CONFIG, EMCP_INVALID_SCHEMA, EMCP_INVALID_TEMPLATE, EMCP_TOO_MANY_RESOURCES,
        EMCP_OUTPUT_FULL, EMCP_WRITE_FAILED, EMCP_READ_FAILED,
        EMCP_TOOL_FAILED, EMCP_DENIED, EMCP_RETRY_LATER,
        EMCP_PANIC,
    };
    static const emcp_status unknown[] = {2, 99, 106, 199, 202, 304, 403, 503, 899, 901, 7777,
                                          UINT32_MAX};
    const char *unknown_text = emcp_status_str(UINT32_MAX);
    size_t i, j;
    g_test = "status text";
    CHECK(unknown_text != NULL && strcmp(unknown_text, "unknown status") == 0);
    for (i = 0; i < sizeof all / sizeof all[0]; i++) {
        const char *t = emcp_status_str(all[i]);
        CHECK(t != NULL && t[0] != '\0');
        CHECK(t != NULL && strcmp(t, "unknown status") != 0);
        CHECK(t == emcp_status_str(all[i])); /* static: the same text every time */
        for (j = 0; j < i; j++) {
            CHECK(t != NULL && strcmp(t, emcp_status_str(all[j])) != 0);
        }
    }
    CHECK(strcmp(emcp_status_str(EMCP_OK), "ok") == 0);
    CHECK(strcmp(emcp_status_str(EMCP_BUFFER_TOO_SMALL), "buffer too small") == 0);
    for (i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        CHECK(emcp_status_str(unknown[i]) == unknown_text);
    }
}

/* Every function taking a callback handle, with a NULL handle (outside any callback). */
static void test_null_handles(void) {
    static const uint8_t data[1] = {0};
    char buf[8];
    size_t len = S_SIZE, idx = S_SIZE;
    int64_t i = S_I64;
    double f = S_F64;
    bool b;
    const char *p = S_PTR;
    uint32_t u = S_U32;
    g_test = "null handles";
    bool_fill(&b);
    memset(buf, 'Z', sizeof buf);

    CHECK_ST(emcp_args_get_str(NULL, "k", 1, buf, sizeof buf, &len), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_args_get_i64(NULL, "k", 1, &i), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_args_get_f64(NULL, "k", 1, &f), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_args_get_scaled(NULL, "k", 1, 0, &i), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_args_get_bool(NULL, "k", 1, &b), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_args_get_raw(NULL, "k", 1, &p, &len), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_args_get_raw(NULL, NULL, 0, &p, &len), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_call_tool_index(NULL, &idx), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_call_can_defer(NULL, &b), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_call_state(NULL, &u), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_call_set_state(NULL, 1), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_call_progress(NULL, 1.0, 2.0, NULL, 0, &b), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_call_progress_u64(NULL, 1, 2, NULL, 0, &b), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_call_log(NULL, EMCP_LOG_INFO, "l", 1, "d", 1, &b), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_call_text(NULL, "t", 1), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_call_text_begin(NULL), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_call_text_part(NULL, "t", 1), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_call_image_begin(NULL, "image/png", 9), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_call_audio_begin(NULL, "audio/wav", 9), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_call_data(NULL, data, 1), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_call_resource_link(NULL, "u", 1, "n", 1, NULL, 0), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_call_embedded_text(NULL, "u", 1, NULL, 0, "t", 1), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_call_embedded_blob(NULL, "u", 1, NULL, 0, data, 1), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_call_structured(NULL, "{}", 2), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_call_error(NULL, "e", 1), EMCP_NULL_PARAMETER);

    CHECK_ST(emcp_prompt_index(NULL, &idx), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_prompt_arg(NULL, "a", 1, buf, sizeof buf, &len), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_prompt_description(NULL, "d", 1), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_prompt_text_begin(NULL, EMCP_ROLE_USER), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_prompt_text_part(NULL, "t", 1), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_prompt_text_arg(NULL, "a", 1), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_prompt_text(NULL, EMCP_ROLE_USER, "t", 1), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_prompt_image(NULL, EMCP_ROLE_USER, "image/png", 9, data, 1),
             EMCP_NULL_PARAMETER);

    CHECK_ST(emcp_completion_ref(NULL, &u, &idx), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_completion_text(NULL, EMCP_COMPLETION_VALUE, buf, sizeof buf, &len),
             EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_completion_offer(NULL, "v", 1), EMCP_NULL_PARAMETER);

    CHECK_ST(emcp_read_uri(NULL, &p, &len), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_read_target(NULL, &u, &idx), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_read_var(NULL, "n", 1, &p, &len), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_read_text(NULL, NULL, 0, "t", 1), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_read_text_begin(NULL, NULL, 0), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_read_text_part(NULL, "t", 1), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_read_blob_begin(NULL, NULL, 0), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_read_data(NULL, data, 1), EMCP_NULL_PARAMETER);

    CHECK(len == S_SIZE && idx == S_SIZE && i == S_I64 && f == S_F64 && p == S_PTR &&
          u == S_U32);
    CHECK(bool_untouched(&b));
    CHECK(buf[0] == 'Z');
}

static int storage_untouched(const emcp_server_storage *s) {
    size_t k;
    for (k = 0; k < sizeof s->bytes; k++) {
        if (s->bytes[k] != 0xA5) {
            return 0;
        }
    }
    return 1;
}

/* emcp_server_init with `cfg`: the status, and (on failure) nothing written. */
static emcp_status init_with(const emcp_config *cfg) {
    static box b;
    emcp_server *srv = (emcp_server *)(void *)&s_ptr_target;
    emcp_status st;
    memset(&b.storage, 0xA5, sizeof b.storage);
    st = emcp_server_init(&b.storage, sizeof b.storage, cfg, b.line, LINE_CAP, b.out, OUT_CAP,
                          &srv);
    if (st != EMCP_OK) {
        CHECK(srv == (emcp_server *)(void *)&s_ptr_target);
        CHECK(storage_untouched(&b.storage));
    } else {
        CHECK(srv == (emcp_server *)(void *)&b.storage);
    }
    return st;
}

static void test_server_nulls(void) {
    static box b;
    emcp_server *srv = (emcp_server *)(void *)&s_ptr_target;
    emcp_server *const sentinel = srv;
    size_t n = S_SIZE;
    bool busy;
    uint8_t out[8];
    g_test = "server nulls";
    bool_fill(&busy);
    memset(&b.storage, 0xA5, sizeof b.storage);

    CHECK_ST(emcp_server_init(NULL, sizeof b.storage, &cfg_buf, b.line, LINE_CAP, b.out, OUT_CAP,
                              &srv),
             EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_server_init(&b.storage, sizeof b.storage, NULL, b.line, LINE_CAP, b.out,
                              OUT_CAP, &srv),
             EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_server_init(&b.storage, sizeof b.storage, &cfg_buf, NULL, LINE_CAP, b.out,
                              OUT_CAP, &srv),
             EMCP_NULL_PARAMETER);
    /* No write callback: the output buffer is required. */
    CHECK_ST(emcp_server_init(&b.storage, sizeof b.storage, &cfg_buf, b.line, LINE_CAP, NULL,
                              OUT_CAP, &srv),
             EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_server_init(&b.storage, sizeof b.storage, &cfg_buf, b.line, LINE_CAP, b.out,
                              OUT_CAP, NULL),
             EMCP_NULL_PARAMETER);
    CHECK(srv == sentinel);
    CHECK(storage_untouched(&b.storage));

    CHECK_ST(emcp_server_init(&b.storage, sizeof b.storage, &cfg_buf, b.line, LINE_CAP, b.out,
                              OUT_CAP, &srv),
             EMCP_OK);
    CHECK(srv != sentinel);

    CHECK_ST(emcp_server_feed(NULL, (const uint8_t *)"\n", 1, &n), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_server_feed(srv, NULL, 1, &n), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_server_feed(srv, (const uint8_t *)"\n", 1, NULL), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_server_poll(NULL, &busy), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_server_poll(srv, NULL), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_server_finish(NULL), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_server_take_output(NULL, out, sizeof out, &n), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_server_take_output(srv, NULL, sizeof out, &n), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_server_take_output(srv, out, sizeof out, NULL), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_server_output_len(NULL, &n), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_server_output_len(srv, NULL), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_server_resource_changed(NULL, "test://r", 8), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_server_resource_changed(srv, NULL, 8), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_server_reset(NULL), EMCP_NULL_PARAMETER);
    CHECK(n == S_SIZE);
    CHECK(bool_untouched(&busy));
}

static void test_init_storage_and_buffers(void) {
    static union {
        emcp_server_storage s;
        unsigned char bytes[EMCP_SERVER_STORAGE_SIZE + 16];
    } big;
    static box b;
    emcp_server *const sentinel = (emcp_server *)(void *)&s_ptr_target;
    emcp_server *srv = sentinel;
    size_t used = S_SIZE;
    g_test = "init storage/buffers";

    memset(&b.storage, 0xA5, sizeof b.storage);
    CHECK_ST(emcp_server_init(&b.storage, 0, &cfg_buf, b.line, LINE_CAP, b.out, OUT_CAP, &srv),
             EMCP_STORAGE_TOO_SMALL);
    CHECK_ST(emcp_server_init(&b.storage, 64, &cfg_buf, b.line, LINE_CAP, b.out, OUT_CAP, &srv),
             EMCP_STORAGE_TOO_SMALL);
    CHECK_ST(emcp_server_init(&b.storage, EMCP_SERVER_STORAGE_SIZE - 1, &cfg_buf, b.line,
                                  LINE_CAP, b.out, OUT_CAP, &srv),
                 EMCP_STORAGE_TOO_SMALL);
    CHECK(srv == sentinel);
    CHECK(storage_untouched(&b.storage));
    srv = sentinel;

    CHECK_ST(emcp_server_init((emcp_server_storage *)((char *)&big + 1), EMCP_SERVER_STORAGE_SIZE,
                              &cfg_buf, b.line, LINE_CAP, b.out, OUT_CAP, &srv),
             EMCP_STORAGE_MISALIGNED);
    CHECK_ST(emcp_server_init((emcp_server_storage *)((char *)&big + 4), EMCP_SERVER_STORAGE_SIZE,
                              &cfg_buf, b.line, LINE_CAP, b.out, OUT_CAP, &srv),
             EMCP_STORAGE_MISALIGNED);
    CHECK(srv == sentinel);
    /* Storage inside a bigger, 8-aligned block is fine. */
    CHECK_ST(emcp_server_init((emcp_server_storage *)((char *)&big + 8), EMCP_SERVER_STORAGE_SIZE,
                              &cfg_buf, b.line, LINE_CAP, b.out, OUT_CAP, &srv),
             EMCP_OK);
    CHECK(srv == (emcp_server *)(void *)((char *)&big + 8));
    CHECK_ST(emcp_server_feed(srv, (const uint8_t *)"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n",
                              41, &used),
             EMCP_OK);
    CHECK(used == 41);
    srv = sentinel;

    memset(&b.storage, 0xA5, sizeof b.storage);
    CHECK_ST(emcp_server_init(&b.storage, sizeof b.storage, &cfg_buf, b.line,
                              EMCP_LINE_BUFFER_MIN - 1, b.out, OUT_CAP, &srv),
             EMCP_BUFFER_TOO_SMALL);
    CHECK_ST(emcp_server_init(&b.storage, sizeof b.storage, &cfg_buf, b.line, 0, b.out, OUT_CAP,
                              &srv),
             EMCP_BUFFER_TOO_SMALL);
    CHECK_ST(emcp_server_init(&b.storage, sizeof b.storage, &cfg_buf, b.line, LINE_CAP, b.out,
                              EMCP_OUTPUT_MIN_ROOM - 1, &srv),
             EMCP_BUFFER_TOO_SMALL);
    CHECK_ST(emcp_server_init(&b.storage, sizeof b.storage, &cfg_buf, b.line, LINE_CAP, b.out, 0,
                              &srv),
             EMCP_BUFFER_TOO_SMALL);
    CHECK(srv == sentinel);
    CHECK(storage_untouched(&b.storage));
    /* The minimums themselves are accepted; with a write callback no output buffer. */
    CHECK_ST(emcp_server_init(&b.storage, sizeof b.storage, &cfg_buf, b.line,
                              EMCP_LINE_BUFFER_MIN, b.out, EMCP_OUTPUT_MIN_ROOM, &srv),
             EMCP_OK);
    CHECK_ST(emcp_server_init(&b.storage, sizeof b.storage, &cfg_cb, b.line, EMCP_LINE_BUFFER_MIN,
                              NULL, 0, &srv),
             EMCP_OK);
}

static emcp_status noop_tool(void *u, emcp_tool_call *c) {
    (void)u;
    (void)c;
    return EMCP_OK;
}

static void test_init_configs(void) {
    static emcp_config c;
    static emcp_tool t[1];
    static emcp_resource many[33];
    static char many_uris[33][16];
    static emcp_resource_template tpl[1];
    static emcp_prompt pr[1];
    static emcp_prompt_argument pargs[9];
    int k;
    g_test = "init configs";

    CHECK_ST(init_with(&cfg_buf), EMCP_OK);

    c = cfg_buf;
    c.name.ptr = NULL;
    c.name.len = 0;
    CHECK_ST(init_with(&c), EMCP_INVALID_CONFIG);
    c = cfg_buf;
    c.name.ptr = "ed\xffge";
    c.name.len = 5;
    CHECK_ST(init_with(&c), EMCP_INVALID_CONFIG);
    c.name.ptr = "\xc0\xaf"; /* overlong '/' */
    c.name.len = 2;
    CHECK_ST(init_with(&c), EMCP_INVALID_CONFIG);
    c = cfg_buf;
    c.version.ptr = NULL;
    c.version.len = 0;
    CHECK_ST(init_with(&c), EMCP_INVALID_CONFIG);
    c = cfg_buf;
    c.title.ptr = "\xff";
    c.title.len = 1;
    CHECK_ST(init_with(&c), EMCP_INVALID_CONFIG);
    c = cfg_buf;
    c.instructions.ptr = "\xed\xa0\x80"; /* a UTF-16 surrogate, not UTF-8 */
    c.instructions.len = 3;
    CHECK_ST(init_with(&c), EMCP_INVALID_CONFIG);
    c = cfg_buf;
    c.tools = NULL; /* tools_len stays T_COUNT */
    CHECK_ST(init_with(&c), EMCP_INVALID_CONFIG);

    /* Tools. */
    c = cfg_buf;
    c.tools = t;
    c.tools_len = 1;
    t[0] = tools[0];
    CHECK_ST(init_with(&c), EMCP_OK);
    t[0].call = NULL;
    CHECK_ST(init_with(&c), EMCP_INVALID_CONFIG);
    t[0] = tools[0];
    t[0].name.ptr = "\xff";
    t[0].name.len = 1;
    CHECK_ST(init_with(&c), EMCP_INVALID_CONFIG);
    t[0] = tools[0];
    t[0].input_schema.ptr = NULL;
    t[0].input_schema.len = 0;
    CHECK_ST(init_with(&c), EMCP_INVALID_CONFIG);
    t[0].input_schema.ptr = "{\"type\":";
    t[0].input_schema.len = 8;
    CHECK_ST(init_with(&c), EMCP_INVALID_SCHEMA);
    t[0].input_schema.ptr = "[]";
    t[0].input_schema.len = 2;
    CHECK_ST(init_with(&c), EMCP_INVALID_SCHEMA);
    t[0].input_schema.ptr = "{}";
    t[0].input_schema.len = 2;
    CHECK_ST(init_with(&c), EMCP_OK);
    t[0].output_schema.ptr = "5";
    t[0].output_schema.len = 1;
    CHECK_ST(init_with(&c), EMCP_INVALID_SCHEMA);
    t[0].output_schema.ptr = "{\"type\":\"object\"} {";
    t[0].output_schema.len = 19;
    CHECK_ST(init_with(&c), EMCP_INVALID_SCHEMA);
    t[0] = tools[0];
    t[0].call = noop_tool;
    CHECK_ST(init_with(&c), EMCP_OK);

    /* Templates. */
    c = cfg_buf;
    c.templates = tpl;
    tpl[0] = templates[0];
    CHECK_ST(init_with(&c), EMCP_OK);
    tpl[0].uri_template.ptr = "test://{name";
    tpl[0].uri_template.len = 12;
    CHECK_ST(init_with(&c), EMCP_INVALID_TEMPLATE);
    tpl[0].uri_template.ptr = "test://{}/t";
    tpl[0].uri_template.len = 11;
    CHECK_ST(init_with(&c), EMCP_INVALID_TEMPLATE);
    tpl[0] = templates[0];
    tpl[0].read = NULL;
    CHECK_ST(init_with(&c), EMCP_INVALID_CONFIG);

    /* emcp_config_check: the status emcp_server_init gives, and which descriptor. */
    {
        emcp_tool two[2];
        size_t index = 99;
        c = cfg_buf;
        CHECK_ST(emcp_config_check(&c, &index), EMCP_OK);
        CHECK(index == 0);
        two[0] = tools[0];
        two[1] = tools[0];
        two[1].name.ptr = "second";
        two[1].name.len = 6;
        two[1].input_schema.ptr = "{\"type\":";
        two[1].input_schema.len = 8;
        c.tools = two;
        c.tools_len = 2;
        CHECK_ST(emcp_config_check(&c, &index), EMCP_INVALID_SCHEMA);
        CHECK(index == 1);
        CHECK_ST(init_with(&c), EMCP_INVALID_SCHEMA);
        c = cfg_buf;
        c.templates = tpl;
        tpl[0] = templates[0];
        tpl[0].uri_template.ptr = "test://{name";
        tpl[0].uri_template.len = 12;
        index = 99;
        CHECK_ST(emcp_config_check(&c, &index), EMCP_INVALID_TEMPLATE);
        CHECK(index == 0);
        tpl[0] = templates[0];
        CHECK_ST(emcp_config_check(NULL, &index), EMCP_NULL_PARAMETER);
        CHECK_ST(emcp_config_check(&c, NULL), EMCP_NULL_PARAMETER);
    }

    /* Resources: at most 32. */
    for (k = 0; k < 33; k++) {
        sprintf(many_uris[k], "test://r%02d", k);
        many[k] = resources[0];
        many[k].uri.ptr = many_uris[k];
        many[k].uri.len = strlen(many_uris[k]);
    }
    c = cfg_buf;
    c.resources = many;
    c.resources_len = 32;
    CHECK_ST(init_with(&c), EMCP_OK);
    c.resources_len = 33;
    CHECK_ST(init_with(&c), EMCP_TOO_MANY_RESOURCES);
    c.resources_len = 1;
    many[0].read = NULL;
    CHECK_ST(init_with(&c), EMCP_INVALID_CONFIG);
    many[0].read = read_cb;
    many[0].uri.ptr = NULL;
    many[0].uri.len = 0;
    CHECK_ST(init_with(&c), EMCP_INVALID_CONFIG);

    /* Prompts: at most EMCP_MAX_PROMPT_ARGUMENTS arguments, a get callback. */
    for (k = 0; k < 9; k++) {
        pargs[k] = prompt_args[0];
    }
    c = cfg_buf;
    c.prompts = pr;
    pr[0] = prompts[0];
    pr[0].arguments = pargs;
    pr[0].arguments_len = EMCP_MAX_PROMPT_ARGUMENTS;
    CHECK_ST(init_with(&c), EMCP_OK);
    pr[0].arguments_len = EMCP_MAX_PROMPT_ARGUMENTS + 1;
    CHECK_ST(init_with(&c), EMCP_INVALID_CONFIG);
    pr[0].arguments_len = 1;
    pr[0].arguments = NULL;
    CHECK_ST(init_with(&c), EMCP_INVALID_CONFIG);
    pr[0] = prompts[0];
    pr[0].get = NULL;
    CHECK_ST(init_with(&c), EMCP_INVALID_CONFIG);
}

static void test_feed_basics(void) {
    static const char ping1[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n";
    char want[256];
    size_t used = S_SIZE, waiting = S_SIZE;
    bool busy;
    box *b = &g_box;
    g_test = "feed basics";
    CHECK_ST(box_init(b, &cfg_buf, LINE_CAP, OUT_CAP), EMCP_OK);

    /* Zero-length feeds. */
    CHECK_ST(emcp_server_feed(b->srv, (const uint8_t *)ping1, 0, &used), EMCP_OK);
    CHECK(used == 0);
    used = S_SIZE;
    CHECK_ST(emcp_server_feed(b->srv, NULL, 0, &used), EMCP_OK);
    CHECK(used == 0);
    CHECK_ST(emcp_server_output_len(b->srv, &waiting), EMCP_OK);
    CHECK(waiting == 0);

    /* One request, whole and one byte at a time; ids echoed exactly. */
    roundtrip(b, ping1, 0);
    CHECK_TEXT(g_got, g_got_len, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n");
    roundtrip(b, ping1, 1);
    CHECK_TEXT(g_got, g_got_len, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n");
    roundtrip(b, "{\"jsonrpc\":\"2.0\",\"id\":\"x\\\"y\",\"method\":\"ping\"}\r\n\r\n  \n", 1);
    CHECK_TEXT(g_got, g_got_len, "{\"jsonrpc\":\"2.0\",\"id\":\"x\\\"y\",\"result\":{}}\n");

    /* A last line without a newline waits for emcp_server_finish. */
    roundtrip(b, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}", 1);
    CHECK(g_got_len == 0);
    CHECK_ST(emcp_server_finish(b->srv), EMCP_OK);
    drain(b);
    pong(want, 2);
    CHECK_TEXT(g_got, g_got_len, want);
    g_got_len = 0;
    CHECK_ST(emcp_server_finish(b->srv), EMCP_OK);
    drain(b);
    CHECK(g_got_len == 0);

    /* Reset drops a partial line and waiting output. */
    roundtrip(b, "{\"jsonrpc\":\"2.0\",\"id\":3,\"meth", 0);
    CHECK_ST(emcp_server_reset(b->srv), EMCP_OK);
    roundtrip(b, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}\n", 0);
    pong(want, 4);
    CHECK_TEXT(g_got, g_got_len, want);
    feed(b, ping1, sizeof ping1 - 1, 0);
    CHECK_ST(emcp_server_output_len(b->srv, &waiting), EMCP_OK);
    CHECK(waiting == 37);
    CHECK_ST(emcp_server_reset(b->srv), EMCP_OK);
    CHECK_ST(emcp_server_output_len(b->srv, &waiting), EMCP_OK);
    CHECK(waiting == 0);
    bool_fill(&busy);
    CHECK_ST(emcp_server_poll(b->srv, &busy), EMCP_OK);
    CHECK(busy == false);
}

/* A script through every callback kind, fed whole, byte by byte and in odd chunks. */
static void test_script_chunkings(void) {
    static const char script[] =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"args\","
        "\"arguments\":" ARGS_JSON "}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/read\",\"params\":{\"uri\":"
        "\"test://r\"}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/read\",\"params\":{\"uri\":"
        "\"test://a%20b/t\"}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"prompts/get\",\"params\":{\"name\":\"p\","
        "\"arguments\":{\"who\":\"Bob\"}}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"completion/complete\",\"params\":{\"ref\":"
        "{\"type\":\"ref/prompt\",\"name\":\"p\"},\"argument\":{\"name\":\"who\",\"value\":"
        "\"w\"}}}\n";
    static const char want[] =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[{\"type\":\"text\",\"text\":"
        "\"ok\"}]}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"contents\":[{\"uri\":\"test://r\","
        "\"mimeType\":\"text/plain\",\"text\":\"hello\"}]}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"contents\":[{\"uri\":\"test://a%20b/t\","
        "\"blob\":\"AAEC\"}]}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"description\":\"d\",\"messages\":[{\"role\":"
        "\"user\",\"content\":{\"type\":\"text\",\"text\":\"hi Bob\"}}]}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":6,\"result\":{\"completion\":{\"values\":[\"v1\"],"
        "\"total\":1,\"hasMore\":false}}}\n";
    static const size_t chunks[] = {0, 1, 3, 64};
    size_t k;
    box *b = &g_box;
    CHECK_ST(box_init(b, &cfg_buf, LINE_CAP, OUT_CAP), EMCP_OK);
    for (k = 0; k < sizeof chunks / sizeof chunks[0]; k++) {
        static char name[40];
        sprintf(name, "script, chunks of %u", (unsigned)chunks[k]);
        g_test = name;
        roundtrip(b, script, chunks[k]);
        CHECK_TEXT(g_got, g_got_len, want);
    }
    g_test = "script";
}

static void test_oversized_line(void) {
    static char in[1024];
    static char want[512];
    static const size_t chunks[] = {0, 1, 7, 200};
    size_t n, w, k;
    box *b = &g_box;
    g_test = "oversized line";
    CHECK_ST(box_init(b, &cfg_buf, 128, OUT_CAP), EMCP_OK);

    n = make_ping(in, 1, 300);
    strcpy(in + n, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n");
    w = (size_t)sprintf(want, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,"
                              "\"message\":\"Invalid Request: line too long\","
                              "\"data\":{\"limit\":128}}}\n");
    pong(want + w, 2);
    for (k = 0; k < sizeof chunks / sizeof chunks[0]; k++) {
        roundtrip(b, in, chunks[k]);
        CHECK_TEXT(g_got, g_got_len, want);
    }
    /* The boundary: 128 bytes fit a 128-byte line buffer, 129 do not. */
    n = make_ping(in, 3, 128);
    make_ping(in + n, 4, 129);
    n = pong(want, 3);
    sprintf(want + n, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,"
                      "\"message\":\"Invalid Request: line too long\","
                      "\"data\":{\"limit\":128}}}\n");
    roundtrip(b, in, 0);
    CHECK_TEXT(g_got, g_got_len, want);
    roundtrip(b, in, 1);
    CHECK_TEXT(g_got, g_got_len, want);
    roundtrip(b, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}\n", 0);
    pong(want, 5);
    CHECK_TEXT(g_got, g_got_len, want);
}

static void test_output_backpressure(void) {
    static char in[2048];
    static char want[2048];
    char tmp[10];
    size_t n = 0, w = 0, used = S_SIZE, used2 = S_SIZE, waiting = S_SIZE, took = S_SIZE;
    size_t off, lines;
    unsigned stalls;
    bool busy;
    int id;
    box *b = &g_box;
    g_test = "output backpressure";
    CHECK_ST(box_init(b, &cfg_buf, LINE_CAP, 512), EMCP_OK);
    for (id = 1; id <= 30; id++) {
        n += (size_t)sprintf(in + n, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"ping\"}\n", id);
        w += pong(want + w, id);
    }

    /* The buffer fills without output being taken: feeding stops at a line boundary. */
    CHECK_ST(emcp_server_feed(b->srv, (const uint8_t *)in, n, &used), EMCP_OK);
    CHECK(used > 0 && used < n);
    CHECK(in[used - 1] == '\n');
    CHECK_ST(emcp_server_output_len(b->srv, &waiting), EMCP_OK);
    CHECK(waiting <= 512 && 512 - waiting < EMCP_OUTPUT_MIN_ROOM);
    /* Nothing more is taken until output is, and poll/finish report the lack of room. */
    CHECK_ST(emcp_server_feed(b->srv, (const uint8_t *)in + used, n - used, &used2), EMCP_OK);
    CHECK(used2 == 0);
    bool_fill(&busy);
    CHECK_ST(emcp_server_poll(b->srv, &busy), EMCP_OUTPUT_FULL);
    CHECK(bool_untouched(&busy));
    CHECK_ST(emcp_server_finish(b->srv), EMCP_OUTPUT_FULL);

    /* Take a little (oldest first), then everything; whole lines only. */
    g_got_len = 0;
    CHECK_ST(emcp_server_take_output(b->srv, (uint8_t *)tmp, sizeof tmp, &took), EMCP_OK);
    CHECK(took == sizeof tmp);
    memcpy(g_got, tmp, took);
    g_got_len = took;
    CHECK_ST(emcp_server_output_len(b->srv, &used2), EMCP_OK);
    CHECK(used2 == waiting - sizeof tmp);
    drain(b);
    CHECK(g_got_len == waiting);
    CHECK(g_got[g_got_len - 1] == '\n');
    stalls = feed(b, in + used, n - used, 0);
    CHECK(stalls >= 1);
    drain(b);
    CHECK_TEXT(g_got, g_got_len, want);
    /* Every request answered exactly once. */
    for (off = 0, lines = 0; off < g_got_len; off++) {
        lines += g_got[off] == '\n';
    }
    CHECK(lines == 30);
}

static void test_response_too_large(void) {
    static char want[512];
    size_t w;
    box *b = &g_box;
    g_test = "response too large";
    CHECK_ST(box_init(b, &cfg_buf, LINE_CAP, 512), EMCP_OK);
    /* The 2000-byte result cannot fit 512 bytes: a -32603 for its id, the ping before it
     * stays, the ping after it is answered. */
    roundtrip(b,
              "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n"
              "{\"jsonrpc\":\"2.0\",\"id\":\"big\",\"method\":\"tools/call\",\"params\":{\"name\":"
              "\"big\",\"arguments\":{}}}\n"
              "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n",
              0);
    w = pong(want, 1);
    w += (size_t)sprintf(want + w, "{\"jsonrpc\":\"2.0\",\"id\":\"big\",\"error\":{\"code\":-32603,"
                                   "\"message\":\"Response too large for the output buffer\"}}\n");
    pong(want + w, 3);
    CHECK_TEXT(g_got, g_got_len, want);
}

static void test_callback_mode(void) {
    static char want[4096];
    static const char ping[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n";
    uint8_t out[16];
    size_t n = S_SIZE, w;
    box *b = &g_box;
    g_test = "write callback";
    CHECK_ST(box_init(b, &cfg_cb, LINE_CAP, 0), EMCP_OK);

    CHECK_ST(emcp_server_take_output(b->srv, out, sizeof out, &n), EMCP_WRONG_STATE);
    CHECK(n == S_SIZE);
    CHECK_ST(emcp_server_output_len(b->srv, &n), EMCP_OK);
    CHECK(n == 0);

    g_cap_len = 0;
    n = S_SIZE;
    CHECK_ST(emcp_server_feed(b->srv, (const uint8_t *)ping, sizeof ping - 1, &n), EMCP_OK);
    CHECK(n == sizeof ping - 1);
    CHECK_TEXT(g_cap, g_cap_len, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n");

    /* No output-buffer limit here: the 2000-byte result goes out whole. */
    g_cap_len = 0;
    w = (size_t)sprintf(want, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[{\"type\":"
                              "\"text\",\"text\":\"");
    memset(want + w, 'x', 2000);
    w += 2000;
    strcpy(want + w, "\"}]}}\n");
    {
        static const char big[] = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
                                  "\"params\":{\"name\":\"big\"}}\n";
        CHECK_ST(emcp_server_feed(b->srv, (const uint8_t *)big, sizeof big - 1, &n), EMCP_OK);
    }
    CHECK_TEXT(g_cap, g_cap_len, want);

    /* A failing write callback: EMCP_WRITE_FAILED, consumed_out untouched. */
    g_cap_len = 0;
    g_write_fail = 1;
    g_write_calls = 0;
    n = S_SIZE;
    CHECK_ST(emcp_server_feed(b->srv, (const uint8_t *)ping, sizeof ping - 1, &n),
             EMCP_WRITE_FAILED);
    CHECK(n == S_SIZE);
    CHECK(g_write_calls > 0);
    CHECK_ST(emcp_server_feed(b->srv, (const uint8_t *)"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}",
                              40, &n),
             EMCP_OK); /* no complete line: nothing written */
    CHECK_ST(emcp_server_finish(b->srv), EMCP_WRITE_FAILED);
    /* The next request, with a working callback, is answered cleanly. */
    g_write_fail = 0;
    CHECK_ST(emcp_server_feed(b->srv, (const uint8_t *)"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}\n",
                              41, &n),
             EMCP_OK);
    CHECK(n == 41);
    pong(want, 4);
    CHECK_TEXT(g_cap, g_cap_len, want);
}

static void test_resource_changed(void) {
    bool busy;
    size_t waiting = S_SIZE;
    box *b = &g_box;
    g_test = "resource changed";
    CHECK_ST(box_init(b, &cfg_buf, LINE_CAP, OUT_CAP), EMCP_OK);
    CHECK_ST(emcp_server_resource_changed(b->srv, "test://nope", 11), EMCP_NOT_FOUND);
    CHECK_ST(emcp_server_resource_changed(b->srv, "test://x/t", 10), EMCP_NOT_FOUND);
    CHECK_ST(emcp_server_resource_changed(b->srv, "test://\xff", 8), EMCP_INVALID_PARAMETER);
    CHECK_ST(emcp_server_resource_changed(b->srv, "test://r", 8), EMCP_OK); /* nobody listens */
    bool_fill(&busy);
    CHECK_ST(emcp_server_poll(b->srv, &busy), EMCP_OK);
    CHECK(busy == false);
    CHECK_ST(emcp_server_output_len(b->srv, &waiting), EMCP_OK);
    CHECK(waiting == 0);

    roundtrip(b, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/subscribe\",\"params\":{"
                 "\"uri\":\"test://r\"}}\n",
              0);
    CHECK_TEXT(g_got, g_got_len, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n");
    CHECK_ST(emcp_server_resource_changed(b->srv, "test://r", 8), EMCP_OK);
    g_got_len = 0;
    CHECK_ST(emcp_server_poll(b->srv, &busy), EMCP_OK);
    drain(b);
    CHECK_TEXT(g_got, g_got_len,
               "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/updated\",\"params\":{"
               "\"uri\":\"test://r\"}}\n");
}

/* The tool of the plan tests: counts its runs and answers "ran". */
static unsigned g_plan_runs;
static emcp_status plan_tool_cb(void *userdata, emcp_tool_call *call) {
    (void)userdata;
    g_plan_runs++;
    return emcp_call_text(call, "ran", 3);
}

/* Plans compiled at build time (edge_plans.h, written by emcp-plan from edge.schemas):
 * arguments checked by the plan, and plans that are not this schema's refused. */
static void test_plans(void) {
    static emcp_tool t[1];
    static emcp_config c;
    static uint32_t words[EDGE_COUNTED_PLAN_WORDS];
    static const char other[] = "{\"type\":\"object\"}";
    box *b = &g_box;
    unsigned runs;
    size_t k;
    g_test = "plans";
    c = cfg_buf;
    c.tools = t;
    c.tools_len = 1;
    t[0] = tools[T_NULLS];
    t[0].call = plan_tool_cb;
    t[0].input_schema.ptr = EDGE_COUNTED_SCHEMA;
    t[0].input_schema.len = sizeof EDGE_COUNTED_SCHEMA - 1;
    t[0].plan = edge_counted_plan;
    t[0].plan_words = EDGE_COUNTED_PLAN_WORDS;
    CHECK_ST(box_init(b, &c, LINE_CAP, OUT_CAP), EMCP_OK);
    runs = g_plan_runs;
    roundtrip(b, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":"
                 "\"nulls\",\"arguments\":{\"n\":4}}}\n",
              0);
    CHECK_TEXT(g_got, g_got_len,
               "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\","
               "\"text\":\"Invalid argument \\\"n\\\": must be <= 3\"}],\"isError\":true}}\n");
    roundtrip(b, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
                 "\"nulls\",\"arguments\":{\"mode\":\"a\"}}}\n",
              0);
    CHECK_TEXT(g_got, g_got_len,
               "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[{\"type\":\"text\","
               "\"text\":\"Missing required argument \\\"n\\\"\"}],\"isError\":true}}\n");
    roundtrip(b, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
                 "\"nulls\",\"arguments\":{\"n\":2,\"mode\":\"c\"}}}\n",
              0);
    CHECK_TEXT(g_got, g_got_len,
               "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[{\"type\":\"text\","
               "\"text\":\"Invalid argument \\\"mode\\\": must be one of [\\\"a\\\",\\\"b\\\"]\"}],"
               "\"isError\":true}}\n");
    CHECK(g_plan_runs == runs); /* refused before the tool ran */
    roundtrip(b, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":"
                 "\"nulls\",\"arguments\":{\"n\":2,\"mode\":\"b\"}}}\n",
              0);
    CHECK_TEXT(g_got, g_got_len,
               "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"content\":[{\"type\":\"text\","
               "\"text\":\"ran\"}]}}\n");
    CHECK(g_plan_runs == runs + 1);

    /* The plan decides, not the text: with its maximum raised to 5 (a property's
     * eleventh word, after the head's six), 4 is accepted. */
    memcpy(words, edge_counted_plan, sizeof words);
    CHECK(words[6 + 10] == 3);
    words[6 + 10] = 5;
    t[0].plan = words;
    CHECK_ST(box_init(b, &c, LINE_CAP, OUT_CAP), EMCP_OK);
    roundtrip(b, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":"
                 "\"nulls\",\"arguments\":{\"n\":4}}}\n",
              0);
    CHECK(g_plan_runs == runs + 2);
    t[0].plan = edge_counted_plan;

    /* The plan of another text, words of the other byte order, a changed word: not
     * this schema's plan (EMCP_INVALID_SCHEMA). */
    t[0].input_schema.ptr = other;
    t[0].input_schema.len = sizeof other - 1;
    CHECK_ST(init_with(&c), EMCP_INVALID_SCHEMA);
    t[0].input_schema.ptr = EDGE_COUNTED_SCHEMA;
    t[0].input_schema.len = sizeof EDGE_COUNTED_SCHEMA - 1;
    for (k = 0; k < EDGE_COUNTED_PLAN_WORDS; k++) {
        uint32_t w = edge_counted_plan[k];
        words[k] = (w >> 24) | ((w >> 8) & 0xff00u) | ((w << 8) & 0xff0000u) | (w << 24);
    }
    t[0].plan = words;
    CHECK_ST(init_with(&c), EMCP_INVALID_SCHEMA);
    memcpy(words, edge_counted_plan, sizeof words);
    CHECK_ST(init_with(&c), EMCP_OK);
    words[0] ^= 1u; /* the schema's hash */
    CHECK_ST(init_with(&c), EMCP_INVALID_SCHEMA);
    /* Words of the wrong shape: refused before they are read (EMCP_INVALID_CONFIG). */
    memcpy(words, edge_counted_plan, sizeof words);
    t[0].plan_words = EDGE_COUNTED_PLAN_WORDS - 1;
    CHECK_ST(init_with(&c), EMCP_INVALID_CONFIG);
    t[0].plan = NULL;
    CHECK_ST(init_with(&c), EMCP_INVALID_CONFIG);
    t[0].plan_words = 0;
    CHECK_ST(init_with(&c), EMCP_OK); /* no plan: the text is walked */
}

static void test_tools(void) {
    box *b = &g_box;
    g_test = "tools";
    CHECK_ST(box_init(b, &cfg_buf, LINE_CAP, OUT_CAP), EMCP_OK);

    g_test = "tool nulls";
    roundtrip(b, "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"tools/call\",\"params\":{\"name\":"
                 "\"nulls\",\"arguments\":{\"k\":\"v\"}}}\n",
              0);
    CHECK_TEXT(g_got, g_got_len,
               "{\"jsonrpc\":\"2.0\",\"id\":11,\"result\":{\"content\":[{\"type\":\"text\","
               "\"text\":\"\"},{\"type\":\"text\",\"text\":\"ok\"}]}}\n");

    g_test = "tool failing";
    roundtrip(b, "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"tools/call\",\"params\":{\"name\":"
                 "\"fail\",\"arguments\":{}}}\n",
              0);
    CHECK_TEXT(g_got, g_got_len,
               "{\"jsonrpc\":\"2.0\",\"id\":12,\"result\":{\"content\":[{\"type\":\"text\","
               "\"text\":\"tool failed\"}],\"isError\":true}}\n");
    roundtrip(b, "{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"tools/call\",\"params\":{\"name\":"
                 "\"fail_after_text\",\"arguments\":{}}}\n",
              0);
    CHECK_TEXT(g_got, g_got_len,
               "{\"jsonrpc\":\"2.0\",\"id\":13,\"result\":{\"content\":[{\"type\":\"text\","
               "\"text\":\"partial\"}],\"isError\":true}}\n");
    roundtrip(b, "{\"jsonrpc\":\"2.0\",\"id\":14,\"method\":\"tools/call\",\"params\":{\"name\":"
                 "\"error\"}}\n",
              0);
    CHECK_TEXT(g_got, g_got_len,
               "{\"jsonrpc\":\"2.0\",\"id\":14,\"result\":{\"content\":[{\"type\":\"text\","
               "\"text\":\"boom\"}],\"isError\":true}}\n");

    g_test = "tool structured";
    roundtrip(b, "{\"jsonrpc\":\"2.0\",\"id\":15,\"method\":\"tools/call\",\"params\":{\"name\":"
                 "\"structured\",\"arguments\":{}}}\n",
              0);
    /* The late emcp_call_error is refused (its text cannot follow structured content),
     * but the result is still marked as failed: the tool said it failed. */
    CHECK_TEXT(g_got, g_got_len,
               "{\"jsonrpc\":\"2.0\",\"id\":15,\"result\":{\"content\":[{\"type\":\"text\","
               "\"text\":\"t\"}],\"structuredContent\":{\"a\":[1,\"x\"]},\"isError\":true}}\n");

    g_test = "tool streams";
    roundtrip(b, "{\"jsonrpc\":\"2.0\",\"id\":16,\"method\":\"tools/call\",\"params\":{\"name\":"
                 "\"streams\",\"arguments\":{}}}\n",
              0);
    CHECK_TEXT(g_got, g_got_len,
                   "{\"jsonrpc\":\"2.0\",\"id\":16,\"result\":{\"content\":[{\"type\":\"text\","
                   "\"text\":\"a\\\"b\"},{\"type\":\"image\",\"mimeType\":\"image/png\","
                   "\"data\":\"AAEC\"}]}}\n");
}

/* Authorization: "fail" is denied with a reason, "error" is rate-limited, "nulls" is
 * denied with an invalid reason (the default text is shown), "structured" gets an
 * unknown status (fail closed); the rest run. Records what the callback saw. */
static size_t g_auth_tool;
static char g_auth_args[64];
static size_t g_auth_args_len;
static int g_auth_args_null;
static emcp_status authorize_cb(void *userdata, size_t tool, emcp_str args, emcp_str *reason,
                                uint32_t *retry_after_ms) {
    (void)userdata;
    g_auth_tool = tool;
    g_auth_args_null = args.ptr == NULL;
    g_auth_args_len = args.len < sizeof g_auth_args ? args.len : sizeof g_auth_args;
    if (args.ptr != NULL) {
        memcpy(g_auth_args, args.ptr, g_auth_args_len);
    }
    CHECK(reason != NULL && reason->ptr == NULL && reason->len == 0);
    CHECK(retry_after_ms != NULL && *retry_after_ms == 0);
    static const emcp_str refused = EMCP_STR("fail refused: the arm switch is off");
    switch (tool) {
    case T_FAIL:
        *reason = refused;
        return EMCP_DENIED;
    case T_ERROR:
        *retry_after_ms = 1500;
        return EMCP_RETRY_LATER;
    case T_NULLS:
        reason->ptr = "\xff";
        reason->len = 1;
        return EMCP_DENIED;
    case T_STRUCTURED:
        return 7777;
    default:
        return EMCP_OK;
    }
}

static const emcp_config cfg_auth = {
    EMCP_STR("edge"), EMCP_STR("1.0"), EMCP_NO_STR, EMCP_NO_STR,
    tools, T_COUNT, resources, 1, templates, 1, prompts, 1,
    complete_cb, NULL, NULL, 0, 0, 0, authorize_cb, NULL,
};

static void test_authorize(void) {
    box *b = &g_box;
    g_test = "authorize";
    CHECK_ST(box_init(b, &cfg_auth, LINE_CAP, OUT_CAP), EMCP_OK);

    roundtrip(b, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":"
                 "\"fail\",\"arguments\":{\"k\": [1]}}}\n",
              0);
    CHECK_TEXT(g_got, g_got_len,
               "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\","
               "\"text\":\"fail refused: the arm switch is off\"}],\"isError\":true}}\n");
    CHECK(g_auth_tool == T_FAIL);
    CHECK(!g_auth_args_null);
    CHECK_TEXT(g_auth_args, g_auth_args_len, "{\"k\": [1]}");

    roundtrip(b, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
                 "\"error\"}}\n",
              0);
    CHECK_TEXT(g_got, g_got_len,
               "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[{\"type\":\"text\","
               "\"text\":\"Rate limit exceeded: retry in 1500 ms\"}],\"isError\":true}}\n");
    CHECK(g_auth_args_null);

    roundtrip(b, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
                 "\"nulls\",\"arguments\":{}}}\n",
              0);
    CHECK_TEXT(g_got, g_got_len,
               "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[{\"type\":\"text\","
               "\"text\":\"tool refused by the device\"}],\"isError\":true}}\n");
    roundtrip(b, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":"
                 "\"structured\",\"arguments\":{}}}\n",
              0);
    CHECK_TEXT(g_got, g_got_len,
               "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"content\":[{\"type\":\"text\","
               "\"text\":\"tool refused by the device\"}],\"isError\":true}}\n");
    CHECK(g_auth_tool == T_STRUCTURED);

    /* Allowed: the tool runs as usual; a refused tool's callback never ran. */
    g_tool_runs = 0;
    roundtrip(b, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":"
                 "\"big\",\"arguments\":{}}}\n",
              0);
    CHECK(g_auth_tool == T_BIG);
    CHECK(g_got_len > 2000);
    CHECK(g_tool_runs == 1);
    roundtrip(b, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":"
                 "\"fail\",\"arguments\":{}}}\n",
              0);
    CHECK(g_tool_runs == 1);
}

static void test_reads(void) {
    box *b = &g_box;
    g_test = "resource reads";
    CHECK_ST(box_init(b, &cfg_buf, LINE_CAP, OUT_CAP), EMCP_OK);
    roundtrip(b, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/read\",\"params\":{\"uri\":"
                 "\"test://missing/t\"}}\n",
              0);
    CHECK_TEXT(g_got, g_got_len,
               "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32002,\"message\":"
               "\"Resource not found\",\"data\":{\"uri\":\"test://missing/t\"}}}\n");
    roundtrip(b, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/read\",\"params\":{\"uri\":"
                 "\"test://broken/t\"}}\n",
              0);
    CHECK(g_got_len > 0 &&
          strncmp(g_got, "{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32603,", 47) == 0);
    CHECK(g_got_len > 0 && g_got[g_got_len - 1] == '\n');
    roundtrip(b, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/read\",\"params\":{\"uri\":"
                 "\"test://late_fail/t\"}}\n",
              0);
    /* Today: a successful result holding only "half". */
    CHECK(g_got_len > 0 &&
          strncmp(g_got, "{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32603,", 47) == 0);
    roundtrip(b, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/read\",\"params\":{\"uri\":"
                 "\"test://mixed/t\"}}\n",
              0);
    CHECK_TEXT(g_got, g_got_len,
                   "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"contents\":[{\"uri\":"
                   "\"test://mixed/t\",\"text\":\"a\"},{\"uri\":\"test://mixed/t\",\"blob\":"
                   "\"AAEC\"}]}}\n");
}

static void test_completion_long_value(void) {
    static char in[1024];
    size_t n;
    box *b = &g_box;
    g_test = "completion long value";
    CHECK_ST(box_init(b, &cfg_buf, LINE_CAP, OUT_CAP), EMCP_OK);
    n = (size_t)sprintf(in, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"completion/complete\","
                            "\"params\":{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"p\"},"
                            "\"argument\":{\"name\":\"who\",\"value\":\"");
    memset(in + n, 'a', 300);
    strcpy(in + n + 300, "\"}}}\n");
    g_long_value = 1;
    roundtrip(b, in, 0);
    g_long_value = 0;
    CHECK_TEXT(g_got, g_got_len,
               "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"completion\":{\"values\":[\"v1\"],"
               "\"total\":1,\"hasMore\":false}}}\n");
}


/* ------------------------------------------------------------------------------------ */
/* Tasks (a library built with the `tasks` feature, this file with -DEMCP_TASKS).        */

#if defined(EMCP_TASKS)

enum { K_QUICK, K_SLOW, K_MUST, K_BADRESULT, K_COUNT };

static uint64_t g_now;         /* the device clock the tests set */
static unsigned g_now_calls;   /* how often the server read it */
static size_t g_task_cancel_tool = (size_t)-1;
static uint32_t g_task_cancel_state = S_U32;
static unsigned g_task_cancels;
static unsigned g_result_calls;

static uint64_t now_cb(void *userdata) {
    (void)userdata;
    g_now_calls++;
    return g_now;
}

/* First round: `quick` answers at once; the others keep 3 in the state word and stay
 * pending (every task tool here has a poll callback). */
static emcp_status task_call_cb(void *userdata, emcp_tool_call *call) {
    size_t idx = S_SIZE;
    bool defer = false;
    (void)userdata;
    emcp_call_tool_index(call, &idx);
    if (idx == K_QUICK) {
        return emcp_call_text(call, EMCP_TEXT("quick done"));
    }
    CHECK_ST(emcp_call_can_defer(call, &defer), EMCP_OK);
    CHECK(defer);
    emcp_call_set_state(call, 3);
    return EMCP_PENDING;
}

/* Later rounds: one step down; at 0 done, with text the server throws away (a task's
 * result is written again by `result`). */
static emcp_status task_poll_cb(void *userdata, emcp_tool_call *call) {
    uint32_t state = S_U32;
    (void)userdata;
    emcp_call_state(call, &state);
    emcp_call_set_state(call, state - 1u);
    if (state - 1u > 0) {
        return EMCP_PENDING;
    }
    return emcp_call_text(call, EMCP_TEXT("discarded"));
}

static void task_cancel_cb(void *userdata, size_t tool, uint32_t state) {
    (void)userdata;
    g_task_cancel_tool = tool;
    g_task_cancel_state = state;
    g_task_cancels++;
}

/* The result, written again from the tool index and the state word. */
static emcp_status task_result_cb(void *userdata, emcp_tool_call *call) {
    char text[64];
    size_t idx = S_SIZE;
    uint32_t state = S_U32;
    bool defer = true;
    (void)userdata;
    g_result_calls++;
    CHECK_ST(emcp_call_tool_index(call, &idx), EMCP_OK);
    CHECK_ST(emcp_call_state(call, &state), EMCP_OK);
    CHECK_ST(emcp_call_can_defer(call, &defer), EMCP_OK);
    CHECK(!defer); /* a result is written at once */
    if (idx == K_BADRESULT) {
        return EMCP_TOOL_FAILED;
    }
    return emcp_call_text(call, text, (size_t)sprintf(text, "result of %u (%u)", (unsigned)idx,
                                                      (unsigned)state));
}

#define TASK_TOOL(name, support)                                                           \
    {                                                                                       \
        EMCP_STR(name), EMCP_NO_STR, EMCP_NO_STR, OBJECT_SCHEMA, EMCP_NO_STR, {0, 0, 0, 0}, \
            task_call_cb, task_poll_cb, task_cancel_cb, (support), task_result_cb, NULL, 0  \
    }

static const emcp_tool task_tools[K_COUNT] = {
    TASK_TOOL("quick", EMCP_TASK_FORBIDDEN),
    TASK_TOOL("slow", EMCP_TASK_OPTIONAL),
    TASK_TOOL("must", EMCP_TASK_REQUIRED),
    TASK_TOOL("badresult", EMCP_TASK_OPTIONAL),
};

static const emcp_config cfg_tasks = {
    EMCP_STR("edge"), EMCP_STR("1.0"), EMCP_NO_STR, EMCP_NO_STR,
    task_tools, K_COUNT, NULL, 0, NULL, 0, NULL, 0,
    NULL, NULL, NULL, 0, 0, 0, NULL, now_cb,
};

static const uint8_t g_key[EMCP_KEY_LEN] = {9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9,
                                            9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9};

/* A 2026-07-28 request line; `ext`: its client capabilities declare the tasks extension. */
static const char *req26(char *dst, int id, const char *method, const char *params, int ext) {
    sprintf(dst,
            "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"%s\",\"params\":{%s%s\"_meta\":{"
            "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
            "\"io.modelcontextprotocol/clientCapabilities\":{%s}}}}\n",
            id, method, params, params[0] != '\0' ? "," : "",
            ext ? "\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}" : "");
    return dst;
}

/* The taskId in g_got (32 hex digits) into `id` (33 bytes); 1 when found. */
static int task_id(char *id) {
    static const char key[] = "\"taskId\":\"";
    const char *p;
    g_got[g_got_len < sizeof g_got ? g_got_len : sizeof g_got - 1] = '\0';
    p = strstr(g_got, key);
    if (p == NULL || strlen(p) < sizeof key - 1 + 33 || p[sizeof key - 1 + 32] != '"') {
        id[0] = '\0';
        return 0;
    }
    memcpy(id, p + sizeof key - 1, 32);
    id[32] = '\0';
    return 1;
}

/* Whether g_got contains `needle`. */
static int got_has(const char *needle) {
    g_got[g_got_len < sizeof g_got ? g_got_len : sizeof g_got - 1] = '\0';
    return strstr(g_got, needle) != NULL;
}

/* Poll until the server is not busy (at most `max` polls); the number of polls. */
static unsigned poll_idle(box *b, unsigned max) {
    unsigned n = 0;
    bool busy = true;
    while (busy && n < max) {
        CHECK_ST(emcp_server_poll(b->srv, &busy), EMCP_OK);
        n++;
    }
    return n;
}

static void test_tasks_layout_and_key(void) {
    static union {
        emcp_server_storage s;
        unsigned char bytes[1024];
    } small;
    box *b = &g_box;
    emcp_server *srv = NULL;
    emcp_config c;
    size_t index = S_SIZE;
    uint8_t key33[EMCP_KEY_LEN + 1];
    g_test = "tasks layout/key";

    CHECK(EMCP_MAX_TASKS == 4);
    CHECK(EMCP_KEY_LEN == 32);
    CHECK(EMCP_SERVER_STORAGE_SIZE == 1024 + EMCP_TASKS_KEY_STORAGE_SIZE
                                          + EMCP_MAX_TASKS * EMCP_TASK_STORAGE_SIZE);
    CHECK(sizeof(emcp_server_storage) == EMCP_SERVER_STORAGE_SIZE);
    /* The storage of a build without tasks is too small for this library. */
    CHECK_ST(emcp_server_init(&small.s, sizeof small.bytes, &cfg_tasks, b->line, LINE_CAP,
                              b->out, OUT_CAP, &srv),
             EMCP_STORAGE_TOO_SMALL);

    /* An unknown task support is refused. */
    c = cfg_tasks;
    CHECK_ST(emcp_config_check(&c, &index), EMCP_OK);
    {
        static emcp_tool bad[1];
        bad[0] = task_tools[K_SLOW];
        bad[0].task_support = 3;
        c.tools = bad;
        c.tools_len = 1;
        CHECK_ST(emcp_config_check(&c, &index), EMCP_INVALID_CONFIG);
        CHECK_ST(init_with(&c), EMCP_INVALID_CONFIG);
    }

    CHECK_ST(box_init(b, &cfg_tasks, LINE_CAP, OUT_CAP), EMCP_OK);
    CHECK_ST(emcp_server_set_key(NULL, g_key, sizeof g_key), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_server_set_key(b->srv, NULL, sizeof g_key), EMCP_NULL_PARAMETER);
    CHECK_ST(emcp_server_set_key(b->srv, g_key, 0), EMCP_INVALID_PARAMETER);
    CHECK_ST(emcp_server_set_key(b->srv, g_key, 16), EMCP_INVALID_PARAMETER);
    CHECK_ST(emcp_server_set_key(b->srv, g_key, sizeof g_key - 1), EMCP_INVALID_PARAMETER);
    memset(key33, 9, sizeof key33);
    CHECK_ST(emcp_server_set_key(b->srv, key33, sizeof key33), EMCP_INVALID_PARAMETER);
    CHECK_ST(emcp_server_set_key(b->srv, g_key, sizeof g_key), EMCP_OK);
    CHECK_ST(emcp_server_set_key(b->srv, key33, EMCP_KEY_LEN), EMCP_OK); /* replaced */
}

/* Without a key: no tasks offered, a task-required tool refused. */
static void test_tasks_without_key(void) {
    char line[512];
    box *b = &g_box;
    g_test = "tasks without key";
    CHECK_ST(box_init(b, &cfg_tasks, LINE_CAP, OUT_CAP), EMCP_OK);
    roundtrip(b, req26(line, 1, "server/discover", "", 1), 0);
    CHECK(got_has("\"result\""));
    CHECK(!got_has("io.modelcontextprotocol/tasks"));
    roundtrip(b, req26(line, 2, "tools/call", "\"name\":\"must\"", 1), 0);
    CHECK(got_has("\"error\":{\"code\":-32603"));
    CHECK(!got_has("taskId"));
}

static void test_tasks_2026(void) {
    char line[512], params[128], id[33], id2[33];
    unsigned polls;
    box *b = &g_box;
    g_test = "tasks 2026-07-28";
    g_now = UINT64_C(1764660000000); /* 2025-12-02T07:20:00Z */
    g_now_calls = 0;
    CHECK_ST(box_init(b, &cfg_tasks, LINE_CAP, OUT_CAP), EMCP_OK);
    CHECK_ST(emcp_server_set_key(b->srv, g_key, sizeof g_key), EMCP_OK);

    roundtrip(b, req26(line, 1, "server/discover", "", 0), 0);
    CHECK(got_has("\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}"));

    /* A task-required tool without the extension: the era's error. */
    roundtrip(b, req26(line, 2, "tools/call", "\"name\":\"must\"", 0), 0);
    CHECK(got_has("\"error\":{\"code\":-32021"));
    /* A forbidden tool with the extension: an ordinary result. */
    roundtrip(b, req26(line, 3, "tools/call", "\"name\":\"quick\"", 1), 0);
    CHECK(got_has("\"text\":\"quick done\""));
    CHECK(!got_has("taskId"));

    /* Created: working, timestamps from the clock callback. */
    roundtrip(b, req26(line, 4, "tools/call", "\"name\":\"slow\"", 1), 0);
    CHECK(got_has("\"resultType\":\"task\""));
    CHECK(got_has("\"status\":\"working\""));
    CHECK(got_has("\"createdAt\":\"2025-12-02T07:20:00.000Z\""));
    CHECK(got_has("\"ttlMs\":60000"));
    CHECK(g_now_calls > 0);
    CHECK(task_id(id));
    sprintf(params, "\"taskId\":\"%s\"", id);
    roundtrip(b, req26(line, 5, "tasks/get", params, 1), 0);
    CHECK(got_has("\"status\":\"working\""));
    CHECK(!got_has("\"result\":{\"content\""));

    /* Polled to completion (3 rounds less what the get ran), time moves on. */
    g_now += 1500;
    polls = poll_idle(b, 10);
    CHECK(polls >= 1 && polls <= 3);
    g_result_calls = 0;
    roundtrip(b, req26(line, 6, "tasks/get", params, 1), 0);
    CHECK(got_has("\"status\":\"completed\""));
    CHECK(got_has("\"lastUpdatedAt\":\"2025-12-02T07:20:01.500Z\""));
    CHECK(got_has("{\"type\":\"text\",\"text\":\"result of 1 (0)\"}"));
    CHECK(!got_has("discarded"));
    CHECK(g_result_calls == 1);
    /* Fetched again: written again by the callback. */
    roundtrip(b, req26(line, 7, "tasks/get", params, 1), 0);
    CHECK(got_has("\"text\":\"result of 1 (0)\""));
    CHECK(g_result_calls == 2);

    /* A result callback that fails: an isError result. */
    roundtrip(b, req26(line, 8, "tools/call", "\"name\":\"badresult\"", 1), 0);
    CHECK(task_id(id2));
    poll_idle(b, 10);
    sprintf(params, "\"taskId\":\"%s\"", id2);
    roundtrip(b, req26(line, 9, "tasks/get", params, 1), 0);
    CHECK(got_has("\"status\":\"completed\""));
    CHECK(got_has("\"isError\":true"));

    /* Cancelled while working: the cancel callback runs once, the status is final. */
    g_task_cancels = 0;
    roundtrip(b, req26(line, 10, "tools/call", "\"name\":\"must\"", 1), 0);
    CHECK(task_id(id2));
    CHECK(strcmp(id, id2) != 0);
    sprintf(params, "\"taskId\":\"%s\"", id2);
    roundtrip(b, req26(line, 11, "tasks/cancel", params, 1), 0);
    CHECK(got_has("\"resultType\":\"complete\""));
    CHECK(g_task_cancels == 1);
    CHECK(g_task_cancel_tool == K_MUST);
    CHECK(g_task_cancel_state > 0 && g_task_cancel_state <= 3);
    roundtrip(b, req26(line, 12, "tasks/get", params, 1), 0);
    CHECK(got_has("\"status\":\"cancelled\""));
    CHECK(poll_idle(b, 10) == 1); /* nothing left to run */
    CHECK(g_task_cancels == 1);

    /* Expiry on the device clock: 60 s after creation the task is gone. */
    g_now += 60000;
    sprintf(params, "\"taskId\":\"%s\"", id);
    roundtrip(b, req26(line, 13, "tasks/get", params, 1), 0);
    CHECK(got_has("\"error\":{\"code\":-32602"));

    /* End of input: a working task is cancelled and forgotten. */
    g_task_cancels = 0;
    roundtrip(b, req26(line, 14, "tools/call", "\"name\":\"slow\"", 1), 0);
    CHECK(task_id(id2));
    CHECK_ST(emcp_server_finish(b->srv), EMCP_OK);
    CHECK(g_task_cancels == 1 && g_task_cancel_tool == K_SLOW);
    CHECK(poll_idle(b, 10) == 1);
    sprintf(params, "\"taskId\":\"%s\"", id2);
    roundtrip(b, req26(line, 15, "tasks/get", params, 1), 0);
    CHECK(got_has("\"error\":{\"code\":-32602"));
}

/* A 2025-11-25 request line. */
static const char *req25(char *dst, int id, const char *method, const char *params) {
    sprintf(dst, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"%s\",\"params\":{%s}}\n", id,
            method, params);
    return dst;
}

static void test_tasks_2025(void) {
    char line[512], params[128], id[33];
    box *b = &g_box;
    g_test = "tasks 2025-11-25";
    g_now = UINT64_C(1764660000000);
    CHECK_ST(box_init(b, &cfg_tasks, LINE_CAP, OUT_CAP), EMCP_OK);
    CHECK_ST(emcp_server_set_key(b->srv, g_key, sizeof g_key), EMCP_OK);
    roundtrip(b, req25(line, 1, "initialize",
                       "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                       "\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}"),
              0);
    CHECK(got_has("\"tasks\":{"));
    CHECK(got_has("\"requests\":{\"tools\":{\"call\":{}}}"));
    roundtrip(b, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n", 0);

    /* tools/list: execution.taskSupport of the tools that allow tasks. */
    roundtrip(b, req25(line, 2, "tools/list", ""), 0);
    CHECK(got_has("\"name\":\"slow\",\"inputSchema\":{\"type\":\"object\"},"
                  "\"execution\":{\"taskSupport\":\"optional\"}"));
    CHECK(got_has("\"execution\":{\"taskSupport\":\"required\"}"));
    CHECK(got_has("\"name\":\"quick\",\"inputSchema\":{\"type\":\"object\"}}"));

    /* The era's errors: a task of a forbidden tool, a required one without a task. */
    roundtrip(b, req25(line, 3, "tools/call", "\"name\":\"quick\",\"task\":{}"), 0);
    CHECK(got_has("\"error\":{\"code\":-32601"));
    roundtrip(b, req25(line, 4, "tools/call", "\"name\":\"must\""), 0);
    CHECK(got_has("\"error\":{\"code\":-32601"));

    /* Created, polled, the result fetched with tasks/result. */
    roundtrip(b, req25(line, 5, "tools/call", "\"name\":\"must\",\"task\":{\"ttl\":30000}"), 0);
    CHECK(got_has("\"task\":{"));
    CHECK(got_has("\"status\":\"working\""));
    CHECK(got_has("\"ttl\":30000"));
    CHECK(task_id(id));
    sprintf(params, "\"taskId\":\"%s\"", id);
    poll_idle(b, 10);
    roundtrip(b, req25(line, 6, "tasks/get", params), 0);
    CHECK(got_has("\"status\":\"completed\""));
    roundtrip(b, req25(line, 7, "tasks/result", params), 0);
    CHECK(got_has("{\"type\":\"text\",\"text\":\"result of 2 (0)\"}"));
    CHECK(got_has("\"io.modelcontextprotocol/related-task\":{\"taskId\":\""));

    /* tasks/result of a working task waits for its end, answered from emcp_server_poll. */
    roundtrip(b, req25(line, 8, "tools/call", "\"name\":\"slow\",\"task\":{}"), 0);
    CHECK(task_id(id));
    sprintf(params, "\"taskId\":\"%s\"", id);
    roundtrip(b, req25(line, 9, "tasks/result", params), 0);
    g_got_len = 0;
    poll_idle(b, 10);
    drain(b);
    CHECK(got_has("\"id\":9,\"result\":{\"content\":[{\"type\":\"text\","
                  "\"text\":\"result of 1 (0)\"}]"));

    /* Cancelled; then its result is an error, and tasks/list has all three. */
    roundtrip(b, req25(line, 10, "tools/call", "\"name\":\"slow\",\"task\":{}"), 0);
    CHECK(task_id(id));
    sprintf(params, "\"taskId\":\"%s\"", id);
    roundtrip(b, req25(line, 11, "tasks/cancel", params), 0);
    CHECK(got_has("\"status\":\"cancelled\""));
    roundtrip(b, req25(line, 12, "tasks/result", params), 0);
    CHECK(got_has("\"error\":{\"code\":-32603"));
    roundtrip(b, req25(line, 13, "tasks/list", ""), 0);
    CHECK(got_has("\"tasks\":["));
    {
        unsigned n = 0;
        const char *p = g_got;
        while ((p = strstr(p, "\"taskId\"")) != NULL) {
            n++;
            p++;
        }
        CHECK(n == 3);
    }
}

#endif /* EMCP_TASKS */

int main(void) {
    test_version_and_layout();
    test_status_str();
    test_null_handles();
    test_server_nulls();
    test_init_storage_and_buffers();
    test_init_configs();
    test_feed_basics();
    test_script_chunkings();
    test_oversized_line();
    test_output_backpressure();
    test_response_too_large();
    test_callback_mode();
    test_resource_changed();
    test_tools();
    test_authorize();
    test_reads();
    test_completion_long_value();
    test_plans();
#if defined(EMCP_TASKS)
    test_tasks_layout_and_key();
    test_tasks_without_key();
    test_tasks_2026();
    test_tasks_2025();
#endif
    printf("%u passed, %u failed\n", g_passed, g_failed);
    return g_failed == 0 ? 0 : 1;
}
