/* startup.h — what startup.c and link.ld export to main.c. */
#ifndef STARTUP_H
#define STARTUP_H

#include <stdint.h>

/* The stack region (link.ld): [stack_bottom, stack_top), at the start of RAM. */
extern uint32_t _stack_bottom[];
extern uint32_t _stack_top[];

/* Every stack word is painted with this at reset; the deepest word that no longer
 * holds it is the stack's high-water mark. */
#define STACK_PAINT 0xDEADC0DEu

#endif /* STARTUP_H */
