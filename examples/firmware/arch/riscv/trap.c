/* trap.c (RISC-V) — a trap is a fault (start.S sends every trap here): report it over
 * semihosting and end QEMU with code 2, as the Arm images' Fault_Handler does. */
#include <stdint.h>

#include "semihost.h"

__attribute__((noreturn)) void trap_report(uint32_t mcause, uint32_t mepc, uint32_t mtval);

void trap_report(uint32_t mcause, uint32_t mepc, uint32_t mtval)
{
    semihost_log_u32("emcp: fault: mcause ", mcause, "");
    semihost_log_u32(", mepc ", mepc, "");
    semihost_log_u32(", mtval ", mtval, "\n");
    semihost_exit(2u);
}
