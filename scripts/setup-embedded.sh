#!/usr/bin/env bash
# Installs the embedded tools the firmware stages use when they are missing: GCC for
# ARM (arm-none-eabi, with newlib's headers) and for RISC-V (Debian's
# riscv64-unknown-elf, whose rv32im/ilp32 multilib builds RV32IMC images, and picolibc's
# headers), QEMU for
# both (qemu-system-arm: MPS2 boards and the micro:bit; qemu-system-misc:
# qemu-system-riscv32, sifive_e), make, CMake and pkg-config. Debian packages; output
# on stderr. The firmware run.sh scripts install what they need themselves too; this
# is the one step that installs it all at once.
set -euo pipefail
exec 1>&2
need=()
command -v arm-none-eabi-gcc >/dev/null 2>&1 || need+=(gcc-arm-none-eabi libnewlib-arm-none-eabi)
command -v riscv64-unknown-elf-gcc >/dev/null 2>&1 || need+=(gcc-riscv64-unknown-elf)
# The RV32 C image compiles against picolibc's headers (<string.h>); it links no C library.
dpkg -s picolibc-riscv64-unknown-elf >/dev/null 2>&1 || need+=(picolibc-riscv64-unknown-elf)
command -v qemu-system-arm >/dev/null 2>&1 || need+=(qemu-system-arm)
command -v qemu-system-riscv32 >/dev/null 2>&1 || need+=(qemu-system-misc)
command -v make >/dev/null 2>&1 || need+=(make)
command -v cmake >/dev/null 2>&1 || need+=(cmake)
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
if [ "${#need[@]}" -gt 0 ]; then
    echo "setup-embedded: installing ${need[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
echo "setup-embedded: $(arm-none-eabi-gcc --version | head -n1); $(riscv64-unknown-elf-gcc --version | head -n1);" \
    "$(qemu-system-arm --version | head -n1); $(cmake --version | head -n1)"
