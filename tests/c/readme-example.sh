#!/usr/bin/env bash
# Compile the C example of README.md (its first ```c block) against include/emcp.h, with
# stand-ins for the UART driver it calls, so the README cannot drift from the header.
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
} > "$out/readme_example.c"
"${CC:-cc}" -std=c99 -Wall -Wextra -pedantic -Werror -Iinclude -c "$out/readme_example.c" -o "$out/readme_example.o" >&2
echo "README C example compiles" >&2
