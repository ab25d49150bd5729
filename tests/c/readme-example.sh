#!/usr/bin/env bash
# README.md's C example and its build lines, as a reader would use them: the example
# (its first ```c block) compiled against include/emcp.h with stand-ins for the UART
# driver it calls, then every line of the ```sh block that builds emcp-ffi run as
# written (the example as `device.c`, the program written under target/), so neither
# the example nor the commands can drift from the code.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
out=target/c-tests
mkdir -p "$out"
{
    cat <<'STUBS'
#include <stdbool.h>
#include <stdint.h>
static void uart_putc(uint8_t b) { (void)b; }
static bool uart_rx_ready(void) { return false; }
static uint8_t uart_getc(void) { return 0; }
STUBS
    awk '/^```c$/ {on=1; next} /^```$/ && on {exit} on {print}' README.md
} > "$out/device.c"
"${CC:-cc}" -std=c99 -Wall -Wextra -pedantic -Werror -Iinclude -c "$out/device.c" -o "$out/device.o" >&2
echo "README C example compiles" >&2

# The ```sh block that builds emcp-ffi, comments dropped.
mapfile -t lines < <(awk '/^```sh$/ {on=1; block=""; next}
    /^```$/ && on {on=0; if (block ~ /emcp-ffi/) {printf "%s", block; exit}}
    on {sub(/ +#.*/, ""); block = block $0 "\n"}' README.md)
[ "${#lines[@]}" -ge 3 ] || { echo "readme-example.sh: README's build block not found" >&2; exit 1; }
rm -f "$out/device"
for line in "${lines[@]}"; do
    line=${line// device.c / $out/device.c }
    line=${line//-o device/-o $out/device}
    echo "readme-example.sh: $line" >&2
    bash -c "$line" >&2
done
# Linked as the README says: a program that needs no shared emcp library at run time.
[ -x "$out/device" ] || { echo "readme-example.sh: README's cc line wrote no program" >&2; exit 1; }
if ldd "$out/device" 2>/dev/null | grep -q emcp; then
    echo "readme-example.sh: the program needs a shared emcp library" >&2
    exit 1
fi
[ -f target/thumbv7m-none-eabi/release/libemcp_ffi.a ] || {
    echo "readme-example.sh: the microcontroller build wrote no library" >&2
    exit 1
}
echo "README build lines: host program linked ($(wc -c <"$out/device") bytes), Cortex-M3 library built" >&2
