/*
 * linkline_files.c — the link-control line as two host files, for a board with one
 * UART (see linkline.h). QEMU runs in the relay's temporary directory (`relay.py
 * --link files`), so relative paths over semihosting name files there:
 *
 * - `eof`: the relay writes `E<n>\n` into it at end of input (whole: written aside,
 *   then renamed). While idle the firmware tries to open it, once every POLL_EVERY
 *   calls (each try is a semihosting call, a round trip through the host), and hands
 *   its bytes to main.c's parser as if they had come over a UART;
 * - `idle`: the firmware creates it (empty) to say `I`.
 */
#include "linkline.h"
#include "semihost.h"

/* Idle passes between two looks for `eof`. Each look costs a semihosting call (QEMU
 * stops the CPU for it); at this rate the relay waits a few milliseconds at most. */
#define POLL_EVERY 256u

static struct {
    uint8_t text[16]; /* the file's bytes: `E` and up to 10 digits, a newline */
    uint8_t len;      /* bytes in text */
    uint8_t next;     /* the next byte to hand out */
    bool read;        /* the file was read (the relay writes it once) */
    uint16_t passes;  /* calls since the last look */
} eof;

void linkline_start(void)
{
}

bool linkline_rx_ready(void)
{
    if (eof.next < eof.len) {
        return true;
    }
    if (eof.read || ++eof.passes < POLL_EVERY) {
        return false;
    }
    eof.passes = 0;
    int32_t n = semihost_read_file("eof", eof.text, sizeof eof.text);
    if (n <= 0) {
        return false; /* not there yet */
    }
    eof.len = (uint8_t)n;
    eof.read = true;
    return true;
}

uint8_t linkline_rx(void)
{
    return eof.text[eof.next++];
}

void linkline_say_idle(void)
{
    (void)semihost_create_file("idle");
}
