# Cortex-M0/M0+ (thumbv6m-none-eabi: no atomic read-modify-write).
set(EMCP_ARM_CPU_FLAGS "-mcpu=cortex-m0 -mthumb -mfloat-abi=soft")
include(${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi.cmake)
