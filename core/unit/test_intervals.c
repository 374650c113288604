/* Intervals of a figure's samples (rtg/intervals.h): every sample lands in
 * exactly one interval, boundaries fall where the test time says, a writer
 * that holds an interval makes the next one span on, and the last interval
 * gathers what is left once sampling ended. */
#include <stdlib.h>

#include "rtg/intervals.h"
#include "rtg/metric.h"
#include "unit.h"

#define MS 1000000ull

static void hand_over(void)
{
    struct rtg_intervals *iv = malloc(sizeof *iv);
    rtg_intervals_init(iv, 1000 * MS);
    rtg_intervals_add(iv, 10, 0);
    rtg_intervals_add(iv, 30, 999 * MS);
    CHECK(rtg_intervals_take(iv) == NULL); /* no boundary passed yet */
    rtg_intervals_add(iv, 20, 1000 * MS); /* the first sample past it hands [0, 1 s) over */
    struct rtg_interval_figs *f = rtg_intervals_take(iv);
    CHECK(f != NULL);
    if (!f)
        return;
    CHECK_EQ_U(f->stats.count, 2);
    CHECK_EQ_U(f->stats.min, 10);
    CHECK_EQ_U(f->stats.max, 30);
    CHECK_EQ_U(f->hist.total, 2);
    CHECK_EQ_U(f->from_ns, 0);
    CHECK_EQ_U(f->to_ns, 1000 * MS);
    /* the writer still holds it: the live interval spans on past 2 s */
    rtg_intervals_add(iv, 40, 2500 * MS);
    CHECK(rtg_intervals_take(iv) == f);
    rtg_intervals_give_back(iv, f);
    CHECK(rtg_intervals_take(iv) == NULL);
    rtg_intervals_add(iv, 50, 3100 * MS); /* hands [1 s, 3 s) over */
    f = rtg_intervals_take(iv);
    CHECK(f != NULL);
    if (!f)
        return;
    CHECK_EQ_U(f->stats.count, 2);
    CHECK_EQ_U(f->stats.max, 40);
    CHECK_EQ_U(f->from_ns, 1000 * MS);
    CHECK_EQ_U(f->to_ns, 3000 * MS);
    /* sampling ends while the writer never took [1 s, 3 s): the last
     * interval holds both it and the live one */
    rtg_intervals_add(iv, 5, 3200 * MS);
    struct rtg_interval_figs *last = rtg_intervals_last(iv, 3300 * MS);
    CHECK_EQ_U(last->stats.count, 4);
    CHECK_EQ_U(last->stats.min, 5);
    CHECK_EQ_U(last->stats.max, 50);
    CHECK_EQ_U(last->from_ns, 1000 * MS);
    CHECK_EQ_U(last->to_ns, 3300 * MS);
    CHECK(rtg_intervals_take(iv) == NULL);
    free(iv);

    /* a figure whose first sample comes late starts at that sample's interval */
    iv = malloc(sizeof *iv);
    rtg_intervals_init(iv, 1000 * MS);
    rtg_intervals_add(iv, 7, 4200 * MS);
    rtg_intervals_add(iv, 8, 5100 * MS);
    f = rtg_intervals_take(iv);
    CHECK(f != NULL);
    if (f) {
        CHECK_EQ_U(f->from_ns, 4000 * MS);
        CHECK_EQ_U(f->to_ns, 5000 * MS);
        CHECK_EQ_U(f->stats.count, 1);
    }
    free(iv);
}

/* Through a metric: the intervals' counts add up to the figure's, and their
 * maxima's maximum is its maximum. */
static void through_a_metric(void)
{
    struct rtg_metric *m = malloc(sizeof *m);
    rtg_metric_init(m, "timer.wakeup.x.cpu0");
    m->intervals = malloc(sizeof *m->intervals);
    rtg_intervals_init(m->intervals, 100 * MS);
    uint64_t count = 0, max = 0;
    for (uint64_t at = 0; at < 1050 * MS; at += MS) {
        uint64_t v = (at / MS * 7919) % 5000;
        rtg_metric_add(m, v, at);
        struct rtg_interval_figs *f = rtg_intervals_take(m->intervals);
        if (f) {
            count += f->stats.count;
            max = f->stats.max > max ? f->stats.max : max;
            rtg_intervals_give_back(m->intervals, f);
        }
    }
    struct rtg_interval_figs *last = rtg_intervals_last(m->intervals, 1050 * MS);
    count += last->stats.count;
    max = last->stats.max > max ? last->stats.max : max;
    CHECK_EQ_U(count, m->stats.count);
    CHECK_EQ_U(max, m->stats.max);
    struct rtg_json j;
    rtg_json_init(&j);
    rtg_metric_emit_interval(m->name, last, &j);
    CHECK(strstr(j.buf, "\"count\":50,") != NULL);
    CHECK(strstr(j.buf, "\"p99_9\":null") != NULL); /* 50 samples back p90, not p99.9 */
    CHECK(strstr(j.buf, "\"hist\":{\"kind\":\"loglinear\"") != NULL);
    rtg_json_free(&j);
    rtg_metric_free(m);
    free(m);
}

int main(void)
{
    hand_over();
    through_a_metric();
    return unit_report("intervals");
}
