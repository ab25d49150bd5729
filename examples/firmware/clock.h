/*
 * clock.h — the board's clock for the tasks build (-DBOARD_TASKS): milliseconds since
 * clock_start, for board.h's board_now_ms. Each board counts them from a free-running
 * counter it polls (no interrupt): boards/<board>/clock.c.
 */
#ifndef CLOCK_H
#define CLOCK_H

/* Start the counter. */
void clock_start(void);

/* Take the counter's progress into the clock: call at least once per counter wrap
 * (main.c does on every pass of its loop). */
void clock_update(void);

#endif /* CLOCK_H */
