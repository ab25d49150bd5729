/*
 * semihost.h — ARM semihosting for logs and exit: the debugger (here QEMU with
 * `-semihosting-config enable=on,target=native`) performs the call. Logs go to QEMU's
 * stderr, never to UART0, which carries only MCP bytes.
 *
 * Without a debugger or QEMU attached, a semihosting call is a breakpoint that faults:
 * a production image would compile these out.
 */
#ifndef SEMIHOST_H
#define SEMIHOST_H

#include <stdint.h>

/* Write a NUL-terminated string (SYS_WRITE0). */
void semihost_write0(const char *text);

/* Write `prefix`, the decimal `value`, `suffix` as one message (one SYS_WRITE0). */
void semihost_log_u32(const char *prefix, uint32_t value, const char *suffix);

/* End the program with an exit code (SYS_EXIT_EXTENDED); QEMU exits with it. */
__attribute__((noreturn)) void semihost_exit(uint32_t code);

#endif /* SEMIHOST_H */
