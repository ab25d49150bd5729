/* semihost_trap.S (RISC-V) — semihost_call(op, arg): see semihost_trap.h. Aligned to
 * 16 bytes, the three instructions always lie in one page. */
    .section .text.semihost_call, "ax", @progbits
    .globl semihost_call
    .balign 16
    .option push
    .option norvc
semihost_call:
    slli x0, x0, 0x1f
    ebreak
    srai x0, x0, 7
    ret
    .option pop
