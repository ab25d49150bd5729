/*
 * linkline.h — the link-control line of run.sh's relay (see main.c): the bytes the
 * relay sends (`E<n>\n` once the host closed its stream) and the firmware's answer
 * `I\n` (idle). main.c parses and answers; a board's form of the line only carries the
 * bytes. The Makefile links one form per board (LINK):
 *
 *   linkline_uart.c   UART1 (the MPS2 boards, sifive_e): `relay.py --link uart`;
 *   linkline_files.c  the files `eof` and `idle` in QEMU's working directory, over
 *                     semihosting, for a board with one UART (the micro:bit's
 *                     nRF51): `relay.py --link files`.
 */
#ifndef LINKLINE_H
#define LINKLINE_H

#include <stdbool.h>
#include <stdint.h>

/* Open the line (once, at start-up). */
void linkline_start(void);

/* Whether a byte from the relay waits (called while idle). */
bool linkline_rx_ready(void);

/* That byte (call after linkline_rx_ready). */
uint8_t linkline_rx(void);

/* Tell the relay the firmware is idle after end of input: `I\n`. */
void linkline_say_idle(void);

#endif /* LINKLINE_H */
