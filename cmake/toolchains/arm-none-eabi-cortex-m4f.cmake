# Cortex-M4F, hard float (thumbv7em-none-eabihf), as examples/firmware's BOARD=m4f.
set(EMCP_ARM_CPU_FLAGS "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16")
include(${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi.cmake)
