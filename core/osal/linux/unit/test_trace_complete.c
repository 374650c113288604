/* When a kept window counts as complete: recording began before its
 * start, or before the release with a switch recorded in between (another
 * sample's freeze restarted recording there). Each way it must not be
 * complete is checked too. Times in ns on the trace clock. */
#include <stdbool.h>
#include <stdint.h>

#include "trace_recorder.h"
#include "unit.h"

enum { START = 1000000, RELEASE = 2000000 }; /* a 1 ms lookback */

static struct rtg_tev ev(enum rtg_tev_kind kind, int64_t t)
{
    return (struct rtg_tev){.kind = (uint8_t)kind, .t_ns = t};
}

static bool complete(uint64_t on_since, bool reaches_back, const struct rtg_tev *e, size_t n,
                     uint64_t *start)
{
    *start = START;
    return rtg_tr_window_complete(on_since, RELEASE, reaches_back, e, n, start);
}

static void test_recording_before_the_start(void)
{
    uint64_t start;
    CHECK(complete(START - 1, true, NULL, 0, &start));
    CHECK_EQ_U(start, START);
    CHECK(complete(START, true, NULL, 0, &start));
    CHECK(!complete(START - 1, false, NULL, 0, &start)); /* lost events, not reaching back */
}

static void test_a_freeze_inside_the_lookback(void)
{
    uint64_t start, on = RELEASE - 980000; /* the previous sample froze 20 us after its release */
    struct rtg_tev hog_in[] = {ev(RTG_TEV_IRQ_ENTRY, on + 100), ev(RTG_TEV_SWITCH, RELEASE - 200000),
                               ev(RTG_TEV_WAKING, RELEASE + 13000)};
    CHECK(complete(on, true, hog_in, 3, &start));
    CHECK_EQ_U(start, on); /* the window starts where recording did */
    CHECK(!complete(on, false, hog_in, 3, &start));
}

static void test_what_does_not_say_who_ran(void)
{
    uint64_t start, on = RELEASE - 500000;
    struct rtg_tev no_switch[] = {ev(RTG_TEV_IRQ_ENTRY, on + 10), ev(RTG_TEV_IRQ_EXIT, on + 900)};
    CHECK(!complete(on, true, no_switch, 2, &start));
    CHECK_EQ_U(start, START);
    struct rtg_tev stale[] = {ev(RTG_TEV_SWITCH, (int64_t)on - 1)}; /* before recording began */
    CHECK(!complete(on, true, stale, 1, &start));
    struct rtg_tev late[] = {ev(RTG_TEV_SWITCH, RELEASE + 1)}; /* after the release */
    CHECK(!complete(on, true, late, 1, &start));
    struct rtg_tev at_release[] = {ev(RTG_TEV_SWITCH, RELEASE)};
    CHECK(complete(on, true, at_release, 1, &start));
}

static void test_recording_after_the_release(void)
{
    uint64_t start;
    struct rtg_tev sw[] = {ev(RTG_TEV_SWITCH, RELEASE + 10)};
    CHECK(!complete(RELEASE + 1, true, sw, 1, &start));
    CHECK_EQ_U(start, START);
}

int main(void)
{
    test_recording_before_the_start();
    test_a_freeze_inside_the_lookback();
    test_what_does_not_say_who_ran();
    test_recording_after_the_release();
    return unit_report("trace_complete");
}
