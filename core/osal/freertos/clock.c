/* The measuring clock on the board: TIMER1, read directly (no calibration:
 * its rate is the board's 25 MHz system clock by construction). Under
 * QEMU's instruction counting (-icount) it counts virtual time, so figures
 * become a cost in instructions (see docs/methodology.md). */
#include "board/board.h"
#include "rtg/clock.h"

struct rtg_clock_state rtg_clock_g = {.source = RTG_CLOCK_HW_COUNTER,
                                      .ns_per_tick = 1e9 / BOARD_SYSCLK_HZ,
                                      .freq_hz = BOARD_SYSCLK_HZ};

uint64_t rtg_clock_posix_ticks(void) { return board_counter_ticks(); }

void rtg_clock_init(int force_posix)
{
    (void)force_posix; /* there is no other clock */
    rtg_clock_g.source = RTG_CLOCK_HW_COUNTER;
    rtg_clock_g.ns_per_tick = 1e9 / BOARD_SYSCLK_HZ;
    rtg_clock_g.freq_hz = BOARD_SYSCLK_HZ;
    rtg_clock_g.calibration_error_ppm = 0.0;
}

const char *rtg_clock_source_name(void)
{
    return "hw_counter";
}

/* Every tick: the counter is read at least every 172 s, so its 32-bit
 * wrap is always seen (board_counter_ticks). */
void rtg_fr_board_tick(void) { (void)board_counter_ticks(); }
