/*
 * check.c — the smallest bare-metal program against emcp::emcp (tests/cmake/link-check):
 * it names the library's version and raises a resource-changed flag, so that the link
 * needs the library's code and, on a target without atomic read-modify-write, its
 * critical section (the library's own, or the firmware's hooks below).
 */
#include <stddef.h>

#include "emcp.h"

#ifdef CHECK_HOOKS
static volatile int held;
void emcp_critical_section_acquire(void) { held++; }
void emcp_critical_section_release(void) { held--; }
#endif

const char *volatile check_version;

/* The entry point: a server pointer the linker cannot see through, so the flag update
 * is linked whole. */
void check_entry(emcp_server *server);
void check_entry(emcp_server *server)
{
    check_version = emcp_version();
    (void)emcp_server_resource_changed(server, "sensor://x", 10);
    for (;;) {
    }
}
