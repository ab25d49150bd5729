/* semihost.c — SYS_WRITE0 and SYS_EXIT_EXTENDED (see semihost.h). */
#include "semihost.h"

#define SYS_WRITE0 0x04u
#define SYS_EXIT_EXTENDED 0x20u
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u

static uint32_t semihost_call(uint32_t op, const void *arg)
{
    register uint32_t r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

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

void semihost_exit(uint32_t code)
{
    const uint32_t block[2] = {ADP_STOPPED_APPLICATION_EXIT, code};
    (void)semihost_call(SYS_EXIT_EXTENDED, block);
    for (;;) {
    }
}
