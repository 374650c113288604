/* A test's period or timeout and the OS's tick. Where the port's waits are
 * served on a tick (rtg_wait_tick_hz, FreeRTOS), a wait ends on the first
 * tick at or after its deadline: a period shorter than a tick, or not a
 * whole number of them, overruns or slides against the tick, and its
 * figure measures where the deadline fell between two ticks, not how late
 * the OS was. Such a test adapts: its period rounded onto the tick and its
 * deadlines on tick instants, both stated in its info and its notes. */
#ifndef RTG_CATALOGUE_TICK_PERIOD_H
#define RTG_CATALOGUE_TICK_PERIOD_H
#include <stdint.h>

#include "rtg/osal.h"
#include "rtg/test.h"

/* ns rounded to the nearest whole number of ticks of tick_hz, at least
 * one; ns itself when tick_hz is 0 (high-resolution waits). Pure. */
uint64_t rtg_tick_round(uint64_t ns, uint32_t tick_hz);

/* A test's period (or timeout), what names it in the info ("period",
 * "timer_period", "timeout"), adapted to the port's tick: returns
 * rtg_tick_round of it. The info gets "<what>_requested_ns" and
 * "wait_tick_hz" (0: high resolution); when the value changed, a note
 * says from what to what and why. */
uint64_t rtg_tick_adapt(struct rtg_ctx *ctx, const char *what, uint64_t ns);

/* The deadline a periodic test waits for: on the tick instant nearest to
 * t where the waits are served on a tick, t itself otherwise. */
static inline uint64_t rtg_tick_deadline(uint64_t t) { return rtg_wait_tick_nearest(t); }

#endif
