/*
 * clock.c (MPS2) — the tasks build's clock (clock.h) from SysTick, the ARMv7-M and
 * ARMv8-M core timer, polled: no interrupt.
 */
#include <stdint.h>

#include "board.h"
#include "clock.h"

/* SysTick: control/status, reload, current value. */
#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)
#define SYST_24BIT 0xFFFFFFu
#define CPU_HZ 25000000u /* the MPS2 boards' system clock */

/* Processor cycles since clock_start, accumulated from SysTick's 24-bit down-count:
 * clock_update must run at least once per wrap (0.67 s at 25 MHz). */
static uint64_t clock_cycles;
static uint32_t clock_last;

void clock_start(void)
{
    SYST_RVR = SYST_24BIT;
    SYST_CVR = 0u;
    SYST_CSR = 0x5u; /* enable, processor clock, no interrupt */
    clock_last = SYST_CVR & SYST_24BIT;
}

void clock_update(void)
{
    uint32_t now = SYST_CVR & SYST_24BIT;
    clock_cycles += (clock_last - now) & SYST_24BIT;
    clock_last = now;
}

uint64_t board_now_ms(void)
{
    clock_update();
    return clock_cycles / (CPU_HZ / 1000u);
}
