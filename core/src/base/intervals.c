#include "rtg/intervals.h"

static void clear(struct rtg_interval_figs *f)
{
    rtg_stats_init(&f->stats);
    rtg_hist_init(&f->hist);
    f->from_ns = 0;
    f->to_ns = 0;
}

void rtg_intervals_init(struct rtg_intervals *iv, uint64_t every_ns)
{
    iv->every_ns = every_ns ? every_ns : 1;
    iv->live_k = 0;
    clear(&iv->buf[0]);
    clear(&iv->buf[1]);
    iv->live = &iv->buf[0];
    atomic_init(&iv->handed, NULL);
}

void rtg_intervals_give_back(struct rtg_intervals *iv, struct rtg_interval_figs *f)
{
    clear(f);
    atomic_store_explicit(&iv->handed, NULL, memory_order_release);
}

struct rtg_interval_figs *rtg_intervals_last(struct rtg_intervals *iv, uint64_t end_ns)
{
    struct rtg_interval_figs *handed = rtg_intervals_take(iv);
    struct rtg_interval_figs *live = iv->live;
    if (handed) { /* the writer never took it: it goes before the live one */
        rtg_stats_merge(&handed->stats, &live->stats);
        rtg_hist_merge(&handed->hist, &live->hist);
        clear(live);
        iv->live = live = handed;
        atomic_store_explicit(&iv->handed, NULL, memory_order_release);
    }
    live->to_ns = end_ns > live->from_ns ? end_ns : live->from_ns;
    return live;
}
