/*
 * clock.c (micro:bit) — the tasks build's clock (clock.h) from the nRF51's TIMER0,
 * polled: no interrupt. (The nRF51's Cortex-M0 has no SysTick.) TIMER0 counts
 * microseconds (16 MHz / 2^4) in 32 bits; TASKS_CAPTURE[0] copies the count to CC[0].
 */
#include <stdint.h>

#include "board.h"
#include "clock.h"

#define TIMER0_START (*(volatile uint32_t *)0x40008000u)
#define TIMER0_CAPTURE0 (*(volatile uint32_t *)0x40008040u)
#define TIMER0_MODE (*(volatile uint32_t *)0x40008504u)
#define TIMER0_BITMODE (*(volatile uint32_t *)0x40008508u)
#define TIMER0_PRESCALER (*(volatile uint32_t *)0x40008510u)
#define TIMER0_CC0 (*(volatile uint32_t *)0x40008540u)

/* Microseconds since clock_start, accumulated from the 32-bit count: clock_update
 * must run at least once per wrap (71 minutes). */
static uint64_t clock_us;
static uint32_t clock_last;

static uint32_t timer_now(void)
{
    TIMER0_CAPTURE0 = 1u;
    return TIMER0_CC0;
}

void clock_start(void)
{
    TIMER0_MODE = 0u;      /* timer */
    TIMER0_BITMODE = 3u;   /* 32 bits */
    TIMER0_PRESCALER = 4u; /* 1 MHz */
    TIMER0_START = 1u;
    clock_last = timer_now();
}

void clock_update(void)
{
    uint32_t now = timer_now();
    clock_us += now - clock_last;
    clock_last = now;
}

uint64_t board_now_ms(void)
{
    clock_update();
    return clock_us / 1000u;
}
