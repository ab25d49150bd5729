/*
 * mem.c — the C library's memory functions as plain byte loops, with the ARM EABI
 * aliases (`__aeabi_memcpy4`, `__aeabi_memclr`, …) that Rust code calls; only the
 * aligned clears (`__aeabi_memclr4/8`) store words, and memcmp skips equal words.
 *
 * No C library is linked, so these would otherwise come from Rust's compiler_builtins
 * inside libemcp_ffi.a, whose word-at-a-time versions take 1.3 KB more flash. Strong
 * definitions here win over compiler_builtins' weak ones. The Makefile builds this
 * file with -fno-tree-loop-distribute-patterns, so GCC cannot turn a loop back into a
 * call to the function it is in, and without LTO, so these stay ordinary symbols.
 */
#include <stddef.h>
#include <stdint.h>

/* A word as loaded from any address: ARMv7-M's LDR takes unaligned addresses in
 * normal memory (a packed member is how C says so), so memcmp's word loop needs no
 * alignment prologue. (memcpy stays a byte loop: the library's copies are mostly a
 * few bytes long, where a word loop's extra test costs more than it saves.) */
typedef struct __attribute__((packed)) {
    uint32_t v;
} word;

void *memcpy(void *dest, const void *src, size_t n)
{
    uint8_t *d = dest;
    const uint8_t *s = src;
    while (n--) {
        *d++ = *s++;
    }
    return dest;
}

void *memmove(void *dest, const void *src, size_t n)
{
    uint8_t *d = dest;
    const uint8_t *s = src;
    if (d <= s) {
        while (n--) {
            *d++ = *s++;
        }
    } else {
        while (n--) {
            d[n] = s[n];
        }
    }
    return dest;
}

void *memset(void *dest, int c, size_t n)
{
    uint8_t *d = dest;
    while (n--) {
        *d++ = (uint8_t)c;
    }
    return dest;
}

int memcmp(const void *a, const void *b, size_t n)
{
    const uint8_t *x = a;
    const uint8_t *y = b;
    /* Equal words are skipped a word at a time; the bytes of the first unequal word
     * (or the tail) are compared one by one, for the sign. */
    for (; n >= 4u && ((const word *)x)->v == ((const word *)y)->v; n -= 4u) {
        x += 4;
        y += 4;
    }
    const uint8_t *end = x + n;
    while (x != end) {
        int d = *x++ - *y++;
        if (d != 0) {
            return d;
        }
    }
    return 0;
}

/* ARM run-time ABI: memcpy/memmove (callers ignore the result); memset with the value
 * last; memclr sets zero. The 4- and 8-suffixed ones may assume aligned pointers. */
void *__aeabi_memcpy(void *dest, const void *src, size_t n) __attribute__((alias("memcpy")));
void *__aeabi_memcpy4(void *dest, const void *src, size_t n) __attribute__((alias("memcpy")));
void *__aeabi_memcpy8(void *dest, const void *src, size_t n) __attribute__((alias("memcpy")));
void *__aeabi_memmove(void *dest, const void *src, size_t n) __attribute__((alias("memmove")));
void *__aeabi_memmove4(void *dest, const void *src, size_t n) __attribute__((alias("memmove")));
void *__aeabi_memmove8(void *dest, const void *src, size_t n) __attribute__((alias("memmove")));

void __aeabi_memset(void *dest, size_t n, int c)
{
    memset(dest, c, n);
}
void __aeabi_memset4(void *dest, size_t n, int c) __attribute__((alias("__aeabi_memset")));
void __aeabi_memset8(void *dest, size_t n, int c) __attribute__((alias("__aeabi_memset")));

void __aeabi_memclr(void *dest, size_t n)
{
    memset(dest, 0, n);
}

/* A word-aligned `dest` (the ABI's promise for these two) is cleared a word at a time:
 * Rust zeroes its stack buffers through them (the base64 writer's run, 64 bytes, for
 * every part of a blob), a quarter of the instructions of the byte loop. */
void __aeabi_memclr4(void *dest, size_t n)
{
    uint32_t *d = dest;
    for (; n >= 4u; n -= 4u) {
        *d++ = 0u;
    }
    memset(d, 0, n);
}
void __aeabi_memclr8(void *dest, size_t n) __attribute__((alias("__aeabi_memclr4")));
