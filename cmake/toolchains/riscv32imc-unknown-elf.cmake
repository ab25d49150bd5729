# RV32IMC (riscv32imc-unknown-none-elf: no atomic read-modify-write), e.g. an ESP32-C3's ISA.
set(EMCP_RISCV_MARCH rv32imc)
include(${CMAKE_CURRENT_LIST_DIR}/riscv-unknown-elf.cmake)
