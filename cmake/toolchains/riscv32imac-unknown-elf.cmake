# RV32IMAC (riscv32imac-unknown-none-elf).
set(EMCP_RISCV_MARCH rv32imac)
include(${CMAKE_CURRENT_LIST_DIR}/riscv-unknown-elf.cmake)
