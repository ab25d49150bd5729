/* semihost.c — logs, arguments, host files and exit over semihosting (see semihost.h);
 * the call instruction itself is the architecture's (arch/arm/, arch/riscv/). */
#include "semihost.h"
#include "semihost_trap.h" /* the architecture's call instruction (arch/<arch>/) */

#define SYS_OPEN 0x01u
#define SYS_CLOSE 0x02u
#define SYS_WRITE0 0x04u
#define SYS_READ 0x06u
#define SYS_FLEN 0x0Cu
#define SYS_GET_CMDLINE 0x15u
#define SYS_EXIT_EXTENDED 0x20u
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u

void semihost_write0(const char *text)
{
    (void)semihost_call(SYS_WRITE0, text);
}

void semihost_log_u32(const char *prefix, uint32_t value, const char *suffix)
{
    char msg[96];
    char digits[11]; /* up to 10 digits and the NUL, written from the end */
    char *d = digits + sizeof digits - 1u;
    const char *parts[3];
    unsigned n = 0, i;

    *d = '\0';
    do {
        *--d = (char)('0' + value % 10u);
        value /= 10u;
    } while (value != 0u);
    parts[0] = prefix;
    parts[1] = d;
    parts[2] = suffix;
    /* Prefix, digits and suffix into one message (cut to fit), so that one SYS_WRITE0
     * writes it and no other writer's output lands inside the line. */
    for (i = 0; i < 3u; i++) {
        for (const char *s = parts[i]; *s != '\0' && n < sizeof msg - 1u; s++) {
            msg[n++] = *s;
        }
    }
    msg[n] = '\0';
    semihost_write0(msg);
}

bool semihost_cmdline(char *buf, uint32_t len)
{
    uint32_t block[2] = {(uint32_t)(uintptr_t)buf, len};
    return semihost_call(SYS_GET_CMDLINE, block) == 0u;
}

/* SYS_OPEN's modes: ISO C fopen's, numbered. */
#define MODE_R 0u
#define MODE_RB 1u
#define MODE_W 4u

/* Open the host file `path` (SYS_OPEN): its handle, or UINT32_MAX. */
static uint32_t open_file(const char *path, uint32_t mode)
{
    uint32_t path_len = 0;
    while (path[path_len] != '\0') {
        path_len++;
    }
    const uint32_t open_block[3] = {(uint32_t)(uintptr_t)path, mode, path_len};
    return semihost_call(SYS_OPEN, open_block);
}

int32_t semihost_read_file(const char *path, uint8_t *buf, uint32_t len)
{
    uint32_t handle = open_file(path, MODE_R);
    if (handle == UINT32_MAX) {
        return -1;
    }
    const uint32_t handle_block[1] = {handle};
    uint32_t size = semihost_call(SYS_FLEN, handle_block);
    int32_t result = -1;
    if (size <= len && size <= (uint32_t)INT32_MAX) {
        const uint32_t read_block[3] = {handle, (uint32_t)(uintptr_t)buf, size};
        /* SYS_READ answers how many bytes it did not read. */
        if (semihost_call(SYS_READ, read_block) == 0u) {
            result = (int32_t)size;
        }
    }
    (void)semihost_call(SYS_CLOSE, handle_block);
    return result;
}

bool semihost_read_bytes(const char *path, uint8_t *buf, uint32_t len)
{
    uint32_t handle = open_file(path, MODE_RB);
    if (handle == UINT32_MAX) {
        return false;
    }
    const uint32_t read_block[3] = {handle, (uint32_t)(uintptr_t)buf, len};
    const uint32_t handle_block[1] = {handle};
    /* SYS_READ answers how many bytes it did not read. */
    bool ok = semihost_call(SYS_READ, read_block) == 0u;
    (void)semihost_call(SYS_CLOSE, handle_block);
    return ok;
}

bool semihost_create_file(const char *path)
{
    uint32_t handle = open_file(path, MODE_W);
    if (handle == UINT32_MAX) {
        return false;
    }
    const uint32_t handle_block[1] = {handle};
    return semihost_call(SYS_CLOSE, handle_block) == 0u;
}

void semihost_exit(uint32_t code)
{
    const uint32_t block[2] = {ADP_STOPPED_APPLICATION_EXIT, code};
    (void)semihost_call(SYS_EXIT_EXTENDED, block);
    for (;;) {
    }
}
