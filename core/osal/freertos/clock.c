/* The measuring clock is the board's (core/boards/cortex_m/clock.c): the
 * core's DWT cycle counter where it counts, else the board's hardware
 * timer, read directly at its known rate (no calibration against another
 * clock: there is none better on the board). Under QEMU's instruction
 * counting (-icount) it counts virtual time, so figures become a cost in
 * instructions (see docs/methodology.md). */
#include "board.h"
#include "rtg/clock.h"

struct rtg_clock_state rtg_clock_g = {.source = RTG_CLOCK_HW_COUNTER};

uint64_t rtg_clock_posix_ticks(void) { return board_clock_ticks(); }

void rtg_clock_init(int force_posix)
{
    (void)force_posix; /* there is no other clock */
    rtg_clock_g.source = RTG_CLOCK_HW_COUNTER;
    rtg_clock_g.freq_hz = board_clock_hz();
    rtg_clock_g.ns_per_tick = 1e9 / rtg_clock_g.freq_hz;
    rtg_clock_g.calibration_error_ppm = 0.0;
}

const char *rtg_clock_source_name(void)
{
    return "hw_counter";
}
