/* A figure's samples cut into intervals of test time, for the records a long
 * test writes as it goes (schema: the interval record). The thread that
 * samples fills one interval; at the first sample past a boundary it hands
 * that interval over and fills the other, so no sample is counted twice or
 * lost and the sampling thread never waits or writes. The writer takes the
 * handed interval, writes it, clears it and gives it back.
 *
 * Fixed memory: two intervals (statistics and histogram each) per figure. */
#ifndef RTG_INTERVALS_H
#define RTG_INTERVALS_H
#include <stdatomic.h>
#include <stdint.h>

#include "rtg/hist.h"
#include "rtg/stats.h"

struct rtg_interval_figs {
    struct rtg_stats stats;
    struct rtg_hist hist;
    uint64_t from_ns, to_ns; /* its samples were taken in [from_ns, to_ns) of test time */
};

struct rtg_intervals {
    uint64_t every_ns;
    uint64_t live_k;                       /* the interval live started in */
    struct rtg_interval_figs *live;        /* the sampling thread's */
    _Atomic(struct rtg_interval_figs *) handed; /* the writer's, or NULL */
    struct rtg_interval_figs buf[2];
};

void rtg_intervals_init(struct rtg_intervals *iv, uint64_t every_ns);
/* Clears f (an interval the writer took and wrote) and hands it back. */
void rtg_intervals_give_back(struct rtg_intervals *iv, struct rtg_interval_figs *f);
/* The writer's: the interval handed over, or NULL. */
static inline struct rtg_interval_figs *rtg_intervals_take(struct rtg_intervals *iv)
{
    return atomic_load_explicit(&iv->handed, memory_order_acquire);
}
/* Once the sampling threads have stopped: the handed interval (if any) and
 * the live one as one, from the handed one's start; the caller writes it. */
struct rtg_interval_figs *rtg_intervals_last(struct rtg_intervals *iv, uint64_t end_ns);

/* The sampling thread's: one sample of ns taken at at_ns. A boundary passed
 * while the writer still holds the other interval: the live one goes on (it
 * then spans more than one interval, and says so). */
static inline void rtg_intervals_add(struct rtg_intervals *iv, uint64_t ns, uint64_t at_ns)
{
    uint64_t k = at_ns / iv->every_ns;
    if (iv->live->stats.count == 0) { /* its first sample: it starts at that interval */
        iv->live->from_ns = k * iv->every_ns;
        iv->live_k = k;
    } else if (k > iv->live_k &&
               atomic_load_explicit(&iv->handed, memory_order_acquire) == NULL) {
        struct rtg_interval_figs *full = iv->live;
        full->to_ns = k * iv->every_ns;
        iv->live = full == &iv->buf[0] ? &iv->buf[1] : &iv->buf[0];
        iv->live->from_ns = full->to_ns;
        iv->live_k = k;
        atomic_store_explicit(&iv->handed, full, memory_order_release);
    }
    rtg_stats_add(&iv->live->stats, ns, at_ns);
    rtg_hist_add(&iv->live->hist, ns);
}

#endif
