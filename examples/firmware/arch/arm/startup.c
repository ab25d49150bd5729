/*
 * startup.c (Arm Cortex-M) — vector table and reset handler: the MPS2 Cortex-M3 / M4F
 * boards, the micro:bit's Cortex-M0 (on ARMv6-M the MemManage, BusFault, UsageFault
 * and DebugMonitor entries are reserved slots; a handler there is never called).
 *
 * Reset: enable the FPU (M4F), paint the stack, copy .data, zero .bss, run main.
 * Nothing here uses interrupts: the firmware polls its UARTs. Every other exception
 * is a fault: it is reported over semihosting and QEMU exits with code 2.
 */
#include <stdint.h>

#include "semihost.h"
#include "startup.h"

extern uint32_t _sidata[], _sdata[], _edata[], _sbss[], _ebss[];
int main(void);

void Reset_Handler(void);
static void Fault_Handler(void);

__attribute__((section(".vectors"), used)) static const uintptr_t vectors[16] = {
    (uintptr_t)_stack_top,     /* initial MSP */
    (uintptr_t)Reset_Handler,  /* reset */
    (uintptr_t)Fault_Handler,  /* NMI */
    (uintptr_t)Fault_Handler,  /* HardFault */
    (uintptr_t)Fault_Handler,  /* MemManage */
    (uintptr_t)Fault_Handler,  /* BusFault */
    (uintptr_t)Fault_Handler,  /* UsageFault */
    0, 0, 0, 0,                /* reserved */
    (uintptr_t)Fault_Handler,  /* SVCall */
    (uintptr_t)Fault_Handler,  /* DebugMonitor */
    0,                         /* reserved */
    (uintptr_t)Fault_Handler,  /* PendSV */
    (uintptr_t)Fault_Handler,  /* SysTick */
};

void Reset_Handler(void)
{
#if defined(__ARM_FP)
    /* CPACR: full access to CP10 and CP11 (the FPU), before any FP instruction. */
    volatile uint32_t *const cpacr = (volatile uint32_t *)0xE000ED88u;
    *cpacr |= 0xFu << 20;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
    /* Paint the free stack below this frame (volatile: no memset call, which would
     * place its own frame in the region being painted). */
    uint32_t *sp;
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    for (volatile uint32_t *p = _stack_bottom; p < (volatile uint32_t *)sp; p++) {
        *p = STACK_PAINT;
    }
    for (uint32_t *src = _sidata, *dst = _sdata; dst < _edata;) {
        *dst++ = *src++;
    }
    for (uint32_t *dst = _sbss; dst < _ebss;) {
        *dst++ = 0u;
    }
    semihost_exit((uint32_t)main());
}

static void Fault_Handler(void)
{
    uint32_t ipsr;
    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
    semihost_log_u32("emcp: fault: exception ", ipsr & 0x1FFu, "\n");
    semihost_exit(2u);
}
