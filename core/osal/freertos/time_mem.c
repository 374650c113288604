/* Time on the board: rtg_mono_ns and the measuring clock are the same
 * counter (the board's clock: DWT cycles or a hardware timer, extended to
 * 64 bits); sleeping is FreeRTOS's delay until a tick (1 ms), so a sleep
 * ends on the first tick at or after its deadline. No virtual memory: all
 * memory is resident, "locked" by nature. */
#include <errno.h>

#include "board.h"
#include "fr_internal.h"
#include "rtg/test.h"

#define NS_PER_TICK (1000000000ull / configTICK_RATE_HZ)

uint64_t rtg_mono_ns(void) { return board_clock_ns(); }

/* The time now for a wait's tick count, without rtg_mono_ns's 64-bit
 * divisions (costly on a Cortex-M3, and a timed wait that blocks pays it
 * inside the caller's figure): ns = counts * (1e9 / hz) by multiplying,
 * the fraction of 1e9 / hz rounded down to 32 bits, so it is never later
 * than rtg_mono_ns (a wait it works out never ends early) and earlier by
 * less than 1 ns per 2^32 counts. */
static uint64_t now_for_ticks(void)
{
    static uint32_t hz, whole, frac;
    uint32_t h = board_clock_hz();
    if (h != hz) {
        whole = (uint32_t)(1000000000u / h);
        frac = (uint32_t)(((uint64_t)(1000000000u % h) << 32) / h);
        hz = h;
    }
    uint64_t t = board_clock_ticks();
    uint32_t hi = (uint32_t)(t >> 32), lo = (uint32_t)t;
    return t * whole + (uint64_t)hi * frac + (((uint64_t)lo * frac) >> 32);
}

TickType_t rtg_fr_ticks_until(uint64_t deadline_ns)
{
    uint64_t now = now_for_ticks();
    if (now >= deadline_ns)
        return 0;
    uint64_t left = deadline_ns - now;
    if (left <= UINT32_MAX - NS_PER_TICK) /* one 32-bit division: the core has it */
        return (TickType_t)(((uint32_t)left + (uint32_t)NS_PER_TICK - 1u) / (uint32_t)NS_PER_TICK);
    uint64_t t = (left + NS_PER_TICK - 1) / NS_PER_TICK;
    return t > portMAX_DELAY - 1 ? portMAX_DELAY - 1 : (TickType_t)t;
}

uint32_t rtg_wait_tick_hz(void) { return configTICK_RATE_HZ; }

/* From the latest tick's instant, whole ticks back or forth: the tick's
 * instants are its handler's reads of the measuring clock. */
uint64_t rtg_wait_tick_nearest(uint64_t t)
{
    uint64_t raw = board_tick_instant();
    if (raw == 0)
        return t; /* no tick yet: the scheduler has not started */
    uint64_t last = board_clock_ticks_ns(raw);
    if (t >= last)
        return last + (t - last + NS_PER_TICK / 2) / NS_PER_TICK * NS_PER_TICK;
    uint64_t back = (last - t + NS_PER_TICK / 2) / NS_PER_TICK * NS_PER_TICK;
    return back > last ? last % NS_PER_TICK : last - back;
}

/* Periodic wake-ups: xTaskDelayUntil from the current tick. A stop
 * request ends an interruptible sleep: the watchdog aborts every task's
 * delay (rtg_fr_abort_delays) after setting the stop flag. */
static int sleep_until(uint64_t abs_ns, bool intr)
{
    for (;;) {
        if (intr && rtg_stop_requested())
            return EINTR;
        TickType_t ticks = rtg_fr_ticks_until(abs_ns);
        if (ticks == 0)
            return 0;
        TickType_t from = xTaskGetTickCount();
        (void)xTaskDelayUntil(&from, ticks);
    }
}

int rtg_sleep_until(uint64_t abs_mono_ns) { return sleep_until(abs_mono_ns, false); }
int rtg_sleep_until_intr(uint64_t abs_mono_ns) { return sleep_until(abs_mono_ns, true); }
int rtg_sleep_ns(uint64_t ns) { return sleep_until(rtg_mono_ns() + ns, false); }

int rtg_clock_read_ns(enum rtg_clock_id id, uint64_t *ns)
{
    if (id != RTG_CLK_MONOTONIC)
        return ENOTSUP; /* one clock: no wall time, no raw or boot variant */
    *ns = rtg_mono_ns();
    return 0;
}

/* One count, rounded up to whole ns. */
int rtg_clock_resolution_ns(enum rtg_clock_id id, uint64_t *ns)
{
    if (id != RTG_CLK_MONOTONIC)
        return ENOTSUP;
    uint32_t hz = board_clock_hz();
    *ns = (1000000000ull + hz - 1) / hz;
    return 0;
}

int rtg_lock_memory(void) { return 0; }
int rtg_unlock_memory(void) { return 0; }
