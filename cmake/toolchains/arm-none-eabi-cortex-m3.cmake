# Cortex-M3 (thumbv7m-none-eabi), as examples/firmware's BOARD=m3 (QEMU mps2-an385).
set(EMCP_ARM_CPU_FLAGS "-mcpu=cortex-m3 -mthumb -mfloat-abi=soft")
include(${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi.cmake)
