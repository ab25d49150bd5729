/*
 * semihost.h — semihosting for logs and exit (and, for the bench image, its arguments
 * and a host file; for a board with one UART, the link-control line's files). Arm and
 * RISC-V share the operations and their argument blocks; only the instruction that
 * makes the call differs (arch/<arch>/semihost_trap.h). The debugger (here QEMU with
 * `-semihosting-config enable=on,target=native`) performs the call. Logs go to QEMU's
 * stderr, never to UART0, which carries only MCP bytes.
 *
 * Without a debugger or QEMU attached, a semihosting call is a breakpoint that faults:
 * a production image would compile these out.
 */
#ifndef SEMIHOST_H
#define SEMIHOST_H

#include <stdbool.h>
#include <stdint.h>

/* Write a NUL-terminated string (SYS_WRITE0). */
void semihost_write0(const char *text);

/* Write `prefix`, the decimal `value`, `suffix` as one message (one SYS_WRITE0). */
void semihost_log_u32(const char *prefix, uint32_t value, const char *suffix);

/* The program's arguments (QEMU: `-semihosting-config ...,arg=A,arg=B`), joined by
 * spaces, NUL-terminated into `buf` (SYS_GET_CMDLINE); false when they do not fit. */
bool semihost_cmdline(char *buf, uint32_t len);

/* Read the whole host file `path` into `buf` (SYS_OPEN, SYS_FLEN, SYS_READ, SYS_CLOSE):
 * its length, or -1 when it cannot be opened or read or is longer than `len`. */
int32_t semihost_read_file(const char *path, uint8_t *buf, uint32_t len);

/* Read exactly `len` bytes from the start of the host file `path` (SYS_OPEN, SYS_READ,
 * SYS_CLOSE; no SYS_FLEN, so a device such as /dev/urandom works): true when all came. */
bool semihost_read_bytes(const char *path, uint8_t *buf, uint32_t len);

/* Create the host file `path`, empty (SYS_OPEN mode "w", SYS_CLOSE; an existing one is
 * truncated): true when it was. */
bool semihost_create_file(const char *path);

/* End the program with an exit code (SYS_EXIT_EXTENDED); QEMU exits with it. */
__attribute__((noreturn)) void semihost_exit(uint32_t code);

#endif /* SEMIHOST_H */
