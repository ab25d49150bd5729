/*
 * semihost_trap.h (RISC-V) — how a semihosting call reaches the debugger: the
 * operation in a0, the address of its argument block in a1, then the uncompressed
 * sequence `slli x0, x0, 0x1f; ebreak; srai x0, x0, 7` (which tells a semihosting
 * ebreak from a breakpoint); the answer comes back in a0. The sequence must not be
 * compressed and must not straddle a page (the debugger reads the instructions
 * around the ebreak), so it is an aligned function of its own: semihost_trap.S.
 */
#ifndef SEMIHOST_TRAP_H
#define SEMIHOST_TRAP_H

#include <stdint.h>

uint32_t semihost_call(uint32_t op, const void *arg);

#endif /* SEMIHOST_TRAP_H */
