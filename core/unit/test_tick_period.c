/* A test's period onto the OS's tick (common/tick_period.h): rounded on a
 * tick-based port (FreeRTOS's 1000 Hz, hand-given here), unchanged where
 * the waits are high resolution, as on this build's port. */
#include "common/tick_period.h"
#include "unit.h"

#define US 1000ull

static void on_a_tick(void)
{
    CHECK_EQ_U(rtg_tick_round(500 * US, 1000), 1000 * US); /* THR-P-PRE's default */
    CHECK_EQ_U(rtg_tick_round(50 * US, 1000), 1000 * US);  /* below a tick: one tick */
    CHECK_EQ_U(rtg_tick_round(1000 * US, 1000), 1000 * US);
    CHECK_EQ_U(rtg_tick_round(1400 * US, 1000), 1000 * US); /* to the nearest */
    CHECK_EQ_U(rtg_tick_round(2600 * US, 1000), 3000 * US);
    CHECK_EQ_U(rtg_tick_round(3000 * US, 100), 10000 * US);
    for (uint64_t p = 50 * US; p <= 20000 * US; p += 50 * US) {
        uint64_t r = rtg_tick_round(p, 1000);
        CHECK_EQ_U(r % (1000 * US), 0);
        CHECK(r >= 1000 * US);
    }
}

static void high_resolution(void)
{
    CHECK_EQ_U(rtg_tick_round(500 * US, 0), 500 * US);
    CHECK_EQ_U(rtg_tick_round(1, 0), 1);
    /* This build's port (Linux, or ISO C11 threads) waits on hrtimers. */
    CHECK_EQ_U(rtg_wait_tick_hz(), 0);
    uint64_t t = rtg_mono_ns() + 123457;
    CHECK_EQ_U(rtg_wait_tick_nearest(t), t);
}

int main(void)
{
    on_a_tick();
    high_resolution();
    return unit_report("tick_period");
}
