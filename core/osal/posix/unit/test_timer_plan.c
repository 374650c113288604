/* IRQ-P-LAT's reference instant on POSIX: the kernel's own expiry (the
 * absolute time it was given), never a read made before the arming. An
 * arming that outlasts its lead would put its own cost into the first
 * figures: those expiries give no sample (irq/irq_plan.h). */
#include <errno.h>
#include <string.h>

#include "irq/irq_plan.h"
#include "rtg/osal.h"
#include "rtg/osal_timer.h"
#include "unit.h"

#define MS 1000000ull

static volatile int expiries;
static void count(void *arg)
{
    (void)arg;
    expiries++;
}

/* On hand-made plans: which expiries hold the arming. */
static void plans(void)
{
    struct rtg_timer_plan late = {.first_ns = 1000, .period_ns = 100, .armed_ns = 1250};
    uint64_t at = 0;
    CHECK(!rtg_irq_expiry(&late, 0, &at)); /* 1000, 1100, 1200: before the arming returned */
    CHECK(!rtg_irq_expiry(&late, 2, &at));
    CHECK(rtg_irq_expiry(&late, 3, &at));
    CHECK_EQ_U(at, 1300);
    struct rtg_timer_plan ahead = {.first_ns = 1000, .period_ns = 100, .armed_ns = 400};
    CHECK(rtg_irq_expiry(&ahead, 0, &at));
    CHECK_EQ_U(at, 1000);
}

/* A real timer armed with a lead, and one whose lead has already passed
 * (as a slow set-up would leave it): the plan says where the kernel
 * expires it and which of its expiries the arming reaches into. */
static void armed(uint64_t lead_back_ns, bool first_counts)
{
    struct rtg_timer *t = NULL;
    int rc = rtg_timer_create(&t, RTG_TIMER_HANDLER, count, NULL);
    if (rc == ENOTSUP) {
        printf("no handler timers here: skipped\n");
        return;
    }
    CHECK_EQ_U(rc, 0);
    expiries = 0;
    uint64_t before = rtg_mono_ns();
    uint64_t first = first_counts ? before + 5 * MS : before - lead_back_ns;
    struct rtg_timer_plan p;
    memset(&p, 0, sizeof p);
    CHECK_EQ_U(rtg_timer_arm_plan(t, first, MS, &p), 0);
    CHECK_EQ_U(p.first_ns, first);
    CHECK_EQ_U(p.period_ns, MS);
    CHECK(p.armed_ns >= before);
    uint64_t at = 0;
    CHECK(rtg_irq_expiry(&p, 0, &at) == first_counts);
    /* whatever expired before the arming returned gives no sample; the
     * first that does is not before it */
    uint64_t k = 0;
    while (!rtg_irq_expiry(&p, k, &at))
        k++;
    CHECK(at >= p.armed_ns);
    CHECK(at - p.first_ns == k * MS);
    uint64_t limit = rtg_mono_ns() + 5000 * MS; /* a bound, not a wait */
    while (expiries < 3 && rtg_mono_ns() < limit)
        rtg_sleep_until_intr(rtg_mono_ns() + MS);
    CHECK(expiries >= 3);
    rtg_timer_delete(t);
    CHECK(rtg_timer_stamp_ns(rtg_timer_stamp()) >= p.armed_ns);
}

int main(void)
{
    plans();
    armed(0, true);
    armed(3 * MS, false);
    return unit_report("test_timer_plan");
}
