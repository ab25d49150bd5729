# riscv-unknown-elf.cmake — a RISC-V GCC for an RV32 microcontroller, bare metal.
# Included by the per-ISA files, which set EMCP_RISCV_MARCH first (default rv32imc).
# Debian's riscv64-unknown-elf-gcc needs -misa-spec=2.2 for rv32imc to resolve to its
# rv32im/ilp32 multilib (EMCP_RISCV_PREFIX and EMCP_RISCV_EXTRA_FLAGS name another GCC and
# its flags). emcp's CMake module derives the Rust target from -march.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR riscv32)
if(NOT DEFINED EMCP_RISCV_MARCH)
    set(EMCP_RISCV_MARCH rv32imc)
endif()
if(NOT DEFINED EMCP_RISCV_PREFIX)
    set(EMCP_RISCV_PREFIX riscv64-unknown-elf-)
endif()
if(NOT DEFINED EMCP_RISCV_EXTRA_FLAGS)
    set(EMCP_RISCV_EXTRA_FLAGS -misa-spec=2.2)
endif()
set(CMAKE_C_COMPILER ${EMCP_RISCV_PREFIX}gcc)
set(CMAKE_ASM_COMPILER ${EMCP_RISCV_PREFIX}gcc)
# No C library or start-up code is assumed: CMake's compiler check builds a static library.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(_emcp_rv_flags "-march=${EMCP_RISCV_MARCH} ${EMCP_RISCV_EXTRA_FLAGS} -mabi=ilp32")
set(CMAKE_C_FLAGS_INIT "${_emcp_rv_flags}")
set(CMAKE_ASM_FLAGS_INIT "${_emcp_rv_flags}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${_emcp_rv_flags}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
