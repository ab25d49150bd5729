/*
 * start.S (RISC-V, machine mode) — where the boot ROM jumps (the first bytes of
 * .text, the linker script's `.init`): global pointer, stack pointer, trap vector;
 * the stack painted, .data copied, .bss zeroed; main, then its return value as the
 * exit code over semihosting. Nothing here enables an interrupt: the firmware polls
 * its UARTs. Every trap is a fault: trap.c reports it and QEMU exits with code 2.
 */
    .section .init, "ax", @progbits
    .globl _start
_start:
    /* gp first, and not relaxed to itself (gp-relative). */
    .option push
    .option norelax
    la gp, __global_pointer$
    .option pop
    la sp, _stack_top
    la t0, trap_entry
    csrw mtvec, t0

    /* Paint the whole stack region with startup.h's STACK_PAINT: nothing runs on it yet. */
    la t0, _stack_bottom
    li t1, 0xDEADC0DE
1:  bgeu t0, sp, 2f
    sw t1, 0(t0)
    addi t0, t0, 4
    j 1b
2:
    la t0, _sidata
    la t1, _sdata
    la t2, _edata
3:  bgeu t1, t2, 4f
    lw t3, 0(t0)
    sw t3, 0(t1)
    addi t0, t0, 4
    addi t1, t1, 4
    j 3b
4:
    la t0, _sbss
    la t1, _ebss
5:  bgeu t0, t1, 6f
    sw zero, 0(t0)
    addi t0, t0, 4
    j 5b
6:
    call main
    tail semihost_exit /* a0: main's return value */

/* mtvec in direct mode: every trap comes here (4-byte aligned). The stack pointer is
 * set again, since an overflowing stack may be what trapped; the handler never
 * returns. */
    .balign 4
trap_entry:
    la sp, _stack_top
    csrr a0, mcause
    csrr a1, mepc
    csrr a2, mtval
    tail trap_report
