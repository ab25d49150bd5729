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
    char digits[10];
    unsigned n = 0, d = 0;
    do {
        digits[d++] = (char)('0' + value % 10u);
        value /= 10u;
    } while (value != 0u);
    for (; *prefix != '\0' && n < sizeof msg - 1u; prefix++) msg[n++] = *prefix;
    while (d > 0u && n < sizeof msg - 1u) msg[n++] = digits[--d];
    for (; *suffix != '\0' && n < sizeof msg - 1u; suffix++) msg[n++] = *suffix;
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
