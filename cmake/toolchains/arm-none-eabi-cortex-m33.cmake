# Cortex-M33 with its FPU, hard float (thumbv8m.main-none-eabihf).
set(EMCP_ARM_CPU_FLAGS "-mcpu=cortex-m33 -mthumb -mfloat-abi=hard -mfpu=fpv5-sp-d16")
include(${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi.cmake)
