/*
 * semihost_trap.h (Arm Cortex-M) — how a semihosting call reaches the debugger:
 * `BKPT 0xAB` with the operation in r0 and the address of its argument block in r1;
 * the answer comes back in r0. semihost.c builds every call on this.
 */
#ifndef SEMIHOST_TRAP_H
#define SEMIHOST_TRAP_H

#include <stdint.h>

static inline uint32_t semihost_call(uint32_t op, const void *arg)
{
    register uint32_t r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

#endif /* SEMIHOST_TRAP_H */
