/*
 * board.c — the simulated sensor board of docs/board.md, in C99 against emcp.h.
 *
 * It behaves byte for byte like the Rust board (examples/sensor-board/src/lib.rs):
 * the same descriptors, texts and errors. Like it, it keeps readings as integer
 * tenths and prints them without floating-point formatting; it needs no heap and no
 * buffer larger than one line of text (the 4 KiB sample log is generated 64 bytes at
 * a time).
 *
 * Built with -DBOARD_TASKS (against an emcp-ffi built with its `tasks` feature, and
 * with -DEMCP_TASKS for emcp.h), it is docs/board.md's tasks build: move_servo may run
 * as a task, and a 4th tool, calibrate, runs only as one. The transport then provides
 * the clock (`board_now_ms`) and gives the server its key.
 */
#include "board.h"
#include "board_plans.h"

#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

/* --------------------------------------------------------------------------------- */
/* State                                                                             */
/* --------------------------------------------------------------------------------- */

struct board board; /* zero: LED off at 0 %, servo at 0.0 degrees, armed, no server yet */

enum { LED_OFF = 0 };

/* The job state of move_servo holds the target (tenths of a degree, schema-bounded to
 * -900..900, so 100..1900 after the offset) above the step count in the low byte. */
enum { SERVO_STEPS = 3, SERVO_OFFSET = 1000 };

enum { SENSOR_COUNT = 3 };

/* The sensors' names, in the order of SENSORS (and of the sensor:// resources); also
 * the completion values of sensor://{name}/history. */
static const emcp_str SENSOR_NAMES[SENSOR_COUNT] = {
    EMCP_STR("temperature"),
    EMCP_STR("humidity"),
    EMCP_STR("pressure"),
};

/* A sensor (named in SENSOR_NAMES): its unit, key in its resource's JSON, and its
 * register in tenths. */
struct sensor {
    emcp_str unit;
    emcp_str json_key;
    int32_t tenths;
};

static const struct sensor SENSORS[SENSOR_COUNT] = {
    { EMCP_STR("C"), EMCP_STR("celsius"), 215 },
    { EMCP_STR("%"), EMCP_STR("percent"), 400 },
    { EMCP_STR("hPa"), EMCP_STR("hpa"), 10132 },
};

enum { COLOR_COUNT = 4 };

static const emcp_str COLORS[COLOR_COUNT] = {
    EMCP_STR("off"),
    EMCP_STR("red"),
    EMCP_STR("green"),
    EMCP_STR("blue"),
};

static const emcp_str SYMPTOMS[3] = {
    EMCP_STR("no reading"),
    EMCP_STR("wrong value"),
    EMCP_STR("led stuck"),
};

enum { SAMPLES_LEN = 4096, SAMPLES_CHUNK = 64 };

/* --------------------------------------------------------------------------------- */
/* Small helpers: comparing (pointer, length) text, building one line of text        */
/* --------------------------------------------------------------------------------- */

/* Text of `len` bytes equals `s`. */
static bool str_eq(const char *text, size_t len, emcp_str s)
{
    return len == s.len && memcmp(text, s.ptr, len) == 0;
}

/* `s` starts with the `len` bytes of `prefix`. */
static bool str_starts_with(emcp_str s, const char *prefix, size_t len)
{
    return len <= s.len && memcmp(s.ptr, prefix, len) == 0;
}

/* Index of a table entry equal to the text, or -1. */
static int find(const emcp_str *table, int count, const char *text, size_t len)
{
    int i;
    for (i = 0; i < count; i++) {
        if (str_eq(text, len, table[i])) {
            return i;
        }
    }
    return -1;
}

/* One line of text, built in place (every text of the board fits; longer is cut). */
struct text {
    char buf[128];
    size_t len;
};

static void put(struct text *t, const char *s, size_t n)
{
    size_t room = sizeof t->buf - t->len;
    if (n > room) {
        n = room;
    }
    memcpy(t->buf + t->len, s, n);
    t->len += n;
}

static void put_uint(struct text *t, uint32_t v)
{
    char digits[10];
    size_t n = 0;
    do {
        digits[sizeof digits - 1 - n] = (char)('0' + v % 10u);
        n++;
        v /= 10u;
    } while (v != 0);
    put(t, digits + sizeof digits - n, n);
}

/* A value in tenths: `21.5`, `-12.5`, and a whole value either with its decimal, as
 * device text prints it (`40.0`), or without, as a JSON number in its shortest form
 * (`40`). */
static void put_tenths(struct text *t, int32_t tenths, bool whole_decimal)
{
    uint32_t v = tenths < 0 ? 0u - (uint32_t)tenths : (uint32_t)tenths;
    if (tenths < 0) {
        put(t, "-", 1);
    }
    put_uint(t, v / 10u);
    if (whole_decimal || v % 10u != 0) {
        put(t, ".", 1);
        put_uint(t, v % 10u);
    }
}

/*
 * Make the line the template `fmt`, byte for byte, except for these conversions, each
 * taking the next argument:
 *   %s  a `const emcp_str *`, its text
 *   %u  a uint32_t, in decimal
 *   %t  an int32_t in tenths with one decimal, as device text prints it: `40.0`
 *   %n  an int32_t in tenths as a JSON number in its shortest form: `40`
 *   %%  a `%`
 * One formatter for every line the board builds keeps each callback to its template.
 */
static void format_line(struct text *t, const char *fmt, ...)
{
    va_list args;
    t->len = 0;
    va_start(args, fmt);
    for (; *fmt != '\0'; fmt++) {
        if (*fmt != '%' || fmt[1] == '\0') {
            /* The template's bytes up to the next conversion, as one piece. */
            const char *run = fmt;
            while (fmt[1] != '\0' && fmt[1] != '%') {
                fmt++;
            }
            put(t, run, (size_t)(fmt - run) + 1u);
            continue;
        }
        fmt++;
        switch (*fmt) {
        case 's': {
            const emcp_str *s = va_arg(args, const emcp_str *);
            put(t, s->ptr, s->len);
            break;
        }
        case 'u':
            put_uint(t, va_arg(args, uint32_t));
            break;
        case 't':
        case 'n':
            put_tenths(t, va_arg(args, int32_t), *fmt == 't');
            break;
        default: /* `%%` */
            put(t, fmt, 1);
            break;
        }
    }
    va_end(args);
}

/* `x` converted to int32_t, saturating. */
static int32_t saturate_i32(int64_t x)
{
    if (x >= INT32_MAX) {
        return INT32_MAX;
    }
    if (x <= INT32_MIN) {
        return INT32_MIN;
    }
    return (int32_t)x;
}

/* emcp_call_error with a string literal. */
#define CALL_ERROR(call, literal) emcp_call_error((call), (literal), sizeof(literal) - 1)

/* --------------------------------------------------------------------------------- */
/* Tools                                                                             */
/* --------------------------------------------------------------------------------- */

/* The `sensor` argument of read_sensor and calibrate: its index in SENSORS, or -1 after
 * writing the tool error (the schema's enum makes that unreachable once validated). */
static int sensor_arg(emcp_tool_call *call)
{
    char name[32];
    size_t len = 0;
    int s = -1;

    if (emcp_args_get_str(call, "sensor", 6, name, sizeof name, &len) == EMCP_OK) {
        s = find(SENSOR_NAMES, SENSOR_COUNT, name, len);
    }
    if (s < 0) {
        CALL_ERROR(call, "sensor must be one of temperature, humidity, pressure");
    }
    return s;
}

static emcp_status read_sensor(void *userdata, emcp_tool_call *call)
{
    int s = sensor_arg(call);
    struct text t;
    const struct sensor *sensor;
    (void)userdata;

    if (s < 0) {
        return EMCP_OK;
    }
    sensor = &SENSORS[s];

    /* temperature: 21.5 C */
    format_line(&t, "%s: %t %s", &SENSOR_NAMES[s], sensor->tenths, &sensor->unit);
    emcp_call_text(call, t.buf, t.len);

    /* {"sensor":"temperature","value":21.5,"unit":"C"} */
    format_line(&t, "{\"sensor\":\"%s\",\"value\":%n,\"unit\":\"%s\"}",
                &SENSOR_NAMES[s], sensor->tenths, &sensor->unit);
    emcp_call_structured(call, t.buf, t.len);
    return EMCP_OK;
}

static emcp_status set_led(void *userdata, emcp_tool_call *call)
{
    struct board *b = userdata;
    char color[32];
    size_t len = 0;
    int c = -1;
    int64_t brightness = 100;
    emcp_status st;
    bool sent;
    struct text t;

    if (emcp_args_get_str(call, "color", 5, color, sizeof color, &len) == EMCP_OK) {
        c = find(COLORS, COLOR_COUNT, color, len);
    }
    /* An integer by the schema, which allows any integral number (`1e2`, `50.0`);
     * absent: full brightness. */
    st = emcp_args_get_i64(call, "brightness", 10, &brightness);
    if (st == EMCP_NOT_FOUND) {
        brightness = 100;
    } else if (st != EMCP_OK) {
        c = -1;
    }
    if (c < 0) {
        CALL_ERROR(call, "invalid set_led arguments");
        return EMCP_OK;
    }
    /* The schema bounds it to 0..100; saturate anyway, as the Rust board's cast does. */
    if (brightness < 0) {
        brightness = 0;
    } else if (brightness > 255) {
        brightness = 255;
    }
    b->led = (uint8_t)c;
    b->brightness = c == LED_OFF ? 0 : (uint8_t)brightness;

    /* led: red 50% */
    format_line(&t, "led: %s %u%%", &COLORS[b->led], (uint32_t)b->brightness);
    emcp_call_log(call, EMCP_LOG_INFO, "led", 3, t.buf, t.len, &sent);
    emcp_call_text(call, t.buf, t.len);
    /* Subscribers hear of it right after this response (the call only raises a flag,
     * which emcp.h allows from inside a callback). */
    if (b->server != NULL) {
        emcp_server_resource_changed(b->server, "led://state", 11);
    }
    return EMCP_OK;
}

/* One step of a servo move: progress N/3, and after the last one the result. */
static emcp_status servo_step(void *userdata, emcp_tool_call *call)
{
    struct board *b = userdata;
    uint32_t state = 0;
    uint32_t step;
    bool sent;
    struct text t;

    emcp_call_state(call, &state);
    step = (state & 0xffu) + 1u;
    /* servo step 1/3 (no message past the last step) */
    t.len = 0;
    if (step <= SERVO_STEPS) {
        format_line(&t, "servo step %u/%u", step, (uint32_t)SERVO_STEPS);
    }
    emcp_call_progress_u64(call, step, SERVO_STEPS, t.len > 0 ? t.buf : NULL, t.len, &sent);
    if (step < SERVO_STEPS) {
        emcp_call_set_state(call, state + 1u);
        return EMCP_PENDING;
    }
    b->servo = (int32_t)(state >> 8) - SERVO_OFFSET;

    /* servo: 45.0 deg */
    format_line(&t, "servo: %t deg", b->servo);
    emcp_call_text(call, t.buf, t.len);
    return EMCP_OK;
}

static emcp_status move_servo(void *userdata, emcp_tool_call *call)
{
    int64_t tenths;
    int32_t target;
    bool defer = false;
    emcp_status st;

    /* Tenths of a degree, truncated toward zero, exact from the decimal digits (no
     * floating point anywhere in the board). */
    if (emcp_args_get_scaled(call, "angle", 5, 1, &tenths) != EMCP_OK) {
        CALL_ERROR(call, "angle must be a number");
        return EMCP_OK;
    }
    target = saturate_i32(tenths);
    emcp_call_set_state(call, (uint32_t)((int64_t)target + SERVO_OFFSET) << 8);
    if (emcp_call_can_defer(call, &defer) == EMCP_OK && defer) {
        return EMCP_PENDING; /* servo_step runs from emcp_server_poll */
    }
    /* No job slot free: move in one go. */
    do {
        st = servo_step(userdata, call);
    } while (st == EMCP_PENDING);
    return st;
}

#ifdef BOARD_TASKS
/* A servo move that ran as a task, written again when the client fetches its result:
 * the target is in the state word, as after the last step. */
static emcp_status servo_result(void *userdata, emcp_tool_call *call)
{
    uint32_t state = 0;
    struct text t;
    (void)userdata;

    emcp_call_state(call, &state);
    format_line(&t, "servo: %t deg", (int32_t)(state >> 8) - SERVO_OFFSET);
    return emcp_call_text(call, t.buf, t.len);
}

/* calibrate: 2,000 ms of device time, as a task only. The state word keeps the sensor
 * (index in SENSOR_NAMES) in its low 7 bits, STARTED once the task's first round has
 * run, and then the low 24 bits of the start time in milliseconds above them: enough to
 * measure 2 s (the clock wraps in those bits every 4.6 hours; a task is forgotten after
 * 60 s). The time starts at the first round, which runs after the server made the task
 * (its createdAt), so that the task ends at least 2,000 ms after its createdAt even on
 * a slow device. */
enum { CALIBRATE_MS = 2000, CLOCK_BITS = 0xffffffu, SENSOR_BITS = 0x7fu, STARTED = 0x80u };

static emcp_status calibrate(void *userdata, emcp_tool_call *call)
{
    int s = sensor_arg(call);
    bool defer = false;
    (void)userdata;

    if (s < 0) {
        return EMCP_OK;
    }
    /* A task-required tool runs only as a task, which can always wait. */
    if (emcp_call_can_defer(call, &defer) != EMCP_OK || !defer) {
        CALL_ERROR(call, "calibrate runs only as a task");
        return EMCP_OK;
    }
    emcp_call_set_state(call, (uint32_t)s);
    return EMCP_PENDING; /* calibrate_poll runs from emcp_server_poll */
}

/* Writes the result of a calibration from its state word. */
static emcp_status calibrate_result(void *userdata, emcp_tool_call *call)
{
    uint32_t state = 0;
    uint32_t s;
    struct text t;
    (void)userdata;

    emcp_call_state(call, &state);
    s = state & SENSOR_BITS;
    if (s >= SENSOR_COUNT) {
        return EMCP_TOOL_FAILED;
    }
    /* calibrated: humidity */
    format_line(&t, "calibrated: %s", &SENSOR_NAMES[s]);
    return emcp_call_text(call, t.buf, t.len);
}

/* Pending until 2,000 ms have passed since the start, then the result. */
static emcp_status calibrate_poll(void *userdata, emcp_tool_call *call)
{
    uint32_t state = 0;
    uint32_t elapsed;

    emcp_call_state(call, &state);
    if ((state & STARTED) == 0u) {
        emcp_call_set_state(call, ((uint32_t)board_now_ms() & CLOCK_BITS) << 8 | STARTED
                                      | (state & SENSOR_BITS));
        return EMCP_PENDING;
    }
    elapsed = ((uint32_t)board_now_ms() - (state >> 8)) & CLOCK_BITS;
    if (elapsed < CALIBRATE_MS) {
        return EMCP_PENDING;
    }
    return calibrate_result(userdata, call);
}

/* The configuration's clock: the transport's. */
static uint64_t board_clock(void *userdata)
{
    (void)userdata;
    return board_now_ms();
}
#endif /* BOARD_TASKS */

static void servo_cancelled(void *userdata, size_t tool, uint32_t state)
{
    struct board *b = userdata;
    (void)tool;
    (void)state;
    /* The servo stops where it is: it never reaches the target. */
    b->cancelled++;
}

/* The input schemas' plans (board_plans.h, written by emcp-plan from board.schemas),
 * for a library that honours them (emcp-ffi's `plans` feature: -DEMCP_PLANS). Without,
 * the descriptors carry none, and the image no words it would ignore. */
#ifdef EMCP_PLANS
#define PLAN(words, count) .plan = (words), .plan_words = (count),
#else
#define PLAN(words, count)
#endif

#define ACTUATOR_ANNOTATIONS                                                          \
    {                                                                                 \
        .read_only = EMCP_HINT_FALSE, .destructive = EMCP_HINT_FALSE,                 \
        .idempotent = EMCP_HINT_TRUE, .open_world = EMCP_HINT_FALSE                   \
    }

static const emcp_tool TOOLS[] = {
    {
        .name = EMCP_STR("read_sensor"),
        .title = EMCP_STR("Read sensor"),
        .description = EMCP_STR("Read the current value of one on-board sensor."),
        .input_schema = EMCP_STR(BOARD_READ_SENSOR_SCHEMA),
        PLAN(board_read_sensor_plan, BOARD_READ_SENSOR_PLAN_WORDS)
        .output_schema = EMCP_STR(
            "{\"type\":\"object\",\"properties\":{\"sensor\":{\"type\":\"string\"},"
            "\"value\":{\"type\":\"number\"},\"unit\":{\"type\":\"string\"}},"
            "\"required\":[\"sensor\",\"value\",\"unit\"]}"),
        .annotations = { .read_only = EMCP_HINT_TRUE, .open_world = EMCP_HINT_FALSE },
        .call = read_sensor,
        .poll = NULL,
        .cancel = NULL,
    },
    {
        .name = EMCP_STR("set_led"),
        .title = EMCP_STR("Set LED"),
        .description = EMCP_STR("Set the status LED colour and brightness (0-100 %)."),
        .input_schema = EMCP_STR(BOARD_SET_LED_SCHEMA),
        PLAN(board_set_led_plan, BOARD_SET_LED_PLAN_WORDS)
        .output_schema = EMCP_NO_STR,
        .annotations = ACTUATOR_ANNOTATIONS,
        .call = set_led,
        .poll = NULL,
        .cancel = NULL,
    },
    {
        .name = EMCP_STR("move_servo"),
        .title = EMCP_STR("Move servo"),
        .description = EMCP_STR("Move the servo to an angle in degrees; reports progress in "
                                "3 steps and can be cancelled."),
        .input_schema = EMCP_STR(BOARD_MOVE_SERVO_SCHEMA),
        PLAN(board_move_servo_plan, BOARD_MOVE_SERVO_PLAN_WORDS)
        .output_schema = EMCP_NO_STR,
        .annotations = ACTUATOR_ANNOTATIONS,
        .call = move_servo,
        .poll = servo_step,         /* one step per emcp_server_poll */
        .cancel = servo_cancelled,
#ifdef BOARD_TASKS
        .task_support = EMCP_TASK_OPTIONAL, /* as a task when the client asks */
        .result = servo_result,
#endif
    },
#ifdef BOARD_TASKS
    {
        .name = EMCP_STR("calibrate"),
        .title = EMCP_STR("Calibrate sensor"),
        .description = EMCP_STR("Calibrate one on-board sensor; takes about two seconds and "
                                "runs only as a task."),
        .input_schema = EMCP_STR(BOARD_CALIBRATE_SCHEMA),
        PLAN(board_calibrate_plan, BOARD_CALIBRATE_PLAN_WORDS)
        .output_schema = EMCP_NO_STR,
        .annotations = ACTUATOR_ANNOTATIONS,
        .call = calibrate,
        .poll = calibrate_poll,
        .cancel = NULL, /* nothing moves: a cancelled calibration just stops */
        .task_support = EMCP_TASK_REQUIRED,
        .result = calibrate_result,
    },
#endif
};

enum { TOOL_MOVE_SERVO = 2 }; /* index of move_servo in TOOLS */

/* Device-side policy, asked before any tool runs: the servo moves only while the arm
 * switch is closed. */
static emcp_status authorize(void *userdata, size_t tool, emcp_str args, emcp_str *reason,
                             uint32_t *retry_after_ms)
{
    static const emcp_str disarmed = EMCP_STR("move_servo refused: the arm switch is off");
    const struct board *b = userdata;
    (void)args;
    (void)retry_after_ms;
    if (tool == TOOL_MOVE_SERVO && b->disarmed) {
        *reason = disarmed;
        return EMCP_DENIED;
    }
    return EMCP_OK;
}

/* --------------------------------------------------------------------------------- */
/* Resources                                                                         */
/* --------------------------------------------------------------------------------- */

#define JSON_MIME "application/json"
#define BLOB_MIME "application/octet-stream"
#define CSV_MIME "text/csv"

/* sensor://temperature, sensor://humidity, sensor://pressure: {"celsius":21.5} */
static emcp_status read_sensor_resource(void *userdata, emcp_resource_read *read)
{
    uint32_t kind;
    size_t index;
    struct text t;
    (void)userdata;

    if (emcp_read_target(read, &kind, &index) != EMCP_OK || kind != EMCP_TARGET_RESOURCE
        || index >= SENSOR_COUNT) {
        return EMCP_NOT_FOUND;
    }
    format_line(&t, "{\"%s\":%t}", &SENSORS[index].json_key, SENSORS[index].tenths);
    return emcp_read_text(read, JSON_MIME, sizeof JSON_MIME - 1, t.buf, t.len);
}

/* led://state: {"color":"off","brightness":0} */
static emcp_status read_led(void *userdata, emcp_resource_read *read)
{
    const struct board *b = userdata;
    struct text t;

    format_line(&t, "{\"color\":\"%s\",\"brightness\":%u}", &COLORS[b->led],
                (uint32_t)b->brightness);
    return emcp_read_text(read, JSON_MIME, sizeof JSON_MIME - 1, t.buf, t.len);
}

/* log://samples: 4096 bytes, byte i = (i*31+7) mod 256, generated 64 bytes at a time
 * (no 4 KiB buffer). */
static emcp_status read_samples(void *userdata, emcp_resource_read *read)
{
    uint8_t chunk[SAMPLES_CHUNK];
    size_t start, k;
    (void)userdata;

    emcp_read_blob_begin(read, BLOB_MIME, sizeof BLOB_MIME - 1);
    for (start = 0; start < SAMPLES_LEN; start += sizeof chunk) {
        for (k = 0; k < sizeof chunk; k++) {
            chunk[k] = (uint8_t)((start + k) * 31u + 7u);
        }
        emcp_read_data(read, chunk, sizeof chunk);
    }
    return EMCP_OK;
}

/* sensor://{name}/history: the last 8 readings, written row by row. */
static emcp_status read_history(void *userdata, emcp_resource_read *read)
{
    const char *name;
    size_t len;
    int s;
    int32_t now, i;
    struct text t;
    (void)userdata;

    if (emcp_read_var(read, "name", 4, &name, &len) != EMCP_OK) {
        return EMCP_NOT_FOUND;
    }
    s = find(SENSOR_NAMES, SENSOR_COUNT, name, len);
    if (s < 0) {
        return EMCP_NOT_FOUND;
    }
    now = SENSORS[s].tenths;
    emcp_read_text_begin(read, CSV_MIME, sizeof CSV_MIME - 1);
    emcp_read_text_part(read, "sample,value\n", 13);
    for (i = 0; i < 8; i++) {
        format_line(&t, "%u,%t\n", (uint32_t)i, now - (7 - i));
        emcp_read_text_part(read, t.buf, t.len);
    }
    return EMCP_OK;
}

static const emcp_resource RESOURCES[] = {
    {
        .uri = EMCP_STR("sensor://temperature"),
        .name = EMCP_STR("temperature"),
        .title = EMCP_STR("Temperature"),
        .description = EMCP_STR("Air temperature in degrees Celsius"),
        .mime_type = EMCP_STR(JSON_MIME),
        .size = 0,
        .has_size = false,
        .read = read_sensor_resource,
    },
    {
        .uri = EMCP_STR("sensor://humidity"),
        .name = EMCP_STR("humidity"),
        .title = EMCP_STR("Humidity"),
        .description = EMCP_STR("Relative humidity in percent"),
        .mime_type = EMCP_STR(JSON_MIME),
        .size = 0,
        .has_size = false,
        .read = read_sensor_resource,
    },
    {
        .uri = EMCP_STR("sensor://pressure"),
        .name = EMCP_STR("pressure"),
        .title = EMCP_STR("Pressure"),
        .description = EMCP_STR("Air pressure in hectopascal"),
        .mime_type = EMCP_STR(JSON_MIME),
        .size = 0,
        .has_size = false,
        .read = read_sensor_resource,
    },
    {
        .uri = EMCP_STR("led://state"),
        .name = EMCP_STR("led"),
        .title = EMCP_STR("LED state"),
        .description = EMCP_STR("Colour and brightness of the status LED"),
        .mime_type = EMCP_STR(JSON_MIME),
        .size = 0,
        .has_size = false,
        .read = read_led,
    },
    {
        .uri = EMCP_STR("log://samples"),
        .name = EMCP_STR("samples"),
        .title = EMCP_STR("Sample log"),
        .description = EMCP_STR("Raw sample log (4096 bytes)"),
        .mime_type = EMCP_STR(BLOB_MIME),
        .size = SAMPLES_LEN,
        .has_size = true,
        .read = read_samples,
    },
};

#define HISTORY_TEMPLATE "sensor://{name}/history"

static const emcp_resource_template TEMPLATES[] = {
    {
        .uri_template = EMCP_STR(HISTORY_TEMPLATE),
        .name = EMCP_STR("sensor-history"),
        .title = EMCP_STR("Sensor history"),
        .description = EMCP_STR("The last 8 readings of a sensor"),
        .mime_type = EMCP_STR(CSV_MIME),
        .read = read_history,
    },
};

/* --------------------------------------------------------------------------------- */
/* Prompt and completion                                                             */
/* --------------------------------------------------------------------------------- */

static emcp_status diagnose_board(void *userdata, emcp_prompt_get *get)
{
    const struct board *b = userdata;
    char probe[1];
    size_t len;
    struct text t;

    /* Required, so the server checked it is there; nothing to write otherwise. */
    if (emcp_prompt_arg(get, "symptom", 7, probe, sizeof probe, &len) == EMCP_NOT_FOUND) {
        return EMCP_OK;
    }
    emcp_prompt_description(get, "Diagnose the sensor board", 25);
    emcp_prompt_text_begin(get, EMCP_ROLE_USER);
    emcp_prompt_text_part(get, "The sensor board shows this symptom: ", 37);
    emcp_prompt_text_arg(get, "symptom", 7); /* verbatim, escapes and all */

    format_line(&t,
                "\nCurrent readings: temperature %t C, humidity %t %%, pressure %t hPa, "
                "LED %s %u%%.\n",
                SENSORS[0].tenths, SENSORS[1].tenths, SENSORS[2].tenths, &COLORS[b->led],
                (uint32_t)b->brightness);
    emcp_prompt_text_part(get, t.buf, t.len);
    emcp_prompt_text_part(get, "What is the likely cause and what should I check first?", 55);
    return EMCP_OK;
}

static const emcp_prompt_argument DIAGNOSE_ARGS[] = {
    {
        .name = EMCP_STR("symptom"),
        .title = EMCP_NO_STR,
        .description = EMCP_STR("What is wrong with the board"),
        .required = true,
    },
};

static const emcp_prompt PROMPTS[] = {
    {
        .name = EMCP_STR("diagnose_board"),
        .title = EMCP_STR("Diagnose board"),
        .description = EMCP_STR("Ask the assistant to diagnose a board problem from the "
                                "current readings."),
        .arguments = DIAGNOSE_ARGS,
        .arguments_len = sizeof DIAGNOSE_ARGS / sizeof DIAGNOSE_ARGS[0],
        .get = diagnose_board,
    },
};

/* Sensor names for sensor://{name}/history, symptoms for diagnose_board: the values
 * that start with what the user typed, in table order. */
static void complete(void *userdata, emcp_completion *c)
{
    static const emcp_str name = EMCP_STR("name");
    char prefix[64], arg[16], uri[64];
    size_t prefix_len, arg_len, uri_len;
    uint32_t kind;
    size_t index = 0;
    const emcp_str *argument = NULL; /* the argument the candidates are values of */
    const emcp_str *candidates = NULL;
    size_t count = 0, i;
    (void)userdata;

    if (emcp_completion_text(c, EMCP_COMPLETION_VALUE, prefix, sizeof prefix, &prefix_len)
        != EMCP_OK) {
        return;
    }
    if (emcp_completion_text(c, EMCP_COMPLETION_ARGUMENT, arg, sizeof arg, &arg_len)
        != EMCP_OK) {
        arg_len = 0;
    }
    if (emcp_completion_ref(c, &kind, &index) != EMCP_OK) {
        return;
    }
    if (kind == EMCP_REF_RESOURCE) {
        if (emcp_completion_text(c, EMCP_COMPLETION_URI, uri, sizeof uri, &uri_len) == EMCP_OK
            && str_eq(uri, uri_len, TEMPLATES[0].uri_template)) {
            argument = &name;
            candidates = SENSOR_NAMES;
            count = SENSOR_COUNT;
        }
    } else if (kind == EMCP_REF_PROMPT && index == 0) {
        argument = &DIAGNOSE_ARGS[0].name; /* symptom */
        candidates = SYMPTOMS;
        count = sizeof SYMPTOMS / sizeof SYMPTOMS[0];
    }
    if (argument == NULL || !str_eq(arg, arg_len, *argument)) {
        return;
    }
    for (i = 0; i < count; i++) {
        if (str_starts_with(candidates[i], prefix, prefix_len)) {
            emcp_completion_offer(c, candidates[i].ptr, candidates[i].len);
        }
    }
}

/* --------------------------------------------------------------------------------- */
/* Configuration                                                                     */
/* --------------------------------------------------------------------------------- */

const emcp_config board_config = {
    .name = EMCP_STR("emcp-sensor-board"),
    .version = EMCP_STR("0.1.0"),
    .title = EMCP_STR("emcp simulated sensor board"),
    .instructions = EMCP_STR("Simulated sensor board: read sensors with read_sensor or the "
                             "sensor:// resources; set_led and move_servo drive the actuators."),
    .tools = TOOLS,
    .tools_len = sizeof TOOLS / sizeof TOOLS[0],
#ifdef BOARD_TOOLS_ONLY
    /* The footprint matrix's tools-only image (examples/firmware, VARIANT=tools): no
     * resources, templates, prompts or completions; the linker drops their code. */
    .resources = NULL,
    .templates = NULL,
    .prompts = NULL,
    .complete = NULL,
#else
    .resources = RESOURCES,
    .resources_len = sizeof RESOURCES / sizeof RESOURCES[0],
    .templates = TEMPLATES,
    .templates_len = sizeof TEMPLATES / sizeof TEMPLATES[0],
    .prompts = PROMPTS,
    .prompts_len = sizeof PROMPTS / sizeof PROMPTS[0],
    .complete = complete,
#endif
    .write = board_write,
    .userdata = &board,
#ifdef EMCP_BOARD_PAGE_SIZE
    .page_size = EMCP_BOARD_PAGE_SIZE, /* test builds only: 2 for paged_lists.txt */
#else
    .page_size = 0, /* the default, 16 */
#endif
    .read_ttl_ms = 0,
    .authorize = authorize,
#ifdef BOARD_TASKS
    .now_ms = board_clock,
#endif
};
