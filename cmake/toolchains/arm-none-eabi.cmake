# arm-none-eabi.cmake — GNU Arm Embedded (arm-none-eabi-gcc) for a Cortex-M, bare metal.
# Included by the per-CPU files, which set EMCP_ARM_CPU_FLAGS first; usable alone with
# -DEMCP_ARM_CPU_FLAGS="-mcpu=… -mthumb -mfloat-abi=…". emcp's CMake module derives the
# Rust target from CMAKE_SYSTEM_PROCESSOR and these flags (-mcpu, -mfloat-abi).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
# No C library or start-up code is assumed: CMake's compiler check builds a static library.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_C_FLAGS_INIT "${EMCP_ARM_CPU_FLAGS}")
set(CMAKE_ASM_FLAGS_INIT "${EMCP_ARM_CPU_FLAGS}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${EMCP_ARM_CPU_FLAGS}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
