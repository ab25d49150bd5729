/*
 * clock.c (sifive_e) — the tasks build's clock (clock.h) from the CLINT's mtime, the
 * RISC-V machine timer: 64 bits, free-running, read in two halves.
 */
#include <stdint.h>

#include "board.h"
#include "clock.h"

#define MTIME_LO (*(volatile uint32_t *)0x0200BFF8u)
#define MTIME_HI (*(volatile uint32_t *)0x0200BFFCu)
#ifndef MTIME_HZ
#define MTIME_HZ 10000000u /* QEMU's CLINT timebase (on a HiFive1: 32768, the RTC) */
#endif

static uint64_t clock_origin;

static uint64_t mtime(void)
{
    uint32_t hi, lo;
    do { /* the high half again after the low: no carry between the two reads */
        hi = MTIME_HI;
        lo = MTIME_LO;
    } while (hi != MTIME_HI);
    return (uint64_t)hi << 32 | lo;
}

void clock_start(void)
{
    clock_origin = mtime();
}

void clock_update(void)
{
    /* mtime counts by itself and is 64 bits wide: nothing to accumulate. */
}

uint64_t board_now_ms(void)
{
    return (mtime() - clock_origin) / (MTIME_HZ / 1000u);
}
