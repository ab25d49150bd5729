/*
 * hooks.c — a bare-metal C program that raises a resource-changed flag through the C
 * ABI: on a target without atomic read-modify-write the library takes a critical
 * section for it, from the firmware's hooks (built with -DWITH_HOOKS) or from its own
 * `critical-section-single-core` feature. tests/c/critical-section/run.sh links it
 * every way and checks which links.
 */
#include <stddef.h>
#include "emcp.h"

#ifdef WITH_HOOKS
static volatile int held;
void emcp_critical_section_acquire(void) { held++; }
void emcp_critical_section_release(void) { held--; }
#endif

/* The entry point: a server pointer the linker cannot see through, so that the flag
 * update is linked whole. */
void entry(emcp_server *server)
{
    (void)emcp_server_resource_changed(server, "sensor://x", 10);
    for (;;) {
    }
}
